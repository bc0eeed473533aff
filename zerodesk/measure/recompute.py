"""Activation recomputation per block, applied from outside the model (torch's activation checkpointing).

`selective` checkpoints each block's attention sub-layer (only its input is kept), `full` each
whole block (only the block input is kept); the core's residuals model counts both. Each module's
forward is replaced on the instance, so the module tree, parameter names and FSDP2 wrapping stay
as they are; non-reentrant checkpointing replays autocast and FSDP2's gathered parameters.
"""

from __future__ import annotations

from functools import partial, wraps
from typing import Any

MODES = ("none", "selective", "full")


def _checkpointed(forward: Any) -> Any:
    from torch.utils.checkpoint import checkpoint

    @wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        return checkpoint(forward, *args, use_reentrant=False, **kwargs)

    return run


def apply_recompute(model: Any, mode: str) -> None:
    """Wrap model.blocks for `mode` (none, selective or full); none leaves the model untouched."""
    if mode not in MODES:
        raise ValueError(f"recompute must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "none":
        return
    for block in model.blocks:
        target = block if mode == "full" else block.attn
        target.forward = _checkpointed(partial(type(target).forward, target))
