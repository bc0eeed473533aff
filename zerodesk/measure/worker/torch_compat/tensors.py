"""Tensors, kernels and devices (storage identity, the SDPA choice, cuBLAS workspaces), and the step's timeline
(step_trace, attention_probe: the dispatch mode and pytree)."""

from __future__ import annotations

from typing import Any, Callable

import torch

from ._registry import _need, _self_check, check

# ---------------------------------------------------------------- tensors, kernels, devices


@_self_check("storage_identity", "a storage's identity UntypedStorage._cdata (fake tensors' data_ptr() is 0)")
def _check_storage_identity() -> None:
    a, b = torch.zeros(4), torch.zeros(4)
    _need(a.untyped_storage()._cdata == a[1:].untyped_storage()._cdata, "a view has another storage id")
    _need(a.untyped_storage()._cdata != b.untyped_storage()._cdata, "two storages share an id")


def storage_key(tensor: Any) -> int:
    """What tells the storage (StorageImpl) behind a tensor apart, real or fake: views share it."""
    return tensor.untyped_storage()._cdata


@_self_check("sdp_choice", "the SDPA dispatcher torch._fused_sdp_choice")
def _check_sdp_choice() -> None:
    q = torch.zeros(1, 2, 4, 8, dtype=torch.bfloat16)
    _sdp_kernel(q, q[:, :1], True)


def sdp_kernel(q: Any, k: Any, enable_gqa: bool) -> str:
    """The kernel torch's SDPA dispatcher picks for causal attention of q over k (and v shaped as k), as
    torch.nn.attention.SDPBackend names it: FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION or MATH."""
    check("sdp_choice")
    return _sdp_kernel(q, k, enable_gqa)


def _sdp_kernel(q: Any, k: Any, enable_gqa: bool) -> str:
    from torch.nn.attention import SDPBackend

    return SDPBackend(torch._fused_sdp_choice(q, k, k, None, 0.0, True, scale=None, enable_gqa=enable_gqa)).name



@_self_check("cublas_workspaces", "torch._C._cuda_clearCublasWorkspaces (in a CUDA build)")
def _check_cublas_workspaces() -> None:
    _need(not torch.version.cuda or callable(getattr(torch._C, "_cuda_clearCublasWorkspaces", None)), "missing")


def clear_cublas_workspaces() -> None:
    """Free cuBLAS's workspace per handle and stream, which the next stage's peak would carry (CUDA only)."""
    check("cublas_workspaces")
    torch._C._cuda_clearCublasWorkspaces()



# ---------------------------------------------------------------- the step's timeline (step_trace, attention_probe)


@_self_check("dispatch_mode", "torch.utils._python_dispatch.TorchDispatchMode and torch.utils._pytree's "
             "tree_leaves/tree_map, which see every op of a step")
def _check_dispatch_mode() -> None:
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves, tree_map

    _need(callable(getattr(TorchDispatchMode, "__torch_dispatch__", None)), "no __torch_dispatch__")
    _need(tree_leaves(([1], {"a": 2})) == [1, 2] and tree_map(lambda x: x, [1]) == [1], "pytree walks differently")


def dispatch_mode_base() -> type:
    """The base class of a mode that sees every op (after autograd): the step's timeline subclasses it."""
    check("dispatch_mode")
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode


def tree_leaves(tree: Any) -> list:
    """Every leaf of a nest of lists, tuples and dicts (an op's outputs, a module's arguments)."""
    check("dispatch_mode")
    from torch.utils._pytree import tree_leaves as leaves

    return leaves(tree)


def tree_map(fn: Callable, tree: Any) -> Any:
    check("dispatch_mode")
    from torch.utils._pytree import tree_map as mapped

    return mapped(fn, tree)


def checked_tree_leaves() -> Callable[[Any], list]:
    """torch's tree_leaves itself, checked once here: for a caller that walks every op's outputs (a mode's
    __torch_dispatch__), where a check per call was a fifth of a traced step's time."""
    check("dispatch_mode")
    from torch.utils._pytree import tree_leaves as leaves

    return leaves
