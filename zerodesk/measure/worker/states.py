"""A rank's model states at rest, counted from the live tensors, beside what the torch profile predicts for them.

Counted after the optimizer step, never from the prediction: the distinct storages behind the
parameters, their gradients and the optimizer's state on the rank's device (views and shards once,
a DTensor by its local shard). The prediction is zerodesk.core.torch_profile for the same tensor list.
"""

from __future__ import annotations

from typing import Any, Iterable

import torch
from torch import nn

from ...core.plan import Plan
from ...core.torch_profile import rank_states
from ..protocol import States
from . import torch_compat
from .engines import Engine


def storage_bytes(tensors: Iterable[Any], device: torch.device) -> int:
    """Bytes of the distinct storages behind `tensors` on `device` (views and shards counted once)."""
    from torch.distributed.tensor import DTensor

    seen: dict[int, int] = {}
    for t in tensors:
        if t is None:
            continue
        if isinstance(t, DTensor):
            with torch.no_grad():  # without autograd, to_local() is the local shard itself
                t = t.to_local()
        if t.device != device:
            continue  # e.g. AdamW's step on the host while the states are on the GPU
        st = t.untyped_storage()
        if st.nbytes():
            seen[torch_compat.storage_key(t)] = st.nbytes()  # not data_ptr(): fake tensors all report 0
    return sum(seen.values())


def states_at_rest(engine: Engine, device: torch.device) -> States:
    """What the rank holds now: parameters, gradients and optimizer state, in bytes on its device."""
    params = list(engine.train_model.parameters())
    optimizer = [v for state in engine.local_optimizer.state.values() for v in state.values()
                 if isinstance(v, torch.Tensor)]
    return States(params=storage_bytes(params, device), grads=storage_bytes((p.grad for p in params), device),
                  optimizer=storage_bytes(optimizer, device))


def comm_buffer_bytes(engine: Engine) -> int | None:
    """DDP's own account of its gradient buckets (bytes, rebuilt after the first step); None without DDP."""
    return None if engine.ddp is None else torch_compat.ddp_bucket_bytes(engine.ddp)


def predicted(plan: Plan, model: nn.Module, stage: int, world: int, rank: int, device: torch.device,
              shard_group: int | None = None) -> tuple[States, int | None]:
    """The torch profile's states of this rank (and DDP's bucket bytes in stages 0-1) for the model's tensors.

    shard_group: N of a hybrid mesh; rank r then holds what rank r mod N of N holds (torch_profile.hybrid_runs)."""
    shapes = [s for _, s in plan.model.named_shapes or []]
    group = shard_group or world
    pred = rank_states(shapes, sum(p.numel() for p in model.parameters()), stage, group, device=device.type,
                       optimizer_impl=plan.optimizer_impl, placement=plan.shard_placement)[rank % group]
    states = States(params=pred["params"], grads=pred["grads"], optimizer=pred["optimizer"])
    return states, pred["comm_buffers"] if stage <= 1 else None
