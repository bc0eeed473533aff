"""The moments FSDP2's collectives make in backward (stages 2-3): each unit's reduce-scatter copy-in, the unit before
it gathered for its backward, and stage 3's root gathered again for the head's backward (from the places
core.peak_traced marks).
"""

from __future__ import annotations

from .accumulation import root_regather, unit_reduce_scatter
from .peak_engine import Moment, _Shapes, unit_bytes
from .peak_knobs import step_knobs
from .plan import Plan


def unit_collectives(plan: Plan, stage: int, out: list[Moment], one: _Shapes | None = None) -> list[Moment]:
    """The moments FSDP2's collectives in backward make (stages 2-3), from the places core.peak_traced marks.

    Each unit's reduce-scatter, from the end of its backward ("... end"): the unit resharded, its gradients copied
    into the reduce-scatter input beside them (the previous unit's input released first), the block's temporaries
    gone but the residual stream's gradient (core.accumulation.unit_reduce_scatter, nothing kept). A unit of N
    blocks holds N blocks' gradients and an N-block input at once.
    Stage 3's root gathered again for the head's backward, from its first moment ("... start"): the all-gather
    output beside the parameters copied out of it (core.accumulation.root_regather); with FP32 parameters the root
    is twice the bytes, and this is the peak.
    The marked moments themselves stay only for accumulation, which reads them."""
    from .peak_traced import depth, positions

    marked = [m for m in out if m.name.endswith((" end", " start"))]
    if not marked:
        return out
    kn, layers = step_knobs(plan), depth(plan)
    block_of = {name: i for _, name, place, i in positions(layers, stage, every_block=True) if place in ("bwd", "last")}

    def blocks(name: str) -> int:  # the blocks of the unit whose backward ends there (the last may have fewer)
        i = block_of[name[:-4]]
        return min(i + kn.per_unit, layers) - i

    units: dict[int | None, tuple[int, ...]] = {}  # a unit's bytes by its blocks: a few sizes for every block

    def unit_of(n: int | None) -> tuple[int, ...]:
        if n not in units:
            units[n] = unit_bytes(plan, stage, n, one)
        return units[n]

    made, shard = [], plan.shard_size  # a property that reads the cluster: once, not for every unit
    for m in marked:
        if m.name.endswith(" start"):
            made.append(Moment(m.phase, "root gathered for the head's backward",
                               root_regather(m.components, unit_of(None))))
            continue
        name, i = m.name[:-4], block_of[m.name[:-4]]
        unit = unit_of(blocks(m.name))
        copy = unit_reduce_scatter(shard, m.components, 0, unit)
        made.append(Moment(m.phase, f"unit reduce-scatter after {name}", copy))
        if stage == 3 and i > 0:  # then the unit before (in forward order) is gathered for its backward
            before = unit_of(i - kn.unit_start(i - 1))[2]
            made.append(Moment(m.phase, f"unit gathered for its backward after {name}",
                               _gathered_for_backward(shard, m.components, copy, unit, before, kn.prefetch)))
    ids = {id(m) for m in marked}
    return (out if plan.accum_steps > 1 else [m for m in out if id(m) not in ids]) + made


def _gathered_for_backward(shard: int, end: dict[str, int], copy: dict[str, int], unit: tuple[int, ...],
                           gathered: int, prefetch: bool) -> dict[str, int]:
    """Stage 3 just after a unit's reduce-scatter (`copy`, from the end of its backward `end`): its gradients freed and
    its output shard made, the unit before it in forward order copies its parameters (`gathered` bytes) out of their
    all-gather output, both alive a moment: made now without prefetch, with it during the unit's backward (already
    in `end`). Without prefetch with several blocks a unit, this is stage 3's peak."""
    grads, rs = unit[0], unit[1]
    comps = dict(copy)
    waiting = end.get("unsharded_grads", 0)
    comps["unsharded_grads"] = waiting - min(grads, waiting)
    comps["grads"] = end.get("grads", 0) + rs // shard
    comps["gathered_params"] = comps.get("gathered_params", 0) + gathered
    if not prefetch:
        comps["all_gather"] = comps.get("all_gather", 0) + gathered
    return {k: v for k, v in comps.items() if v}
