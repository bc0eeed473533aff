"""Activation recomputation per block, applied from outside the model (torch's activation checkpointing).

Each block gets its own mode (core.knobs.recompute_per_block: the plan's mode on every k-th block, or a
choice per block, as checkpoint_wrapper policies set it): `selective` checkpoints the block's attention
sub-layer (only its input is kept), `full` the whole block (only the block input is kept), `none` leaves
it as it is; the core's residuals model counts each. Each module's forward is replaced on the instance,
so the module tree, parameter names and FSDP2 wrapping stay as they are; non-reentrant checkpointing
replays autocast and FSDP2's gathered parameters.
"""

from __future__ import annotations

from functools import partial, wraps
from typing import Any, Sequence

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


def mlp_of(block: Any) -> Any:
    """The block's MLP sub-layer (mlp, feed_forward, ffn, block_sparse_moe, ...), or None when it has none by a known name."""
    children = dict(block.named_children())
    for name in ("mlp", "feed_forward", "ffn", "block_sparse_moe"):
        if name in children:
            return children[name]
    return next((child for name, child in children.items() if ("mlp" in name or "ffn" in name) and "norm" not in name),
                None)


def apply_recompute(blocks: Any, modes: str | Sequence[str]) -> None:
    """Wrap each block (a model's ModuleList of blocks) for its mode, one per block (or one mode for every block):
    none (left untouched), selective or full."""
    if isinstance(modes, str):
        modes = [modes] * len(blocks)
    if len(modes) != len(blocks):
        raise ValueError(f"{len(modes)} recomputation modes for {len(blocks)} blocks")
    for block, mode in zip(blocks, modes):
        if RECOMPUTE.check(mode) == "none":
            continue
        target = block if mode == "full" else attention_of(block)
        target.forward = _checkpointed(partial(type(target).forward, target))
