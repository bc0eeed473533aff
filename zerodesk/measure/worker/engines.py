"""Each ZeRO stage's training set-up as PyTorch runs it: DDP (0), DDP + ZeroRedundancyOptimizer (1), FSDP2 (2-3).

Stages 0-1 wrap the model in DistributedDataParallel (under the simulation's fake process group, its
stand-in ddp_sim.SimulatedDDP) and compute under autocast in the plan's param_dtype (or in fp32: autocast
off); stage 1 shards AdamW's state with torch's ZeroRedundancyOptimizer. Stages 2-3 shard the plan's
units (each block, N blocks together, or none), then the root, with FSDP2's fully_shard and the plan's
MixedPrecisionPolicy, resharding after forward only in stage 3, with or without backward prefetch, and
move the states to the host with CPUOffloadPolicy where the plan offloads (core.offload). AdamW's kernels
are the plan's (optimizer_impl), chosen explicitly so every device runs the same ones. core.knobs reads
the plan's knobs for the core and for this module alike.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Iterator

import torch
from torch import nn

from ...core.knobs import autocast_dtype, blocks_per_unit, unit_spans
from ...core.offload import fsdp2_offloads
from ...core.plan import Plan
from ..devices import adamw_kwargs

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}  # the plan's dtype names in torch


@dataclass
class Engine:
    """One stage's set-up: what the step runs, steps and reads the states from."""

    train_model: nn.Module  # DDP (or its stand-in) around the model, or the model FSDP2 sharded in place
    optimizer: Any  # what the step calls: AdamW, or ZeroRedundancyOptimizer(AdamW) in stage 1
    autocast: Callable[[], ContextManager]  # autocast for DDP (the plan's); FSDP2's policy casts by itself
    ddp: Any | None = None  # stages 0-1: it reports its gradient buckets
    zero1: bool = False  # the optimizer is a ZeroRedundancyOptimizer
    accum_steps: int = 1  # micro-batches per step (plan.accum_steps)
    sync_each: bool = True  # reduce gradients every micro-batch (plan.accum_sync "every"), else only in the last

    @contextmanager
    def reducing(self, sync: bool) -> Iterator[None]:
        """One micro-batch's forward and backward; sync=False: its gradients stay local (accumulated, unreduced) by
        DDP's no_sync or FSDP2's set_requires_gradient_sync(False), which keeps them unsharded in the reduce dtype."""
        if sync:
            yield
        elif self.ddp is not None:
            with self.ddp.no_sync():
                yield
        else:
            self.train_model.set_requires_gradient_sync(False)
            try:
                yield
            finally:
                self.train_model.set_requires_gradient_sync(True)

    @property
    def local_optimizer(self) -> Any:
        """The AdamW holding this rank's optimizer states (ZeroRedundancyOptimizer keeps its own as .optim)."""
        return self.optimizer.optim if self.zero1 else self.optimizer


def adamw(params: Any, impl: str, lr: float = 1e-4) -> Any:
    """torch's AdamW with its kernels chosen explicitly (plan.optimizer_impl), the same on every device."""
    return torch.optim.AdamW(params, lr=lr, **adamw_kwargs(impl))


def zero1_group(mesh: Any) -> dict[str, Any]:
    """ZeroRedundancyOptimizer's process_group: the mesh's shard group with a shard group (HSDP), else every rank."""
    from .mesh import zero1_process_group

    group = zero1_process_group(mesh)
    return {} if group is None else {"process_group": group}


def build_engine(stage: int, plan: Plan, model: nn.Module, blocks: nn.ModuleList, device: torch.device, mesh: Any,
                 ddp_class: Any = None) -> Engine:
    """The engine of `stage` around `model` (its ModuleList of `blocks` is what FSDP2 wraps one by one).

    mesh: the device mesh FSDP2 shards over (stages 2-3; 2-D (replicate, shard) for HSDP, whose shard group stage 1's
    ZeroRedundancyOptimizer partitions over). ddp_class: a stand-in for DistributedDataParallel."""
    accum = {"accum_steps": plan.accum_steps, "sync_each": plan.accum_sync == "every"}
    if stage <= 1:
        from torch.nn.parallel import DistributedDataParallel

        device_ids = [device.index] if device.type == "cuda" else None
        ddp = (ddp_class or DistributedDataParallel)(model, device_ids=device_ids)
        dtype = autocast_dtype(plan)
        autocast = (lambda: torch.autocast(device.type, dtype=DTYPES[dtype])) if dtype else nullcontext  # noqa: E731
        if stage == 0:
            return Engine(ddp, adamw(ddp.parameters(), plan.optimizer_impl), autocast, ddp, **accum)
        from torch.distributed.optim import ZeroRedundancyOptimizer

        opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4,
                                      **zero1_group(mesh), **adamw_kwargs(plan.optimizer_impl))
        return Engine(ddp, opt, autocast, ddp, zero1=True, **accum)

    from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard

    from .mesh import shard_group_size
    from .shard_placement import fully_shard_kwargs

    mp = MixedPrecisionPolicy(param_dtype=DTYPES[plan.param_dtype], reduce_dtype=DTYPES[plan.reduce_dtype])
    # offload (core.offload, torch profile): FSDP2 moves parameters, gradients and AdamW's step to the host
    # together; pinned memory only where a device copies from it (CUDA). Not yet run on a GPU by ZeroDesk.
    policy = {"offload_policy": CPUOffloadPolicy(pin_memory=device.type == "cuda")} if fsdp2_offloads(plan) else {}
    # the plan's shard placement (dim 0, or auto for experts) among the ranks a tensor is sharded over (HSDP: N)
    policy.update(fully_shard_kwargs(plan, shard_group_size(mesh, mesh.size())))
    for span in unit_spans(len(blocks), blocks_per_unit(plan)):  # a list of modules is one unit (one all-gather)
        unit = [blocks[i] for i in span]
        fully_shard(unit[0] if len(unit) == 1 else unit, mesh=mesh, reshard_after_forward=stage == 3, mp_policy=mp,
                    **policy)
    fully_shard(model, mesh=mesh, reshard_after_forward=stage == 3, mp_policy=mp, **policy)
    if plan.prefetch == "off":
        no_backward_prefetch(model)
    return Engine(model, adamw(model.parameters(), plan.optimizer_impl), nullcontext, **accum)


def no_backward_prefetch(model: nn.Module) -> None:
    """Each FSDP2 unit gathered when its own backward starts, none ahead.

    FSDP2 prefetches the next unit in backward unless a unit names its own prefetch list, and an empty list means
    "the default"; so each unit names itself, which is gathered already when its backward starts (a no-op)."""
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        if isinstance(module, FSDPModule):
            module.set_modules_to_backward_prefetch([module])
