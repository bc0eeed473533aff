"""A cheap lower bound of the step's own moments under many every-k-th-block recomputation policies of one mode.

core.peak._mixed_moments reads each place of the traced step from its own block's step and adds what the earlier
blocks keep beyond it (sum(saved[j] - own) over the blocks alive). Of that, only the added bytes and which places
are read from which step depend on the policy: the template's bytes at each place (its largest moment, _Placed.best),
the engine's terms and the resting states do not. MixedBound works them out once per stage and mode, then bounds
every every-k-th policy's largest moment in a few array operations instead of placing every moment again (the search
in core.fit_recompute tries ~160 policies an edit at 70B).

The bound is each place's largest moment in float arithmetic less SLACK bytes: the real moments round each of their
template components (at most half a byte each) and sum in integers, so the real largest moment is never below it.
A policy whose bound is over the usable memory does not fit; any other is left to the real moments.
"""

from __future__ import annotations

import numpy as np

from .accounting import Breakdown
from .accumulation import grad_keys, kept_bytes, unsharded
from .peak import traced_step
from .peak_engine import _grad_keys, _Shapes, engine
from .peak_knobs import block_acts, step_knobs
from .peak_traced import _TRACE_GRAD, _less, _placed, depth, place_block
from .plan import Plan

SLACK = 1 << 20  # bytes: far above the rounding of a moment's components (under a byte each, tens of them)


class MixedBound:
    """Lower bounds of the step's own moments (core.peak.moments with _collectives=False) of one stage, for plans
    that recompute `mode` on some blocks and nothing on the rest. None from of() where the step is not traced."""

    def __init__(self, plan: Plan, stage: int, states: Breakdown, sh: _Shapes, cache: dict, mode: str,
                 accumulating: Plan | None = None) -> None:
        self.mode = mode
        self._bounds: np.ndarray | None = None
        eng = engine(plan, stage)
        kn = step_knobs(plan)
        layers = len(kn.modes)
        self.modes = kn.modes
        components = dict(states.stage(stage).components)
        grad_keys = _grad_keys(plan, states)
        held = sum(v for k, v in components.items() if k not in grad_keys) + 2 * 8 * plan.seq_len * plan.micro_batch
        acts = block_acts(plan, eng.compute, ("none", mode), states.params, cache)
        fsdp = stage >= 2
        grad_scale = (eng.grad if fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
        self.own = {m: acts.by_mode[m].per_layer_bytes for m in ("none", mode)}
        self.places = {}  # step's mode -> (each place's bytes less the added, its block, the blocks alive then)
        for m in ("none", mode):
            key = ("step", eng.compute, m)
            step = cache[key] if key in cache else traced_step(plan, eng.compute, m)
            cache[key] = step
            placed = _placed(plan, step, fsdp, grad_scale, True, kn)
            found = placed.at(plan.seq_len, plan.micro_batch, *_less(plan, step, eng.compute))
            _, best = placed.best(found)
            terms = placed.term_sums(stage, depth(plan), sh, eng, plan.shard_size, kn)
            blocks, alive = zip(*(place_block(place, i, layers) for _, _, place, i in placed.places))
            base = np.array(best, dtype=float) + np.array(terms, dtype=float) + held
            if accumulating is not None and fsdp:
                base += _accumulated_shift(accumulating, stage, states, placed.places,
                                           placed.terms(stage, depth(plan), sh, eng, plan.shard_size, kn))
            self.places[m] = (base, np.array(blocks), np.array(alive))

    @classmethod
    def of(cls, plan: Plan, stage: int, states: Breakdown, sh: _Shapes, cache: dict, mode: str) -> "MixedBound | None":
        """For `plan` set to recompute `mode` (on some blocks or all: the policies bound() is asked of differ from it
        only in which blocks). With accumulation the step's moments are those of one micro-batch a step and more
        (core.accumulation adds the later micro-batches' beside them, every place's kept): a bound of the step without
        accumulation bounds it too, and from stage 2 on, where the gradients a place holds are the engine's (the same
        for every moment of the place), each place's bound is raised by what a later micro-batch adds there
        (_accumulated_shift): the kept gradients are most of the peak then, and a bound without them settled few."""
        if plan.model.architecture is None:
            return None
        accumulating = None
        if plan.accum_steps > 1:
            accumulating, plan = plan, plan.model_copy(update={"accum_steps": 1})
        eng = engine(plan, stage)
        if any(traced_step(plan, eng.compute, m) is None for m in ("none", mode)):
            return None
        return cls(plan, stage, states, sh, cache, mode, accumulating)

    def bound(self, every: int) -> float:
        """A lower bound of the largest of the step's own moments with the bound's mode on every `every`-th block
        (the every-th, 2·every-th, ...: core.knobs.recompute_per_block) and none on the rest, some of each."""
        if self._bounds is None:
            self._bounds = self._every_kth()
        return float(self._bounds[every - 1])

    def _every_kth(self) -> np.ndarray:
        """The bounds of every k from 1 to the blocks, in one go: [k, block] arrays."""
        layers = len(self.modes)
        on = (np.arange(1, layers + 1)[None, :] % np.arange(1, layers + 1)[:, None]) == 0
        saved_upto = np.cumsum(np.where(on, self.own[self.mode], self.own["none"]).astype(np.int64), axis=1)
        out = np.full(layers, -np.inf)
        for m, (base, blocks, alive) in self.places.items():
            added = np.where(alive > 0, saved_upto[:, np.maximum(alive, 1) - 1] - self.own[m] * alive, 0)
            wanted = on[:, blocks] == (m == self.mode)
            out = np.maximum(out, np.where(wanted, base + added, -np.inf).max(axis=1))
        return out - SLACK


def _accumulated_shift(plan: Plan, stage: int, states: Breakdown, places: list, terms: list[dict]) -> np.ndarray:
    """[place]: the least a moment core.accumulation adds for a place's moments (stages 2-3) exceeds that place's
    largest one-micro-batch moment by (0 where it may not; core.accumulation.accumulated_totals' changes, which read
    only the place's engine gradients and reduce-scatter input). Within a byte of each rounded figure: SLACK covers it."""
    kept = kept_bytes(plan, stage, states)
    g = np.array([t.get("grads", 0) for t in terms], dtype=float)
    rs = np.array([t.get("reduce_scatter", 0) for t in terms], dtype=float)
    if not unsharded(plan, stage):  # a later micro-batch adds into the kept shards: max(grads, kept) in place of grads
        shift = np.maximum(g, kept) - g
        scatter = np.array([name.endswith("reduce-scatter") for _, name, _, _ in places])
        return np.where(scatter, 0.0, shift)  # a unit's reduce-scatter output is counted otherwise there
    keys = grad_keys(plan, states)
    sharded = sum(v for k, v in states.stage(stage).components.items() if k in keys)
    backward = np.array([phase == "backward" for phase, _, _, _ in places])
    done = np.where(backward, np.minimum(1.0, g / sharded) if sharded else 0.0, 0.0)
    shift = kept * (1 - done)  # the last micro-batch keeps what is not reduced yet
    first = np.where(backward, kept * done - rs - g, 0.0)  # the first keeps what it has reduced, nothing in flight
    middle = np.where(backward, kept - rs - g, 0.0) if plan.accum_steps >= 3 else np.zeros_like(shift)
    return np.maximum(0.0, np.maximum(shift, np.maximum(first, middle)))
