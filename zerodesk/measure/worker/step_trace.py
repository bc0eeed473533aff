"""The memory timeline of one training step of the real module, under fake tensors (worker side: torch).

A TorchDispatchMode files every storage an op makes (its bytes, shape and dtype) and, through a weak
reference, the moment it is freed, as torch's own memory trackers do. Marks name the step's places: each
block's forward (module hooks) and backward (hooks on the gradients of its output and input), the head and
loss, the autocast cache's release. The step is the worker's own (zerodesk.measure.worker), without the
engines: `bf16` is FSDP2's MixedPrecisionPolicy (bf16 parameters, floating inputs of each wrapped module cast
to bf16), `autocast` is DDP's (fp32 parameters under torch.autocast), `fp32` uses 32-bit parameters as they
are; recompute wraps the blocks as the worker does (zerodesk.measure.recompute). Parameters and buffers are
known before the step and never filed; what ends up in a parameter's .grad is filed as a gradient.

step_template.py (beside it) turns timelines at several sizes into the torch-free template core.step_template evaluates.
"""

from __future__ import annotations

import weakref
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import torch

from . import torch_compat
from .torch_compat import tree_leaves, tree_map


@dataclass
class Alloc:
    index: int
    nbytes: int
    shape: tuple[int, ...]
    dtype: str
    op: str
    region: str  # where it was made: "pre", "fwd:3", "head", "loss", "lossb", "headb", "bwd:3", "tail"
    grad: bool = False  # ended up as a parameter's .grad


@dataclass
class Timeline:
    """What a step allocated and freed, in order: ("alloc", Alloc) | ("free", index) | ("mark", name)."""

    events: list[tuple[str, Any]] = field(default_factory=list)
    allocs: list[Alloc] = field(default_factory=list)

    def signature(self) -> list[tuple]:
        """The step's shape without its sizes: two traces of one structure at other sizes must agree on it. A run
        of frees is a set (autocast's cache releases its copies in the order of their addresses)."""
        out: list = []
        frees: list = []
        for kind, item in self.events:
            if kind == "free":
                frees.append(item)
                continue
            if frees:
                out.append(("frees", tuple(sorted(frees))))
                frees = []
            if kind == "alloc":
                out.append(("alloc", item.dtype, len(item.shape), item.region, item.grad))
            else:
                out.append(("mark", item))
        if frees:
            out.append(("frees", tuple(sorted(frees))))
        return out


class _Recorder(torch_compat.dispatch_mode_base()):
    def __init__(self, known: set[int]) -> None:
        super().__init__()
        self.timeline = Timeline()
        self.known = known  # storages that are no step's (parameters, buffers, inputs)
        self.live: dict[int, int] = {}
        self.region = "pre"
        self.leaves = torch_compat.checked_tree_leaves()  # checked once, not per op

    def mark(self, name: str) -> None:
        self.timeline.events.append(("mark", name))

    def _file(self, t: torch.Tensor, op: str) -> None:
        st = t.untyped_storage()
        key = id(st)
        if key in self.known or key in self.live:
            return
        index = len(self.timeline.allocs)
        alloc = Alloc(index, st.nbytes(), tuple(int(d) for d in t.shape), str(t.dtype).removeprefix("torch."), op,
                      self.region)
        self.timeline.allocs.append(alloc)
        self.timeline.events.append(("alloc", alloc))
        self.live[key] = index
        weakref.finalize(st, self._freed, key, index)

    def _freed(self, key: int, index: int) -> None:
        self.live.pop(key, None)
        self.timeline.events.append(("free", index))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor):  # most ops: one tensor, nothing to walk
            self._file(out, func.__name__)
            return out
        for t in self.leaves(out):
            if isinstance(t, torch.Tensor):
                self._file(t, func.__name__)
        return out


def _first_tensor(value: Any) -> torch.Tensor | None:
    return next((t for t in tree_leaves(value) if isinstance(t, torch.Tensor) and t.is_floating_point()), None)


def _cast_inputs(module: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """FSDP2's pre-forward cast under MixedPrecisionPolicy(param_dtype=bf16): every floating tensor argument."""
    def cast(x: Any) -> Any:
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype != torch.bfloat16:
            return x.to(torch.bfloat16)
        return x

    return tree_map(cast, args), tree_map(cast, kwargs)


def trace_step(model: Any, blocks: Any, tokens: Any, targets: Any, compute: str) -> Timeline:
    """One step of `model` (its blocks the ModuleList the engines wrap) as the worker runs it, recorded.

    compute: "bf16" (FSDP2's mixed precision: the parameters must be bf16 already), "autocast" or "fp32"."""
    from .model import loss_fn

    known = {id(t.untyped_storage()) for t in [*model.parameters(), *model.buffers(), tokens, targets]}
    rec = _Recorder(known)
    handles = []
    last = len(blocks) - 1

    def enter(i: int):
        def hook(module, args, kwargs):
            rec.region = f"fwd:{i}"
            rec.mark(f"fwd:{i}")
            x = _first_tensor((args, kwargs))
            if i == 0 and x is not None and x.requires_grad:  # the gradient of block 0's input ends its backward
                x.register_hook(lambda g: _switch(rec, "tail"))
        return hook

    def leave(i: int):
        def hook(module, args, kwargs, output):
            rec.mark(f"fwd_end:{i}")
            y = _first_tensor(output)
            if y is not None and y.requires_grad:  # its gradient starts block i's backward (and ends block i+1's)
                y.register_hook(lambda g: _switch(rec, f"bwd:{i}"))
            if i == last:
                rec.region = "head"
        return hook

    for i, block in enumerate(blocks):
        handles.append(block.register_forward_pre_hook(enter(i), with_kwargs=True))
        handles.append(block.register_forward_hook(leave(i), with_kwargs=True))
        if compute == "bf16":
            handles.append(block.register_forward_pre_hook(_cast_inputs, with_kwargs=True))
    casting = torch.autocast("cpu", dtype=torch.bfloat16) if compute == "autocast" else nullcontext()
    try:
        with rec:
            with casting:
                out = model(tokens)  # the worker's loss_fn(model(tokens), targets) holds it as long
                _switch(rec, "loss")
                logits = _first_tensor(getattr(out, "logits", out))
                if logits is not None and logits.requires_grad:  # the head's backward begins with its gradient
                    logits.register_hook(lambda g: _switch(rec, "headb"))
                loss = loss_fn(out, targets)
                del out, logits
                rec.mark("forward_end")
            rec.region = "lossb"
            rec.mark("backward_start")
            loss.backward()
            del loss
            rec.mark("end")
    finally:
        for h in handles:
            h.remove()
    grads = {id(p.grad.untyped_storage()) for p in model.parameters() if p.grad is not None}
    for key, index in rec.live.items():
        if key in grads:
            rec.timeline.allocs[index].grad = True
    for p in model.parameters():
        p.grad = None
    return rec.timeline


def _switch(rec: _Recorder, region: str) -> None:
    rec.region = region
    rec.mark(region)
