"""Where the peak's bytes are, by module and by FSDP2 unit: the tracker's own bytes, storage by storage.

A ModuleLedger listens to a memory tracker (torch_compat.observe_tracker): every change of its tracked bytes, storage
by storage and category by category, goes into a log, and the log's length is noted whenever the tracker's peak rises.
After the step, the log up to a phase's peak moment sums to exactly what the tracker counted then, now split by
owner. A storage belongs to the innermost module running when the tracker first saw it (an activation to the module
that made it, a gradient temporary to the module whose backward made it, an all-gather buffer to the unit that
gathered it); parameters, their gradients, FSDP2's gathered copies and the optimizer's states belong to the module
that holds the parameter, whenever they were made. Outside every module: the loss, and the optimizer's step; FSDP2's
buffers made there are the root unit's (its reduce-scatter runs in backward's final callback, outside every module).
A unit that prefetches the next one's all-gather holds that all-gather buffer here.

Parts are what the breakdown reports: each block's attention and MLP sub-layers, the rest of each block (its norms
and residual adds), and outside the blocks each module that has no children (embeddings, the final norm, the head),
the rest of the model as one part. Each part names the FSDP2 unit holding it (stages 2-3).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from torch import nn

from ..protocol import ModuleShare
from . import torch_compat
from .recompute import attention_of, mlp_of
from .trackers import CATEGORIES

# What runs outside every module, by the phase it runs in, and DDP's own: (part, kind).
OUTSIDE = {"forward": ("(loss)", "loss"), "backward": ("(loss backward)", "loss"),
           "optimizer": ("(optimizer step)", "optimizer"), None: ("(before the step: inputs, buffers)", "other"),
           "buckets": ("(DDP gradient buckets)", "buckets")}
BUCKETS = OUTSIDE["buckets"][0]  # what DDP (or its stand-in) keeps itself, outside the model it wraps
# FSDP2's categories a unit's collectives make: made outside every module, they are the root's.
FSDP_BUFFERS = {"all_gather", "reduce_scatter", "unsharded_params", "unsharded_grads"}


class ModuleLedger:
    """Every change of a tracker's bytes, with the module running when each storage appeared."""

    def __init__(self, tracker: Any) -> None:
        self.tracker = tracker
        self.log: list[tuple[Any, int, Any]] = []  # (the storage's _WeakRefInfo, change in bytes, category)
        self.owner: dict[int, str] = {}  # id(winfo) -> the tracker's name of the module running when it appeared
        self.phase: str | None = None  # the measured step's phase (PhasePeaks marks it)
        self.peak_at = 0  # the log's length when the running peak last rose
        self.phase_peak_at: dict[str, int] = {}
        torch_compat.observe_tracker(tracker, self._change, self._peak_rose)

    def _change(self, winfo: Any, delta: int, reftype: Any) -> None:
        key = id(winfo)  # the log keeps every winfo alive, so an id is never reused while it matters
        if key not in self.owner:
            self.owner[key] = self._running()
        self.log.append((winfo, delta, reftype))

    def _running(self) -> str:
        parents = torch_compat.tracker_parents(self.tracker)
        if len(parents) == 1:  # only 'Global'
            return OUTSIDE[self.phase][0]
        return max(parents, key=len)  # names nest ('X.blocks.0.attn' inside 'X.blocks.0'): the longest is innermost

    def _peak_rose(self) -> None:
        self.peak_at = len(self.log)

    def mark(self, ended: str | None, starts: str | None, kept: bool = True) -> None:
        """A phase ended (its peak moment is the last rise, when its peak is the one kept: a phase met again under
        gradient accumulation keeps its highest) and another starts (the tracker's peak restarts at the current
        total, so that is its peak moment until the next rise)."""
        if ended is not None and kept:
            self.phase_peak_at[ended] = self.peak_at
        self.phase = starts
        self.peak_at = len(self.log)

    def shares(self, phase: str, device: Any, model: nn.Module, blocks: nn.ModuleList, optimizer: Any,
               wrapper: nn.Module | None = None) -> list[ModuleShare]:
        """The phase's peak moment by part, largest first: bytes per protocol category (they sum to the tracker's
        total at that moment). optimizer: the torch optimizer holding the states (engine.local_optimizer); wrapper:
        DDP (or its stand-in) around the model, whose own storages are its gradient buckets."""
        parts = _Parts(model, blocks)
        by_winfo: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # the bytes alive at that moment
        for winfo, delta, reftype in self.log[: self.phase_peak_at[phase]]:
            if winfo.device == device:
                by_winfo[id(winfo)][CATEGORIES.get(getattr(reftype, "value", reftype), str(reftype))] += delta
        held = self._held_by_parameters(model, optimizer, parts)
        names = {torch_compat.tracker_module_name(self.tracker, m): path for path, m in model.named_modules()}
        if wrapper is not None and wrapper is not model:
            names[torch_compat.tracker_module_name(self.tracker, wrapper)] = BUCKETS
            inner = {id(b) for b in model.buffers()}
            for buffer in wrapper.buffers():
                if id(buffer) not in inner:
                    held.update((id(w), BUCKETS) for w in torch_compat.tracker_winfos(self.tracker, buffer))
        out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for key, cats in by_winfo.items():
            owner = held.get(key) or parts.part(names.get(self.owner[key]), self.owner[key])
            for cat, n in cats.items():
                if n:  # FSDP2's buffers made outside every module are the root's (its reduce-scatter ends backward)
                    out["" if parts.fsdp and cat in FSDP_BUFFERS and owner.startswith("(") else owner][cat] += n
        shares = [ModuleShare(module=name, kind=parts.kind(name), unit=parts.unit(name), bytes=dict(cats))
                  for name, cats in out.items() if any(cats.values())]
        return sorted(shares, key=lambda s: s.total, reverse=True)

    def _held_by_parameters(self, model: nn.Module, optimizer: Any, parts: "_Parts") -> dict[int, str]:
        """id(winfo) -> part for everything a parameter owns: itself, its gradient, its optimizer states, its gathered
        copy (FSDP2), whenever it was made."""
        held: dict[int, str] = {}

        def claim(tensor: Any, part: str) -> None:
            if tensor is not None:
                for winfo in torch_compat.tracker_winfos(self.tracker, tensor):
                    held[id(winfo)] = part

        path_of = {id(m): path for path, m in model.named_modules()}
        for name, param in model.named_parameters():
            part = parts.part(name.rpartition(".")[0])
            claim(param, part)
            claim(param.grad, part)
            for value in optimizer.state.get(param, {}).values():
                if hasattr(value, "untyped_storage"):
                    claim(value, part)
        if parts.fsdp:
            for module, unsharded in torch_compat.fsdp_unsharded_params(model):
                claim(unsharded, parts.part(path_of.get(id(module), "")))
        return held


class _Parts:
    """The parts of a model the breakdown reports, each with its kind and FSDP2 unit."""

    def __init__(self, model: nn.Module, blocks: nn.ModuleList) -> None:
        block_path = next(path for path, m in model.named_modules() if m is blocks)
        self.kinds: dict[str, str] = {"": "model"}
        self.parts: dict[str, str] = {}  # module path -> the part it belongs to
        for i, block in enumerate(blocks):
            base = f"{block_path}.{i}"
            subs = {"attention": _child_path(block, _attention(block)), "mlp": _child_path(block, mlp_of(block))}
            self.kinds[base] = "block"
            for kind, sub in subs.items():
                if sub is not None:
                    self.kinds[f"{base}.{sub}"] = kind
            for path, _ in block.named_modules(prefix=base):
                self.parts[path] = next((f"{base}.{sub}" for sub in subs.values()
                                         if sub is not None and (path + ".").startswith(f"{base}.{sub}.")), base)
        for path, module in model.named_modules():
            if path in self.parts or path == block_path:
                continue
            leaf = next(module.children(), None) is None
            self.parts[path] = path if leaf else ""
            if leaf:
                self.kinds[path] = ("embedding" if isinstance(module, nn.Embedding) else
                                    "head" if isinstance(module, nn.Linear) else "model")
        self.parts[block_path] = ""
        self.units: dict[str, str] = {}
        groups = list(torch_compat.fsdp_units(model)) if _is_fsdp(model) else []
        self.fsdp = bool(groups)
        paths = {id(m): path for path, m in model.named_modules()}
        members: dict[int, list[str]] = defaultdict(list)
        for module, group in groups:
            members[id(group)].append(paths[id(module)])
        unit_name = {key: _unit_name(found) for key, found in members.items()}
        wrapped = {paths[id(module)]: unit_name[id(group)] for module, group in groups}
        for path in self.parts:  # the nearest wrapped module at or above the part's module
            at = path
            while at not in wrapped and at:
                at = at.rpartition(".")[0]
            if wrapped:
                self.units[path] = wrapped.get(at, wrapped.get("", ""))

    def part(self, path: str | None, tracker_name: str = "") -> str:
        """The part of a module path; a name outside the model (the loss, the step, DDP's buckets) is its own part."""
        if path is None or path.startswith("("):
            return path or (tracker_name if tracker_name.startswith("(") else "")
        return self.parts.get(path, "")

    def kind(self, part: str) -> str:
        outside = {name: kind for name, kind in OUTSIDE.values()}
        return outside.get(part) or self.kinds.get(part, "model")

    def unit(self, part: str) -> str | None:
        return self.units.get(part) if self.units and not part.startswith("(") else None


def _attention(block: nn.Module) -> nn.Module | None:
    try:
        return attention_of(block)
    except ValueError:
        return None


def _child_path(block: nn.Module, child: nn.Module | None) -> str | None:
    return None if child is None else next(name for name, m in block.named_modules() if m is child)


def _is_fsdp(model: nn.Module) -> bool:
    from torch.distributed.fsdp import FSDPModule

    return isinstance(model, FSDPModule)


def _unit_name(paths: list[str]) -> str:
    """A unit's name: its module's path, or 'blocks.0..3' for blocks wrapped together ('' is the root)."""
    if len(paths) == 1:
        return paths[0]
    first, last = paths[0], paths[-1]
    return f"{first}..{last.rpartition('.')[2]}"
