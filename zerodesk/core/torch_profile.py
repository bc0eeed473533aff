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
from functools import lru_cache
from math import ceil, prod

from .tensor_census import TensorCensus, count_shapes, count_tensors, shard_dim, split_shape  # noqa: F401 (shard_dim: the profile's rule)

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


def dim0_padding(named_shapes: list[tuple[str, tuple[int, ...]]], dp: int) -> tuple[list[str], int]:
    """(names of the tensors whose dim 0 is smaller than Nd, largest first, fp32 bytes of padding per rank under dim-0
    sharding): a rank holding none of their rows stores a whole padded chunk of each, for parameters and gradients
    alike (AdamW's state holds only real rows)."""
    found = []
    for name, shape in named_shapes:
        if shape and shape[0] < dp:
            found.append((2 * FP32 * (prod(shape) // shape[0]), name))  # one padded row of parameters and gradients
    found.sort(key=lambda x: -x[0])  # the largest first
    return [name for _, name in found], sum(b for b, _ in found)


def zero_owned(sizes: tuple[tuple[int, int], ...], dp: int) -> tuple[tuple[int, int], ...]:
    """(elements, tensors) each rank owns under ZeroRedundancyOptimizer, in rank order; the same figures as
    zero_partition, from the distinct sizes (TensorCensus.sizes: (elements, tensors), largest first).

    Tensors of equal size are interchangeable, so only how many of each size a rank gets matters. A size with few
    copies is dealt one by one, as zero_partition does; many copies at once (_deal_equal). Memoised: the peak and
    the breakdown ask for the same partition."""
    return _zero_owned(tuple(sizes), dp)


@lru_cache(maxsize=32)
def _zero_owned(sizes: tuple[tuple[int, int], ...], dp: int) -> tuple[tuple[int, int], ...]:
    heap = [(0, r) for r in range(dp)]  # (elements so far, rank): the minimum is the first rank with the least
    counts = [0] * dp
    for numel, copies in sizes:
        if numel <= 0:  # no elements: every copy goes to the rank that has the least, which stays the least
            counts[heap[0][1]] += copies
        elif copies <= 2 * dp + 32:  # dealing them at once costs a sort of Nd ranks and a few passes over them
            for _ in range(copies):
                size, rank = heap[0]
                counts[rank] += 1
                heapq.heapreplace(heap, (size + numel, rank))
        else:
            heap = _deal_equal(heap, counts, numel, copies)
    loads = [0] * dp
    for size, rank in heap:
        loads[rank] = size
    return tuple(zip(loads, counts))


def _deal_equal(heap: list[tuple[int, int]], counts: list[int], n: int, copies: int) -> list[tuple[int, int]]:
    """Deal `copies` tensors of n elements as the greedy would, one by one, but in O(Nd log Nd).

    Rank r, holding L_r, takes its k-th tensor (k = 0, 1, ...) at the key (L_r + k*n, r); the greedy always takes the
    smallest key left, and each rank's keys rise, so the tensors go to the `copies` smallest keys. Water-filling
    finds the level lam with sum(max(0, lam - L_r)) = copies*n: fewer than `copies` keys lie below lam - n and at
    least `copies` below ceil(lam), so all keys below a = floor(lam) - n are taken, and the rest are the smallest
    of the few (at most two per rank) in [a, ceil(lam))."""
    dp = len(heap)
    loads = [0] * dp
    for size, rank in heap:
        loads[rank] = size
    order = sorted(loads)
    total = copies * n
    below = 0
    for i in range(1, dp + 1):  # the first i ranks (least loaded) lie under the level
        below += order[i - 1]
        if i == dp or total + below <= order[i] * i:
            break
    top = -(-(total + below) // i)  # ceil(lam)
    a = (total + below) // i - n  # floor(lam) - n
    taken = [max(0, -(-(a - load) // n)) for load in loads]  # keys below a
    left = copies - sum(taken)
    candidates = []
    for rank, load in enumerate(loads):
        key = load + taken[rank] * n
        while key < top:
            candidates.append((key, rank))
            key += n
    candidates.sort()
    for _, rank in candidates[:left]:
        taken[rank] += 1
    for rank in range(dp):
        counts[rank] += taken[rank]
    heap = [(loads[rank] + taken[rank] * n, rank) for rank in range(dp)]
    heapq.heapify(heap)
    return heap


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


def _fsdp2(rows: tuple[tuple[int, int], ...], tensors: int, dp: int, step_bytes: int) -> RankRuns:
    """rows: TensorCensus.placed_rows, (the sharded dimension's size, elements per unit of it summed over the
    tensors with that size)."""
    padded = 0  # fp32 elements every rank stores per state: parameter shard and reduce-scatter output
    changes: dict[int, int] = {}  # rank -> change of the real elements it owns (O(distinct dim 0), whatever Nd)

    def add(rank: int, delta: int) -> None:
        changes[rank] = changes.get(rank, 0) + delta

    for dim0, width in rows:  # sums only: every tensor with this dim 0 is chunked alike
        chunk = ceil(dim0 / dp) if dim0 else 0
        padded += chunk * width
        full = min(dp, dim0 // chunk) if chunk else 0  # ranks holding a whole chunk
        add(0, chunk * width)
        add(full, -chunk * width)
        if full < dp and dim0 - full * chunk > 0:  # the one short chunk
            add(full, (dim0 - full * chunk) * width)
            add(full + 1, -(dim0 - full * chunk) * width)
    steps = step_bytes * tensors
    return _runs(changes, dp, lambda real: {"params": FP32 * padded, "grads": FP32 * padded,
                                           "optimizer": ADAM_STATES * FP32 * real + steps, "comm_buffers": 0})


def rank_states(
    shapes: list[tuple[int, ...]] | TensorCensus | None,
    params: int,
    stage: int,
    dp: int,
    *,
    device: str = "cpu",
    optimizer_impl: str = "foreach",
    placement: str = "dim0",
) -> list[dict[str, int]]:
    """Bytes per rank at rest: [{"params", "grads", "optimizer", "comm_buffers"}, ...] for ranks 0..dp-1.

    The expanded form of rank_runs(); prefer rank_runs for large Nd.
    """
    return [dict(states) for count, states in rank_runs(shapes, params, stage, dp, device=device,
                                                        optimizer_impl=optimizer_impl, placement=placement)
            for _ in range(count)]


def rank_runs(
    shapes: list[tuple[int, ...]] | TensorCensus | None,
    params: int,
    stage: int,
    dp: int,
    *,
    device: str = "cpu",
    optimizer_impl: str = "foreach",
    placement: str = "dim0",
) -> RankRuns:
    """Bytes per rank at rest, run-length: [(count, {"params", "grads", "optimizer", "comm_buffers"}), ...].

    The counts sum to dp and follow rank order (the first run starts at rank 0).

    shapes: every trainable tensor's shape in module registration order (the order the engines
    see), e.g. [s for _, s in tensor_shapes(arch)], or their TensorCensus (plan.model.census: counted once, the
    same figures; a list is counted on every call). With shapes=None only the count `params` is
    known: sharding is then taken as even (ceil(params/dp) per rank) and the AdamW `step`
    tensors, whose number is unknown, are left out.

    device, optimizer_impl: where AdamW's step tensors live. On "cpu" everything is the host. On
    "cuda" foreach and for-loop AdamW (non-capturable) keep them on the host, so they are not
    device bytes; fused AdamW keeps them on the device.
    comm_buffers are DDP's persistent gradient buckets (stages 0-1): one flat fp32 buffer per
    bucket, together as large as all gradients. FSDP2 keeps none at rest.
    placement: FSDP2's shard dimension per tensor (shard_dim): "dim0" or "auto".
    """
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be 0, 1, 2 or 3, not {stage}")
    if dp < 1:
        raise ValueError(f"dp must be at least 1, not {dp}")
    step_bytes = STEP_BYTES if device == "cpu" or optimizer_impl == "fused" else 0
    if shapes is None:
        runs = _raw(params, stage, dp)
    else:
        census = shapes if isinstance(shapes, TensorCensus) else count_shapes(shapes)
        runs = _shaped(census, stage, dp, step_bytes, placement)
    return [(count, {key: states[key] for key in STATE_KEYS}) for count, states in runs]  # one key order


def _raw(params: int, stage: int, dp: int) -> RankRuns:
    shard = ceil(params / dp)
    if stage <= 1:  # DDP everywhere; ZeRO-1 splits only the Adam state
        opt = ADAM_STATES * FP32 * (params if stage == 0 else shard)
        return [(dp, {"params": FP32 * params, "grads": FP32 * params, "optimizer": opt, "comm_buffers": FP32 * params})]
    return [(dp, {"params": FP32 * shard, "grads": FP32 * shard, "optimizer": ADAM_STATES * FP32 * shard,
                  "comm_buffers": 0})]


def _shaped(census: TensorCensus, stage: int, dp: int, step_bytes: int, placement: str) -> RankRuns:
    if stage >= 2:
        return _fsdp2(census.placed_rows(dp, placement), census.tensors, dp, step_bytes)
    total = census.params
    # DDP: every rank holds all params and all grads, plus buckets the size of all grads.
    base = {"params": FP32 * total, "grads": FP32 * total, "comm_buffers": FP32 * total}
    if stage == 0:
        return [(dp, {**base, "optimizer": ADAM_STATES * FP32 * total + step_bytes * census.tensors})]
    return _zero1(census, dp, base, step_bytes)


def _zero1(census: TensorCensus, dp: int, base: dict[str, int], step_bytes: int) -> RankRuns:
    """ZeroRedundancyOptimizer's ranks: each holds the Adam state of the whole tensors it owns (zero_owned)."""
    runs: RankRuns = []
    if census.tensors < dp:  # each tensor, largest first, goes to the next empty rank; the rest own nothing
        for numel, copies in census.sizes:
            _append(runs, copies, {**base, "optimizer": ADAM_STATES * FP32 * numel + step_bytes})
        _append(runs, dp - census.tensors, {**base, "optimizer": 0})
        return runs
    for elements, tensors in zero_owned(census.sizes, dp):
        _append(runs, 1, {**base, "optimizer": ADAM_STATES * FP32 * elements + step_bytes * tensors})
    return runs


def block_index(group: str) -> int | None:
    """A block's index from its FSDP2 group name ('model.layers.12' -> 12; 'root' -> None)."""
    last = group.rsplit(".", 1)[-1]
    return int(last) if group != "root" and last.isdigit() else None


def unit_of(group: str, per_unit: int | None = 1) -> str:
    """The FSDP2 unit a tensor group belongs to (core.knobs.blocks_per_unit: 1 a unit per block, N, or None for the
    root only): 'root', or the group name of the unit's first block ('model.layers.4' holds blocks 4-7, four a unit)."""
    index = block_index(group)
    if index is None or per_unit is None:
        return "root"
    first = index - index % per_unit
    return group[: len(group) - len(str(index))] + str(first)


def unit_elements(census: TensorCensus, dp: int, per_unit: int | None = 1, placement: str = "dim0") -> dict[str, int]:
    """Elements each FSDP2 unit all-gathers, the sharded dimension of each tensor (placement: "dim0" or "auto",
    shard_dim) padded to a multiple of Nd, in order ('root' too)."""
    units: dict[str, int] = {}
    for group, rows in census.placed_group_rows(dp, placement).items():
        unit = unit_of(group, per_unit)
        units[unit] = units.get(unit, 0) + sum(ceil(dim0 / dp) * dp * width for dim0, width in rows)
    return units


def torch_transient(named_shapes: list[tuple[str, tuple[int, ...]]] | TensorCensus, stage: int, dp: int,
                    placement: str = "dim0", *, param_bytes: int = 2, per_unit: int | None = 1) -> dict[str, int]:
    """The most parameters FSDP2 holds gathered at once in forward (bytes per rank; 0 for DDP stages): the forward
    phase peak's "unsharded_params" when that peak falls inside the blocks (measured: tests/test_measure.py,
    tests/test_knobs_ranks.py).

    named_shapes as from core.architecture_tensors.tensor_shapes (or their TensorCensus): each block (`blocks.{i}`,
    `model.layers.{i}`, `transformer.h.{i}`, ...) is a tensor group; FSDP2's units are `per_unit` consecutive blocks
    (core.knobs.blocks_per_unit: 1, N, or None for the root only), the rest (embeddings, final norm, head) the root.
    placement: FSDP2's shard dimension per tensor ("dim0" or "auto", shard_dim).
    param_bytes: MixedPrecisionPolicy's param_dtype (2 for bf16). All-gather outputs are padded like the shards.
    Stage 2 (reshard_after_forward=False) keeps every unit gathered from forward to its backward. Stage 3 frees each
    unit after its own forward, and the root's after the whole forward: at most the root and the unit being computed
    are gathered at once (the whole model with the root only). All-gather buffers come on top."""
    if stage < 2:
        return {"gathered_params": 0}
    census = named_shapes if isinstance(named_shapes, TensorCensus) else count_tensors(named_shapes)
    units = unit_elements(census, dp, per_unit, placement)
    if stage == 2:
        return {"gathered_params": param_bytes * sum(units.values())}
    blocks = [n for k, n in units.items() if k != "root"]
    return {"gathered_params": param_bytes * (units.get("root", 0) + max(blocks, default=0))}


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
