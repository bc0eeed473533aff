"""The Table tab's communication by link (issue 24): per stage, what one rank sends inside its node and between
nodes per step, each collective, and the time at the plan's bandwidths, with the note that says these are lower
bounds. Rows in the table's shape: a label, then one cell per stage. Context "CommRows".
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...core.accounting import comm_by_link
from ...core.comm_links import Collective, StageComm
from ...core.plan import Plan
from ..base import i18n

translate = QCoreApplication.translate  # lupdate reads translate("CommRows", "text")

_OPS = {"all-reduce": "all-reduce", "reduce-scatter": "reduce-scatter", "all-gather": "all-gather",
        "broadcast": "broadcast"}  # names of the collectives, the same in every language (the term list)


def _group(c: Collective) -> str:
    n = i18n.fmt_int(c.size)
    return {
        "all": translate("CommRows", "all {n}"),
        "shard": translate("CommRows", "group of {n}"),
        "replicate": translate("CommRows", "{n} replicas"),
        "secondary": translate("CommRows", "hpZ group of {n}"),
    }[c.group].format(n=n)


def collective_lines(collectives: tuple[Collective, ...], unit: str) -> list[str]:
    """'2 × all-gather, group of 8: 28.00 GB + 0.00 GB' (in the node + between), alike collectives together; the
    count is calls per step (a collective repeated for each of k micro-batches counts k)."""
    merged: list[tuple[Collective, int, int, int]] = []  # (collective, count, intra bytes, inter bytes)
    for c in collectives:
        if merged and (merged[-1][0].op, merged[-1][0].group) == (c.op, c.group):
            first, count, intra, inter = merged[-1]
            merged[-1] = (first, count + c.times, intra + c.intra_node_bytes, inter + c.inter_node_bytes)
        else:
            merged.append((c, c.times, c.intra_node_bytes, c.inter_node_bytes))
    return [translate("CommRows", "{op}, {group}: {intra} + {inter}").format(
        op=(f"{count} × " if count > 1 else "") + _OPS[c.op], group=_group(c), intra=i18n.fmt_bytes(intra, unit),
        inter=i18n.fmt_bytes(inter, unit)) for c, count, intra, inter in merged]


def _bw(gbps: float) -> str:
    return i18n.fmt_number(gbps, 0 if gbps == int(gbps) else 2)


def _link(nbytes: int, seconds: float, unit: str) -> str:
    return f"{i18n.fmt_bytes(nbytes, unit)} · {i18n.fmt_seconds(seconds)}"


def comm_rows(plan: Plan, comms: list[StageComm] | None = None) -> list[list[str]]:
    """Rows: bytes and time inside a node and between nodes, the lower bound, and the collectives."""
    comms = comms if comms is not None else comm_by_link(plan)
    unit, cl = plan.units, plan.cluster
    return [
        [translate("CommRows", "Inside a node per step ({bw} GB/s)").format(bw=_bw(cl.intra_node_gbps)),
         *[_link(c.intra_node_bytes, c.intra_node_seconds, unit) for c in comms]],
        [translate("CommRows", "Between nodes per step ({bw} GB/s)").format(bw=_bw(cl.inter_node_gbps)),
         *[_link(c.inter_node_bytes, c.inter_node_seconds, unit) for c in comms]],
        [translate("CommRows", "Communication time, at least"), *[i18n.fmt_seconds(c.lower_bound_seconds) for c in comms]],
        [translate("CommRows", "Collectives: in the node + between"),
         *["\n".join(collective_lines(c.collectives, unit)) or "—" for c in comms]],
    ]


def _accumulation_note(plan: Plan) -> str:
    """With accumulation, what a step's k micro-batches repeat (core.comm_links.times_per_step); '' without."""
    if plan.accum_steps == 1:
        return ""
    reduced = (translate("CommRows", "gradients are reduced on every micro-batch") if plan.accum_sync == "every" else
               translate("CommRows", "gradients are reduced on the last micro-batch only"))
    return translate("CommRows", "A step here is {k} micro-batches: {reduced}, and parameters resharded between "
                                 "micro-batches (stage 3, and FSDP2's stage 2) are gathered again for each.").format(
        k=i18n.fmt_int(plan.accum_steps), reduced=reduced)


def comm_note(plan: Plan, comms: list[StageComm] | None = None) -> str:
    """The caveat, the layout and §7's observation in seconds for this plan."""
    comms = comms if comms is not None else comm_by_link(plan)
    n = plan.cluster.shard_size
    layout = (translate("CommRows", "shard group of {n}, {r} replicas").format(n=n, r=plan.replicas)
              if plan.shard_size < plan.dp else
              translate("CommRows", "hpZ group of {n}").format(n=n) if n < plan.dp else
              translate("CommRows", "no shard group"))
    two, three = comms[2], comms[3]
    ratio = i18n.fmt_number(three.total_bytes / two.total_bytes, 2) if two.total_bytes else "—"
    accumulation = _accumulation_note(plan)
    return (accumulation + " " if accumulation else "") + translate(
        "CommRows", "Communication by link ({layout}; {nodes} × {gpus} GPUs): ring collectives at nominal bandwidths; "
                    "compute is not modelled and overlap hides part of the time, so these are lower bounds. §7: stage 3 "
                    "moves {ratio}× stage 2's traffic here, at least {t3} against {t2} a step.").format(
        layout=layout, nodes=plan.cluster.nodes, gpus=plan.cluster.gpus_per_node, ratio=ratio,
        t3=i18n.fmt_seconds(three.lower_bound_seconds), t2=i18n.fmt_seconds(two.lower_bound_seconds))
