"""Text and JSON renderings of a breakdown, shared by the CLI and the window's "copy table"."""

from __future__ import annotations

from .accounting import SCHEMES, Breakdown, comm_by_link, comm_seconds
from .comm_report import comm_json, comm_layout_json, comm_table
from .knobs import autocast_dtype, blocks_per_unit, checkpoint_counts, knobs_set, unit_spans
from .peak import StagePeak, predict
from .offload_report import offload_json, offload_table
from .options import PROFILE, UNITS
from .plan import Plan, Profile
from .residuals import activation_estimate
from .text import shorten
from .text_table import table
from .units import UNIT_BYTES, fmt_bytes, fmt_count

STAGE_SHARDS = {
    0: "nothing (plain DP)",
    1: "optimizer states",
    2: "+ gradients",
    3: "+ parameters",
}
PROFILE_SOURCE = {p: PROFILE.help_of(p.value) for p in Profile}
PEAK_WARNING = (
    "States fitting in GPU memory is not the peak: activations and temporary buffers come on top "
    "(ZeRO §3.2); the predicted peak adds them, fragmentation is not predicted. "
    "Check it: zerodesk simulate, zerodesk measure."
)
PEAK_SOURCE = ("predicted, closed form: states + activations, logits, gathered 16-bit parameters and "
               "communication buffers at the step's peak moment, as PyTorch's engines keep them on one rank")
PAPER_PEAK_SOURCE = ("predicted, closed form: states + activations, logits and communication buffers at the step's "
                     "peak moment, as the ZeRO paper's step holds them on one rank (its 16-bit parameters used as "
                     "they are, stage 3 gathering one block at a time)")


def peak_source(plan: Plan) -> str:
    """Whose step the predicted peak follows: the plan's profile."""
    return PEAK_SOURCE if plan.profile == Profile.TORCH else PAPER_PEAK_SOURCE


def activation_source(plan: Plan) -> str:
    """Where the activations come from: the model's own step (a template of its structure) or the formulas."""
    from .peak import engine, traced_step

    if plan.model.architecture is None:
        return "no activations (shapes unknown)"
    if traced_step(plan, engine(plan, 2).compute) is not None:
        return "activations traced from the model's own module"
    return "activations from ZeroDesk's closed-form estimate (no step template for this structure)"


def plan_warnings(plan: Plan) -> list[str]:
    """What the figures warn of, one sentence each: FSDP2's dim-0 padding of tensors smaller than Nd (torch profile),
    with its bytes per rank, when it is more than 1% of the stage-3 states."""
    from .torch_profile import dim0_padding

    out = []
    named = plan.model.named_shapes
    if plan.profile == Profile.TORCH and plan.shard_placement == "dim0" and named:
        names, padding = dim0_padding(named, plan.shard_size)  # FSDP2 shards among the shard group
        if names and padding > 0.01 * 16 * plan.params / plan.shard_size:
            out.append(f"FSDP2's default dim-0 sharding pads {len(names)} tensors whose dim 0 is smaller than "
                       f"Nd = {plan.shard_size} (e.g. {names[0]}): each rank stores {fmt_bytes(padding, plan.units)} of padded "
                       f"fp32 parameters and gradients at stages 2-3; --shard-placement auto shards them on their "
                       f"largest dimension")
    return out


def provenance(plan: Plan) -> str:
    """Where the figures come from: 'computed, profile paper (ZeRO paper §3.1/§5), scheme mixed-adam'."""
    if plan.profile == Profile.TORCH:  # the engines fix the scheme; the policy sets what is gathered and reduced
        return (f"computed, profile torch ({PROFILE_SOURCE[Profile.TORCH]}; fp32 params, grads and AdamW states, "
                f"{policy_words(plan)})")
    return f"computed, profile {plan.profile.value} ({PROFILE_SOURCE[plan.profile]}), scheme {plan.scheme.value}"


def policy_words(plan: Plan) -> str:
    """'FSDP2 gathers bf16, reduces fp32; DDP under bf16 autocast': the mixed-precision policy in a phrase."""
    ddp = f"{autocast_dtype(plan)} autocast" if autocast_dtype(plan) else "fp32 compute"
    return f"FSDP2 gathers {plan.param_dtype}, reduces {plan.reduce_dtype}; DDP under {ddp}"


def knobs_json(plan: Plan) -> dict:
    """plan --json's "knobs": the policy, the wrapping and recomputation per block as the plan sets them, the units
    and the blocks each recomputation mode gets (None without the model's blocks)."""
    blocks = plan.model.blocks
    return {
        "param_dtype": plan.param_dtype, "reduce_dtype": plan.reduce_dtype, "autocast": plan.autocast,
        "wrap": plan.wrap, "wrap_blocks": plan.wrap_blocks, "prefetch": plan.prefetch,
        "recompute_every": plan.recompute_every, "recompute_blocks": plan.recompute_blocks,
        "blocks": blocks,
        "fsdp_units": None if blocks is None else len(unit_spans(blocks, blocks_per_unit(plan))) + 1,  # + the root
        "checkpointed_blocks": None if blocks is None else checkpoint_counts(plan, blocks),
    }


def knobs_line(plan: Plan) -> str | None:
    """The knobs away from their defaults, in one line for the table (None when every one is its default)."""
    found = knobs_set(plan)
    if not found:
        return None
    blocks = plan.model.blocks
    counts = checkpoint_counts(plan, blocks) if blocks is not None else None
    per_block = ("; recomputation per block: " + ", ".join(f"{n} {mode}" for mode, n in counts.items() if n)) if counts else ""
    return f"Knobs: {', '.join(found)}{per_block}."


def rank_spread(totals: list[int], unit: str) -> str:
    """'ranks differ: 76.02 GiB (rank 46) to 76.28 GiB (rank 0)' — uneven ZeroRedundancyOptimizer shards."""
    lo, hi = min(range(len(totals)), key=totals.__getitem__), max(range(len(totals)), key=totals.__getitem__)
    return f"ranks differ: {fmt_bytes(totals[lo], unit)} (rank {lo}) to {fmt_bytes(totals[hi], unit)} (rank {hi})"


def unit_note(unit: str) -> str:
    return UNITS.help_of(unit)


def plan_json(plan: Plan, b: Breakdown) -> dict:
    """Stable keys for scripts: schema, params, dp, profile, stages[stage, total_bytes, components, comm_bytes]."""
    act = activation_estimate(plan)
    peaks = predict(plan, b)
    comms = comm_by_link(plan)
    return {
        "schema": 1,
        "kind": "computed",
        "params": b.params,
        "dp": b.dp,
        "profile": b.profile.value,
        "scheme": b.scheme.value,
        "units": plan.units,
        "exact_shapes": b.exact_shapes,
        "gpu_memory_bytes": plan.cluster.gpu_memory_bytes,
        "bandwidth_gbps": plan.bandwidth_gbps,
        **comm_layout_json(plan),
        "stages": [
            {
                "stage": s.stage,
                "total_bytes": s.total_bytes,
                "components": dict(s.components),
                "comm_bytes": s.comm_bytes,
                "comm_seconds": comm_seconds(s.comm_bytes, plan.bandwidth_gbps),
                "comm": comm_json(plan, comms[s.stage]),
                "formula": s.formula,
                "rank_total_bytes": s.rank_totals,
                **peak_json(peaks[s.stage]),
            }
            for s in b.stages
        ],
        "peak_source": peak_source(plan),
        "warnings": plan_warnings(plan),
        "seq_len": plan.seq_len,  # the shape every activation figure and predicted peak is for
        "micro_batch": plan.micro_batch,
        "accum_steps": plan.accum_steps,
        "accum_sync": plan.accum_sync,
        "global_batch": plan.global_batch,  # sequences per optimizer step: micro-batch x accum_steps x Nd
        "recompute": plan.recompute,
        "shard_placement": plan.shard_placement,
        "kernels": plan.kernel_device,
        "activation_source": activation_source(plan),
        "knobs": knobs_json(plan),
        "cuda_allowance_bytes": plan.cuda_allowance_bytes,
        "activation_estimate_bytes": act.total_bytes if act else None,
        "offload": offload_json(plan),
        "notes": [n.text for n in b.notes],
    }


def batch_line(plan: Plan) -> str:
    """The global batch and what the accumulation keeps, in one line."""
    text = (f"Global batch: {plan.global_batch:,} sequences per optimizer step = micro-batch {plan.micro_batch:,} x "
            f"{plan.accum_steps:,} accumulation step{'s' if plan.accum_steps != 1 else ''} x Nd {plan.dp:,}")
    if plan.accum_steps == 1:
        return text + "."
    held = ("whole gradients (reduced in the last micro-batch only)" if plan.accum_sync == "last"
            else "the stage's own gradients (reduced every micro-batch)")
    return f"{text}; between micro-batches each rank keeps {held}, in the peak."


def peak_json(p: StagePeak) -> dict:
    """The per-stage peak keys of plan --json: bytes (int), phase, components (ints)."""
    return {"predicted_peak_bytes": p.total_bytes, "predicted_peak_phase": p.phase,
            "predicted_peak_moment": p.moment, "peak_components": dict(p.components),
            "predicted_peak_complete": p.complete}


def fit_verdict(nbytes: int, gpu: int | None) -> str | None:
    """'fits' or 'over' for a predicted peak on one GPU (None without a GPU size)."""
    if not gpu:
        return None
    return "fits" if nbytes <= gpu else "over"


def _fit(nbytes: int, gpu: int) -> str:
    return f"{100 * nbytes / gpu:.0f}% ({'fits' if nbytes <= gpu else 'over'})"


def plan_table(plan: Plan, b: Breakdown) -> str:
    unit = plan.units
    scale = UNIT_BYTES[unit]
    keys = list(b.stages[0].components)
    gpu = plan.cluster.gpu_memory_bytes
    act = activation_estimate(plan)
    peaks = predict(plan, b)
    header = ["Stage", "Shards", "Formula (bytes)", *keys, f"Total ({unit})", f"Peak, predicted ({unit})",
              f"Comm/step ({unit})", "Comm time"]
    if gpu:
        header += ["States vs GPU", "Peak vs GPU"]
    rows = [header]
    for s in b.stages:
        row = [str(s.stage), STAGE_SHARDS[s.stage], s.formula]
        row += [f"{s.components[k] / scale:,.2f}" for k in keys]
        p = peaks[s.stage]
        row += [f"{s.total_bytes / scale:,.2f}", f"{p.total_bytes / scale:,.2f} ({p.phase})",
                f"{s.comm_bytes / scale:,.2f}", f"{comm_seconds(s.comm_bytes, plan.bandwidth_gbps) * 1e3:,.1f} ms"]
        if gpu:
            row += [_fit(s.total_bytes, gpu), _fit(p.total_bytes, gpu)]
        rows.append(row)

    name = shorten(plan.model.name, 120) if plan.model.name else ("architecture" if plan.model.architecture else "raw count")
    n = plan.cluster.shard_size
    kind = f"{plan.replicas} replicas" if plan.hybrid.value == "hsdp" else "hpZ's secondary parameter shard"
    group = f"; shard group N = {n} ({kind})" if n < plan.dp else ""
    lines = [
        f"ZeroDesk plan — {provenance(plan)}",
        f"Model: {name}, P = {b.params:,} ({fmt_count(b.params)}); Nd = {b.dp}{group}; "
        f"{plan.cluster.nodes} node(s) x {plan.cluster.gpus_per_node} GPU(s)",
    ]
    if gpu:
        lines.append(f"GPU: {plan.cluster.gpu or 'custom'}, {fmt_bytes(gpu, unit)} per GPU")
    lines += [f"Per-rank model-state memory, largest rank, {unit} ({unit_note(unit)}):", "", table(rows, set(range(3, len(header))))]
    if plan.profile == Profile.TORCH:
        uneven = [s for s in b.stages if len(set(s.rank_totals)) > 1]
        for s in uneven:
            lines.append(f"Stage {s.stage} {rank_spread(s.rank_totals, unit)}; the table shows the largest.")
    else:
        spec = SCHEMES[plan.scheme]
        lines.append(f"Scheme bytes per parameter: {spec.bytes_per_param:g} (K = {spec.k:g}); "
                     f"communication per rank per step: stages 0-2 move 2P elements, stage 3 moves 3P (§7), "
                     f"times the ring factor (Nd-1)/Nd = {(b.dp - 1) / b.dp:.3g}, "
                     f"at {plan.bandwidth_gbps:g} GB/s"
                     + ("" if plan.accum_steps == 1 else
                        f"; that is one micro-batch's: a step of {plan.accum_steps:,} repeats the collectives the "
                        "communication table below marks, and Comm/step counts them"))
    if (line := knobs_line(plan)) is not None:
        lines.append(line)
    lines.append("")
    if act:
        lines.append(f"Peak: {peak_source(plan)}; seq {plan.seq_len} x micro-batch {plan.micro_batch}, "
                     f"recompute {plan.recompute}, AdamW {plan.optimizer_impl}, {plan.kernel_device.upper()} "
                     f"kernels, {activation_source(plan)}; the fit verdict uses it.")
        big = peaks[3]
        parts = ", ".join(f"{k} {fmt_bytes(v, unit)}" for k, v in big.components.items())
        lines.append(f"Stage 3 peak ({big.phase}, {big.moment}): {parts}.")
    else:
        lines.append("Peak: states and gathered 16-bit parameters only; activations need the architecture.")
    lines.append(batch_line(plan))
    if plan.cuda_allowance_bytes:
        lines.append(f"The peak includes {fmt_bytes(plan.cuda_allowance_bytes, unit)} set aside for the CUDA context "
                     "and allocator (your allowance).")
    for note in b.notes:
        lines.append(f"Note: {note.text}.")
    for warning in plan_warnings(plan):
        lines.append(f"Warning: {warning}.")
    lines += ["", comm_table(plan, comm_by_link(plan)), ""]
    if plan.offload.value != "none":
        lines += [offload_table(plan), ""]
    lines.append(PEAK_WARNING)
    return "\n".join(lines)


def preset_listing(models: bool, gpus: bool, networks: bool = False) -> str:
    from . import catalog

    out = []
    if models:
        out.append("Model presets (name, P):")
        for m in catalog.model_presets():
            out.append(f"  {m.name:24} {fmt_count(m.to_model_spec().param_count):>9}  {m.label}")
    if gpus:
        out.append("GPU presets (name, memory):")
        for g in catalog.gpu_presets():
            link = f"{g.intra_node_gbps:g} GB/s ({g.intra_node_link})" if g.intra_node_gbps else "no link figure"
            out.append(f"  {g.name:24} {fmt_bytes(g.memory_bytes, 'GiB', 0):>9}  {g.label}; in a node {link}")
    if networks:
        out.append("Network presets (name, per GPU per direction):")
        for n in catalog.network_presets():
            out.append(f"  {n.name:24} {n.gbps:>7g} GB/s  {n.label}")
    return "\n".join(out)


def preset_json(models: bool, gpus: bool, networks: bool = False) -> dict:
    """--list-presets/--list-gpus --json: every preset with its name, label and figures (P, memory in bytes)."""
    from . import catalog

    out: dict = {"schema": 1, "kind": "presets"}
    if models:
        out["models"] = [{"name": m.name, "label": m.label, "params": m.to_model_spec().param_count,
                          "seq_len": m.seq_len, "dp": m.dp} for m in catalog.model_presets()]
    if gpus:
        out["gpus"] = [{"name": g.name, "label": g.label, "memory_bytes": g.memory_bytes,
                        "intra_node_gbps": g.intra_node_gbps} for g in catalog.gpu_presets()]
    if networks:
        out["networks"] = [{"name": n.name, "label": n.label, "gbits_per_gpu": n.gbits_per_gpu, "inter_node_gbps": n.gbps}
                           for n in catalog.network_presets()]
    return out
