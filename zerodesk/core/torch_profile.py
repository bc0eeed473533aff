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

from math import ceil, prod

FP32 = 4
STEP_BYTES = 4  # AdamW's `step`: torch.tensor(0.0) -> one fp32 scalar per parameter tensor
ADAM_STATES = 2  # exp_avg, exp_avg_sq

STATE_KEYS = ("params", "grads", "optimizer", "comm_buffers")


def zero_partition(numels: list[int], dp: int) -> list[list[int]]:
    """Indices of the tensors each rank owns under ZeroRedundancyOptimizer.

    Mirrors `_partition_parameters`: a stable sort by numel, largest first, then each tensor
    goes whole to the first rank with the smallest running total. Ranks end up uneven.
    """
    sizes = [0] * dp
    owned: list[list[int]] = [[] for _ in range(dp)]
    for i in sorted(range(len(numels)), key=lambda j: numels[j], reverse=True):  # sorted() is stable
        rank = sizes.index(min(sizes))  # first rank with the minimum, like `_get_min_index`
        owned[rank].append(i)
        sizes[rank] += numels[i]
    return owned


def fsdp2_rows(dim0: int, dp: int) -> tuple[int, list[int]]:
    """(padded rows every rank stores, real rows of each rank) for one tensor sharded on dim 0.

    FSDP2 uses torch.chunk: chunks of ceil(dim0/dp) rows, the last ones short or empty. Each
    rank stores a zero-padded shard of the first chunk's size; its parameter is an unpadded
    view of the real rows, and AdamW's zeros_like(param) sees only those.
    """
    chunk = ceil(dim0 / dp) if dim0 else 0
    return chunk, [max(0, min(chunk, dim0 - r * chunk)) for r in range(dp)]


def _fsdp2(shapes: list[tuple[int, ...]], dp: int, step_bytes: int) -> list[dict[str, int]]:
    ranks = [dict.fromkeys(STATE_KEYS, 0) for _ in range(dp)]
    for shape in shapes:
        dim0, rest = (shape[0], prod(shape[1:])) if shape else (1, 1)
        chunk, rows = fsdp2_rows(dim0, dp)
        for r in range(dp):
            # Parameter storage and the reduce-scatter output the grad views are both padded.
            ranks[r]["params"] += FP32 * chunk * rest
            ranks[r]["grads"] += FP32 * chunk * rest
            ranks[r]["optimizer"] += ADAM_STATES * FP32 * rows[r] * rest + step_bytes
    return ranks


def rank_states(
    shapes: list[tuple[int, ...]] | None,
    params: int,
    stage: int,
    dp: int,
    *,
    device: str = "cpu",
) -> list[dict[str, int]]:
    """Bytes per rank at rest: [{"params", "grads", "optimizer", "comm_buffers"}, ...] for ranks 0..dp-1.

    shapes: every trainable tensor's shape in module registration order (the order the engines
    see), e.g. [s for _, s in tensor_shapes(arch)]. With shapes=None only the count `params` is
    known: sharding is then taken as even (ceil(params/dp) per rank) and the AdamW `step`
    tensors, whose number is unknown, are left out.

    device: "cpu" counts AdamW's step tensors where they live. On "cuda" the default
    (non-fused, non-capturable) AdamW keeps them on the host, so they are not device bytes.
    comm_buffers are DDP's persistent gradient buckets (stages 0-1): one flat fp32 buffer per
    bucket, together as large as all gradients. FSDP2 keeps none at rest.
    """
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be 0, 1, 2 or 3, not {stage}")
    if dp < 1:
        raise ValueError(f"dp must be at least 1, not {dp}")
    step_bytes = STEP_BYTES if device == "cpu" else 0

    if shapes is None:
        shard = ceil(params / dp)
        whole = {"params": FP32 * params, "grads": FP32 * params}
        if stage == 0:
            return [{**whole, "optimizer": ADAM_STATES * FP32 * params, "comm_buffers": FP32 * params} for _ in range(dp)]
        if stage == 1:
            return [{**whole, "optimizer": ADAM_STATES * FP32 * shard, "comm_buffers": FP32 * params} for _ in range(dp)]
        return [{"params": FP32 * shard, "grads": FP32 * shard, "optimizer": ADAM_STATES * FP32 * shard,
                 "comm_buffers": 0} for _ in range(dp)]

    numels = [prod(s) for s in shapes]
    total = sum(numels)
    if stage >= 2:
        return _fsdp2(shapes, dp, step_bytes)

    # DDP: every rank holds all params and all grads, plus buckets the size of all grads.
    base = {"params": FP32 * total, "grads": FP32 * total, "comm_buffers": FP32 * total}
    if stage == 0:
        opt = ADAM_STATES * FP32 * total + step_bytes * len(numels)
        return [{**base, "optimizer": opt} for _ in range(dp)]
    owned = zero_partition(numels, dp)
    return [
        {**base, "optimizer": sum(ADAM_STATES * FP32 * numels[i] + step_bytes for i in owned[r])}
        for r in range(dp)
    ]


def rank_total(states: dict[str, int]) -> int:
    return sum(states.values())
