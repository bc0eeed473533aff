"""DDP's gradient reducer, replayed in Python so stages 0 and 1 run under the fake process group.

torch's DistributedDataParallel reads tensor data in its constructor (parameter verification,
broadcast), which fake tensors have none of. Its memory is simple and is reproduced here with
torch's own pieces: the same bucket assignment (torch_compat.ddp_bucket_assignment: DDP's own, with
its first-bucket and 25 MiB caps, parameters in reverse order as DDP registers them), one
persistent flat buffer per bucket in the gradients' dtype, each gradient copied into its bucket
view when it is ready, the bucket all-reduced on the (fake) group once full, and copied back to
the gradient (gradient_as_bucket_view=False, DDP's default). The autograd graph, autocast and the
optimizer are the real ones; only the reducer's C++ is replaced.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import torch
import torch.distributed as dist
from torch import nn

from . import torch_compat

BUCKET_CAP_BYTES = 25 * 2**20  # DDP's bucket_cap_mb default


class SimulatedDDP(nn.Module):
    """Stand-in for DistributedDataParallel(module) with DDP's default buckets (see the module docstring)."""

    def __init__(self, module: nn.Module, device_ids: Any = None) -> None:
        super().__init__()
        self.module = module
        params = [p for p in module.parameters() if p.requires_grad]
        order = list(reversed(range(len(params))))  # DDP assigns buckets from the last parameter
        groups = torch_compat.ddp_bucket_assignment(
            [params[i] for i in order], [torch_compat.ddp_first_bucket_bytes(), BUCKET_CAP_BYTES])
        self._views: dict[int, tuple[int, torch.Tensor]] = {}
        self._pending: list[int] = []
        self._members: list[list[nn.Parameter]] = []
        self._sync = True
        for b, group in enumerate(groups):
            members = [params[order[i]] for i in group]
            flat = torch.zeros(sum(p.numel() for p in members), dtype=members[0].dtype, device=members[0].device)
            self.register_buffer(f"_bucket{b}", flat, persistent=False)
            offset = 0
            for p in members:
                self._views[id(p)] = (b, flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
                p.register_post_accumulate_grad_hook(self._ready)
            self._members.append(members)
            self._pending.append(len(members))

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """DDP's no_sync: gradients accumulate in .grad, nothing is copied to a bucket or reduced."""
        self._sync = False
        try:
            yield
        finally:
            self._sync = True

    def _ready(self, p: nn.Parameter) -> None:
        if not self._sync:
            return
        b, view = self._views[id(p)]
        view.copy_(p.grad)
        self._pending[b] -= 1
        if self._pending[b] == 0:  # the bucket is full: all-reduce it, copy the averages back
            flat = getattr(self, f"_bucket{b}")
            dist.all_reduce(flat)
            for q in self._members[b]:
                q.grad.copy_(self._views[id(q)][1])
            self._pending[b] = len(self._members[b])

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _get_ddp_logging_data(self) -> dict[str, Any]:
        """What the worker reads from DDP (torch_compat.ddp_bucket_bytes): bucket sizes in bytes."""
        sizes = [getattr(self, f"_bucket{b}").nbytes for b in range(len(self._members))]
        return {"bucket_sizes": ",".join(str(s) for s in sizes)}
