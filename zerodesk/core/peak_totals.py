"""Every moment's total bytes of a traced step, for the fit's many variants (core.peak.moment_totals): the template's
placed moments and FSDP2's collectives in backward summed as arrays, no moment's components built.

The same sums as the moments themselves (core.peak_traced.traced_moments, core.peak_collectives.unit_collectives):
a moment's components add up (the template's bytes by component over what the engine and the states hold there), and
each collective changes a few of them (temporaries, gradients, the reduce-scatter's input and output, the gathered
parameters, the all-gather buffer), so its total is the end's total less the components it replaces plus their new
values. tests/test_peak_totals.py holds both ways equal on random plans. Integer arithmetic (int64 below 2^62 bytes;
None above, and the caller builds the moments). Pure Python and numpy: no torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .peak_engine import unit_bytes
from .peak_traced import _TRACE_GRAD, _less, _Named, _placed, _Placed, depth

# what a collective reads of the end of a unit's backward (or of the head backward's start)
KEYS = ("temporaries", "unsharded_grads", "grads", "reduce_scatter", "gathered_params", "all_gather")
_LIMIT = 2**62


class _Ends:
    """Where a placed step's collectives start (the pairs traced_moments marks "... end" and "... start"), and the
    moments they make, by name: what every variant of one step structure shares."""

    def __init__(self, placed: _Placed, stage: int, kn: Any, layers: int) -> None:
        per_unit, root_only = kn.per_unit, kn.root_only
        idx, marks = [], []
        for k, (phase, name, place, i) in enumerate(placed.places):
            if stage >= 2 and place in ("last", "bwd") and not root_only and i % per_unit == 0:
                idx.append(int(placed.bounds[k + 1]) - 1)
                marks.append((phase, name, i))
        for k, (phase, name, place, _) in enumerate(placed.places):
            if stage == 3 and place == "headb" and not root_only:
                idx.append(int(placed.bounds[k]))
                marks.append((phase, None, None))  # the root gathered again for the head's backward
        self.idx = np.array(idx, dtype=np.intp)
        self.slot = placed.slot[self.idx] if idx else np.zeros(0, dtype=np.intp)
        self.start = np.array([name is None for _, name, _ in marks], dtype=bool)
        # a unit's blocks from its first (the last unit may have fewer), and the unit gathered before it (stage 3)
        self.blocks = [None if i is None else min(i + per_unit, layers) - i for _, _, i in marks]
        self.before = [i - kn.unit_start(i - 1) if stage == 3 and i is not None and i > 0 else None
                       for _, _, i in marks]
        names: list[tuple[str, str]] = []
        for phase, name, i in marks:
            if name is None:
                names.append((phase, "root gathered for the head's backward"))
                continue
            names.append((phase, f"unit reduce-scatter after {name}"))
            if stage == 3 and i > 0:
                names.append((phase, f"unit gathered for its backward after {name}"))
        self.names = tuple(names)
        self._base: dict[int, tuple[Any, np.ndarray]] = {}

    def base(self, terms: list[dict[str, int]]) -> np.ndarray:
        """[key, end]: what the engine holds of KEYS at each end's place (kept by the terms' list, which the placed
        step keeps by what it depends on)."""
        found = self._base.get(id(terms))
        if found is None or found[0] is not terms:
            if len(self._base) >= 64:
                self._base.clear()
            slots = self.slot.tolist()
            found = self._base[id(terms)] = (terms, np.array([[terms[k].get(key, 0) for k in slots] for key in KEYS],
                                                             dtype=np.int64).reshape(len(KEYS), len(slots)))
        return found[1]


def _ends(placed: _Placed, stage: int, kn: Any, layers: int) -> _Ends:
    memo = placed.__dict__.setdefault("_ends", {})
    key = (stage, layers, kn.per_unit, kn.root_only)  # unit_start reads only the unit's size
    if key not in memo:
        memo[key] = _Ends(placed, stage, kn, layers)
    return memo[key]


def traced_totals(plan: Any, stage: int, step: Any, eng: Any, one: Any, resting: dict, inputs: int,
                  kn: Any) -> tuple[tuple, list[int]] | None:
    """((phase, name) per moment, its total bytes) of the template's placed moments and then of the collectives their
    marked ends make (as core.peak.moments with _totals orders them); None where a sum may pass int64."""
    fsdp = stage >= 2
    grad_scale = (eng.grad if fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
    placed = _placed(plan, step, fsdp, grad_scale, False, kn)
    found = placed.at(plan.seq_len, plan.micro_batch, *_less(plan, step, eng.compute))
    r, rounded = found[0], found[2]
    layers, dp = depth(plan), plan.shard_size
    held = sum(resting.values()) + inputs
    sums = placed.term_sums(stage, layers, one, eng, dp, kn)
    if rounded is None or max(sums, default=0) + held >= _LIMIT or abs(held) >= _LIMIT \
            or not resting.keys().isdisjoint(KEYS):  # a state the engine's terms would replace: the moments decide
        return None
    totals = rounded + (np.array(sums, dtype=np.int64) + held)[placed.slot]
    ends = _ends(placed, stage, kn, layers)
    if not len(ends.idx):
        return placed.names, totals.tolist()
    named = _Named.of(eng.compute, fsdp)
    picked = r[ends.idx].reshape(len(ends.idx), -1)
    if picked.size and np.abs(picked).max() * picked.shape[1] >= _LIMIT:
        return None
    own = np.rint(picked).astype(np.int64) @ named.columns  # [end, component]: the template's bytes
    base = ends.base(placed.terms(stage, layers, one, eng, dp, kn))
    comp = {key: base[j] + (own[:, named.keys.index(key)] if key in named.keys else 0) + resting.get(key, 0)
            for j, key in enumerate(KEYS)}
    made = _collective_totals(plan, stage, ends, totals[ends.idx], comp, one, kn)
    return placed.names + ends.names, totals.tolist() + made


def _collective_totals(plan: Any, stage: int, ends: _Ends, total: np.ndarray, c: dict[str, np.ndarray], one: Any,
                       kn: Any) -> list[int]:
    """The totals of the moments core.peak_collectives.unit_collectives makes from the ends, in its order: each
    end's total with the components the collective replaces swapped for their new values."""
    units: dict[int | None, tuple[int, ...]] = {}

    def unit_of(n: int | None) -> tuple[int, ...]:
        if n not in units:
            units[n] = unit_bytes(plan, stage, n, one)
        return units[n]

    grads_u = np.array([unit_of(n)[0] if n is not None else 0 for n in ends.blocks], dtype=np.int64)
    rs_u = np.array([unit_of(n)[1] if n is not None else 0 for n in ends.blocks], dtype=np.int64)
    gathered_u = np.array([unit_of(n)[2] if n is not None else 0 for n in ends.blocks], dtype=np.int64)
    stream, root = unit_of(None)[3], unit_of(None)[4]
    tmp, ug, g, rs, gp, ag = (c[key] for key in KEYS)
    # core.accumulation.unit_reduce_scatter with nothing kept
    own = np.minimum(grads_u, ug)
    output = rs_u // plan.shard_size
    big = output > own
    ug2 = np.where(big, ug - own, ug)
    g2 = np.maximum(0, g) + np.where(big, output, 0)
    copy = total - tmp + stream - rs + rs_u - gp + np.maximum(0, gp - gathered_u) - ug + ug2 - g + g2
    # peak_collectives._gathered_for_backward: the unit before gathered, its all-gather output too without prefetch
    before = np.array([unit_of(n)[2] if n is not None else 0 for n in ends.before], dtype=np.int64)
    gathered = copy - ug2 + (ug - own) - g2 + g + output + before * (1 if kn.prefetch else 2)
    # core.accumulation.root_regather
    regather = total - ug - tmp - ag + root
    out: list[int] = []
    for j, (start, later, a, b, s) in enumerate(zip(ends.start.tolist(), ends.before, copy.tolist(), gathered.tolist(),
                                                    regather.tolist())):
        if start:
            out.append(s)
        else:
            out.append(a)
            if later is not None:
                out.append(b)
    return out
