"""What gradient accumulation changes in a rank's memory: the gradients kept from one micro-batch to the next.

A step of k micro-batches runs forward and backward k times, then the optimizer once. The first micro-batch is the
one-micro-batch step (gradients set to None, so its forward holds none); every later one runs with the gradient
buffer the earlier ones left. What that buffer is depends on the engine and on when gradients are reduced
(plan.accum_sync):

  every   (DDP's and FSDP2's default) each micro-batch reduces its gradients, so the buffer is the stage's own
          gradient state: whole for stages 0-1 (DDP's fp32 .grad; the paper's 16-bit gradients), sharded from
          stage 2 (FSDP2's fp32 gradient shards; the paper's partition). A later micro-batch's new gradients are
          added into it in place.
  last    DDP's no_sync / FSDP2's set_requires_gradient_sync(False) on all but the last micro-batch: nothing is
          reduced until the last, so from stage 2 every rank keeps the whole model's gradients unsharded. FSDP2
          upcasts them to its reduce dtype (fp32 here: MixedPrecisionPolicy(reduce_dtype=float32)) and keeps them
          per parameter, unpadded: 4 B x P. The paper profile keeps them in the scheme's gradient dtype (its
          stage-0 gradient bytes). Stages 0-1 keep the same whole gradients either way.

The prediction (core.peak calls accumulate() on its moments) adds, to every forward and backward moment of the
one-micro-batch step, the same moment in a later micro-batch with the buffer alive. In `last` from stage 2 the
last micro-batch frees each group's unsharded gradients as it reduce-scatters them, so a backward moment keeps
the part not yet reduced (the moment's own sharded gradients say how far backward got); a middle micro-batch
(k >= 3) keeps all of it and reduce-scatters nothing. In `every` from stage 2 a later micro-batch's unit
reduce-scatter holds the kept shards beside the unit's gradients (or its new output): unit_reduce_scatter, from
the end of the unit's backward that core.peak_traced places. Pure Python, no torch.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

from .accounting import SCHEMES, Breakdown
from .options import Profile

if TYPE_CHECKING:
    from .plan import Plan


class MomentLike(Protocol):
    """A moment of the step (core.peak_engine.Moment; named by shape, so this module does not import the peak that calls it)."""

    phase: str
    name: str
    components: dict[str, int]


M = TypeVar("M", bound=MomentLike)

FP32 = 4
KEPT = "accumulated_grads"  # the peak component of gradients kept unsharded across micro-batches (`last`)


def grad_keys(plan: "Plan", b: Breakdown) -> set[str]:
    """The state components that are gradients under the plan's profile."""
    if b.profile == Profile.TORCH:
        return {"grads"}
    return {c.key for c in SCHEMES[plan.scheme].components if c.state_class == "grad"}


def unsharded(plan: "Plan", stage: int) -> bool:
    """Whether the gradients kept between micro-batches are the whole model's rather than the stage's own."""
    return plan.accum_sync == "last" and stage >= 2


def kept_bytes(plan: "Plan", stage: int, b: Breakdown) -> int:
    """Bytes of gradients one rank keeps from one micro-batch to the next (0 without accumulation)."""
    if plan.accum_steps <= 1:
        return 0
    keys = grad_keys(plan, b)
    if not unsharded(plan, stage):
        return sum(v for k, v in b.stage(stage).components.items() if k in keys)
    if b.profile == Profile.TORCH:
        return FP32 * plan.params  # FSDP2's unsharded_accumulated_grad: every parameter, unpadded, in fp32
    return sum(v for k, v in b.stage(0).components.items() if k in keys)  # the scheme's gradients, whole


def accumulate(plan: "Plan", stage: int, moments: list[M], b: Breakdown,
               unit_of: Callable[[], tuple[int, ...]] | None = None) -> list[M]:
    """The one-micro-batch step's moments and, with accumulation, the same moments in later micro-batches."""
    if plan.accum_steps <= 1:
        return moments
    kept = kept_bytes(plan, stage, b)
    sharded_grads = sum(v for k, v in b.stage(stage).components.items() if k in grad_keys(plan, b))
    out = list(moments)
    unit = None  # a unit's bytes (unit_of: core.peak_engine.unit_bytes, passed in by the peak), at first use
    for m in moments:
        if m.phase == "optimizer":
            continue
        comps = dict(m.components)
        if m.name == "head backward start":  # stage 3: the root gathered again, before the head's backward
            unit = unit or unit_of()
            m = replace(m, name="root gathered for the head's backward", components=root_regather(comps, unit))
            comps = dict(m.components)
        if not unsharded(plan, stage):  # the new gradients are added into the buffer in place
            if stage >= 2 and m.name.endswith(" end"):
                unit = unit or unit_of()
                out.append(replace(m, name=f"{m.name[:-4]}, its reduce-scatter, later micro-batch",
                                   components=unit_reduce_scatter(plan.shard_size, comps, kept, unit)))
                continue
            comps["grads"] = max(comps.get("grads", 0), kept)
            if stage >= 2 and m.name.endswith("reduce-scatter") and "grads" in m.components:
                # the unit's reduce-scatter output, counted in the first micro-batch's gradient shards, is new here
                comps["grads"] = kept + comps.get("reduce_scatter", 0) // plan.shard_size
            out.append(replace(m, name=f"{m.name}, later micro-batch", components=comps))
            continue
        # how far backward got: the share of the gradient shards already reduce-scattered
        done = 0.0 if m.phase != "backward" or not sharded_grads else min(1.0, comps.get("grads", 0) / sharded_grads)
        out.append(replace(m, name=f"{m.name}, last micro-batch",
                           components=dict(comps, **{KEPT: round(kept * (1 - done))})))
        if m.phase == "backward":  # an earlier micro-batch reduces nothing: no reduce-scatter, no shards
            quiet = {k: v for k, v in comps.items() if k not in ("reduce_scatter", "grads")}
            out.append(replace(m, name=f"{m.name}, first micro-batch", components=dict(quiet, **{KEPT: round(kept * done)})))
            if plan.accum_steps >= 3:
                out.append(replace(m, name=f"{m.name}, middle micro-batch", components=dict(quiet, **{KEPT: kept})))
    return out


def accumulated_totals(plan: "Plan", stage: int, moments: list[M], b: Breakdown,
                       unit_of: Callable[[], tuple[int, ...]] | None = None) -> tuple[list[tuple[str, str]], list[int]]:
    """((phase, name) per moment, its total bytes) of accumulate(), in its order, without building the moments it adds:
    each total is the moment's own with the few components accumulate changes swapped for their new values (the
    fit's question; tests/test_accumulation.py holds both ways equal on random plans)."""
    names = [(m.phase, m.name) for m in moments]
    totals = [sum(m.components.values()) for m in moments]
    if plan.accum_steps <= 1:
        return names, totals
    kept = kept_bytes(plan, stage, b)
    keys = grad_keys(plan, b)
    sharded_grads = sum(v for k, v in b.stage(stage).components.items() if k in keys)
    whole, k3, n = unsharded(plan, stage), plan.accum_steps >= 3, plan.shard_size
    unit = None
    for m, total in zip(moments, totals[:len(moments)]):
        if m.phase == "optimizer":
            continue
        comps, name = m.components, m.name
        if name == "head backward start":
            unit = unit or unit_of()
            regathered = root_regather(comps, unit)
            comps, name, total = regathered, "root gathered for the head's backward", sum(regathered.values())
        if not whole:
            if stage >= 2 and name.endswith(" end"):
                unit = unit or unit_of()
                names.append((m.phase, f"{name[:-4]}, its reduce-scatter, later micro-batch"))
                totals.append(sum(unit_reduce_scatter(n, dict(comps), kept, unit).values()))
                continue
            grads = comps.get("grads", 0)
            new = max(grads, kept)
            if stage >= 2 and name.endswith("reduce-scatter") and "grads" in comps:
                new = kept + comps.get("reduce_scatter", 0) // n
            names.append((m.phase, f"{name}, later micro-batch"))
            totals.append(total - grads + new)
            continue
        grads = comps.get("grads", 0)
        done = 0.0 if m.phase != "backward" or not sharded_grads else min(1.0, grads / sharded_grads)
        before = comps.get(KEPT, 0)
        names.append((m.phase, f"{name}, last micro-batch"))
        totals.append(total - before + round(kept * (1 - done)))
        if m.phase == "backward":
            quiet = total - comps.get("reduce_scatter", 0) - grads - before
            names.append((m.phase, f"{name}, first micro-batch"))
            totals.append(quiet + round(kept * done))
            if k3:
                names.append((m.phase, f"{name}, middle micro-batch"))
                totals.append(quiet + kept)
    return names, totals


def root_regather(start: dict[str, int], unit: tuple[int, ...]) -> dict[str, int]:
    """Stage 3 just before the head's backward (from `start`, its first moment core.peak_traced places): the root
    gathered again, its all-gather output alive beside its parameters as they are copied out (in backward FSDP2
    frees that output right after, then prefetches the last unit); nothing of the head's backward made yet (its
    gradients, its temporaries). With accumulation's kept gradients on top it can be the step's peak."""
    comps = {k: v for k, v in start.items() if k not in ("unsharded_grads", "temporaries")}
    comps["all_gather"] = unit[4]
    return comps


def unit_reduce_scatter(shard: int, end: dict[str, int], kept: int,
                        unit: tuple[int, ...]) -> dict[str, int]:
    """A unit's reduce-scatter in a later micro-batch reducing every micro-batch (stages 2-3), from the end of its
    first block's backward (core.peak_traced places it): FSDP2 reshards the unit, copies its gradients into the
    reduce-scatter input (the previous unit's is released first) and frees them, then reduce-scatters into a new
    output that is added into the kept shards only after. In the first micro-batch that output is the unit's shard
    itself; in a later one it comes beside all of them. The block's backward temporaries are gone by then: what
    is left is the residual stream's gradient, the block input's. shard: the plan's shard_size (N); unit: unit_bytes."""
    grads, rs, gathered, stream, _ = unit
    comps = dict(end, temporaries=stream, reduce_scatter=rs)
    comps["gathered_params"] = max(0, comps.get("gathered_params", 0) - gathered)
    own, output = min(grads, comps.get("unsharded_grads", 0)), rs // shard
    # the copy-in holds the unit's gradients and the input; the reduce-scatter, the input and its output
    if output > own:
        comps["unsharded_grads"] = comps.get("unsharded_grads", 0) - own
    # the shards of the units reduce-scattered before are inside the kept ones (the first micro-batch keeps none)
    comps["grads"] = max(kept, comps.get("grads", 0)) + (output if output > own else 0)
    return {k: v for k, v in comps.items() if v}
