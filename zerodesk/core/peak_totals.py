"""Every moment's total bytes of a traced step, for the fit's many variants (core.peak.moment_totals): the template's
placed moments and FSDP2's collectives in backward summed as arrays, no moment's components built.

The same sums as the moments themselves (core.peak_traced.traced_moments, core.peak_collectives.unit_collectives):
a moment's components add up (the template's bytes by component over what the engine and the states hold there), and
each collective changes a few of them (temporaries, gradients, the reduce-scatter's input and output, the gathered
parameters, the all-gather buffer), so its total is the end's total less the components it replaces plus their new
values. tests/test_peak_totals.py holds both ways equal on random plans. Integer arithmetic (int64 below 2^62 bytes;
None above, and the caller builds the moments). Pure Python and numpy: no torch. With gradient accumulation:
core.peak_accumulated (StageTotals' subclass) and core.peak_accumulated_pairs (what it adds for the placed moments).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from . import step_template
from .cuda_kernels import saved_less
from .peak_engine import _grad_keys, block_grads, engine, optimizer_temps, unit_bytes
from .peak_knobs import step_knobs, unit_shapes
from .peak_traced import _TRACE_GRAD, _less, _Named, _placed, _Placed, depth

# (imports at the top, not in the functions: a new memo of peaks makes some sixty StageTotals, and each import run in a
# function is ~1 us of importlib's bookkeeping)

@lru_cache(maxsize=256)
def labels(names: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """Each moment's label, "phase: name", a name given twice marked with primes (name, name'): core.peak.moment_totals'."""
    seen: dict[str, int] = {}
    out = []
    for phase, name in names:
        label = f"{phase}: {name}"
        seen[label] = seen.get(label, -1) + 1
        out.append(label + "'" * seen[label])
    return tuple(out)


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
        self._made_order: np.ndarray | None = None

    def made_order(self) -> np.ndarray:
        """Where each moment the ends make lies in [the copies, the units gathered, the roots regathered] (each over
        the ends), in unit_collectives' order: an end's copy and, with a unit before it, that unit gathered; a start's
        root regathered."""
        if self._made_order is None:
            n, order = len(self.before), []
            for e, (start, later) in enumerate(zip(self.start.tolist(), self.before)):
                if start:
                    order.append(2 * n + e)
                    continue
                order.append(e)
                if later is not None:
                    order.append(n + e)
            self._made_order = np.array(order, dtype=np.intp)
        return self._made_order

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
    """The placed step's ends at this stage (kept with it)."""
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
    units: dict[int | None, tuple[int, ...]] = {}

    def unit_of(n: int | None) -> tuple[int, ...]:
        if n not in units:
            units[n] = unit_bytes(plan, stage, n, one)
        return units[n]

    return _summed(placed, found, stage, depth(plan), one, eng, plan.shard_size, kn, resting,
                   sum(resting.values()) + inputs, lambda ends: _unit_arrays(ends, unit_of))


def _summed(placed: _Placed, found: list, stage: int, layers: int, one: Any, eng: Any, dp: int, kn: Any,
            resting: dict, held: int, unit_arrays: Any) -> tuple[tuple, list[int]] | None:
    """traced_totals from a placed step's point (_Placed.at); unit_arrays(ends): _unit_arrays at that point; held:
    what every moment holds beyond the template's and the engine's bytes."""
    r, rounded = found[0], found[2]
    sums = placed.term_sums(stage, layers, one, eng, dp, kn)
    if rounded is None or max(sums, default=0) + held >= _LIMIT or abs(held) >= _LIMIT \
            or not resting.keys().isdisjoint(KEYS):  # a state the engine's terms would replace: the moments decide
        return None
    totals = rounded + (sums_array(placed, sums) + held)[placed.slot]
    ends = _ends(placed, stage, kn, layers)
    if not len(ends.idx):
        return placed.names, totals.tolist()
    template = template_keys(found, ends, _Named.of(eng.compute, stage >= 2))
    if template is None:
        return None
    # [key, end]: KEYS at each end, the engine's and the template's (no resting state among KEYS: checked above)
    comps = ends.base(placed.terms(stage, layers, one, eng, dp, kn)) + template
    made = _collective_totals(dp, ends, totals[ends.idx], comps, kn, *unit_arrays(ends))
    return placed.names + ends.names, totals.tolist() + made


def template_keys(found: list, ends: _Ends, named: _Named) -> np.ndarray | None:
    """end_components' template part ([key, end], what the ends' template bytes add to KEYS) at a point _Placed.at
    found, kept with it: every Nd and stage of a memo asked at that point reads the same (the engine's part is
    theirs). None where the template's bytes may pass int64 (the moments decide)."""
    if len(found) < 5:
        found.append({})
    memo = found[4]
    key = (id(ends), id(named))
    hit = memo.get(key)
    if hit is None or hit[0] is not ends or hit[1] is not named:
        picked = found[0][ends.idx].reshape(len(ends.idx), -1)
        over = picked.size and np.abs(picked).max() * picked.shape[1] >= _LIMIT
        hit = memo[key] = (ends, named, None if over else end_components(np.zeros((len(KEYS), len(ends.idx)),
                                                                                   dtype=np.int64), named, picked))
    return hit[2]


def sums_array(placed: _Placed, sums: list[int]) -> np.ndarray:
    """Each place's engine terms summed (_Placed.term_sums' list) as int64, kept with the placed step by the list
    (the placed step keeps its lists by what they depend on): every point of a variant reads the same."""
    memo = placed.__dict__.setdefault("_sums_array", {})
    found = memo.get(id(sums))
    if found is None or found[0] is not sums:
        if len(memo) >= 64:
            memo.clear()
        found = memo[id(sums)] = (sums, np.array(sums, dtype=np.int64))
    return found[1]


def end_components(base: np.ndarray, named: _Named, picked: np.ndarray) -> np.ndarray:
    """[key, end]: KEYS' bytes at each end: the engine's (`base`) and the template's (`picked`, each end's [class,
    part] bytes, rounded as the moments round them), in one product: the template's entries summed straight into
    KEYS' rows (an entry whose component is not among KEYS adds nothing). Exact integers, as summing per component
    and then picking KEYS' columns."""
    into = named.__dict__.get("_into_keys")
    if into is None:
        to_keys = np.zeros((len(named.keys), len(KEYS)), dtype=np.int64)
        for j, key in enumerate(KEYS):
            if key in named.keys:
                to_keys[named.keys.index(key), j] = 1
        into = named.__dict__["_into_keys"] = named.columns @ to_keys  # [entry, key]: 0 or 1
    return base + (np.rint(picked).astype(np.int64) @ into).T


def _unit_arrays(ends: _Ends, unit_of: Any) -> tuple[Any, ...]:
    """(each end's unit's gradients, reduce-scatter input and gathered parameters, the unit before it gathered, the
    stream's gradient, the root gathered): what _collective_totals reads of unit_bytes."""
    units = {n: unit_of(n) for n in {None, *ends.blocks, *ends.before}}  # a few sizes for every end

    def column(ns: list, j: int) -> np.ndarray:
        return np.array([units[n][j] if n is not None else 0 for n in ns], dtype=np.int64)

    return (column(ends.blocks, 0), column(ends.blocks, 1), column(ends.blocks, 2), column(ends.before, 2),
            units[None][3], units[None][4])


def collective_arrays(shard: int, total: np.ndarray, comps: tuple, kn: Any, grads_u: Any, rs_u: Any,
                      gathered_u: Any, before: Any, stream: int, root: int) -> tuple:
    """Over the ends, with nothing kept: the reduce-scatter's output, the gradients after it, and the totals of the
    collective moments core.peak_collectives.unit_collectives makes (the copy, the unit before gathered for
    backward, the root regathered). `comps`: the ends' components in KEYS' order."""
    tmp, ug, g, rs, gp, ag = comps
    # core.accumulation.unit_reduce_scatter with nothing kept
    own = np.minimum(grads_u, ug)
    output = rs_u // shard
    big = output > own
    ug2 = np.where(big, ug - own, ug)
    g2 = np.maximum(0, g) + np.where(big, output, 0)
    copy = total - tmp + stream - rs + rs_u - gp + np.maximum(0, gp - gathered_u) - ug + ug2 - g + g2
    # peak_collectives._gathered_for_backward: the unit before gathered, its all-gather output too without prefetch
    gathered = copy - ug2 + (ug - own) - g2 + g + output + before * (1 if kn.prefetch else 2)
    # core.accumulation.root_regather
    regather = total - ug - tmp - ag + root
    return output, g2, copy, gathered, regather


def _collective_totals(shard: int, ends: _Ends, total: np.ndarray, c: np.ndarray, kn: Any,
                       grads_u: Any, rs_u: Any, gathered_u: Any, before: Any, stream: int, root: int) -> list[int]:
    """The totals of the moments core.peak_collectives.unit_collectives makes from the ends, in its order: each
    end's total with the components the collective replaces swapped for their new values. c: [key, end], KEYS'."""
    # collective_arrays' three totals in fewer array operations (the same int64 sums, regrouped: the copy's
    # gradients and reduce-scatter output swap to max(output - own, 0) - min(g, 0); the unit gathered for backward
    # reads neither): tests/test_peak_totals.py holds them equal to the moments built
    tmp, ug, g, rs, gp, ag = c
    own = np.minimum(grads_u, ug)
    output = rs_u // shard
    held = total - tmp - rs - gp + np.maximum(gp - gathered_u, 0) + (stream + rs_u)
    copy = held + np.maximum(output - own, 0) - np.minimum(g, 0)
    gathered = held - own + (output + before * (1 if kn.prefetch else 2))
    regather = total - ug - tmp - ag + root
    return np.concatenate((copy, gathered, regather))[ends.made_order()].tolist()


_TEMPLATES: dict[tuple[int, int, int], tuple[Any, Any, Any]] = {}  # by the (immutable) architecture, carried template
# and installs


def _template(arch: Any, carried: Any) -> Any:
    """step_template.template_for, kept by the objects asked (a plan's variants share its model's): working out the
    structure's key each time was most of a new memo's StageTotals."""
    template_for = step_template.template_for
    if step_template._OFF:  # templates switched off (step_template.off)
        return template_for(arch, carried)
    key = (id(arch), id(carried), step_template.INSTALLS[0])
    found = _TEMPLATES.get(key)
    if found is None or found[0] is not arch or found[1] is not carried:
        if len(_TEMPLATES) >= 64:
            _TEMPLATES.clear()
        found = _TEMPLATES[key] = (arch, carried, template_for(arch, carried))
    return found[2]


class Shared:
    """What the StageTotals of one plan's variants (a memo of peaks: each stage, recomputation and Nd its own) share:
    the engine per stage, the step's knobs per recomputation, the units' shapes per Nd's shapes, the placed steps.
    Each is what a StageTotals worked out for itself before, kept by what it reads of a variant (the variants differ
    only in the recomputation, the micro-batch, the sequence and Nd: core.fit_peaks), so every figure is the same;
    a new memo of 70B's made each some fifty times."""

    def __init__(self) -> None:
        self._engines: dict[int, Any] = {}
        self._knobs: dict[tuple, Any] = {}
        self._unit_shapes: dict[tuple, tuple[Any, Any]] = {}
        self._placed: dict[tuple, tuple[Any, _Placed]] = {}
        self._modes: dict[Any, tuple[str, ...]] = {}
        self._grad_keys: set[str] | None = None

    def engine(self, plan: Any, stage: int) -> Any:
        """peak_engine.engine: it reads the profile, the scheme and the dtypes, none of them a variant's."""
        if stage not in self._engines:
            self._engines[stage] = engine(plan, stage)
        return self._engines[stage]

    def knobs(self, plan: Any) -> Any:
        """peak_knobs.step_knobs, by the recomputation (the rest it reads is the plan's, the same in its variants)."""
        key = (plan.recompute, plan.recompute_every,
               None if plan.recompute_blocks is None else tuple(plan.recompute_blocks))
        if key not in self._knobs:
            self._knobs[key] = step_knobs(plan)
        return self._knobs[key]

    def modes(self, plan: Any) -> tuple[str, ...]:
        """The recomputation modes the step's blocks use, each once (StageTotals.of serves one)."""
        kn = self.knobs(plan)
        if kn not in self._modes:
            self._modes[kn] = tuple(set(kn.modes))
        return self._modes[kn]

    def grad_keys(self, plan: Any, b: Any) -> set[str]:
        """peak_engine._grad_keys: the breakdown's profile and the plan's scheme, the same in its variants."""
        if self._grad_keys is None:
            self._grad_keys = _grad_keys(plan, b)
        return self._grad_keys

    def unit_shapes(self, one: Any, kn: Any) -> Any:
        """peak_knobs.unit_shapes by the shapes' identity (a memo keeps one per Nd) and the knobs."""
        key = (id(one), kn.root_only, kn.per_unit, len(kn.modes))  # all it reads of the knobs
        found = self._unit_shapes.get(key)
        if found is None or found[0] is not one:
            found = self._unit_shapes[key] = (one, unit_shapes(one, kn, len(kn.modes)))
        return found[1]

    def placed(self, plan: Any, step: Any, fsdp: bool, grad_scale: float, kn: Any) -> _Placed:
        """peak_placed._placed: it reads the plan's architecture (the same in its variants), the step, FSDP2 or not,
        the gradients' scale and the units (a template keeps its steps: a few per plan)."""
        key = (id(step), fsdp, grad_scale, kn.per_unit, kn.root_only)
        found = self._placed.get(key)
        if found is None or found[0] is not step:
            found = self._placed[key] = (step, _placed(plan, step, fsdp, grad_scale, False, kn))
        return found[1]


class StageTotals:
    """moment_totals of one stage of a plan at any micro-batch and sequence (the fit's variants of one recomputation
    and Nd): what does not depend on those two (the engine, the states, the units, the template) worked out once.
    of() gives None where moment_totals would not sum a traced step (a choice per block, no template), or where the
    plan accumulates gradients (core.peak_accumulated.AccumulatedTotals serves those); a call gives None at a point it
    cannot sum (no step traced there, or past int64): ask moment_totals there."""

    accumulating = False  # the plans it serves: one micro-batch a step (a subclass serves accumulation)

    def __init__(self, plan: Any, stage: int, b: Any, one: Any, template: Any, mode: str,
                 shared: "Shared | None" = None) -> None:
        self.plan, self.stage, self.one, self.template, self.mode = plan, stage, one, template, mode
        self.shared = shared = Shared() if shared is None else shared
        self.eng = eng = shared.engine(plan, stage)
        self.kn = kn = shared.knobs(plan)
        states = dict(b.stage(stage).components)
        grad_keys = shared.grad_keys(plan, b)
        self.resting = {k: v for k, v in states.items() if k not in grad_keys}
        self.rest = sum(self.resting.values())
        self.sh = sh = shared.unit_shapes(one, kn)
        tail: list[tuple[tuple[str, str], int]] = []  # core.peak.moments' last moments, less their inputs
        # the root's reduce-scatter's components but its inputs (moments' own order; with accumulation they are read)
        self.root = (dict(self.resting, inputs=0, grads=block_grads(sum(v for k, v in states.items() if k in grad_keys),
                                                                    sh),
                          unsharded_grads=eng.grad * sh.root_padded, reduce_scatter=eng.reduce * sh.root_padded)
                     if stage >= 2 else None)
        if self.root is not None:
            tail.append((("backward", "root reduce-scatter"), sum(self.root.values())))
        temps = optimizer_temps(plan, stage, one)
        tail.append((("optimizer", "optimizer step"), sum(dict(states, inputs=0, optimizer_temps=temps).values())))
        self.b, self.states, self.temps = b, states, temps
        self.tail_names = tuple(n for n, _ in tail)
        self.tail = [v for _, v in tail]
        self.layers, self.dp = depth(plan), plan.shard_size
        self.fsdp = stage >= 2
        self.grad_scale = (eng.grad if self.fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
        arch = plan.model.architecture
        self.hidden = arch.hidden if arch is not None else 0
        self.cuda = plan.kernel_device == "cuda" and arch is not None
        self.units: dict[int, tuple[_Ends, tuple]] = {}  # _unit_arrays by the ends (the stream's gradient aside)
        self._labels: dict[int, tuple[Any, tuple[str, ...]]] = {}  # by the placed step

    @classmethod
    def of(cls, plan: Any, stage: int, b: Any, one: Any, shared: "Shared | None" = None) -> "StageTotals | None":
        """shared: what the variants of one plan share (Shared), where the caller makes many (a memo of peaks)."""
        arch = plan.model.architecture
        shared = Shared() if shared is None else shared
        modes = shared.modes(plan)
        if len(modes) > 1 or (arch is None and not plan.model.step_template) \
                or (plan.accum_steps > 1) != cls.accumulating:  # accumulation: peak_accumulated.AccumulatedTotals
            return None
        template = _template(arch, plan.model.step_template)
        if template is None:
            return None
        return cls(plan, stage, b, one, template, modes[0] if modes else plan.recompute, shared)

    def __call__(self, batch: int, seq: int) -> tuple[tuple[str, ...], list[int]] | None:
        arch, eng = self.plan.model.architecture, self.eng
        step = self.template.step(arch, seq, eng.compute, self.mode, batch)
        if step is None:
            return None
        placed = self.shared.placed(self.plan, step, self.fsdp, self.grad_scale, self.kn)
        less = saved_less(arch, seq, batch, eng.compute, self.plan.recompute, step.attention) if self.cuda else (0, 0)
        found = placed.at(seq, batch, *less)
        stream = eng.stream * seq * batch * self.hidden

        def unit_arrays(ends: _Ends) -> tuple[Any, ...]:
            known = self.units.get(id(ends))
            if known is None or known[0] is not ends:
                known = self.units[id(ends)] = (ends, _unit_arrays(ends, self.unit_bytes))
            return (*known[1][:4], stream, known[1][5])

        return self._sum(step, placed, found, batch, seq, unit_arrays)

    def unit_bytes(self, blocks: int | None) -> tuple[int, int, int, int, int]:
        """core.peak_engine.unit_bytes(plan, stage, blocks, one) from what this holds (the engine, the units' shapes):
        the same five figures."""
        eng = self.eng
        unit = self.sh.block_padded if blocks is None else self.one.block_padded * blocks
        stream = eng.stream * self.plan.seq_len * self.plan.micro_batch * self.hidden
        return eng.grad * unit, eng.reduce * unit, eng.gathered * unit, stream, eng.gathered * self.one.root_padded

    def floor(self, batch: int, seq: int) -> int | None:
        """The largest of the step's last moments (the root's reduce-scatter, the optimizer's step) at a point: a
        lower bound of the peak there that places no template moment (a few additions), where a call would sum the
        traced step (None where no step is traced there: moment_totals' moments are the closed form's then)."""
        if self.template.step(self.plan.model.architecture, seq, self.eng.compute, self.mode, batch) is None:
            return None
        return max(self._tail_totals(2 * 8 * seq * batch))

    def _tail_totals(self, inputs: int) -> list[int]:
        """The last moments' totals, as a call lists them (core.peak_accumulated's subclass: with accumulation)."""
        return [v + inputs for v in self.tail]

    def _sum(self, step: Any, placed: _Placed, found: list, batch: int, seq: int,
             unit_arrays: Any) -> tuple[tuple[str, ...], list[int]] | None:
        """The totals at a point from its placed step (core.peak_accumulated's subclass: with accumulation)."""
        inputs = 2 * 8 * seq * batch
        summed = _summed(placed, found, self.stage, self.layers, self.one, self.eng, self.dp, self.kn, self.resting,
                         self.rest + inputs, unit_arrays)
        if summed is None:
            return None
        names, totals = summed
        known = self._labels.get(id(placed))
        if known is None or known[0] is not placed:
            known = self._labels[id(placed)] = (placed, shared_labels(placed, (
                "plain", self.stage, self.layers, self.kn.per_unit, self.kn.root_only, self.tail_names),
                lambda: names + self.tail_names))
        return known[1], totals + self._tail_totals(inputs)


def shared_labels(placed: _Placed, key: tuple, names: Any) -> tuple[str, ...]:
    """labels(names()) kept with the placed step by all the names read (`key`: the ends' key, _ends, and what follows
    the placed moments): the stages and Nd values of a memo, each its own StageTotals, label one step once."""
    memo = placed.__dict__.setdefault("_labels", {})
    if key not in memo:
        if len(memo) >= 64:
            memo.clear()
        memo[key] = labels(names())
    return memo[key]

