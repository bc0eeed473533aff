"""Every moment's total bytes of a traced step with gradient accumulation (core.peak_totals.StageTotals at a point):
core.peak.moments' accumulated sequence summed as arrays, no moment's components built.

moments() lists, after the template's placed moments: the marked ends of FSDP2's units (and stage 3's head backward
start), the collectives they make (core.peak_collectives), the root's reduce-scatter and the optimizer's step; then
what core.accumulation adds for the placed moments (core.peak_accumulated_pairs), and for each of those others
(core.accumulation.accumulated_totals). Every added total reads only a moment's total, its gradients and its
reduce-scatter input (and for a unit's end its components, as unit_reduce_scatter does): the ends' components are the
arrays core.peak_totals._summed builds, the collectives' follow from them. tests/test_peak_totals.py holds this equal to
moment_totals on random accumulating plans. Integer arithmetic (int64 below 2^62; None above, and the caller's slower
way answers). Pure Python and numpy: no torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .accumulation import KEPT, accumulated_totals, grad_keys, kept_bytes, unsharded
from .peak_engine import Moment
from .peak_accumulated_pairs import placed_pairs
from .peak_totals import (_LIMIT, KEYS, Shared, StageTotals, _ends, collective_arrays, end_components,
                          shared_labels, sums_array)
from .peak_traced import _Named, _Placed


class AccumulatedTotals(StageTotals):
    """StageTotals for a plan that accumulates gradients: of() gives None for one micro-batch a step."""

    accumulating = True

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._largest: tuple[int, ...] | None = None  # unit_bytes of the largest unit
        self._accumulation: tuple | None = None  # (kept, whole, 3 steps or more, the gradient shards)

    def _sum(self, step: Any, placed: _Placed, found: list, batch: int, seq: int,
             unit_arrays: Any) -> tuple[tuple[str, ...], list[int]] | None:
        return accumulated_stage_totals(self, placed, found, batch, seq, unit_arrays)

    def _tail_totals(self, inputs: int) -> list[int]:
        return _tail(self, inputs)[2]


def _tail(st: AccumulatedTotals, inputs: int) -> tuple[int, tuple, list[int]]:
    """(the step's last moments, the root's reduce-scatter and the optimizer's step: how many; the names and totals
    of those and of what accumulation adds for them, core.accumulation.accumulated_totals) at a point's inputs."""
    tail = []
    if st.root is not None:
        tail.append(Moment("backward", "root reduce-scatter", {k: v for k, v in dict(st.root, inputs=inputs).items()
                                                                if v}))
    comps = dict(st.states, inputs=inputs)
    comps["optimizer_temps"] = st.temps
    tail.append(Moment("optimizer", "optimizer step", comps))
    names, totals = accumulated_totals(st.plan, st.stage, tail, st.b)  # no unit's end among them
    return len(tail), names, totals


def stage_totals(plan: Any, stage: int, b: Any, one: Any, shared: Shared | None = None) -> StageTotals | None:
    """StageTotals.of, or AccumulatedTotals.of for a plan that accumulates gradients (shared: StageTotals.of's)."""
    return (AccumulatedTotals if plan.accum_steps > 1 else StageTotals).of(plan, stage, b, one, shared)


def accumulated_stage_totals(st: AccumulatedTotals, placed: _Placed, found: list, batch: int, seq: int,
                             unit_arrays: Any) -> tuple[tuple[str, ...], list[int]] | None:
    """StageTotals `st` at (batch, seq) for a plan with accumulation: (each moment's label, its total bytes) as
    moment_totals gives them; None where no step can be summed there (the caller asks moment_totals)."""
    # nothing accumulation reads of the tail's moments, nor of the largest unit but its stream's gradient (not read
    # here), moves with the point: the plan as the totals were made for serves
    plan = st.plan
    stage, eng, one, kn, resting, b = st.stage, st.eng, st.one, st.kn, st.resting, st.b
    inputs = 2 * 8 * seq * batch
    if st._accumulation is None:  # what accumulation keeps: the same at every point
        keys = grad_keys(plan, b)
        st._accumulation = (kept_bytes(plan, stage, b), unsharded(plan, stage), plan.accum_steps >= 3,
                            sum(v for k, v in b.stage(stage).components.items() if k in keys))
    kept, whole, k3, sharded = st._accumulation
    pairs = placed_pairs(placed, found, stage, st.layers, st.dp, one, eng, kn, resting, st.rest + inputs, kept, whole,
                         k3, sharded)
    if pairs is None:
        return None
    n, tail_names, tail_totals = _tail(st, inputs)
    ends = _ends(placed, stage, kn, st.layers)
    if len(ends.idx):
        if st._largest is None:  # the largest unit's bytes (accumulation reads them for every unit's reduce-scatter)
            st._largest = st.unit_bytes(None)
        made = _ends_and_collectives(st, placed, found, ends, inputs, unit_arrays(ends), st._largest, kept, plan)
        if made is None:
            return None
        own_totals, added_totals = made
    else:
        own_totals, added_totals = [], []
    names = _names(st, placed, pairs, ends, tail_names, n, plan)
    return names, (pairs[1] + own_totals + tail_totals[:n] + pairs[3] + added_totals + tail_totals[n:])


def _names(st: AccumulatedTotals, placed: _Placed, pairs: tuple, ends: Any, tail_names: list, n: int, plan: Any) -> tuple[str, ...]:
    """The labels in moments' order (kept by the placed step: its names, the ends' and the tail's are its own)."""
    known = st._labels.get(("accumulated", id(placed)))
    if known is not None and known[0] is placed:
        return known[1]
    whole, k3 = unsharded(plan, st.stage), plan.accum_steps >= 3
    key = ("accumulated", st.stage, st.layers, st.kn.per_unit, st.kn.root_only, tuple(tail_names), n, whole, k3)
    names = shared_labels(placed, key, lambda: _labelled(placed, pairs, ends, tail_names, n, whole, k3))
    st._labels[("accumulated", id(placed))] = (placed, names)
    return names


def _labelled(placed: _Placed, pairs: tuple, ends: Any, tail_names: list, n: int, whole: bool,
              k3: bool) -> tuple[tuple[str, str], ...]:
    """_names' (phase, name) pairs, before labels() marks a name given twice."""
    own, added = [], []
    marked = [placed.places[k][:2] for k in placed.slot[ends.idx].tolist()]
    for (phase, name), start in zip(marked, ends.start.tolist()):
        own.append((phase, f"{name} start" if start else f"{name} end"))
    own += list(ends.names)
    for phase, name in own:
        if name.endswith(" start"):
            name = "root gathered for the head's backward"
        if not whole:
            added.append((phase, f"{name[:-4]}, its reduce-scatter, later micro-batch" if name.endswith(" end")
                          else f"{name}, later micro-batch"))
            continue
        added.append((phase, f"{name}, last micro-batch"))
        added.append((phase, f"{name}, first micro-batch"))  # every end and collective is backward's
        if k3:
            added.append((phase, f"{name}, middle micro-batch"))
    return pairs[0] + tuple(own) + tuple(tail_names[:n]) + pairs[2] + tuple(added) + tuple(tail_names[n:])


def _ends_and_collectives(st: AccumulatedTotals, placed: _Placed, found: list, ends: Any, inputs: int, units: tuple,
                          largest: tuple[int, ...], kept: int, plan: Any) -> tuple[list[int], list[int]] | None:
    """(the totals of the marked ends and of the collectives they make, in moments' order; the totals accumulation
    adds for each of them, in its order), or None past int64."""
    stage, eng, dp = st.stage, st.eng, st.dp
    r, rounded = found[0], found[2]
    sums = placed.term_sums(stage, st.layers, st.one, eng, dp, st.kn)
    held = st.rest + inputs
    if rounded is None or max(sums, default=0) + held >= _LIMIT or abs(held) >= _LIMIT or kept >= _LIMIT \
            or not st.resting.keys().isdisjoint(KEYS) or KEPT in st.resting:
        return None
    total = (rounded + (sums_array(placed, sums) + held)[placed.slot])[ends.idx]
    named = _Named.of(eng.compute, True)
    picked = r[ends.idx].reshape(len(ends.idx), -1)
    if picked.size and np.abs(picked).max() * picked.shape[1] >= _LIMIT:
        return None
    # KEYS at each end, the engine's and the template's (no resting state among KEYS: checked above)
    tmp, ug, g, rs, gp, ag = end_components(ends.base(placed.terms(stage, st.layers, st.one, eng, dp, st.kn)), named,
                                            picked)
    grads_u, rs_u, gathered_u, before, stream, root = units
    if max(int(total.max()), kept) * 4 >= _LIMIT:
        return None
    # the collectives with nothing kept, with each one's gradients and reduce-scatter
    output, g2, copy, gathered, regather = collective_arrays(dp, total, (tmp, ug, g, rs, gp, ag), st.kn, grads_u,
                                                             rs_u, gathered_u, before, stream, root)
    # each end's own (total, gradients, reduce-scatter input) as accumulation reads it (a start: the root regathered),
    # and each collective's, in unit_collectives' order (_Ends.made_order: an end's copy, then the unit before it
    # gathered; a start's root regathered once more)
    start = ends.start
    mark_t = np.where(start, regather, total)
    order = ends.made_order()
    made_t = np.concatenate((copy, gathered, regather))[order]
    made_g = np.concatenate((g2, g + output, g))[order]
    own_totals = total.tolist() + made_t.tolist()  # the ends' own (a start's unchanged), the collectives
    whole, k3 = unsharded(plan, stage), plan.accum_steps >= 3
    if not whole:
        # a unit's end: its reduce-scatter in a later micro-batch (core.accumulation.unit_reduce_scatter, the largest
        # unit, the kept shards); the rest: the kept shards in place of the moment's own gradients
        grads_l, rs_l, gathered_l = largest[0], largest[1], largest[2]
        own_l = np.minimum(grads_l, ug)
        out_l = rs_l // dp
        big_l = out_l > own_l
        later = (total - tmp + stream - rs + rs_l - gp + np.maximum(0, gp - gathered_l) - ug
                 + np.where(big_l, ug - own_l, ug) - g + np.maximum(kept, g) + np.where(big_l, out_l, 0))
        return own_totals, (np.where(start, mark_t - g + np.maximum(g, kept), later).tolist()
                            + (made_t - made_g + np.maximum(made_g, kept)).tolist())
    added: list[int] = []
    made_rs = np.concatenate((rs_u, rs_u, rs))[order]
    marks = zip(mark_t.tolist() + made_t.tolist(), g.tolist() + made_g.tolist(), rs.tolist() + made_rs.tolist())
    sharded = st._accumulation[3]
    for t, gi, rsi in marks:  # every one is backward's: the last, the first and a middle micro-batch
        done = 0.0 if not sharded else min(1.0, gi / sharded)
        quiet = t - rsi - gi
        added.append(t + round(kept * (1 - done)))
        added.append(quiet + round(kept * done))
        if k3:
            added.append(quiet + kept)
    return own_totals, added
