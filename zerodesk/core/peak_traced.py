"""The predicted peak's moments from the model's own step (core.step_template), placed in the plan's step.

A template gives every moment of a block's forward and backward, of the head, the loss and the embedding's
backward, as bytes by group (the block it is in, its neighbours, the blocks before and after it, the rest) and
class (kept from forward, made in backward, gradients). A moment of the plan's step is one of those at a block
position (the first, the last, the one before the last, ...), its groups counted for the plan's depth, plus what
the engine holds there (peak_engine.Engine): gathered parameters and the all-gather buffer, the reduce-scatter in flight,
the gradient shards of the blocks done. FSDP2 has reduce-scattered the gradients of every block whose backward is
done; DDP keeps them (and the paper's stages 0-1 keep them in their gradient buffer).

Each moment's bytes are A + B x micro-batch at a fixed sequence (the template's polynomials are linear in b);
the peak is the largest. The moments as placed and evaluated are core.peak_placed's (re-exported here), the
positions and the engine's terms there core.peak_places'. Pure Python and numpy: no torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cuda_kernels import saved_less
from .peak_placed import (_NAMES, _TERMS, _TRACE_GRAD, BF16, FP32, _component_keys, _kinds_of, _Named,  # noqa: F401
                          _placed, _Placed, _placed_unscaled, placed_form)  # noqa: F401
from .peak_places import (_counts, _weights, backward_blocks, depth, engine_terms, place_block,  # noqa: F401
                          positions)
from .step_template import CompiledStep


def _less(plan: Any, step: CompiledStep, compute: str) -> tuple[int, int]:
    """What CUDA kernels keep less (core.cuda_kernels): per block, and at the final norm."""
    arch = plan.model.architecture
    if plan.kernel_device == "cuda" and arch is not None:
        return saved_less(arch, plan.seq_len, plan.micro_batch, compute, plan.recompute, step.attention)
    return 0, 0


def traced_moments(plan: Any, stage: int, step: CompiledStep, eng: Any, sh: Any, resting: dict, inputs: int,
                   top_only: bool = False,
                   units: Any = None, every_block: bool = False, totals_only: bool = False,
                   only: Any = None, more: Any = None, ends_only: bool = False, with_ends: bool = True) -> list[tuple]:
    """(phase, name, components) of every moment the template places; top_only: only the largest of each phase;
    totals_only (not with top_only): ((phase, name) per moment, total bytes per moment) instead, the components
    never built (the fit's question).

    The placed moments and their last points are memoised (placed_form, _Placed.at): a plan's stages 2 and 3, an
    edited plan and a fit's variants share them.
    units: the FSDP2 units and prefetch (engine_terms). every_block: each block's backward placed (positions), and
    each moment's (phase, name, components, place, block). only: a test of (place, block) that the places whose
    moments are wanted pass (all of them by default; not with totals_only). more: the activations' bytes a place's
    moments hold beyond the template's, by (place, block) (none by default; not with totals_only).
    At stages 2-3 the moments also hold, named "... end", the end of each FSDP2 unit's backward (the last moment of
    its first block's): its reduce-scatter comes next (core.accumulation.unit_reduce_scatter); and at stage 3,
    named "... start", the head backward's first: the root is gathered again just before it
    (core.accumulation.root_regather). ends_only: only those (what the fit's totals lack); with_ends=False: none of them
    (no collectives are made from them)."""
    fsdp = stage >= 2
    grad_scale = (eng.grad if fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
    placed = _placed(plan, step, fsdp, grad_scale, every_block, units)
    found = placed.at(plan.seq_len, plan.micro_batch, *_less(plan, step, eng.compute))
    r, rounded = found[0], found[2]
    layers, dp = depth(plan), plan.shard_size  # FSDP2 shards among the shard group
    if totals_only and not top_only:  # a moment's total: what every moment of its place holds, and its own bytes
        held = sum(resting.values()) + inputs
        extras = [held + terms for terms in placed.term_sums(stage, layers, sh, eng, dp, units)]
        if rounded is not None and max(extras) < 2**62:
            return placed.names, (rounded + np.array(extras, dtype=np.int64)[placed.slot]).tolist()
        own = [sum(round(x) for x in row) for row in r.reshape(len(r), -1).tolist()]
        return placed.names, [extras[k] + v for k, v in zip(placed.slots, own)]
    terms = placed.terms(stage, layers, sh, eng, dp, units)
    wanted = [only is None or only(place, i) for _, _, place, i in placed.places]
    added = [more(place, i) if more is not None and want else 0
             for (_, _, place, i), want in zip(placed.places, wanted)]
    if ends_only:
        chosen = []
    elif top_only:  # the largest moment of each place, and of its phase so far (with accumulation, of each place:
        best: dict[Any, tuple] = {}  # it adds each place its own)
        by_place = plan.accum_steps > 1
        for (phase, _, place, i), held, n, own, want, add in zip(placed.places,
                                                                 placed.term_sums(stage, layers, sh, eng, dp, units),
                                                                 *placed.best(found), wanted, added):
            if not want:
                continue
            total = held + own + add
            key = (phase, place, i) if by_place else phase
            if key not in best or total > best[key][0]:
                best[key] = (total, n)
        chosen = [n for _, n in best.values()]
    elif only is not None:
        chosen = [n for n, k in enumerate(placed.slots) if wanted[k]]
    else:
        chosen = list(range(len(placed.moment)))
    # the end of each unit's backward: its reduce-scatter comes next (core.accumulation.unit_reduce_scatter)
    ends = [int(placed.bounds[k + 1]) - 1 for k, (_, _, place, i) in enumerate(placed.places)
            if with_ends and fsdp and place in ("last", "bwd") and wanted[k]
            and (units is None or not units.root_only and i % units.per_unit == 0)]
    # and, at stage 3, the head's backward's first: the root is gathered for it just before (core.accumulation)
    ends += [int(placed.bounds[k]) for k, (_, _, place, _) in enumerate(placed.places)
             if with_ends and stage == 3 and place == "headb" and wanted[k]
             and (units is None or not units.root_only)]
    chosen = [*chosen, *ends]
    if not chosen:
        return []
    named = _Named.of(eng.compute, fsdp)
    bases = {}  # per place of a chosen moment: what every moment there holds beyond the template's bytes, and
    for k in dict.fromkeys(placed.slots[n] for n in chosen):  # whether the engine holds one of the template's
        base = dict(resting, inputs=inputs)  # components too (never so far)
        base.update({key: v for key, v in terms[k].items() if v})
        bases[k] = (*placed.places[k][:2], base, not base.keys().isdisjoint(named.keys))
    picked = r[list(chosen)].reshape(len(chosen), -1)  # [moment, class x part]
    if picked.size and np.abs(picked).max() < 2.0**62:  # the usual: round in one go, exactly as round() does
        values = np.rint(picked).astype(np.int64)
    else:
        values = np.array([[round(x) for x in row] for row in picked.tolist()], dtype=object)
    slots, places = placed.slots, placed.places
    sums = (values @ named.columns).tolist()  # [moment, component]
    masks = ((values != 0) @ named.bits).tolist()  # which [class, part] entries are not 0
    present = named.present
    out = []
    for j, (n, row, mask) in enumerate(zip(chosen, sums, masks)):
        phase, name, base, clash = bases[slots[n]]
        name = (f"{name} start" if places[slots[n]][2] == "headb" else f"{name} end") \
            if j >= len(chosen) - len(ends) else name
        keys, pick = present[mask] if mask in present else named.learn(mask)
        comps = base.copy()
        if not clash:
            comps.update(zip(keys, pick(row)))
        else:
            for key, value in zip(keys, pick(row)):
                comps[key] = comps.get(key, 0) + value
        if added[slots[n]]:
            comps["activations"] = comps.get("activations", 0) + added[slots[n]]
        out.append((phase, name, comps, *places[slots[n]][2:]) if every_block else (phase, name, comps))
    return out
