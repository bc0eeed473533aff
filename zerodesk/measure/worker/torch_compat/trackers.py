"""torch's memory trackers (MemTracker, FSDPMemTracker), and where their tracked bytes are, by module."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterator

import torch

from ._registry import _code_names, _need, _self_check, check

# ---------------------------------------------------------------- memory trackers


@_self_check("mem_tracker", "the memory tracker torch.distributed._tools.mem_tracker.MemTracker",
             code="tracker_unavailable")
def _check_mem_tracker() -> None:
    from torch.distributed._tools import mem_tracker

    probe = mem_tracker.MemTracker()
    for name in ("get_tracker_snapshot", "reset_mod_stats", "track_external", "_peak_mem", "_peak_mem_snap",
                 "_curr_mem_snap", "_update_and_maybe_create_winfos"):
        _need(hasattr(probe, name), f"no attribute {name}")


@_self_check("fsdp_mem_tracker", "FSDP2's memory tracker torch.distributed._tools.fsdp2_mem_tracker.FSDPMemTracker",
             code="tracker_unavailable")
def _check_fsdp_mem_tracker() -> None:
    from torch.distributed._tools import fsdp2_mem_tracker

    _need(hasattr(fsdp2_mem_tracker.FSDPMemTracker, "track_inputs"), "no FSDPMemTracker.track_inputs")
    _need(hasattr(fsdp2_mem_tracker._FSDPRefType, "UNSHARDED_PARAM"), "no _FSDPRefType.UNSHARDED_PARAM")


def mem_tracker() -> Any:
    """A new MemTracker (DDP stages)."""
    check("mem_tracker")
    from torch.distributed._tools.mem_tracker import MemTracker

    return MemTracker()


def fsdp_mem_tracker(model: Any, optimizer: Any) -> Any:
    """A new FSDPMemTracker of an FSDP2 model and its optimizer (stages 2-3)."""
    check("mem_tracker")
    check("fsdp_mem_tracker")
    from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker

    tracker = FSDPMemTracker(model, optimizer)
    _units_instrumented_whole(tracker)
    return tracker


@_self_check("fsdp_tracker_units", "FSDPMemTracker's FSDP2 instrumentation (_instrument_fsdp_module, "
                                   "_deregister_module_and_optimizer_hooks, their hook wrappers, _SavedFSDPMethods, "
                                   "_update_and_maybe_create_winfos, _FSDPRefType.BUFFER) "
                                   "and FSDP2's grouped forward hooks (_fsdp_state._register_group_forward_hooks, "
                                   "FSDPState._modules, _modules_to_run_forward, _cast_output_dtype)",
             code="tracker_unavailable")
def _check_fsdp_tracker_units() -> None:
    from torch.distributed._tools import fsdp2_mem_tracker
    from torch.distributed.fsdp._fully_shard import _fsdp_state

    tracker = fsdp2_mem_tracker.FSDPMemTracker
    for name in ("_fsdp_state_pre_forward", "_fsdp_state_post_forward", "_fsdp_param_group_pre_backward",
                 "_fsdp_param_group_post_backward", "_instrument_fsdp_sharded_params_grads",
                 "_update_and_maybe_create_winfos"):
        _need(callable(getattr(tracker, name, None)), f"no FSDPMemTracker.{name}")
    names = _code_names(tracker)
    for name in ("_instrument_fsdp_module", "_deregister_module_and_optimizer_hooks", "_fsdp_mod_to_saved_methods",
                 "_optimizer_hook_handles", "_root_mod"):
        _need(name in names, f"FSDPMemTracker no longer uses {name}")
    _need(hasattr(fsdp2_mem_tracker, "_SavedFSDPMethods"), "no _SavedFSDPMethods")
    _need(hasattr(getattr(fsdp2_mem_tracker, "_FSDPRefType", None), "BUFFER"), "no _FSDPRefType.BUFFER")
    params = list(inspect.signature(_fsdp_state._register_group_forward_hooks).parameters)
    _need(params == ["modules", "pre_hook", "post_hook", "modules_to_run", "cast_output_dtype"],
          f"_register_group_forward_hooks takes {params}")
    state_names = _code_names(_fsdp_state.FSDPState)
    for name in ("_modules", "_modules_to_run_forward", "_cast_output_dtype", "_pre_forward_hook_handle",
                 "_post_forward_hook_handle"):
        _need(name in state_names, f"FSDPState no longer has {name}")


def _units_instrumented_whole(tracker: Any) -> None:
    """Make the tracker keep FSDP2's units of several modules whole (fully_shard([block, block, ...])).

    FSDPMemTracker replaces each FSDPModule's forward hooks by its own, one module at a time: the hooks of a unit
    of N blocks, which FSDP2 runs once for the unit (gather before its first block, reshard and hook backward after
    its last, reduce-scatter when the first block's backward ends), would run for every block (torch 2.13): a unit
    resharded and gathered again at each block, each block's gradients reduce-scattered on their own. Here a unit's
    hooks are the tracker's wrappers inside FSDP2's own group hooks, so the tracked step is the untracked one; a
    unit of one module is instrumented exactly as the tracker does it, and leaving restores FSDP2's hooks."""
    check("fsdp_tracker_units")
    from torch.distributed._tools.fsdp2_mem_tracker import _FSDPRefType, _SavedFSDPMethods
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp._fully_shard._fsdp_state import _register_group_forward_hooks

    def states() -> list:  # each FSDP2 state with parameters once, in module order
        found: dict[int, Any] = {}
        for module in tracker._root_mod.modules():
            if isinstance(module, FSDPModule):
                state = module._get_fsdp_state()
                if state._fsdp_param_group:
                    found.setdefault(id(state), state)
        return list(found.values())

    def hook_forward(state: Any, pre: Callable, post: Callable, always_call: bool) -> None:
        state._pre_forward_hook_handle.remove()
        state._post_forward_hook_handle.remove()
        modules = state._modules
        if len(modules) == 1:
            state._pre_forward_hook_handle = modules[0].register_forward_pre_hook(
                pre(modules[0]), prepend=True, with_kwargs=True)
            state._post_forward_hook_handle = modules[0].register_forward_hook(post(modules[0]), prepend=False,
                                                                               always_call=always_call)
            return
        pres, posts = {m: pre(m) for m in modules}, {m: post(m) for m in modules}
        handle = _register_group_forward_hooks(
            modules, lambda module, args, kwargs: pres[module](module, args, kwargs),
            lambda module, args, output: posts[module](module, args, output),
            state._modules_to_run_forward, state._cast_output_dtype)
        state._pre_forward_hook_handle = state._post_forward_hook_handle = handle

    def instrument() -> None:  # FSDPMemTracker._instrument_fsdp_module, a unit's hooks kept a unit's
        for state in states():
            group, first = state._fsdp_param_group, state._modules[0]
            tracker._instrument_fsdp_sharded_params_grads(group)
            hook_forward(state, lambda m: tracker._fsdp_state_pre_forward(m, state._pre_forward),
                         lambda m: tracker._fsdp_state_post_forward(m, state._post_forward), always_call=True)
            tracker._fsdp_mod_to_saved_methods[first] = _SavedFSDPMethods(group.pre_backward, group.post_backward)
            group.pre_backward = tracker._fsdp_param_group_pre_backward(first, group.pre_backward)
            group.post_backward = tracker._fsdp_param_group_post_backward(first, group.post_backward)
        for buffer in tracker._root_mod.buffers():  # the model's buffers (rotary inv_freq), as the tracker files them
            tracker._update_and_maybe_create_winfos(buffer, _FSDPRefType.BUFFER)

    def deregister() -> None:  # FSDPMemTracker._deregister_module_and_optimizer_hooks, FSDP2's own hooks back
        for first, saved in tracker._fsdp_mod_to_saved_methods.items():
            state = first._get_fsdp_state()
            hook_forward(state, lambda m: state._pre_forward, lambda m: state._post_forward, always_call=False)
            state._fsdp_param_group.pre_backward = saved.pre_backward
            state._fsdp_param_group.post_backward = saved.post_backward
        tracker._fsdp_mod_to_saved_methods.clear()
        for handle in tracker._optimizer_hook_handles or ():
            handle.remove()
        tracker._optimizer_hook_handles = None

    tracker._instrument_fsdp_module = instrument
    tracker._deregister_module_and_optimizer_hooks = deregister


# The three below run per phase or per sample: they rely on the check made when their tracker was.


def restart_peak(tracker: Any) -> None:
    """Make the tracker's running peak (and its snapshot) the current total, as entering the tracker does."""
    snap = tracker.get_tracker_snapshot("current")
    tracker._peak_mem_snap = snap
    tracker._peak_mem = {dev: s.get("Total", 0) for dev, s in snap.items()}


def current_total(tracker: Any, device: Any) -> int:
    """The tracker's current total bytes on `device`."""
    return tracker._curr_mem_snap.get(device, {}).get("Total", 0)


def file_as_unsharded_param(tracker: Any, tensor: Any) -> None:
    """File a tensor with an FSDPMemTracker as an unsharded parameter, as its pre-forward hook does."""
    from torch.distributed._tools.fsdp2_mem_tracker import _FSDPRefType

    tracker._update_and_maybe_create_winfos(tensor, _FSDPRefType.UNSHARDED_PARAM)


# ---------------------------------------------------------------- where the tracked bytes are (by module)


@_self_check("tracker_updates", "MemTracker._update_snap(self, u_type, winfo, old_mem_consumed, old_reftype) with its "
                                "_UpdateType ADD, DEL, REF, SIZE; the tracked storages' _WeakRefInfo (mem_consumed, "
                                "reftype, device) in MemTracker._WINFO; its ModTracker's parents and get_known_fqn",
             code="tracker_unavailable")
def _check_tracker_updates() -> None:
    from torch.distributed._tools import mem_tracker
    from torch.distributed._tools.common_utils import get_untyped_storages

    params = list(inspect.signature(mem_tracker.MemTracker._update_snap).parameters)
    _need(params == ["self", "u_type", "winfo", "old_mem_consumed", "old_reftype"], f"its parameters are {params}")
    _need({"ADD", "DEL", "REF", "SIZE"} <= {u.name for u in mem_tracker._UpdateType}, "an update type is missing")
    _need("_update_snap" in _code_names(mem_tracker.MemTracker), "MemTracker no longer calls it")
    probe = mem_tracker.MemTracker()
    _need(isinstance(probe._mod_tracker.parents, set) and "Global" in probe._mod_tracker.parents,
          "its ModTracker keeps no set of parents with 'Global'")
    _need(callable(probe._mod_tracker.get_known_fqn), "its ModTracker has no get_known_fqn")
    t = torch.zeros(3)
    probe._update_and_maybe_create_winfos(t, mem_tracker._MemRefType.ACT)
    (storage,) = get_untyped_storages(t)
    winfo, _ = probe._WINFO.get(storage, (None, None))
    _need(winfo is not None and winfo.mem_consumed == 12 and winfo.reftype == mem_tracker._MemRefType.ACT
          and winfo.device == t.device, "a tracked tensor's storage has no _WeakRefInfo with its bytes, reftype, device")


def observe_tracker(tracker: Any, on_change: Callable[[Any, int, Any], None], on_peak: Callable[[], None]) -> None:
    """Tell on_change(winfo, bytes, reftype) every change of the tracker's bytes, storage by storage (a storage's
    first change creates it; a changed category is its bytes leaving one reftype and joining another), and on_peak()
    after every op that raised the tracker's running peak. The tracker's own figures stay exactly as they are."""
    check("tracker_updates")
    check("tracker_peak_update")
    from torch.distributed._tools.mem_tracker import _UpdateType

    update = tracker._update_snap
    add, delete, ref = _UpdateType.ADD, _UpdateType.DEL, _UpdateType.REF

    def _update_snap(u_type: Any, winfo: Any, old_mem_consumed: Any = None, old_reftype: Any = None) -> None:
        update(u_type, winfo, old_mem_consumed, old_reftype)
        if u_type is add:
            on_change(winfo, winfo.mem_consumed, winfo.reftype)
        elif u_type is delete:
            on_change(winfo, -winfo.mem_consumed, winfo.reftype)
        elif u_type is ref:
            on_change(winfo, -winfo.mem_consumed, old_reftype)
            on_change(winfo, winfo.mem_consumed, winfo.reftype)
        else:  # SIZE
            on_change(winfo, winfo.mem_consumed - old_mem_consumed, winfo.reftype)

    def _update_peak_stats(peak_state: Any) -> None:
        before = dict(tracker._peak_mem)
        type(tracker)._update_peak_stats(tracker, peak_state)  # the class's, as patched by global_peak_only or not
        if tracker._peak_mem != before:
            on_peak()

    tracker._update_snap = _update_snap  # the instance's own: its methods and callbacks call self._update_snap
    tracker._update_peak_stats = _update_peak_stats


def tracker_parents(tracker: Any) -> set[str]:
    """The names of the modules running now (their forward or backward), 'Global' always among them: the tracker's
    ModTracker's live set (read it, never keep a copy as the answer for later)."""
    return tracker._mod_tracker.parents


def tracker_module_name(tracker: Any, module: Any) -> str | None:
    """The name the tracker's ModTracker gave `module` ('FSDPDecoder.blocks.0.attn'), None if it never ran."""
    return tracker._mod_tracker.get_known_fqn(module)


def tracker_winfos(tracker: Any, tensor: Any) -> list:
    """The tracker's _WeakRefInfo of each storage behind `tensor` (a DTensor's local shard) that it tracks."""
    from torch.distributed._tools.common_utils import get_untyped_storages

    out = []
    for storage in get_untyped_storages(tensor):
        winfo, _ = tracker._WINFO.get(storage, (None, None))
        if winfo is not None:
            out.append(winfo)
    return out


def fsdp_unsharded_params(model: Any) -> Iterator[tuple[Any, Any]]:
    """(module, unsharded parameter) for every FSDP2 parameter of `model` that has one: the module holding it."""
    check("fsdp_state")
    check("fsdp_param_module")
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        group = module._get_fsdp_state()._fsdp_param_group if isinstance(module, FSDPModule) else None
        for fsdp_param in group.fsdp_params if group else ():
            if hasattr(fsdp_param, "_unsharded_param"):
                yield fsdp_param._module_info.module, fsdp_param._unsharded_param


@_self_check("fsdp_param_module", "FSDP2's FSDPParam._module_info.module (the module holding the parameter)")
def _check_fsdp_param_module() -> None:
    from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ParamModuleInfo

    _need("_module_info" in _code_names(FSDPParam), "FSDPParam keeps no _module_info")
    _need("module" in inspect.signature(ParamModuleInfo).parameters, "ParamModuleInfo has no module")


def fsdp_units(model: Any) -> Iterator[tuple[Any, Any]]:
    """(module, its FSDP2 parameter group) for every module fully_shard wrapped; modules wrapped together share one."""
    check("fsdp_state")
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        if isinstance(module, FSDPModule) and (group := module._get_fsdp_state()._fsdp_param_group) is not None:
            yield module, group


# ---------------------------------------------------------------- a tracker's updates recorded and replayed


def record_tracker(tracker: Any, on_update: Callable[[tuple], None], on_op: Callable[[], None]) -> None:
    """Tell on_update(update) every change of the tracker's bytes, as the hashable tuple (update type, reftype, bytes,
    old bytes, old reftype, device) that ReplayedTracker.update takes, and on_op() after every op (where the tracker
    updates its running peak). The tracker's own figures stay exactly as they are."""
    check("tracker_updates")
    check("tracker_peak_update")
    update, peak = tracker._update_snap, tracker._update_peak_stats

    def _update_snap(u_type: Any, winfo: Any, old_mem_consumed: Any = None, old_reftype: Any = None) -> None:
        update(u_type, winfo, old_mem_consumed, old_reftype)
        on_update((u_type, winfo.reftype, winfo.mem_consumed, old_mem_consumed, old_reftype, winfo.device))

    def _update_peak_stats(peak_state: Any) -> None:
        peak(peak_state)
        on_op()

    tracker._update_snap = _update_snap
    tracker._update_peak_stats = _update_peak_stats


def tracker_ref_class(tracker: Any) -> list:
    """The reftypes a tracker keys its snapshots by, in its order."""
    return list(tracker._ref_class)


class ReplayedTracker:
    """A tracker's current and peak bytes rebuilt from its recorded updates (record_tracker), by MemTracker's own
    bookkeeping (_update_snap, and the running peak global_peak_only keeps): what PhasePeaks and restart_peak read."""

    def __init__(self, ref_class: list) -> None:
        from torch.distributed._tools.mem_tracker import _TOTAL_KEY, _UpdateType

        self._ref_class, self._total, self._types = ref_class, _TOTAL_KEY, _UpdateType
        self._curr_mem_snap: dict = {}
        self._peak_mem: dict = {}
        self._peak_mem_snap: dict = {}

    def update(self, u: tuple) -> None:
        u_type, reftype, mem, old_mem, old_reftype, device = u
        total, types = self._total, self._types
        snap = self._curr_mem_snap.setdefault(device, dict.fromkeys(self._ref_class, 0))
        snap.setdefault(total, 0)
        maybe_zero = u_type != types.ADD and u_type != types.REF
        if u_type == types.ADD:
            snap[reftype] += mem
            snap[total] += mem
        elif u_type == types.DEL:
            snap[reftype] -= mem
            snap[total] -= mem
        elif u_type == types.REF:
            snap[old_reftype] -= mem
            snap[reftype] += mem
        else:  # SIZE
            snap[reftype] += mem - old_mem
            snap[total] += mem - old_mem
        if maybe_zero and snap[total] == 0:
            del self._curr_mem_snap[device]

    def op(self) -> None:
        for dev, snap in self._curr_mem_snap.items():
            if self._peak_mem.get(dev, 0) < snap[self._total]:
                self._peak_mem[dev] = snap[self._total]
                self._peak_mem_snap[dev] = dict(snap)

    def get_tracker_snapshot(self, type: str = "current") -> dict:
        from copy import deepcopy

        return deepcopy(self._curr_mem_snap if type == "current" else self._peak_mem_snap)
