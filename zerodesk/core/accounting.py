"""Per-rank model-state memory for ZeRO stages 0-3, by component, under an accounting profile.

The `paper` profile follows ZeRO §3.1/§5 generalised to any scheme of bytes per parameter
(components are classed as parameter, gradient or optimizer state; stage 1 shards the optimizer
class, stage 2 also gradients, stage 3 also parameters). The `torch` profile follows what
PyTorch's own engines keep (zerodesk.core.torch_profile), exactly per rank when the shapes are known.
These are model states only: activations, temporary buffers and fragmentation come on top (§3.2).

With a shard group N smaller than Nd (cluster.shard_group) the sharded states are spread over N ranks and
replicated across the Nd/N groups (HSDP, MiCS): the formulas hold with N in place of Nd for what is sharded,
and the torch profile is FSDP2 on a 2-D mesh (replicate, shard), each rank as rank r mod N of N. With
hybrid = hpz (ZeRO++, paper profile) stage 3 stays sharded among all Nd and adds a second shard of the 16-bit
parameters among N. Communication per stage comes from core.comm_links (bytes and seconds per link).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import Literal

from .comm_links import ElementBytes, StageComm, stage_comm
from .figures import FigureError, check_figures
from .knobs import knob_notes, torch_element_bytes
from .notes import Note, note
from .plan import Hybrid, Plan, Profile, Scheme
from .recent import Recent

STAGES = (0, 1, 2, 3)
StateClass = Literal["param", "grad", "optimizer"]


@dataclass(frozen=True)
class ComponentSpec:
    key: str
    bytes_per_param: float
    state_class: StateClass
    dtype: str


@dataclass(frozen=True)
class SchemeSpec:
    scheme: Scheme
    components: tuple[ComponentSpec, ...]
    comm_bytes_per_element: int  # dtype of the gradients reduced
    in_paper: bool  # inside the paper's §3.1 accounting?
    gather_bytes_per_element: int | None = None  # dtype of the parameters gathered, where it differs

    @property
    def bytes_per_param(self) -> float:
        return sum(c.bytes_per_param for c in self.components)

    @property
    def k(self) -> float:
        """The paper's K: optimizer-state bytes per parameter (12 for mixed-precision Adam)."""
        return sum(c.bytes_per_param for c in self.components if c.state_class == "optimizer")


def _c(key: str, b: float, cls: StateClass, dtype: str) -> ComponentSpec:
    return ComponentSpec(key, b, cls, dtype)


SCHEMES: dict[Scheme, SchemeSpec] = {
    Scheme.MIXED_ADAM: SchemeSpec(
        Scheme.MIXED_ADAM,
        (_c("params", 2, "param", "fp16"), _c("grads", 2, "grad", "fp16"), _c("master", 4, "optimizer", "fp32"),
         _c("adam_m", 4, "optimizer", "fp32"), _c("adam_v", 4, "optimizer", "fp32")),
        comm_bytes_per_element=2, in_paper=True),
    Scheme.FP32_ADAM: SchemeSpec(
        Scheme.FP32_ADAM,
        (_c("params", 4, "param", "fp32"), _c("grads", 4, "grad", "fp32"),
         _c("adam_m", 4, "optimizer", "fp32"), _c("adam_v", 4, "optimizer", "fp32")),
        comm_bytes_per_element=4, in_paper=False),
    Scheme.BF16_FP32_GRADS_ADAM: SchemeSpec(
        Scheme.BF16_FP32_GRADS_ADAM,
        # The bf16 .grad is added into the fp32 buffer and freed (Megatron-LM main_grad): 18 B persist,
        # "6 + 12/d" with its distributed optimizer. Gradients reduce in fp32, parameters gather in bf16.
        (_c("params", 2, "param", "bf16"), _c("grad_accum", 4, "grad", "fp32"),
         _c("master", 4, "optimizer", "fp32"), _c("adam_m", 4, "optimizer", "fp32"), _c("adam_v", 4, "optimizer", "fp32")),
        comm_bytes_per_element=4, in_paper=False, gather_bytes_per_element=2),
    Scheme.MIXED_SGD_MOMENTUM: SchemeSpec(
        Scheme.MIXED_SGD_MOMENTUM,
        (_c("params", 2, "param", "fp16"), _c("grads", 2, "grad", "fp16"), _c("master", 4, "optimizer", "fp32"),
         _c("momentum", 4, "optimizer", "fp32")),
        comm_bytes_per_element=2, in_paper=False),
    Scheme.MIXED_ADAM_8BIT: SchemeSpec(
        Scheme.MIXED_ADAM_8BIT,
        (_c("params", 2, "param", "fp16"), _c("grads", 2, "grad", "fp16"), _c("master", 4, "optimizer", "fp32"),
         _c("adam_m", 1, "optimizer", "int8"), _c("adam_v", 1, "optimizer", "int8")),
        comm_bytes_per_element=2, in_paper=False),
}

# Components of the torch profile (fp32 params/grads, AdamW state with step, DDP buckets).
TORCH_COMPONENTS = (
    ComponentSpec("params", 4, "param", "fp32"),
    ComponentSpec("grads", 4, "grad", "fp32"),
    ComponentSpec("optimizer", 8, "optimizer", "fp32"),
    ComponentSpec("comm_buffers", 4, "grad", "fp32"),
)


def _plain_figures(r: "StageResult") -> bool:
    """Every figure of a StageResult a plain int >= 0 (its usual make): what check_figures asks of each, without its
    walk (a memo of peaks makes a stage's states at a dozen Nd values; the walk was most of each). False: the walk
    decides (a float, a bool, another shape)."""
    if type(r.stage) is not int or r.stage < 0 or type(r.comm_bytes) is not int or r.comm_bytes < 0:
        return False
    held = [r.components]
    for run in r.runs:
        if type(run) is not tuple or len(run) != 2 or type(run[0]) is not int or run[0] < 0 or type(run[1]) is not dict:
            return False
        if run[1] is not r.components:
            held.append(run[1])
    for comps in held:
        for v in comps.values():
            if type(v) is not int or v < 0:
                return False
    return True


def sharded(state_class: StateClass, stage: int) -> bool:
    """Stage 1 shards optimizer states, stage 2 also gradients, stage 3 also parameters."""
    return {"optimizer": 1, "grad": 2, "param": 3}[state_class] <= stage


@dataclass(frozen=True)
class StageResult:
    stage: int
    components: dict[str, int]  # bytes on the largest rank, by component
    runs: list[tuple[int, dict[str, int]]]  # every rank's components, run-length: [(count, components), ...]
    comm_bytes: int  # per rank per step
    formula: str

    def __post_init__(self) -> None:
        if not _plain_figures(self):  # the walk names the figure that breaks the invariant
            check_figures(self)

    @property
    def total_bytes(self) -> int:
        return sum(self.components.values())

    @property
    def ranks(self) -> list[dict[str, int]]:
        """Every rank's components in rank order (expanded from the runs: large at large Nd)."""
        return [r for count, r in self.runs for _ in range(count)]

    @property
    def rank_totals(self) -> list[int]:
        """Every rank's total in rank order (expanded from the runs)."""
        out: list[int] = []
        for count, r in self.runs:
            out += [sum(r.values())] * count
        return out

    @property
    def total_range(self) -> tuple[int, int]:
        """(smallest, largest) rank total, read from the runs without expanding them."""
        totals = [sum(r.values()) for _, r in self.runs]
        return min(totals), max(totals)


@dataclass(frozen=True)
class Breakdown:
    params: int
    dp: int
    profile: Profile
    scheme: Scheme
    stages: list[StageResult]
    exact_shapes: bool  # torch profile computed from real tensor shapes
    notes: list[Note] = field(default_factory=list)  # remarks by id (zerodesk.core.notes), the window translates them

    def stage(self, s: int) -> StageResult:
        return self.stages[s]


def paper_stage(spec: SchemeSpec, params: int, dp: int, stage: int) -> dict[str, int]:
    """Bytes per rank by component; a sharded state holds ceil(P/Nd) elements per rank."""
    shard = ceil(params / dp)
    out: dict[str, int] = {}
    for c in spec.components:
        count = shard if sharded(c.state_class, stage) else params
        out[c.key] = ceil(c.bytes_per_param * count)
    return out


def paper_formula(spec: SchemeSpec, stage: int, over: str = "Nd") -> str:
    """The stage's formula in bytes, e.g. '4P + 12P/Nd' — the paper's §5 form, general in K.

    over: what the sharded states are spread over: 'Nd', or 'N' for a shard group (HSDP)."""
    whole = sum(c.bytes_per_param for c in spec.components if not sharded(c.state_class, stage))
    split = sum(c.bytes_per_param for c in spec.components if sharded(c.state_class, stage))
    terms = []
    if whole:
        terms.append(f"{whole:g}P")
    if split:
        terms.append(f"{split:g}P/{over}")
    return " + ".join(terms)


def hpz_secondary_bytes(spec: SchemeSpec, params: int, group: int) -> int:
    """ZeRO++ hpZ's secondary partition: the 16-bit (parameter-class) states sharded among the group's ranks."""
    per_param = sum(c.bytes_per_param for c in spec.components if c.state_class == "param")
    return ceil(per_param * ceil(params / group))


def paper_hybrid(plan: Plan, spec: SchemeSpec, stage: int, params: int | None = None) -> tuple[dict[str, int], str]:
    """(bytes per rank by component, formula) of the paper profile with the plan's shard group.

    hsdp: the stage formulas with N in place of Nd. hpz: stage 3 across Nd, plus the secondary parameter shard
    (counted with the parameters), stages 0-2 as without a group. params: plan.params, where the caller has it (it
    is counted from the architecture each time it is asked)."""
    params, dp, n = plan.params if params is None else params, plan.dp, plan.shard_size
    if plan.hybrid == Hybrid.HPZ:
        comps = paper_stage(spec, params, dp, stage)
        if stage < 3:
            return comps, paper_formula(spec, stage)
        param_key = next(c.key for c in spec.components if c.state_class == "param")
        comps[param_key] += hpz_secondary_bytes(spec, params, plan.cluster.shard_size)
        secondary = sum(c.bytes_per_param for c in spec.components if c.state_class == "param")
        return comps, f"{paper_formula(spec, stage)} + {secondary:g}P/N"
    return paper_stage(spec, params, n, stage), paper_formula(spec, stage, "N" if n < dp else "Nd")


def ring_factor(dp: int) -> float:
    """A ring collective moves (Nd-1)/Nd of the data per rank: 0 with no peer."""
    return (dp - 1) / dp


def section7_bytes(spec: SchemeSpec, params: int, stage: int) -> int:
    """§7's count for large Nd: stages 0-2 move 2Ψ per rank per step (reduce-scatter + all-gather), stage 3 moves 3Ψ.

    Stage 0 all-reduces gradients (both halves in the gradients' dtype); stages 1-3 reduce-scatter
    Ψ gradient elements and all-gather Ψ parameter elements (twice at stage 3) in the parameters' dtype.
    """
    grad = spec.comm_bytes_per_element
    gather = spec.gather_bytes_per_element or grad
    return 2 * params * grad if stage == 0 else params * grad + (2 if stage == 3 else 1) * params * gather


def paper_comm_bytes(spec: SchemeSpec, params: int, stage: int, dp: int) -> int:
    """Bytes one rank moves per step: §7's count times a ring's (Nd-1)/Nd (0 with no peer)."""
    return section7_bytes(spec, params, stage) * (dp - 1) // dp


# Bytes per parameter moved per rank per step by the torch engines before the ring factor (fp32
# grads reduced, bf16 params gathered): DDP all-reduce 8 (2Ψ); torch's ZeRO-1 is DDP's all-reduce
# plus ZeroRedundancyOptimizer's fp32 parameter broadcasts, 12 (3Ψ, measured, not the paper's 2Ψ);
# FSDP2 reduce-scatter fp32 4 + all-gather bf16 2 (stage 3 gathers again for backward: +2).
TORCH_COMM_BYTES_PER_PARAM = {0: 8, 1: 12, 2: 6, 3: 8}


def torch_comm_bytes(params: int, stage: int, dp: int) -> int:
    """Bytes one rank sends per step under the torch engines, ring factor applied (0 at Nd = 1)."""
    return TORCH_COMM_BYTES_PER_PARAM[stage] * params * (dp - 1) // dp


TORCH_FORMULA = {
    0: "16P + 4P buckets",
    1: "8P + 4P buckets + 8P/Nd (whole tensors)",
    2: "16P/Nd (dim 0 padded)",
    3: "16P/Nd (dim 0 padded)",
}


def compute(plan: Plan) -> Breakdown:
    """The per-rank state memory of every stage for this plan."""
    params, dp = plan.params, plan.dp
    comms = comm_by_link(plan)
    rows = _stage_rows(plan, params, dp)
    stages = [StageResult(s, comps, runs, comms[s].total_bytes, formula) for s, (comps, runs, formula) in zip(STAGES, rows)]
    if plan.profile == Profile.TORCH:
        notes = [] if plan.scheme == Scheme.MIXED_ADAM else [note("torch_profile_fixes_scheme", scheme=plan.scheme.value)]
        if plan.model.census is None:
            notes.append(note("raw_count_even_shards"))
    else:
        notes = [] if SCHEMES[plan.scheme].in_paper else [note("scheme_outside_paper", scheme=plan.scheme.value)]
    notes += knob_notes(plan)
    return Breakdown(params, dp, plan.profile, plan.scheme, stages,
                     exact_shapes=plan.profile == Profile.TORCH and plan.model.census is not None, notes=notes)


_Row = tuple[dict[str, int], list[tuple[int, dict[str, int]]], str]  # the largest rank's components, the runs, the formula


def _stage_rows(plan: Plan, params: int, dp: int, every_rank: bool = True) -> list[_Row]:
    """Every stage's states per rank, without its communication (which sweep_dp does not show).

    every_rank=False: the largest rank's figures alone, the runs left empty (the peaks and the sweeps read no more)."""
    if plan.profile == Profile.TORCH:
        return _torch_rows(plan, params, dp) if every_rank else _torch_largest_rows(plan, params, dp)
    spec = SCHEMES[plan.scheme]
    rows = []
    for s in STAGES:
        comps, formula = paper_hybrid(plan, spec, s, params)
        rows.append((comps, [(dp, comps)], formula))
    return rows


def _torch_rows(plan: Plan, params: int, dp: int) -> list[_Row]:
    from . import torch_profile

    shapes = plan.model.census  # the tensors counted by shape, once per tensor list (core.tensor_census)
    rows = []
    for s in STAGES:
        runs = [(n, {c.key: r[c.key] for c in TORCH_COMPONENTS})  # one column order
                for n, r in torch_profile.hybrid_runs(shapes, params, s, dp, plan.shard_size,
                                                      placement=plan.shard_placement)]
        largest = max((r for _, r in runs), key=lambda r: sum(r.values()))
        formula = TORCH_FORMULA[s] if plan.shard_size == dp else TORCH_FORMULA[s].replace("/Nd", "/N")
        rows.append((dict(largest), runs, formula))
    return rows


def _torch_largest_rows(plan: Plan, params: int, dp: int) -> list[_Row]:
    """_torch_rows' largest rank and formula, without the runs: one shard group's ranks (hybrid_runs repeats them
    Nd/N times, so the first largest is the same rank), a few runs whatever Nd is (tests/test_accounting.py holds
    both ways equal on random plans)."""
    from . import torch_profile

    n = plan.shard_size
    if n < 1 or dp % n:
        raise ValueError(f"the shard group ({n}) must divide dp ({dp})")  # as hybrid_runs says
    rows = []
    for s in STAGES:
        group = torch_profile.rank_runs(plan.model.census, params, s, n, placement=plan.shard_placement)
        largest = max((r for _, r in group), key=lambda r: sum(r.values()))
        formula = TORCH_FORMULA[s] if n == dp else TORCH_FORMULA[s].replace("/Nd", "/N")
        rows.append(({c.key: largest[c.key] for c in TORCH_COMPONENTS}, [], formula))
    return rows


def _largest_totals(plan: Plan) -> list[int]:
    """The largest rank's state total per stage: compute's figures, without the communication nor the notes."""
    totals = []
    for s, (comps, _runs, _formula) in zip(STAGES, _stage_rows(plan, plan.params, plan.dp, every_rank=False)):
        bad = [key for key, value in comps.items() if value < 0]
        if bad:  # as StageResult's own check would say: a bug of ours at its source
            raise FigureError(f"stage {s} {bad[0]} is {comps[bad[0]]!r} at Nd {plan.dp}; every figure must be >= 0")
        totals.append(sum(comps.values()))
    return totals


def element_bytes(plan: Plan) -> ElementBytes:
    """What one element of the gradients reduced and the parameters gathered takes, for the plan's profile (the torch
    profile: the plan's mixed-precision policy, core.knobs)."""
    if plan.profile == Profile.TORCH:
        return torch_element_bytes(plan)
    spec = SCHEMES[plan.scheme]
    return ElementBytes(grad=spec.comm_bytes_per_element,
                        gather=spec.gather_bytes_per_element or spec.comm_bytes_per_element)


def comm_by_link(plan: Plan) -> list[StageComm]:
    """Every stage's collectives and the bytes and seconds per rank per step on each link (core.comm_links)."""
    size = element_bytes(plan)
    return [stage_comm(plan, s, size) for s in STAGES]


def comm_seconds(comm_bytes: int, bandwidth_gbps: float) -> float:
    """Time to move the step's bytes at a per-rank bandwidth in GB/s (1 GB = 1e9 B)."""
    return comm_bytes / (bandwidth_gbps * 1e9)


def _sweep_key(plan: Plan, dps: list[int], *more: object) -> tuple:
    # the model by equality, not by its JSON: a million-tensor list compares by identity in microseconds
    return (plan.model, plan.scheme, plan.profile, plan.shard_placement, tuple(dps), *more)


# the last few sweeps: an edit of anything else (Nd, the GPU, the sequence...) and an edit back to a recent model or
# scheme cost a look-up, not a sweep
_FLAT, _HYBRID = Recent(8), Recent(8)


def sweep_dp(plan: Plan, dps: list[int]) -> dict[int, list[int]]:
    """Largest-rank total per stage at each Nd (for the memory-versus-Nd view), flat: every state sharded among
    all Nd ranks (the plan's shard group is left out; sweep_hybrid keeps it). Every point shares the plan's model,
    so a tensor list is counted once for the whole sweep (ModelSpec.census). Recent sweeps are kept."""
    def make() -> dict[int, list[int]]:
        out: dict[int, list[int]] = {s: [] for s in STAGES}
        for nd in dps:
            trial = plan.model_copy(update={"hybrid": Hybrid.HSDP, "cluster": plan.cluster.model_copy(
                update={"dp": None, "nodes": nd, "gpus_per_node": 1, "shard_group": None})})
            for s, total in zip(STAGES, _largest_totals(trial)):
                out[s].append(total)
        return out

    return {s: list(v) for s, v in _FLAT.get(_sweep_key(plan, dps), make).items()}


def sweep_hybrid(plan: Plan, dps: list[int]) -> dict[int, list[int | None]]:
    """The plan's hybrid sharding along Nd, beside sweep_dp's flat curves: the largest rank per stage at each Nd
    its shard group N divides (None elsewhere, and below N). Past N only the replicas grow (HSDP: flat in Nd)."""
    n = plan.shard_size

    def make() -> dict[int, list[int | None]]:
        out: dict[int, list[int | None]] = {s: [] for s in STAGES}
        for nd in dps:
            if nd < n or nd % n:
                for s in STAGES:
                    out[s].append(None)
                continue
            trial = plan.model_copy(update={"cluster": plan.cluster.model_copy(
                update={"dp": None, "nodes": nd, "gpus_per_node": 1, "shard_group": n})})
            for s, total in zip(STAGES, _largest_totals(trial)):
                out[s].append(total)
        return out

    return {s: list(v) for s, v in _HYBRID.get(_sweep_key(plan, dps, n, plan.hybrid), make).items()}
