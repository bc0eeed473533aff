"""The `torch` accounting profile: bytes PyTorch's own engines keep per rank AT REST.

"At rest" is right after `optimizer.step()` (gradients still attached, before the next
`zero_grad`). Parameters and gradients are fp32; AdamW keeps fp32 exp_avg and exp_avg_sq
plus a 0-dim fp32 `step` tensor per parameter tensor. Engines per stage:

  0  DDP + AdamW                         full params, grads, Adam state; DDP gradient buckets
  1  DDP + ZeroRedundancyOptimizer(AdamW) Adam state of the whole tensors this rank owns
  2  FSDP2 fully_shard(reshard_after_forward=False)   dim-0 shards of params, grads, Adam state
  3  FSDP2 fully_shard(reshard_after_forward=True)    the same at rest; they differ in transients

Every figure here was checked byte for byte against real gloo runs (tests/test_measure.py).
Pure Python: no torch, no Qt.
"""

from __future__ import annotations

import heapq
from collections import Counter
from functools import lru_cache
from math import ceil, prod

from .architecture import block_group

FP32 = 4
STEP_BYTES = 4  # AdamW's `step`: torch.tensor(0.0) -> one fp32 scalar per parameter tensor
ADAM_STATES = 2  # exp_avg, exp_avg_sq

STATE_KEYS = ("params", "grads", "optimizer", "comm_buffers")


def zero_partition(numels: list[int], dp: int) -> list[list[int]]:
    """Indices of the tensors each rank owns under ZeroRedundancyOptimizer.

    Mirrors `_partition_parameters`: a stable sort by numel, largest first, then each tensor
    goes whole to the first rank with the smallest running total. Ranks end up uneven.
    Memoised: a 70B model's partition takes about a millisecond, and the peak asks for it per evaluation.
    """
    return [list(owned) for owned in _zero_partition(tuple(numels), dp)]


@lru_cache(maxsize=32)
def _zero_partition(numels: tuple[int, ...], dp: int) -> tuple[tuple[int, ...], ...]:
    heap = [(0, r) for r in range(dp)]  # (size so far, rank): the heap's minimum is the first rank with the least
    owned: list[list[int]] = [[] for _ in range(dp)]
    for i in sorted(range(len(numels)), key=lambda j: numels[j], reverse=True):  # sorted() is stable
        size, rank = heap[0]
        owned[rank].append(i)
        heapq.heapreplace(heap, (size + numels[i], rank))
    return tuple(tuple(o) for o in owned)


def fsdp2_rows(dim0: int, dp: int) -> tuple[int, list[int]]:
    """(padded rows every rank stores, real rows of each rank) for one tensor sharded on dim 0.

    FSDP2 uses torch.chunk: chunks of ceil(dim0/dp) rows, the last ones short or empty. Each
    rank stores a zero-padded shard of the first chunk's size; its parameter is an unpadded
    view of the real rows, and AdamW's zeros_like(param) sees only those.
    """
    chunk = ceil(dim0 / dp) if dim0 else 0
    return chunk, [max(0, min(chunk, dim0 - r * chunk)) for r in range(dp)]


# Ranks in run-length form: [(count, states), ...] in rank order. Each stage has only a handful of
# distinct ranks (FSDP2: full chunks, one short chunk, empty ranks; ZeRO-1: owners of each tensor
# size, then empty ranks), so a cluster of 65,536 ranks costs a few entries, not 65,536 dicts.
RankRuns = list[tuple[int, dict[str, int]]]


def _runs(per_rank_changes: dict[int, int], dp: int, make) -> RankRuns:
    """Run-length ranks from a difference map {rank: change of the running value}: make(value) -> states."""
    runs: RankRuns = []
    running, at = 0, 0
    for rank in sorted(r for r in per_rank_changes if r < dp):
        if rank > at:
            _append(runs, rank - at, make(running))
            at = rank
        running += per_rank_changes[rank]
    _append(runs, dp - at, make(running))
    return runs


def _append(runs: RankRuns, count: int, states: dict[str, int]) -> None:
    if count <= 0:
        return
    if runs and runs[-1][1] == states:
        runs[-1] = (runs[-1][0] + count, states)
    else:
        runs.append((count, states))


@lru_cache(maxsize=16)
def _shape_sums(shapes: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, ...], int], ...]]:
    """Every tensor's elements, and each distinct shape with its count: the same at every Nd, so counted once per
    tensor list (the solver asks for a model at a dozen Nd values per answer)."""
    return tuple(prod(s) for s in shapes), tuple(Counter(shapes).items())


def _fsdp2(shapes: list[tuple[int, ...]], dp: int, step_bytes: int) -> RankRuns:
    padded = 0  # fp32 elements every rank stores per state: parameter shard and reduce-scatter output
    changes: dict[int, int] = {}  # rank -> change of the real elements it owns (O(tensors), whatever Nd)

    def add(rank: int, delta: int) -> None:
        changes[rank] = changes.get(rank, 0) + delta

    for shape, copies in _shape_sums(tuple(shapes))[1]:  # sums only: every block's alike tensors at once
        dim0, rest = (shape[0], prod(shape[1:])) if shape else (1, 1)
        chunk = ceil(dim0 / dp) if dim0 else 0
        padded += copies * chunk * rest
        full = min(dp, dim0 // chunk) if chunk else 0  # ranks holding a whole chunk
        add(0, copies * chunk * rest)
        add(full, -copies * chunk * rest)
        if full < dp and dim0 - full * chunk > 0:  # the one short chunk
            add(full, copies * (dim0 - full * chunk) * rest)
            add(full + 1, -copies * (dim0 - full * chunk) * rest)
    steps = step_bytes * len(shapes)
    return _runs(changes, dp, lambda real: {"params": FP32 * padded, "grads": FP32 * padded,
                                           "optimizer": ADAM_STATES * FP32 * real + steps, "comm_buffers": 0})


def rank_states(
    shapes: list[tuple[int, ...]] | None,
    params: int,
    stage: int,
    dp: int,
    *,
    device: str = "cpu",
    optimizer_impl: str = "foreach",
) -> list[dict[str, int]]:
    """Bytes per rank at rest: [{"params", "grads", "optimizer", "comm_buffers"}, ...] for ranks 0..dp-1.

    The expanded form of rank_runs(); prefer rank_runs for large Nd.
    """
    return [dict(states) for count, states in rank_runs(shapes, params, stage, dp, device=device,
                                                                         optimizer_impl=optimizer_impl)
            for _ in range(count)]


def rank_runs(
    shapes: list[tuple[int, ...]] | None,
    params: int,
    stage: int,
    dp: int,
    *,
    device: str = "cpu",
    optimizer_impl: str = "foreach",
) -> RankRuns:
    """Bytes per rank at rest, run-length: [(count, {"params", "grads", "optimizer", "comm_buffers"}), ...].

    The counts sum to dp and follow rank order (the first run starts at rank 0).

    shapes: every trainable tensor's shape in module registration order (the order the engines
    see), e.g. [s for _, s in tensor_shapes(arch)]. With shapes=None only the count `params` is
    known: sharding is then taken as even (ceil(params/dp) per rank) and the AdamW `step`
    tensors, whose number is unknown, are left out.

    device, optimizer_impl: where AdamW's step tensors live. On "cpu" everything is the host. On
    "cuda" foreach and for-loop AdamW (non-capturable) keep them on the host, so they are not
    device bytes; fused AdamW keeps them on the device.
    comm_buffers are DDP's persistent gradient buckets (stages 0-1): one flat fp32 buffer per
    bucket, together as large as all gradients. FSDP2 keeps none at rest.
    """
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be 0, 1, 2 or 3, not {stage}")
    if dp < 1:
        raise ValueError(f"dp must be at least 1, not {dp}")
    step_bytes = STEP_BYTES if device == "cpu" or optimizer_impl == "fused" else 0
    runs = _raw(params, stage, dp) if shapes is None else _shaped(shapes, stage, dp, step_bytes)
    return [(count, {key: states[key] for key in STATE_KEYS}) for count, states in runs]  # one key order


def _raw(params: int, stage: int, dp: int) -> RankRuns:
    shard = ceil(params / dp)
    if stage <= 1:  # DDP everywhere; ZeRO-1 splits only the Adam state
        opt = ADAM_STATES * FP32 * (params if stage == 0 else shard)
        return [(dp, {"params": FP32 * params, "grads": FP32 * params, "optimizer": opt, "comm_buffers": FP32 * params})]
    return [(dp, {"params": FP32 * shard, "grads": FP32 * shard, "optimizer": ADAM_STATES * FP32 * shard,
                  "comm_buffers": 0})]


def _shaped(shapes: list[tuple[int, ...]], stage: int, dp: int, step_bytes: int) -> RankRuns:
    if stage >= 2:
        return _fsdp2(shapes, dp, step_bytes)
    numels = _shape_sums(tuple(shapes))[0]
    total = sum(numels)
    # DDP: every rank holds all params and all grads, plus buckets the size of all grads.
    base = {"params": FP32 * total, "grads": FP32 * total, "comm_buffers": FP32 * total}
    if stage == 0:
        return [(dp, {**base, "optimizer": ADAM_STATES * FP32 * total + step_bytes * len(numels)})]
    runs: RankRuns = []
    if len(numels) < dp:  # each tensor, largest first, goes to the next empty rank; the rest own nothing
        for i in sorted(range(len(numels)), key=lambda j: numels[j], reverse=True):
            _append(runs, 1, {**base, "optimizer": ADAM_STATES * FP32 * numels[i] + step_bytes})
        _append(runs, dp - len(numels), {**base, "optimizer": 0})
        return runs
    for owned in zero_partition(numels, dp):
        _append(runs, 1, {**base, "optimizer": sum(ADAM_STATES * FP32 * numels[i] + step_bytes for i in owned)})
    return runs


def torch_transient(named_shapes: list[tuple[str, tuple[int, ...]]], stage: int, dp: int) -> dict[str, int]:
    """Gathered bf16 parameters FSDP2 holds at the end of forward (bytes per rank; 0 for DDP stages).

    named_shapes as from core.architecture.tensor_shapes: each block (`blocks.{i}`, `model.layers.{i}`,
    `transformer.h.{i}`, ...) is one FSDP2 group, the rest (embeddings, final norm, head) the root group. All-gather outputs are padded like the
    shards. Stage 2 (reshard_after_forward=False) keeps every group gathered from forward to its
    backward: 2 bytes x all padded elements. Stage 3 frees each block after its forward; the root
    stays gathered, plus the block being computed. Measured: the forward phase peak's
    "unsharded_params" (tests/test_measure.py). Prefetch all-gather buffers come on top.
    """
    if stage < 2:
        return {"gathered_params": 0}
    groups: dict[str, int] = {}
    for name, shape in named_shapes:
        dim0, rest = (shape[0], prod(shape[1:])) if shape else (1, 1)
        key = block_group(name)
        groups[key] = groups.get(key, 0) + ceil(dim0 / dp) * dp * rest
    if stage == 2:
        return {"gathered_params": 2 * sum(groups.values())}
    blocks = [n for k, n in groups.items() if k != "root"]
    return {"gathered_params": 2 * (groups.get("root", 0) + max(blocks, default=0))}


def hybrid_runs(
    shapes: list[tuple[int, ...]] | None,
    params: int,
    stage: int,
    dp: int,
    shard_group: int,
    **engine: str,
) -> RankRuns:
    """rank_runs with a shard group: Nd/N replicas of a group of N ranks, rank r holding what rank r mod N holds.

    FSDP2 on a 2-D mesh (replicate, shard) = init_device_mesh(device, (Nd/N, N)) shards each tensor's dim 0 among
    the N ranks of its row (padded to a multiple of N) and replicates across rows: rank r's shard is r mod N's.
    Stage 1 runs ZeroRedundancyOptimizer in the shard group (process_group = the mesh's "shard" group), so its
    whole-tensor partition is among N too; stage 0 (DDP) has nothing sharded and is the same at any N.
    engine: rank_runs' keyword arguments (device, optimizer_impl, ...).
    """
    if shard_group < 1 or dp % shard_group:
        raise ValueError(f"the shard group ({shard_group}) must divide dp ({dp})")
    group = rank_runs(shapes, params, stage, shard_group, **engine)
    runs: RankRuns = []
    for _ in range(dp // shard_group):  # a few runs per group, so a handful per replica: cheap at any Nd
        for count, states in group:
            _append(runs, count, dict(states))
    return runs
