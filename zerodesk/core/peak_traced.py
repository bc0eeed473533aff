"""The predicted peak's moments from the model's own step (core.step_template), placed in the plan's step.

A template gives every moment of a block's forward and backward, of the head, the loss and the embedding's
backward, as bytes by group (the block it is in, its neighbours, the blocks before and after it, the rest) and
class (kept from forward, made in backward, gradients). A moment of the plan's step is one of those at a block
position (the first, the last, the one before the last, ...), its groups counted for the plan's depth, plus what
the engine holds there (peak.Engine): gathered parameters and the all-gather buffer, the reduce-scatter in flight,
the gradient shards of the blocks done. FSDP2 has reduce-scattered the gradients of every block whose backward is
done; DDP keeps them (and the paper's stages 0-1 keep them in their gradient buffer).

Each moment's bytes are A + B x micro-batch at a fixed sequence (the template's polynomials are linear in b);
the peak is the largest. Pure Python and numpy: no torch.
"""

from __future__ import annotations

from functools import lru_cache
from math import ceil
from typing import Any

import numpy as np

from .cuda_kernels import blocks_keeping, saved_less
from .step_template import CLASSES, GROUPS, CompiledStep, block_kinds, symbol_values

BF16, FP32 = 2, 4
_TRACE_GRAD = {"bf16": BF16, "autocast": FP32, "fp32": FP32}  # the dtype of a .grad in the traced step


def depth(plan: Any) -> int:
    """Blocks of the plan's model: its architecture's layers, or the block groups of its tensor list."""
    from .architecture import block_group

    arch = plan.model.architecture
    if arch is not None:
        return arch.layers
    return max(1, len({block_group(n) for n, _ in plan.model.named_shapes or []} - {"root"}))


def positions(layers: int, stage: int, every_block: bool = False) -> list[tuple[str, str, str, int | None]]:
    """(phase, moment name, template place, block) for every moment the step is checked at; every_block: each
    block's backward (blocks that differ, as by a recomputation chosen per block, peak where they will)."""
    last = layers - 1
    out = [("forward", "embedding", "pre", None), ("forward", "first block", "fwd", 0)]
    if last > 0:
        out.append(("forward", "last block", "fwd", last))
    out += [("forward", "head", "head", None), ("forward", "loss", "loss", None),
            ("backward", "loss backward", "lossb", None), ("backward", "head backward", "headb", None),
            ("backward", "last block backward", "last", last)]
    # between the ends every group grows or shrinks by a block at a time: the extremes are at 0, 1, L-2
    for i in sorted({i for i in ((*range(last),) if every_block else (last - 1, 1, 0)) if 0 <= i < last}, reverse=True):
        name = "block backward" if i == last - 1 else "first block backward" if i == 0 else "second block backward"
        out.append(("backward", name, "bwd", i))
    out.append(("backward", "first block reduce-scatter" if stage >= 2 else "end of backward", "tail", None))
    return out


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

    def tally(group: str, lo: int, hi: int) -> None:  # blocks lo..hi-1, by kind
        if hi <= lo:
            return
        if len(set(kinds)) == 1:
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

    sh: one block a group (peak._Shapes). units: the FSDP2 units and prefetch (core.peak_knobs.StepKnobs; None:
    a unit per block, prefetching): a unit of N blocks is gathered, freed and reduce-scattered at once, the later
    blocks of a unit keep their gradients unsharded to its reduce-scatter; with the root only, the root is all."""
    if stage <= 1:
        return {}
    size = units.per_unit if units is not None else 1
    root_only = units is not None and units.root_only
    prefetch = units is None or units.prefetch
    gb, per, whole = eng.gathered, sh.block_padded, sh.all_padded
    root = whole if root_only else sh.root_padded
    blk = 0 if root_only else per * min(size, max(layers, 1))  # the largest unit
    shard = eng.shard_grad * ceil(per / dp)  # one block's gradient shard
    s2 = stage == 2

    def end(j: int) -> int:  # one past the last block of j's unit
        return min((j // size + 1) * size, layers)

    def held(j: int) -> int:  # gathered at block j: stage 2 keeps every unit so far, stage 3 only j's
        if root_only:
            return gb * whole
        return gb * (root + end(j) * per) if s2 else gb * (root + blk)

    if place in ("pre", "fwd"):
        i = i or 0
        return {"gathered_params": held(i), "all_gather": gb * (root + blk) if i == 0 else gb * blk}
    if place == "head":
        return {"gathered_params": gb * whole if s2 else gb * root, "all_gather": gb * blk}
    if place in ("loss", "lossb"):
        return {"gathered_params": gb * whole if s2 else 0}
    if place == "headb":  # stage 3: the root re-gathered for the head's backward, the last unit prefetched
        return {"gathered_params": gb * whole if s2 else gb * root,
                "all_gather": 0 if s2 or not prefetch else gb * blk}
    if place in ("bwd", "last"):
        done = layers - end(i)  # blocks whose unit has reduce-scattered
        return {"gathered_params": held(i),
                "all_gather": gb * blk if not s2 and prefetch and i - i % size > 0 else 0,
                "reduce_scatter": eng.reduce * blk if done else 0, "grads": shard * done,
                "unsharded_grads": eng.grad * per * (end(i) - i - 1)}
    if place == "tail":
        if root_only:  # every block's gradients wait for the root's reduce-scatter
            return {"gathered_params": gb * whole, "unsharded_grads": eng.grad * per * (layers - 1)}
        return {"gathered_params": gb * root, "reduce_scatter": eng.reduce * blk, "grads": shard * layers}
    return {}


_NAMES = {  # (class, part) -> component; part 0 (no s, b: weights) is autocast's copies under autocast
    ("act", 1): "logits", ("act", 2): "activations", ("tmp", 1): "logits", ("tmp", 2): "temporaries",
}


def _components(r: Any, compute: str, fsdp: bool) -> dict[str, int]:
    """One moment's template bytes [class, part] by component."""
    out: dict[str, int] = {}
    for c, cls in enumerate(CLASSES):
        for p in range(3):
            value = round(float(r[c, p]))
            if not value:
                continue
            if cls == "grad":
                key = "unsharded_grads" if fsdp else "grads"
            elif p == 0:
                key = "cast_weights" if compute == "autocast" else ("activations" if cls == "act" else "temporaries")
            else:
                key = _NAMES[(cls, p)]
            out[key] = out.get(key, 0) + value
    return out


def template_rows(plan: Any, step: CompiledStep, fsdp: bool, grad_scale: float, compute: str = "bf16",
                  every_block: bool = False) -> list[tuple]:
    """(phase, name, place, block, template bytes [moment, class, part], totals) per place of the step (a total is
    -inf for the moments that are not of the place).

    With CUDA kernels (plan.kernel_device), what they keep less (core.cuda_kernels) comes off the kept activations."""
    arch = plan.model.architecture
    cuda = plan.kernel_device == "cuda" and arch is not None
    less_block, less_final = saved_less(arch, plan.seq_len, plan.micro_batch, compute, plan.recompute,
                                        step.attention) if cuda else (0, 0)
    kinds = block_kinds(arch) if arch is not None else [step.kinds[j % len(step.kinds)] for j in range(depth(plan))]
    values = step.values(symbol_values(arch, plan.seq_len, plan.micro_batch))  # [moment, group, class, part]
    at, kind = step.at_array, step.kind_array
    places, picks, weights = [], [], []
    for phase, name, place, i in positions(len(kinds), 2 if fsdp else 0, every_block):
        own = kinds[i] if i is not None else ""
        pick = (at == place) & (kind == own) if place in ("fwd", "bwd", "last") else at == place
        if place == "last" and not pick.any():  # no last block of this kind traced: a middle block's moments
            pick = (at == "bwd") & (kind == own)
        if pick.any():
            places.append((phase, name, place, i))
            picks.append(pick)
            weights.append(_weights(tuple(sorted(_counts(place, i, kinds).items())), fsdp, grad_scale))
    w = np.array(weights)  # [place, group, class]
    n, g, c, p = values.shape
    # every moment at every place: per class, [moment x part, group] @ [group, place]
    every = np.matmul(values.transpose(2, 0, 3, 1).reshape(c, n * p, g), w.transpose(2, 1, 0))
    every = every.reshape(c, n, p, len(places)).transpose(3, 1, 0, 2)  # [place, moment, class, part]
    if less_block or less_final:
        # the blocks before the current one keep their whole forward: each keeps less_block less; the current
        # block's own saves are whole only from its forward's end to its backward's start, so it keeps less by
        # at most what it holds at that moment
        own = np.minimum(less_block, np.maximum(values[:, GROUPS.index("self"), 0, 2], 0))  # [moment]
        for k, (_, _, place, i) in enumerate(places):
            blocks, final = blocks_keeping(place, i, len(kinds))
            current = place in ("fwd", "bwd", "last")
            less = (blocks - current) * less_block + (less_final if final else 0)
            every[k, :, 0, 2] -= less + own if current else less
    totals = np.where(np.array(picks), every.sum(axis=(2, 3)), -np.inf)  # moments of other places never win
    return [(*where, every[k], totals[k]) for k, where in enumerate(places)]


def traced_moments(plan: Any, stage: int, step: CompiledStep, eng: Any, sh: Any, resting: dict, inputs: int,
                   top_only: bool = False, cache: dict | None = None,
                   units: Any = None, every_block: bool = False) -> list[tuple]:
    """(phase, name, components) of every moment the template places; top_only: only the largest of each phase.

    cache: a dict kept across the stages of one plan (stages 2 and 3 place the same template bytes).
    units: the FSDP2 units and prefetch (engine_terms). every_block: each block's backward placed (positions), and
    each moment's (phase, name, components, place, block)."""
    fsdp = stage >= 2
    grad_scale = (eng.grad if fsdp else eng.grad_state) / _TRACE_GRAD[eng.compute]
    key = (id(step), fsdp, grad_scale, every_block)
    rows = cache.get(key) if cache is not None else None
    if rows is None:
        rows = template_rows(plan, step, fsdp, grad_scale, eng.compute, every_block)
        if cache is not None:
            cache[key] = rows
    layers, dp = depth(plan), plan.shard_size  # FSDP2 shards among the shard group
    placed = []  # (total, phase, name, engine terms, template bytes)
    best: dict[str, tuple] = {}
    for phase, name, place, i, r, totals in rows:
        terms = engine_terms(stage, place, i, layers, sh, eng, dp, units)
        extra = sum(terms.values())
        if top_only:  # the largest moment of the place, and of its phase so far
            n = int(totals.argmax())
            total = extra + float(totals[n])
            if phase not in best or total > best[phase][0]:
                best[phase] = (total, phase, name, terms, r[n], place, i)
            continue
        for n in [int(j) for j in (totals > float("-inf")).nonzero()[0]]:
            placed.append((extra + float(totals[n]), phase, name, terms, r[n], place, i))
    if top_only:
        placed = list(best.values())
    out = []
    for _, phase, name, terms, r, place, i in placed:
        comps = dict(resting, inputs=inputs)
        comps.update({k: v for k, v in terms.items() if v})
        for k, v in _components(r, eng.compute, fsdp).items():
            comps[k] = comps.get(k, 0) + v
        out.append((phase, name, comps, place, i) if every_block else (phase, name, comps))
    return out
