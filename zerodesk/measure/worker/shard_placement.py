"""FSDP2's shard placement as the plan asks (worker side: torch).

fully_shard shards every tensor on dim 0 by default, padding it to a multiple of Nd: transformers stacks a
layer's experts into tensors whose dim 0 is the expert count, so at Nd beyond it each rank stores whole padded
expert slices. `auto` passes fully_shard a shard_placement_fn that puts such a tensor on its largest dimension Nd
divides (core.torch_profile.shard_dim, which the torch profile counts by), as TorchTitan does for experts.
"""

from __future__ import annotations

from typing import Any, Callable

from ...core.torch_profile import shard_dim


def placement_fn(placement: str, world: int) -> Callable[[Any], Any] | None:
    """The shard_placement_fn for fully_shard, or None for its default (dim 0)."""
    if placement != "auto":
        return None
    from torch.distributed.tensor import Shard

    def place(param: Any) -> Any:
        d = shard_dim(tuple(param.shape), world, "auto")
        return Shard(d) if d else None  # None: fully_shard's own Shard(0)

    return place


def fully_shard_kwargs(plan: Any, world: int) -> dict[str, Any]:
    """Keyword arguments for every fully_shard call of this plan's engine."""
    fn = placement_fn(plan.shard_placement, world)
    return {"shard_placement_fn": fn} if fn is not None else {}
