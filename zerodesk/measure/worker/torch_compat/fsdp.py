"""FSDP2's and DDP's internals: unsharded parameters, lazy chunks, the reduce-scatter, DDP's buckets."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import torch
import torch.distributed as dist

from ._registry import TorchInternalsMoved, _Missing, _code_names, _need, _self_check, check

# ---------------------------------------------------------------- FSDP2


@_self_check("fsdp_state", "FSDP2's per-module state (FSDPModule._get_fsdp_state()._fsdp_param_group.fsdp_params, "
                           "FSDPParam._unsharded_param)")
def _check_fsdp_state() -> None:
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
    from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState

    _need(callable(getattr(FSDPModule, "_get_fsdp_state", None)), "no FSDPModule._get_fsdp_state")
    _need(hasattr(FSDPState, "_fsdp_param_group"), "no FSDPState._fsdp_param_group")
    _need("fsdp_params" in _code_names(FSDPParamGroup), "FSDPParamGroup keeps no fsdp_params")
    _need("_unsharded_param" in _code_names(FSDPParam), "FSDPParam keeps no _unsharded_param")


def unsharded_params(model: Any) -> Iterator[Any]:
    """The unsharded parameter of every FSDP2 parameter of `model` that has one (made at its first all-gather)."""
    check("fsdp_state")
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        group = module._get_fsdp_state()._fsdp_param_group if isinstance(module, FSDPModule) else None
        for fsdp_param in group.fsdp_params if group else ():
            if hasattr(fsdp_param, "_unsharded_param"):
                yield fsdp_param._unsharded_param


class LazyChunks:
    """torch.chunk(tensor, n, dim) padded with empty tensors to n, as FSDP2's _chunk_with_empty returns it, but each
    chunk made only when asked for: FSDP2 reads two of the Nd chunks (this rank's and the 0th), and making all Nd
    fake views cost most of fully_shard at Nd = 1024 (70B: about two thirds of the simulation)."""

    def __init__(self, tensor: Any, n: int, dim: int) -> None:
        self.tensor, self.n, self.dim = tensor, n, dim
        self.size = -(-tensor.size(dim) // n) if tensor.size(dim) else 0  # torch.chunk's chunk length

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        whole = self.tensor.size(self.dim)
        if i == 0 or whole == 0:  # torch.chunk splits an empty dim into n empty views
            return self.tensor.narrow(self.dim, 0, min(self.size, whole))
        length = min(self.size, whole - i * self.size)
        if length <= 0:  # past torch.chunk's last chunk: _chunk_with_empty's filler
            return self[0].new_empty(0)
        return self.tensor.narrow(self.dim, i * self.size, length)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self.n))


def _views(chunks: Any) -> list:
    return [(c.shape, c.stride(), c.storage_offset(), c.dtype) for c in chunks]


@_self_check("fsdp_chunks", "FSDP2's sharding helper torch.distributed.fsdp._fully_shard._fsdp_param._chunk_with_empty")
def _check_fsdp_chunks() -> None:
    from torch.distributed.fsdp._fully_shard import _fsdp_param

    original = _fsdp_param._chunk_with_empty
    _need("_chunk_with_empty" in _code_names(_fsdp_param.FSDPParam), "FSDPParam no longer calls it")
    for shape, n in (((0, 3), 2), ((5,), 3), ((7, 2), 4), ((3,), 8)):
        t = torch.empty(shape)
        _need(_views(LazyChunks(t, n, 0)) == _views(original(t, n, 0)), f"it chunks a {shape} tensor {n} ways "
                                                                          "differently from LazyChunks")


@contextmanager
def chunks_on_demand() -> Iterator[None]:
    """FSDP2 sharding with LazyChunks (the same shards, sizes and views; nothing else changes)."""
    check("fsdp_chunks")
    from torch.distributed.fsdp._fully_shard import _fsdp_param

    original = _fsdp_param._chunk_with_empty
    _fsdp_param._chunk_with_empty = LazyChunks
    try:
        yield
    finally:
        _fsdp_param._chunk_with_empty = original


@_self_check("fsdp_reduce_scatter", "the reduce-scatter FSDP2's torch.distributed.fsdp._fully_shard._fsdp_collectives "
                                    "calls (dist.reduce_scatter_single or dist.reduce_scatter_tensor)")
def _check_fsdp_reduce_scatter() -> None:
    _reduce_scatter_name()


def fsdp_reduce_scatter_name() -> str:
    """The torch.distributed function FSDP2 reduce-scatters gradients with (reduce_scatter_single from torch 2.13)."""
    check("fsdp_reduce_scatter")
    return _reduce_scatter_name()


def _reduce_scatter_name() -> str:
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives

    called = _code_names(_fsdp_collectives)
    for name in ("reduce_scatter_single", "reduce_scatter_tensor"):
        if hasattr(dist, name) and name in called:
            return name
    raise _Missing("FSDP2's collectives call neither")




# ---------------------------------------------------------------- DDP


@_self_check("ddp_buckets", "DDP's bucket assignment dist._compute_bucket_assignment_by_size, "
                            "dist._DEFAULT_FIRST_BUCKET_BYTES and DistributedDataParallel._get_ddp_logging_data")
def _check_ddp_buckets() -> None:
    from torch.nn.parallel import DistributedDataParallel

    _need(callable(dist._compute_bucket_assignment_by_size), "not callable")
    _need(isinstance(dist._DEFAULT_FIRST_BUCKET_BYTES, int), "no first-bucket size")
    _need(callable(DistributedDataParallel._get_ddp_logging_data), "no logging data")
    p = torch.zeros(3)
    groups, _ = dist._compute_bucket_assignment_by_size([p, p], [8, 2**20], [False, False])
    _need([list(g) for g in groups] == [[0], [1]], f"two 12-byte tensors under an 8-byte first bucket give {groups}")


def ddp_first_bucket_bytes() -> int:
    """DDP's cap for its first (smallest) bucket."""
    check("ddp_buckets")
    return dist._DEFAULT_FIRST_BUCKET_BYTES


def ddp_bucket_assignment(tensors: list, caps: list[int]) -> list[list[int]]:
    """DDP's own grouping of `tensors` (in the order DDP registers them) into buckets under `caps` bytes."""
    check("ddp_buckets")
    groups, _ = dist._compute_bucket_assignment_by_size(tensors, caps, [False] * len(tensors))
    return [list(g) for g in groups]


def ddp_bucket_bytes(ddp: Any) -> int:
    """The bytes of a DDP's gradient buckets as it reports them (rebuilt after its first step), or its stand-in's."""
    check("ddp_buckets")
    info = ddp._get_ddp_logging_data()
    if "rebuilt_bucket_sizes" not in info and "bucket_sizes" not in info:
        raise TorchInternalsMoved("torch", "DDP's logged bucket sizes", f"keys {sorted(info)[:20]}", "unsupported")
    sizes = info.get("rebuilt_bucket_sizes") or info.get("bucket_sizes") or ""
    return sum(int(s) for s in str(sizes).split(",") if s.strip())
