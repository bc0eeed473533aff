"""The lesson's figures: every number a step shows, computed from the core, with its formula.

Qt-free. The lesson teaches the ZeRO paper's own accounting, so whatever the plan says about
profile and scheme, the lesson looks at it through the paper profile and mixed-precision Adam
(K = 12); the trainer changes only the model (P, and its shapes for step 6) and Nd.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .accounting import SCHEMES, STAGES, comm_by_link, compute, section7_bytes, sharded
from .plan import Hybrid, Plan, Profile, Scheme
from .peak import predict
from .residuals import activation_estimate

LESSON_SCHEME = Scheme.MIXED_ADAM
STEP_KINDS = ("bytes", "stage0", "stage1", "stage2", "stage3", "peak", "checklist")
STATE_CLASSES = ("param", "grad", "optimizer")  # drawn bottom-up in this order


@dataclass(frozen=True)
class Number:
    """One figure on screen: its value, what it is, and the formula that gives it.

    bytes: the value in bytes (None for a pure ratio such as the 1.5x of §7, or a time);
    seconds: the value in seconds (a communication time), else None;
    formula: symbolic, in P and Nd ('4P + 12P/Nd'); terms: the symbols the formula uses.
    """

    key: str
    formula: str
    bytes: int | None = None
    ratio: float | None = None
    seconds: float | None = None
    terms: tuple[str, ...] = ("P",)
    source: str = "computed"  # computed | estimated | predicted (later: simulated | measured)


@dataclass(frozen=True)
class OnTop:
    """What comes on top of the states at the step's peak, and where that figure comes from."""

    source: str  # "estimate" (activation estimate) | "none" (shapes unknown); later predicted/simulated/measured
    numbers: tuple[Number, ...] = ()


@dataclass(frozen=True)
class LessonFigures:
    params: int
    dp: int
    seq_len: int
    micro_batch: int
    model_name: str
    components: dict[str, Number]  # step 1: bytes of every component, unsplit
    class_bytes_per_param: dict[str, float]  # param / grad / optimizer -> bytes per parameter (2 / 2 / 12)
    stage_totals: dict[int, Number]  # per-rank model states at each stage
    stage_classes: dict[int, dict[str, int]]  # per-rank bytes by state class at each stage
    stage_components: dict[int, dict[str, int]]  # per-rank bytes by component at each stage
    comm: dict[int, Number]  # bytes moved per rank per step (§7)
    comm_ratio: Number  # stage 3 over stage 0
    on_top: OnTop
    numbers: dict[str, Number] = field(default_factory=dict)  # every number by key
    symbols: dict[str, int] = field(default_factory=dict)  # values of the formulas' symbols (P, Nd, L, tokens, vocab)

    def number(self, key: str) -> Number:
        return self.numbers[key]

    def peak(self, stage: int) -> int | None:
        """The predicted peak of a full step (zerodesk.core.peak), when the shapes are known."""
        number = self.numbers.get(f"peak{stage}")
        return number.bytes if number is not None else None


def lesson_plan(plan: Plan) -> Plan:
    """The plan as the lesson sees it: paper profile, mixed-precision Adam, every state among all Nd (the card's
    stages; a shard group is the main window's)."""
    flat = plan.cluster.model_copy(update={"shard_group": None})
    return plan.model_copy(update={"profile": Profile.PAPER, "scheme": LESSON_SCHEME, "hybrid": Hybrid.HSDP,
                                   "cluster": flat})


def _stage_formula(stage: int) -> str:
    """'16P', '4P + 12P/Nd', '2P + 14P/Nd', '16P/Nd' for the lesson scheme."""
    spec = SCHEMES[LESSON_SCHEME]
    whole = sum(c.bytes_per_param for c in spec.components if not sharded(c.state_class, stage))
    split = sum(c.bytes_per_param for c in spec.components if sharded(c.state_class, stage))
    terms = ([f"{whole:g}P"] if whole else []) + ([f"{split:g}P/Nd"] if split else [])
    return " + ".join(terms)


def on_top_figures(plan: Plan) -> OnTop:
    """The one place that decides what the lesson shows on top of the states (step 6).

    The core's activation estimate (zerodesk.core.residuals), the largest part of what is on top; the
    peak itself, per stage, is the core's prediction (lesson_figures: peak0..peak3).
    """
    estimate = activation_estimate(plan)
    if estimate is None:
        return OnTop("none")
    layers = Number("act_layers", "L × tokens × (what one block saves) + the final norm",
                    bytes=estimate.per_layer_bytes * estimate.layers + estimate.final_norm_bytes, terms=("L", "tokens"),
                    source="estimated")
    logits = Number("act_logits", "tokens × vocab × 10 B (BF16 logits, FP32 copy, log-softmax)",
                    bytes=estimate.logits_bytes, terms=("tokens", "vocab"), source="estimated")
    return OnTop("estimate", (layers, logits))


def lesson_figures(plan: Plan) -> LessonFigures:
    """Every figure of the lesson for this plan (model and Nd), from accounting.compute."""
    plan = lesson_plan(plan)
    breakdown = compute(plan)
    spec = SCHEMES[LESSON_SCHEME]
    p, nd = plan.params, plan.dp
    numbers: dict[str, Number] = {}

    components = {}
    for c in spec.components:
        n = Number(f"comp_{c.key}", f"{c.bytes_per_param:g}P", bytes=breakdown.stage(0).components[c.key])
        components[c.key] = numbers[n.key] = n
    class_bpp = {cls: sum(c.bytes_per_param for c in spec.components if c.state_class == cls) for cls in STATE_CLASSES}
    for cls, bpp in class_bpp.items():
        numbers[f"class_{cls}"] = Number(f"class_{cls}", f"{bpp:g}P", bytes=sum(
            breakdown.stage(0).components[c.key] for c in spec.components if c.state_class == cls))
    numbers["K"] = Number("K", "K = 4 + 4 + 4", ratio=spec.k, terms=())

    stage_totals, stage_classes, stage_components, comm = {}, {}, {}, {}
    for s in STAGES:
        result = breakdown.stage(s)
        stage_totals[s] = numbers[f"stage{s}"] = Number(f"stage{s}", _stage_formula(s), bytes=result.total_bytes,
                                                         terms=("P", "Nd") if s else ("P",))
        stage_components[s] = dict(result.components)
        stage_classes[s] = {cls: sum(result.components[c.key] for c in spec.components if c.state_class == cls)
                            for cls in STATE_CLASSES}
        for cls in STATE_CLASSES:
            split = sharded(cls, s)
            numbers[f"stage{s}_{cls}"] = Number(f"stage{s}_{cls}", f"{class_bpp[cls]:g}P" + ("/Nd" if split else ""),
                                                bytes=stage_classes[s][cls], terms=("P", "Nd") if split else ("P",))
        elements = "3P" if s == 3 else "2P"
        comm[s] = numbers[f"comm{s}"] = Number(f"comm{s}", f"{elements} × {spec.comm_bytes_per_element} B",
                                               bytes=section7_bytes(spec, p, s))  # the paper's large-Nd count
    numbers["comm_ratio"] = Number("comm_ratio", "3P / 2P", ratio=comm[3].bytes / comm[0].bytes, terms=())
    links = comm_by_link(plan)  # §7 in seconds: at least this long a step over the plan's two links
    for s in (2, 3):
        numbers[f"time{s}"] = Number(
            f"time{s}", f"max(in-node bytes / {plan.cluster.intra_node_gbps:g} GB/s, "
                        f"between-node bytes / {plan.cluster.inter_node_gbps:g} GB/s)",
            seconds=links[s].lower_bound_seconds, terms=("Nd",))
    numbers["saving3"] = Number("saving3", "16P / (16P/Nd) = Nd", ratio=stage_totals[0].bytes / stage_totals[3].bytes,
                                terms=("Nd",))
    on_top = on_top_figures(plan)
    for n in on_top.numbers:
        numbers[n.key] = n
    if on_top.numbers:  # the shapes are known: the full step's predicted peak, as the Plan chart shows it
        for s, peak in zip(STAGES, predict(plan, breakdown)):
            numbers[f"peak{s}"] = Number(
                f"peak{s}", f"{_stage_formula(s)} + activations + buffers",
                bytes=peak.total_bytes - peak.components.get("cuda_allowance", 0),
                terms=("P", "Nd", "tokens"), source="predicted")
    numbers["P"] = Number("P", "P", ratio=float(p), terms=("P",))
    numbers["Nd"] = Number("Nd", "Nd", ratio=float(nd), terms=("Nd",))
    symbols = {"P": p, "Nd": nd, "tokens": plan.seq_len * plan.micro_batch}
    arch = plan.model.architecture
    if arch is not None:
        symbols.update(L=arch.layers, vocab=arch.vocab)
    return LessonFigures(p, nd, plan.seq_len, plan.micro_batch, plan.model.name or "", components, class_bpp,
                         stage_totals, stage_classes, stage_components, comm, numbers["comm_ratio"], on_top, numbers, symbols)
