"""Ranks hand rank 0 their results as JSON bytes over the process group: no pickle between processes.

(torch.distributed.gather_object unpickles whatever a peer sends.) Runs inside the ranks, with torch.
"""

from __future__ import annotations

from typing import Any


def gather_bytes(data: bytes, rank: int, world: int, device: Any) -> list[bytes]:
    """Every rank's bytes, in rank order, on rank 0 ([] elsewhere): lengths first, then padded byte tensors."""
    import torch
    import torch.distributed as dist

    size = torch.tensor([len(data)], dtype=torch.int64, device=device)
    sizes = [torch.zeros_like(size) for _ in range(world)]
    dist.all_gather(sizes, size)
    lengths = [int(s.item()) for s in sizes]
    buf = torch.zeros(max(lengths), dtype=torch.uint8)
    if data:
        buf[: len(data)] = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    buf = buf.to(device)
    bufs = [torch.empty_like(buf) for _ in range(world)]
    dist.all_gather(bufs, buf)
    if rank != 0:
        return []
    return [bytes(b[:n].cpu().numpy().tobytes()) for b, n in zip(bufs, lengths)]
