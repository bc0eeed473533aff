"""Text and JSON renderings of the offload answer, kept apart from the stage table (as the card asks)."""

from __future__ import annotations

from .offload import (
    OffloadBreakdown,
    compute_offload,
    deepspeed_for_plan,
    pressures,
    traffic_seconds,
)
from .plan import Plan
from .text_table import table
from .units import fmt_bytes

SOURCES = {
    "paper": "ZeRO-Offload (Ren et al., 2021, §4) and ZeRO-Infinity (Rajbhandari et al., 2021, §5) bookkeeping",
    "torch": "PyTorch FSDP2 fully_shard(offload_policy=CPUOffloadPolicy())",
}
MEMORY_NAMES = {"gpu": "GPU memory", "host": "host memory per node"}
UNKNOWN = "unknown (needs the architecture)"  # a figure that needs the model's layers, for a raw parameter count


def _figure(nbytes: int | None, unit: str, with_unit: bool = True) -> str:
    """'12.34 GB' (or '12.34' in a table whose header names the unit), or that the figure needs the architecture."""
    if nbytes is None:
        return UNKNOWN
    text = fmt_bytes(nbytes, unit)
    return text if with_unit else text.split()[0]


def verdict(plan: Plan, b: OffloadBreakdown, stage: int) -> str:
    """Which memory runs out first at this stage: 'host memory per node runs out first: 1.2x of 512 GiB'."""
    st = b.stage(stage)
    if not st.applicable:
        return "offload does not apply"
    found = pressures(st, plan.cluster.gpu_memory_bytes, plan.cluster.host_memory_bytes)
    if not found:
        return "give the GPU and host memory to compare"
    tight = found[0]
    name = MEMORY_NAMES[tight.memory]
    share = f"{100 * tight.fraction:.0f}% of {fmt_bytes(tight.available, plan.units)}"
    if tight.fraction > 1:
        return f"{name} runs out first: states need {share}"
    return f"fits; the tightest is {name}: {share} (states only)"


def offload_json(plan: Plan) -> dict | None:
    """Stable keys: per stage gpu/host/nvme bytes and traffic, plus DeepSpeed's cold estimate beside."""
    b = compute_offload(plan)
    if b is None:
        return None
    return {
        "offload": b.offload.value,
        "target": b.target,
        "source": SOURCES[b.profile.value],
        "pcie_gbps": b.pcie_gbps,
        "host_memory_bytes": plan.cluster.host_memory_bytes,
        "stages": [
            {
                "stage": s.stage,
                "applicable": s.applicable,
                **({"reason": s.reason.text} if not s.applicable else {
                    "gpu_bytes": s.gpu_bytes,
                    "gpu_components": dict(s.gpu),
                    "gpu_working_bytes": s.gpu_working_bytes,
                    "host_bytes_per_node": s.host_bytes_per_node,
                    "nvme_bytes_per_node": s.nvme_bytes_per_node,
                    "offloaded_per_rank": dict(s.host_per_rank),
                    "ranks_per_node": s.ranks_per_node,
                    "traffic_bytes": s.traffic_bytes,
                    "traffic_seconds": traffic_seconds(s.traffic_bytes, b.pcie_gbps),
                    "formula": s.formula,
                    "traffic_formula": s.traffic_formula,
                    "verdict": verdict(plan, b, s.stage),
                }),
            }
            for s in b.stages
        ],
        "deepspeed_estimate": [
            {"stage": d.stage, "offload_optimizer": d.offload_optimizer, "offload_params": d.offload_params,
             "zero_init": d.zero_init, "gpu_bytes": d.gpu_bytes, "host_bytes_per_node": d.host_bytes_per_node,
             "formula": d.formula}
            for d in deepspeed_for_plan(plan)
        ],
        "notes": [n.text for n in b.notes],
    }


def offload_table(plan: Plan) -> str:
    """The offload section of `zerodesk plan`: one row per stage, then DeepSpeed's estimate beside."""
    b = compute_offload(plan)
    if b is None:
        return ""
    unit = plan.units
    where = "NVMe" if b.target == "nvme" else "Host"
    rows = [["Stage", f"GPU at rest ({unit})", f"GPU working ({unit})", f"{where}/node ({unit})",
             f"Traffic/step ({unit})", "Traffic time", "Verdict"]]
    why = []
    for s in b.stages:
        if not s.applicable:
            why.append(f"Stage {s.stage}: {s.reason.text}.")
            continue
        store = s.nvme_bytes_per_node if s.on_nvme else s.host_bytes_per_node
        rows.append([str(s.stage), fmt_bytes(s.gpu_bytes, unit).split()[0],
                     _figure(s.gpu_working_bytes, unit, with_unit=False), fmt_bytes(store, unit).split()[0],
                     fmt_bytes(s.traffic_bytes, unit).split()[0],
                     f"{traffic_seconds(s.traffic_bytes, b.pcie_gbps) * 1e3:,.1f} ms", verdict(plan, b, s.stage)])
        why.append(f"Stage {s.stage}: {s.formula}; traffic {s.traffic_formula}; {s.ranks_per_node} rank(s) per node.")
    lines = [f"Offload {b.offload.value} to {where.lower()}, apart from the stages ({SOURCES[b.profile.value]}); "
             f"traffic at {b.pcie_gbps:g} GB/s host<->device per GPU:", ""]
    if len(rows) > 1:
        lines += [table(rows, {1, 2, 3, 4, 5}), ""]
    lines += why
    shown = [s for s in b.stages if s.applicable]
    if shown:
        lines.append(working_line(shown))
    ds = deepspeed_for_plan(plan)
    if ds:
        lines.append("DeepSpeed's cold estimate for the same choice (its formulas: a 1.5x buffer factor, 4L at ZeRO-3):")
        for d in ds:
            lines.append(f"  ZeRO-{d.stage}: GPU {_figure(d.gpu_bytes, unit)}, host {_figure(d.host_bytes_per_node, unit)}"
                         f" per node [{d.formula}]")
        lines += [f"  {line}" for line in deepspeed_beyond(plan, b, ds)]
    lines += [f"Note: {note.text}." for note in b.notes]
    return "\n".join(lines)


def working_line(stages: list) -> str:
    """What the "GPU working" column holds, for the stages shown."""
    parts = ["GPU working: what a stage holds on the GPU on top of its resting states while a layer computes"]
    if any(s.stage == 3 for s in stages):
        parts.append("at stage 3 the layer's gathered 16-bit parameters and its gradients (DeepSpeed's largest "
                     "layer L)")
    if any(s.stage == 2 for s in stages):
        parts.append("0 at stage 2, which gathers nothing")
    if any(s.gpu_working_bytes is None for s in stages):
        parts.append("unknown for a raw parameter count, which has no layers: give a preset, a config or the "
                     "architecture")
    return "; ".join(parts) + "."


def deepspeed_beyond(plan: Plan, b: OffloadBreakdown, ds: list) -> list[str]:
    """Where DeepSpeed's estimate exceeds the memory the plan gives: what that means for the user, one sentence each."""
    out = []
    host, gpu, unit = plan.cluster.host_memory_bytes, plan.cluster.gpu_memory_bytes, plan.units
    for d in ds:
        ours = b.stage(d.stage)
        ours_host = ours.host_bytes_per_node if ours.applicable else None
        if host and d.host_bytes_per_node is not None and d.host_bytes_per_node > host:
            adds = (f"4 bytes per parameter for each of the job's {plan.dp:,} GPUs (max(4N, 16)·P) and a 1.5x buffer"
                    if d.stage == 2 and d.offload_optimizer else "a 1.5x buffer")
            ours_text = f"the {fmt_bytes(ours_host, unit)} ZeroDesk counts" if ours_host else "ZeroDesk's figure"
            out.append(f"ZeRO-{d.stage}: DeepSpeed sizes the host at {fmt_bytes(d.host_bytes_per_node, unit)} per node, "
                       f"more than the node's {fmt_bytes(host, unit)}, so by DeepSpeed's estimator this node is short "
                       f"of host memory; {ours_text} are the offloaded states at rest and DeepSpeed adds {adds}, so "
                       "expect a real run to need more than ZeroDesk's figure and check a first run's host memory "
                       "before relying on it.")
        if gpu and d.gpu_bytes is not None and d.gpu_bytes > gpu:
            out.append(f"ZeRO-{d.stage}: DeepSpeed's GPU estimate ({fmt_bytes(d.gpu_bytes, unit)}) is more than one "
                       f"GPU's {fmt_bytes(gpu, unit)}: by DeepSpeed's sizing the model states alone do not fit.")
    return out
