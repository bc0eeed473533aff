"""Activation recomputation per block, applied from outside the model (torch's activation checkpointing).

`selective` checkpoints each block's attention sub-layer (only its input is kept), `full` each
whole block (only the block input is kept); the core's residuals model counts both. Each module's
forward is replaced on the instance, so the module tree, parameter names and FSDP2 wrapping stay
as they are; non-reentrant checkpointing replays autocast and FSDP2's gathered parameters.
"""

from __future__ import annotations

from functools import partial, wraps
from typing import Any

from ...core.options import RECOMPUTE


def _checkpointed(forward: Any) -> Any:
    from torch.utils.checkpoint import checkpoint

    @wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        return checkpoint(forward, *args, use_reentrant=False, **kwargs)

    return run


def attention_of(block: Any) -> Any:
    """The block's attention sub-layer, whatever the layout names it (attn, self_attn, attention, self_attention)."""
    children = dict(block.named_children())
    for name in ("attn", "self_attn", "attention", "self_attention"):
        if name in children:
            return children[name]
    for name, child in children.items():  # another layout's name, never its norm (attn_norm, input_layernorm)
        if ("attn" in name or "attention" in name) and "norm" not in name:
            return child
    raise ValueError(f"no attention sub-layer in {type(block).__name__}: selective recompute cannot apply")


def apply_recompute(blocks: Any, mode: str) -> None:
    """Wrap each block (a model's ModuleList of blocks) for `mode`: none, selective or full; none leaves them untouched."""
    RECOMPUTE.check(mode)
    if mode == "none":
        return
    for block in blocks:
        target = block if mode == "full" else attention_of(block)
        target.forward = _checkpointed(partial(type(target).forward, target))
