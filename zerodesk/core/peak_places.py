"""Where the traced step's moments sit in the plan's step, and what the engine holds there (core.peak_traced places
the template's moments at these positions): the block positions checked, how many blocks each of a template's groups
stands for at a place, and the engine's terms (gathered parameters, the all-gather buffer, the reduce-scatter in
flight, the gradient shards of the blocks done; stages 2-3). Pure Python and numpy: no torch.
"""

from __future__ import annotations

from functools import lru_cache
from math import ceil
from typing import Any

import numpy as np

from .step_template import CLASSES, GROUPS


def depth(plan: Any) -> int:
    """Blocks of the plan's model: its architecture's layers, or the block groups of its tensor list."""
    arch = plan.model.architecture
    if arch is not None:
        return arch.layers
    from .architecture_tensors import block_group

    return max(1, len({block_group(n) for n, _ in plan.model.named_shapes or []} - {"root"}))


def positions(layers: int, stage: int, every_block: bool = False,
              per_unit: int = 1) -> list[tuple[str, str, str, int | None]]:
    """(phase, moment name, template place, block) for every moment the step is checked at; every_block: each
    block's backward (blocks that differ, as by a recomputation chosen per block, peak where they will); per_unit:
    the blocks of one FSDP2 unit (1, or N of a unit per N blocks)."""
    last = layers - 1
    out = [("forward", "embedding", "pre", None), ("forward", "first block", "fwd", 0)]
    if last > 0:
        out.append(("forward", "last block", "fwd", last))
    out += [("forward", "head", "head", None), ("forward", "loss", "loss", None),
            ("backward", "loss backward", "lossb", None), ("backward", "head backward", "headb", None),
            ("backward", "last block backward", "last", last)]
    for i in sorted({i for i in ((*range(last),) if every_block else backward_blocks(layers, per_unit))
                     if 0 <= i < last}, reverse=True):
        name = ("block backward" if i == last - 1 else "first block backward" if i == 0
                else "second block backward" if i == 1 else f"block {i + 1} backward")
        out.append(("backward", name, "bwd", i))
    out.append(("backward", "first block reduce-scatter" if stage >= 2 else "end of backward", "tail", None))
    return out


def backward_blocks(layers: int, per_unit: int = 1) -> tuple[int, ...]:
    """The blocks whose backward can hold the most. Between the ends every group grows or shrinks by a block at a
    time: the extremes are at 0, 1, L-2. With units of N blocks what the engine holds depends on a block's place in
    its unit (its unit's later blocks' gradients waiting unsharded) and changes once a unit (the previous unit's
    reduce-scatter input, the next unit prefetched, one unit's gradient shards more) while the saved tensors shrink
    a block at a time: at each place in a unit the extremes are at the first two and the last two units."""
    last = layers - 1
    ends = (last - 1, 1, 0)
    if per_unit <= 1 or per_unit >= layers:
        return ends
    units = -(-layers // per_unit)
    picked = {u for u in (0, 1, units - 2, units - 1) if 0 <= u < units}
    return tuple(sorted({*ends, *(i for u in picked for i in range(u * per_unit, min((u + 1) * per_unit, layers)))}))


def place_block(place: str, i: int | None, layers: int) -> tuple[int, int]:
    """(the block whose own step a place of `positions` is read from, how many blocks before it keep their saved
    tensors then): a block's place is its own; the embedding and the end of backward the first block's; the head
    and the loss the last's, with every block's saves alive."""
    if place in ("fwd", "bwd", "last"):
        return i, i
    if place in ("head", "loss", "lossb", "headb"):
        return layers - 1, layers
    return 0, 0


def _counts(place: str, i: int | None, kinds: list[str]) -> dict[str, int]:
    """How many blocks each group stands for at this place of a step of len(kinds) blocks."""
    layers = len(kinds)
    alike = kinds.count(kinds[0]) == layers if layers else True  # one kind of block: a count, not a walk

    def tally(group: str, lo: int, hi: int) -> None:  # blocks lo..hi-1, by kind
        if hi <= lo:
            return
        if alike:
            c[f"{group}:{kinds[0]}"] = c.get(f"{group}:{kinds[0]}", 0) + hi - lo
            return
        for j in range(lo, hi):
            c[f"{group}:{kinds[j]}"] = c.get(f"{group}:{kinds[j]}", 0) + 1

    c = {"other": 1}
    if place in ("fwd", "bwd", "last"):
        c["self"] = 1
        c["prev"] = 1 if i >= 1 else 0
        tally("before", 0, i - 1)
        if place == "bwd" and i + 1 < layers:
            c["next"] = 1
            tally("far", i + 2, layers)
    elif place in ("head", "loss", "lossb", "headb"):
        c["prev"] = 1
        tally("before", 0, layers - 1)
    elif place == "tail":
        c["next"] = 1
        tally("far", 1, layers)
    return c


@lru_cache(maxsize=1024)
def _weights(counts: tuple[tuple[str, int], ...], fsdp: bool, grad_scale: float) -> Any:
    """[group, class] weights: a group's count; gradients of blocks whose backward is done are gone under FSDP2."""
    w = np.zeros((len(GROUPS), len(CLASSES)))
    for g, n in counts:
        row = GROUPS.index(g)
        w[row, :] = n
        w[row, 2] = 0 if fsdp and g.startswith(("next", "far")) else n * grad_scale
    return w


def engine_terms(stage: int, place: str, i: int | None, layers: int, sh: Any, eng: Any, dp: int,
                 units: Any = None) -> dict[str, int]:
    """What the engine holds at this place beyond states and the template's tensors (stages 2-3: FSDP2, or the
    paper's partitioned step; stages 0-1 hold nothing more).

    sh: one block a group (peak_engine._Shapes). units: the FSDP2 units and prefetch (core.peak_knobs.StepKnobs; None:
    a unit per block, prefetching): a unit of N blocks is gathered, freed and reduce-scattered at once, the later
    blocks of a unit keep their gradients unsharded to its reduce-scatter; with the root only, the root is all."""
    if stage <= 1:
        return {}
    size = units.per_unit if units is not None else 1
    root_only = units is not None and units.root_only
    prefetch = units is None or units.prefetch
    gb, per, whole = eng.gathered, sh.block_padded, sh.all_padded
    root = whole if root_only else sh.root_padded
    shard = eng.shard_grad * ceil(per / dp)  # one block's gradient shard
    s2 = stage == 2

    def start(j: int) -> int:  # the first block of j's unit
        return j - j % size

    def end(j: int) -> int:  # one past the last block of j's unit
        return min((j // size + 1) * size, layers)

    def unit(j: int) -> int:  # elements of j's unit (the last unit may have fewer blocks)
        return 0 if root_only else per * (end(j) - start(j))

    def held(j: int) -> int:  # gathered at block j: stage 2 keeps every unit so far, stage 3 only j's
        if root_only:
            return gb * whole
        return gb * (root + end(j) * per) if s2 else gb * (root + unit(j))

    last = layers - 1
    if place in ("pre", "fwd"):
        i = i or 0
        return {"gathered_params": held(i), "all_gather": gb * (root + unit(i)) if i == 0 else gb * unit(i)}
    if place == "head":  # the last unit's all-gather output is held to the root's post-forward
        return {"gathered_params": gb * whole if s2 else gb * root, "all_gather": gb * unit(last)}
    if place in ("loss", "lossb"):
        return {"gathered_params": gb * whole if s2 else 0}
    if place == "headb":  # stage 3: the root re-gathered for the head's backward, the last unit prefetched
        return {"gathered_params": gb * whole if s2 else gb * root,
                "all_gather": 0 if s2 or not prefetch else gb * unit(last)}
    if place in ("bwd", "last"):
        done = layers - end(i)  # blocks whose unit has reduce-scattered
        return {"gathered_params": held(i),  # the unit before i's prefetched; the unit after i's reduce-scattering
                "all_gather": gb * unit(start(i) - 1) if not s2 and prefetch and start(i) > 0 else 0,
                "reduce_scatter": eng.reduce * unit(end(i)) if done else 0, "grads": shard * done,
                "unsharded_grads": eng.grad * per * (end(i) - i - 1)}
    if place == "tail":
        if root_only:  # every block's gradients wait for the root's reduce-scatter
            return {"gathered_params": gb * whole, "unsharded_grads": eng.grad * per * (layers - 1)}
        return {"gathered_params": gb * root, "reduce_scatter": eng.reduce * unit(0), "grads": shard * layers}
    return {}
