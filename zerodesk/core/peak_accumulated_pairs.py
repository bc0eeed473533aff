"""With gradient accumulation, what core.accumulation adds for each of a traced step's placed moments, summed as
arrays (core.peak.moments and core.peak_accumulated read it): each added moment's total is its placed moment's and a
change by place (stages 2-3: the engine's gradients and reduce-scatter there) or by moment (stages 0-1: the template's
gradients). tests/test_accumulation.py holds both ways equal on random plans. Integer arithmetic (int64 below 2^62;
None above, and the caller builds the moments). Pure Python and numpy: no torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .peak_totals import _LIMIT, KEYS, sums_array
from .peak_traced import _TRACE_GRAD, _less, _placed, _Placed, depth


def accumulated_pairs(plan: Any, stage: int, step: Any, eng: Any, one: Any, resting: dict, inputs: int, kn: Any,
                      b: Any) -> tuple[tuple, list[int], tuple, list[int]] | None:
    """With accumulation: ((phase, name) per placed moment, its total, (phase, name) per moment core.accumulation
    adds for them, its total), in accumulate's order, no moment built (the marked ends, FSDP2's collectives and the
    last moments are the caller's: a few). None where a sum may pass int64: the caller builds the moments.

    A placed moment's gradients and reduce-scatter are the engine's at its place (stages 2-3) or the template's
    gradients (stages 0-1, FSDP2 not in the way), so each added moment is its moment's total and a change by place
    (or by moment, stages 0-1). tests/test_accumulation.py holds both ways equal on random plans."""
    from .accumulation import grad_keys, kept_bytes, unsharded

    fsdp = stage >= 2
    grad_scale = (eng.grad if fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
    placed = _placed(plan, step, fsdp, grad_scale, False, kn)
    found = placed.at(plan.seq_len, plan.micro_batch, *_less(plan, step, eng.compute))
    sharded = sum(v for k, v in b.stage(stage).components.items() if k in grad_keys(plan, b))
    return placed_pairs(placed, found, stage, depth(plan), plan.shard_size, one, eng, kn, resting,
                        sum(resting.values()) + inputs, kept_bytes(plan, stage, b), unsharded(plan, stage),
                        plan.accum_steps >= 3, sharded)


def placed_pairs(placed: _Placed, found: list, stage: int, layers: int, dp: int, one: Any, eng: Any, kn: Any,
                 resting: dict, held: int, kept: int, whole: bool, k3: bool,
                 sharded: int) -> tuple[tuple, list[int], tuple, list[int]] | None:
    """accumulated_pairs from a placed step's point (_Placed.at): held, what every moment holds beyond the template's
    and the engine's bytes; kept, whole, k3, sharded: core.accumulation's kept gradients, whether they are the whole
    model's, 3 steps or more, and the stage's gradient shards."""
    from .accumulation import KEPT
    from .step_template import CLASSES

    r, rounded = found[0], found[2]
    sums = placed.term_sums(stage, layers, one, eng, dp, kn)
    if rounded is None or max(sums, default=0) + abs(held) >= _LIMIT or KEPT in resting \
            or not resting.keys().isdisjoint(KEYS):
        return None
    totals = rounded + (sums_array(placed, sums) + held)[placed.slot]
    src, kind, names = _added(placed, whole, k3)
    if not whole and stage < 2:  # the template's gradients, moment by moment (stages 0-1 keep them as "grads")
        own = np.rint(r[:, CLASSES.index("grad"), :]).astype(np.int64).sum(axis=1)
        added = totals[src] + np.maximum(own, kept)[src] - own[src]
        return placed.names, totals.tolist(), names, added.tolist()
    change = _place_changes(placed, placed.terms(stage, layers, one, eng, dp, kn), dp, kept, whole, sharded)
    added = totals[src] + (change[placed.slot[src]] if not whole else change[kind, placed.slot[src]])
    return placed.names, totals.tolist(), names, added.tolist()


def _place_changes(placed: _Placed, terms: list[dict[str, int]], dp: int, kept: int, whole: bool,
                   sharded: int) -> np.ndarray:
    """What accumulation changes of a moment's total by place (stages 2-3: the engine's gradients and reduce-scatter
    there): [place] for a later micro-batch reducing every one; [kind, place] (the last, the first, a middle
    micro-batch) for the whole model's gradients kept. Kept with the placed step, by the terms' list."""
    memo = placed.__dict__.setdefault("_changes", {})
    key = (id(terms), dp, kept, whole, sharded)
    found = memo.get(key)
    if found is not None and found[0] is terms:
        return found[1]
    if len(memo) >= 64:
        memo.clear()
    grads = np.array([t.get("grads", 0) for t in terms], dtype=np.int64)  # by place: the engine's (stages 2-3)
    rs = np.array([t.get("reduce_scatter", 0) for t in terms], dtype=np.int64)
    if not whole:
        scatter = np.array([name.endswith("reduce-scatter") for _, name, _, _ in placed.places]) & (grads != 0)
        change = np.where(scatter, kept + rs // dp, np.maximum(grads, kept)) - grads
    else:
        backward = [phase == "backward" for phase, _, _, _ in placed.places]
        done = [0.0 if not back or not sharded else min(1.0, g / sharded) for back, g in zip(backward, grads.tolist())]
        last = np.array([round(kept * (1 - d)) for d in done], dtype=np.int64)
        first = np.array([round(kept * d) for d in done], dtype=np.int64) - rs - grads
        middle = kept - rs - grads
        change = np.stack([last, first, middle])  # [kind, place]
    memo[key] = (terms, change)
    return change


def _added(placed: _Placed, whole: bool, k3: bool) -> tuple[Any, Any, tuple]:
    """(the placed moment each added moment comes from, its kind: 0 a later / the last micro-batch, 1 the first, 2 a
    middle one, its (phase, name)) in accumulate's order (kept with the placed step)."""
    memo = placed.__dict__.setdefault("_added", {})
    if (whole, k3) not in memo:
        src, kind, names = [], [], []
        for n, (phase, name) in enumerate(placed.names):
            if not whole:
                src.append(n), kind.append(0), names.append((phase, f"{name}, later micro-batch"))
                continue
            src.append(n), kind.append(0), names.append((phase, f"{name}, last micro-batch"))
            if phase == "backward":
                src.append(n), kind.append(1), names.append((phase, f"{name}, first micro-batch"))
                if k3:
                    src.append(n), kind.append(2), names.append((phase, f"{name}, middle micro-batch"))
        memo[whole, k3] = (np.array(src, dtype=np.intp), np.array(kind, dtype=np.intp), tuple(names))
    return memo[whole, k3]
