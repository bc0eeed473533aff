"""Text and JSON renderings of the communication by link (core.comm_links), for the CLI and the window's table."""

from __future__ import annotations

from .comm_links import Collective, StageComm
from .options import Hybrid
from .plan import Plan
from .text_table import table
from .units import UNIT_BYTES

GROUP_NAMES = {"all": "all {n} ranks", "shard": "shard group of {n}", "replicate": "{n} replicas",
               "secondary": "hpZ group of {n}"}
LOWER_BOUND = ("Lower bounds: compute is not modelled, and overlapping communication with compute hides part of "
               "this time; nominal link bandwidths, ring collectives (1/g of a ring with g ranks per node crosses "
               "nodes)")


def layout(plan: Plan) -> str:
    """'N = 8 (shard group), 4 replicas; 4 nodes x 8 GPUs; intra-node 450 GB/s, inter-node 50 GB/s per GPU'."""
    cl = plan.cluster
    if plan.hybrid == Hybrid.HPZ:
        groups = (f"hpZ: stage 3 among all Nd = {plan.dp} ranks, a secondary 16-bit parameter shard among "
                  f"N = {cl.shard_size}")
    elif plan.shard_size == plan.dp:
        groups = f"every state sharded among all Nd = {plan.dp} ranks"
    else:
        groups = f"shard group N = {plan.shard_size}, {plan.replicas} replicas (HSDP)"
    return (f"{groups}; {cl.nodes} node(s) x {cl.gpus_per_node} GPU(s); intra-node {cl.intra_node_gbps:g} GB/s, "
            f"inter-node {cl.inter_node_gbps:g} GB/s per GPU per direction")


def per_step(plan: Plan, when: bool = False) -> str:
    """'per step' or, with accumulation, 'per step of 4 micro-batches' (when: then '(gradients reduced on every
    micro-batch)' or '(... on the last micro-batch only)')."""
    k = plan.accum_steps
    if k == 1:
        return "per step"
    text = f"per step of {k:,} micro-batches"
    if when:
        text += " (gradients reduced on " + ("every micro-batch)" if plan.accum_sync == "every" else
                                             "the last micro-batch only)")
    return text


def collective_label(c: Collective) -> str:
    """'reduce-scatter of gradients (backward), shard group of 8, 8 per node' (', 4 times a step' when repeated)."""
    times = f", {c.times:,} times a step" if c.times > 1 else ""
    return (f"{c.op} of {c.what} ({c.phase}), {GROUP_NAMES[c.group].format(n=c.size)}, {float(c.per_node):g} per node"
            f"{times}")


def comm_json(plan: Plan, comm: StageComm) -> dict:
    """One stage's "comm": per link bytes and seconds per step (of plan.accum_steps micro-batches), the lower bound,
    and each collective (payload_bytes per call, times calls per step, the link bytes of all of them)."""
    return {
        "intra_node": {"bytes": comm.intra_node_bytes, "seconds": comm.intra_node_seconds},
        "inter_node": {"bytes": comm.inter_node_bytes, "seconds": comm.inter_node_seconds},
        "total_bytes": comm.total_bytes,
        "lower_bound_seconds": comm.lower_bound_seconds,
        "collectives": [
            {"op": c.op, "of": c.what, "phase": c.phase, "group": c.group, "ranks": c.size, "per_node": float(c.per_node),
             "payload_bytes": int(c.payload_bytes), "times": c.times, "intra_node_bytes": c.intra_node_bytes,
             "inter_node_bytes": c.inter_node_bytes}
            for c in comm.collectives
        ],
    }


def comm_layout_json(plan: Plan) -> dict:
    """The plan-level keys: the groups and the links' bandwidths."""
    cl = plan.cluster
    return {"shard_group": cl.shard_size, "replicas": plan.replicas, "hybrid": plan.hybrid.value,
            "intra_node_gbps": cl.intra_node_gbps, "inter_node_gbps": cl.inter_node_gbps,
            "dp_per_node": float(cl.dp_per_node), "comm_source": LOWER_BOUND}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}"


def comm_table(plan: Plan, comms: list[StageComm]) -> str:
    """Per stage and collective, the bytes one rank sends over each link per step and their time
    (comms: accounting.comm_by_link(plan))."""
    unit = plan.units
    scale = UNIT_BYTES[unit]
    rows = [["Stage", "Collective", f"Intra-node ({unit})", f"Inter-node ({unit})", "Intra (ms)", "Inter (ms)",
             "Bound (ms)"]]
    cl = plan.cluster
    for c in comms:
        for col in c.collectives:
            rows.append([str(c.stage), collective_label(col), f"{col.intra_node_bytes / scale:,.2f}",
                         f"{col.inter_node_bytes / scale:,.2f}", _ms(col.intra_node_bytes / (cl.intra_node_gbps * 1e9)),
                         _ms(col.inter_node_bytes / (cl.inter_node_gbps * 1e9)), ""])
        rows.append([str(c.stage), "per step", f"{c.intra_node_bytes / scale:,.2f}", f"{c.inter_node_bytes / scale:,.2f}",
                     _ms(c.intra_node_seconds), _ms(c.inter_node_seconds), _ms(c.lower_bound_seconds)])
    indented = "\n".join("  " + line for line in table(rows, {2, 3, 4, 5, 6}).splitlines())  # apart from the stage table
    lines = [f"Communication per rank {per_step(plan, when=True)}, by link ({layout(plan)}):", "", indented,
             f"{LOWER_BOUND}.", section7_line(plan, comms)]
    return "\n".join(lines)


def section7_line(plan: Plan, comms: list[StageComm]) -> str:
    """The card's §7 observation for this plan: stage 3's extra traffic over stage 2, in bytes and seconds."""
    two, three = comms[2], comms[3]
    unit = plan.units
    scale = UNIT_BYTES[unit]
    ratio = f"{three.total_bytes / two.total_bytes:.2f}x" if two.total_bytes else "n/a"
    return (f"Stage 3 vs stage 2 (§7: 1.5x the traffic): {three.total_bytes / scale:,.2f} vs "
            f"{two.total_bytes / scale:,.2f} {unit} per rank {per_step(plan)} ({ratio}), at least "
            f"{_ms(three.lower_bound_seconds)} vs {_ms(two.lower_bound_seconds)} ms at these bandwidths.")
