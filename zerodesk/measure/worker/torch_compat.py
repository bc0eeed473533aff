"""Every private torch API ZeroDesk uses, in one place, each behind a self-check that fails loudly.

torch promises nothing about these: the memory trackers of torch.distributed._tools and their fields,
FSDP2's and DDP's internals, the SDPA dispatcher, the fake process group and fake tensors, a cuBLAS
clean-up, and the functions the simulation replaces to run faster. Each has a check in CHECKS that
raises TorchInternalsMoved, naming this torch's version and what moved, and each accessor here runs
its check before relying on it: a moved field stops the run with one sentence, never a patch that
switches itself off or a figure that changes without a word. tests/test_torch_compat.py runs every
check on the installed torch. The one transformers internal the simulation patches lives here too.
Outside this module the worker uses public torch only (a test scans for underscores).
"""

from __future__ import annotations

import inspect
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import torch
import torch.distributed as dist

TORCH_FLOOR = "2.13"  # the oldest torch CI runs and pyproject.toml's measure extra allows
CHECKS: dict[str, Callable[[], None]] = {}  # name -> self-check, in the order they are declared


class TorchInternalsMoved(RuntimeError):
    """A private piece ZeroDesk relies on is gone or changed; str() is one sentence. code: the protocol's error code."""

    def __init__(self, library: str, what: str, detail: str, code: str) -> None:
        version = torch.__version__ if library == "torch" else getattr(sys.modules.get(library), "__version__", "?")
        super().__init__(f"{library} {version} no longer has {what} as ZeroDesk uses it ({detail}); "
                         f"ZeroDesk is tested with torch {TORCH_FLOOR}")
        self.what, self.detail, self.code = what, detail, code


class _Missing(Exception):
    """What a check found not as expected."""


def _need(condition: Any, detail: str) -> None:
    if not condition:
        raise _Missing(detail)


def _self_check(name: str, what: str, code: str = "unsupported", library: str = "torch") -> Callable:
    """Register a check: its body raises (_Missing, or the ImportError/AttributeError/... of a moved piece)."""

    def register(body: Callable[[], None]) -> Callable[[], None]:
        def check() -> None:
            try:
                body()
            except (_Missing, ImportError, AttributeError, KeyError, TypeError, ValueError) as exc:
                detail = str(exc) if isinstance(exc, _Missing) else f"{type(exc).__name__}: {exc}"
                raise TorchInternalsMoved(library, what, detail, code) from None

        CHECKS[name] = check
        return check

    return register


def check(name: str) -> None:
    """Run one self-check (CHECKS' keys)."""
    CHECKS[name]()


def _code_names(*owners: Any) -> set[str]:
    """Every global and attribute name the functions of these modules or classes use (nested code included):
    whether torch still calls what a patch replaces, read without its source."""
    names: set[str] = set()

    def walk(code: Any) -> None:
        names.update(code.co_names)
        for const in code.co_consts:
            if inspect.iscode(const):
                walk(const)

    for owner in owners:
        members = vars(owner).values()
        if inspect.ismodule(owner):
            members = [m for m in members if getattr(m, "__module__", None) == owner.__name__]
        for member in members:
            for fn in (vars(member).values() if inspect.isclass(member) else [member]):
                fn = getattr(fn, "__func__", getattr(fn, "fget", fn))  # classmethod, staticmethod, property
                if inspect.isfunction(fn):
                    walk(inspect.unwrap(fn).__code__)
    return names


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
                                   "_deregister_module_and_optimizer_hooks, their hook wrappers, _SavedFSDPMethods) "
                                   "and FSDP2's grouped forward hooks (_fsdp_state._register_group_forward_hooks, "
                                   "FSDPState._modules, _modules_to_run_forward, _cast_output_dtype)",
             code="tracker_unavailable")
def _check_fsdp_tracker_units() -> None:
    from torch.distributed._tools import fsdp2_mem_tracker
    from torch.distributed.fsdp._fully_shard import _fsdp_state

    tracker = fsdp2_mem_tracker.FSDPMemTracker
    for name in ("_fsdp_state_pre_forward", "_fsdp_state_post_forward", "_fsdp_param_group_pre_backward",
                 "_fsdp_param_group_post_backward", "_instrument_fsdp_sharded_params_grads"):
        _need(callable(getattr(tracker, name, None)), f"no FSDPMemTracker.{name}")
    names = _code_names(tracker)
    for name in ("_instrument_fsdp_module", "_deregister_module_and_optimizer_hooks", "_fsdp_mod_to_saved_methods",
                 "_optimizer_hook_handles", "_root_mod"):
        _need(name in names, f"FSDPMemTracker no longer uses {name}")
    _need(hasattr(fsdp2_mem_tracker, "_SavedFSDPMethods"), "no _SavedFSDPMethods")
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
    from torch.distributed._tools.fsdp2_mem_tracker import _SavedFSDPMethods
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


# ---------------------------------------------------------------- FSDP2


@_self_check("fsdp_state", "FSDP2's per-module state (FSDPModule._get_fsdp_state()._fsdp_param_group.fsdp_params, "
                           "FSDPParam._unsharded_param)")
def _check_fsdp_state() -> None:
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
    from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState

    _need(callable(getattr(FSDPModule, "_get_fsdp_state", None)), "no FSDPModule._get_fsdp_state")
    _need(hasattr(FSDPState, "_fsdp_param_group"), "no FSDPState._fsdp_param_group")
    _need("fsdp_params" in _code_names(FSDPParamGroup), "FSDPParamGroup keeps no fsdp_params")
    _need("_unsharded_param" in _code_names(FSDPParam), "FSDPParam keeps no _unsharded_param")


def unsharded_params(model: Any) -> Iterator[Any]:
    """The unsharded parameter of every FSDP2 parameter of `model` that has one (made at its first all-gather)."""
    check("fsdp_state")
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        group = module._get_fsdp_state()._fsdp_param_group if isinstance(module, FSDPModule) else None
        for fsdp_param in group.fsdp_params if group else ():
            if hasattr(fsdp_param, "_unsharded_param"):
                yield fsdp_param._unsharded_param


class LazyChunks:
    """torch.chunk(tensor, n, dim) padded with empty tensors to n, as FSDP2's _chunk_with_empty returns it, but each
    chunk made only when asked for: FSDP2 reads two of the Nd chunks (this rank's and the 0th), and making all Nd
    fake views cost most of fully_shard at Nd = 1024 (70B: about two thirds of the simulation)."""

    def __init__(self, tensor: Any, n: int, dim: int) -> None:
        self.tensor, self.n, self.dim = tensor, n, dim
        self.size = -(-tensor.size(dim) // n) if tensor.size(dim) else 0  # torch.chunk's chunk length

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        whole = self.tensor.size(self.dim)
        if i == 0 or whole == 0:  # torch.chunk splits an empty dim into n empty views
            return self.tensor.narrow(self.dim, 0, min(self.size, whole))
        length = min(self.size, whole - i * self.size)
        if length <= 0:  # past torch.chunk's last chunk: _chunk_with_empty's filler
            return self[0].new_empty(0)
        return self.tensor.narrow(self.dim, i * self.size, length)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self.n))


def _views(chunks: Any) -> list:
    return [(c.shape, c.stride(), c.storage_offset(), c.dtype) for c in chunks]


@_self_check("fsdp_chunks", "FSDP2's sharding helper torch.distributed.fsdp._fully_shard._fsdp_param._chunk_with_empty")
def _check_fsdp_chunks() -> None:
    from torch.distributed.fsdp._fully_shard import _fsdp_param

    original = _fsdp_param._chunk_with_empty
    _need("_chunk_with_empty" in _code_names(_fsdp_param.FSDPParam), "FSDPParam no longer calls it")
    for shape, n in (((0, 3), 2), ((5,), 3), ((7, 2), 4), ((3,), 8)):
        t = torch.empty(shape)
        _need(_views(LazyChunks(t, n, 0)) == _views(original(t, n, 0)), f"it chunks a {shape} tensor {n} ways "
                                                                          "differently from LazyChunks")


@contextmanager
def chunks_on_demand() -> Iterator[None]:
    """FSDP2 sharding with LazyChunks (the same shards, sizes and views; nothing else changes)."""
    check("fsdp_chunks")
    from torch.distributed.fsdp._fully_shard import _fsdp_param

    original = _fsdp_param._chunk_with_empty
    _fsdp_param._chunk_with_empty = LazyChunks
    try:
        yield
    finally:
        _fsdp_param._chunk_with_empty = original


@_self_check("fsdp_reduce_scatter", "the reduce-scatter FSDP2's torch.distributed.fsdp._fully_shard._fsdp_collectives "
                                    "calls (dist.reduce_scatter_single or dist.reduce_scatter_tensor)")
def _check_fsdp_reduce_scatter() -> None:
    _reduce_scatter_name()


def fsdp_reduce_scatter_name() -> str:
    """The torch.distributed function FSDP2 reduce-scatters gradients with (reduce_scatter_single from torch 2.13)."""
    check("fsdp_reduce_scatter")
    return _reduce_scatter_name()


def _reduce_scatter_name() -> str:
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives

    called = _code_names(_fsdp_collectives)
    for name in ("reduce_scatter_single", "reduce_scatter_tensor"):
        if hasattr(dist, name) and name in called:
            return name
    raise _Missing("FSDP2's collectives call neither")



# ---------------------------------------------------------------- the trackers' cost in a simulation


@_self_check("tracker_peak_update", "MemTracker._update_peak_stats(self, peak_state), called after every op, "
                                    "and its _TOTAL_KEY 'Total'")
def _check_tracker_peak_update() -> None:
    from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker

    params = list(inspect.signature(mem_tracker.MemTracker._update_peak_stats).parameters)
    _need(params == ["self", "peak_state"], f"its parameters are {params}")
    _need(mem_tracker._TOTAL_KEY == "Total", f"the total is keyed {mem_tracker._TOTAL_KEY!r}")
    # FSDPMemTracker's own absence is the fsdp_mem_tracker check's to report, for the stages that need it
    for tracker in (mem_tracker.MemTracker, getattr(fsdp2_mem_tracker, "FSDPMemTracker", None)):
        if tracker is not None:
            _need("_update_peak_stats" in _code_names(tracker), f"{tracker.__name__} no longer calls it")


@contextmanager
def global_peak_only() -> Iterator[None]:
    """The trackers' running peak without their per-module peaks, which nothing here reads.

    After every op MemTracker walks every tracked module to update its local peak (and copies its snapshot):
    O(ops x modules), a large share of a tracked 7B step. The global peak and its snapshot, which PhasePeaks
    reads, are updated exactly as torch does."""
    check("tracker_peak_update")
    from torch.distributed._tools import mem_tracker

    def _update_peak_stats(self: Any, peak_state: Any) -> None:
        for dev, dev_snap in self._curr_mem_snap.items():
            if self._peak_mem.get(dev, 0) < dev_snap["Total"]:
                self._peak_mem[dev] = dev_snap["Total"]
                self._peak_mem_snap[dev] = dict(dev_snap)

    original = mem_tracker.MemTracker._update_peak_stats
    mem_tracker.MemTracker._update_peak_stats = _update_peak_stats
    try:
        yield
    finally:
        mem_tracker.MemTracker._update_peak_stats = original


@_self_check("tracker_output_walk", "the module-level tree_map_only of torch.distributed._tools.mem_tracker and "
                                    "fsdp2_mem_tracker (torch.utils._pytree's)")
def _check_tracker_output_walk() -> None:
    from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker
    from torch.utils import _pytree

    for module in (mem_tracker, fsdp2_mem_tracker):
        _need(module.tree_map_only is _pytree.tree_map_only, f"{module.__name__}.tree_map_only is another function")


@contextmanager
def direct_output_walk() -> Iterator[None]:
    """The trackers' walk over each op's outputs without pytree's flatten and rebuild.

    After every op the trackers call tree_map_only(torch.Tensor, track, outputs) and drop what it returns. For a
    tensor, a plain list or tuple of tensors (nearly every op; FSDP2's and AdamW's foreach ops return lists of
    hundreds) or one value that is no tensor and no container (None, a number, a device: prim.device's output, the
    most frequent op under fake tensors) this calls track on the same tensors in the same order (none for a value)
    without building a tree spec and a new tree, which was most of the trackers' own time in a 7B step. Any other
    output goes to torch's own walk."""
    check("tracker_output_walk")
    from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker
    from torch.utils._pytree import tree_map_only

    # outputs that are one leaf and never a tensor: prim.device's (most ops a tracker sees), item()'s, sizes' ...
    plain = {type(None), int, float, bool, complex, str, torch.device, torch.dtype}

    def direct(types: Any, func: Any, tree: Any, is_leaf: Any = None) -> Any:
        if types is torch.Tensor and is_leaf is None:
            if isinstance(tree, torch.Tensor):
                return func(tree)
            if type(tree) in plain:
                return tree
            if type(tree) in (list, tuple) and all(isinstance(t, torch.Tensor) for t in tree):
                return type(tree)([func(t) for t in tree])
        return tree_map_only(types, func, tree, is_leaf)

    modules = (mem_tracker, fsdp2_mem_tracker)
    for m in modules:
        m.tree_map_only = direct
    try:
        yield
    finally:
        for m in modules:
            m.tree_map_only = tree_map_only


# ---------------------------------------------------------------- DTensor's sharding propagation


@_self_check("strided_flag_scan", "DTensor's torch.distributed.tensor._sharding_prop._propagate_use_strided_shard_flag"
                                  "(op_strategy, op_schema), which reads only op_schema.args_spec and returns at once "
                                  "when no input is a _StridedShard")
def _check_strided_flag_scan() -> None:
    import dis

    from torch.distributed.tensor import _sharding_prop
    from torch.distributed.tensor.placement_types import Replicate, Shard, _StridedShard  # noqa: F401

    original = _sharding_prop._propagate_use_strided_shard_flag
    params = list(inspect.signature(original).parameters)
    _need(params == ["op_strategy", "op_schema"], f"its parameters are {params}")
    _need("_propagate_use_strided_shard_flag" in _code_names(_sharding_prop.ShardingPropagator),
          "the sharding propagator no longer calls it")
    code = list(dis.get_instructions(original))
    reads = {code[i + 1].argval for i, ins in enumerate(code) if ins.argval == "op_schema" and ins.opname == "LOAD_FAST"}
    _need(reads == {"args_spec"}, f"it reads {sorted(map(str, reads))} of op_schema")

    class Untouchable:
        def __getattr__(self, name: str) -> Any:
            raise _Missing(f"it reads the strategy's {name} though no input is a _StridedShard")

    spec = type("Spec", (), {"placements": (Shard(0), Replicate()), "use_strided_shard_as_shard_order": False})()
    original(Untouchable(), type("Schema", (), {"args_spec": (spec,)})())


@contextmanager
def strided_flag_scanned_once() -> Iterator[None]:
    """DTensor's sharding propagation of a foreach op in linear time rather than quadratic.

    For an op over lists of DTensors (AdamW's foreach step on FSDP2's parameters: a dozen ops over every
    parameter) torch calls _propagate_use_strided_shard_flag(child, op_schema) once per list element, and each
    call flattens and scans every input spec of the whole op: O(tensors²), two thirds of a 70B simulation at
    Nd = 1024. The scan reads only op_schema, so here it runs once per schema: where no input is a _StridedShard
    (FSDP2's Shard(0)), torch's function returns at once, and so does this; otherwise torch's own runs."""
    check("strided_flag_scan")
    from torch.distributed.tensor import _sharding_prop
    from torch.distributed.tensor.placement_types import _StridedShard

    original = _sharding_prop._propagate_use_strided_shard_flag
    last: list[Any] = [None, None, False]  # the schema and its args_schema last scanned, and whether any is strided

    def propagate_once_scanned(op_strategy: Any, op_schema: Any) -> None:
        if last[0] is not op_schema or last[1] is not op_schema.args_schema:
            last[:] = [op_schema, op_schema.args_schema,
                       any(isinstance(p, _StridedShard) for spec in op_schema.args_spec for p in spec.placements)]
        if last[2]:
            original(op_strategy, op_schema)

    _sharding_prop._propagate_use_strided_shard_flag = propagate_once_scanned
    try:
        yield
    finally:
        _sharding_prop._propagate_use_strided_shard_flag = original
        last.clear()


@_self_check("foreach_expansion", "DTensor's torch.distributed.tensor._sharding_prop._expand_single_dim_strategy_to_mesh"
                                  "(mesh, op_schema, strategy_info, output_tensor_meta), the OpSchema dataclass and "
                                  "TupleStrategy.children, OpStrategy.strategies")
def _check_foreach_expansion() -> None:
    import dataclasses

    from torch.distributed.tensor import _sharding_prop
    from torch.distributed.tensor._op_schema import OpSchema, OpStrategy, TupleStrategy

    params = list(inspect.signature(_sharding_prop._expand_single_dim_strategy_to_mesh).parameters)
    _need(params == ["mesh", "op_schema", "strategy_info", "output_tensor_meta"], f"its parameters are {params}")
    _need("_expand_single_dim_strategy_to_mesh" in _code_names(_sharding_prop.ShardingPropagator),
          "the sharding propagator no longer calls it")
    fields = {f.name for f in dataclasses.fields(OpSchema)}
    _need({"op", "args_schema", "kwargs_schema", "_comparison_key"} <= fields, f"OpSchema's fields are {fields}")
    _need("children" in inspect.signature(TupleStrategy).parameters, "TupleStrategy takes no children")
    _need("strategies" in inspect.signature(OpStrategy).parameters, "OpStrategy takes no strategies")


@contextmanager
def foreach_expanded_once_per_kind() -> Iterator[None]:
    """DTensor's sharding strategy of a foreach op expanded once per distinct element, not once per element.

    For a foreach op over FSDP2's parameters (AdamW's step: a dozen of them over every parameter) torch expands the
    single-dim strategy of each element in turn, and each element's schema carries the op's whole scalar lists
    (AdamW's per-parameter step sizes): O(tensors²), a third of a 70B simulation at Nd = 1024. An element's
    strategy depends only on its own inputs' specs (placements, mesh, tensor meta) and scalars, so the elements
    are grouped by those, torch expands one representative of each group, and every element gets its
    representative's strategy: the strategy torch would have computed for it. Anything else goes to torch."""
    check("foreach_expansion")
    import dataclasses

    from torch.distributed.tensor import _sharding_prop
    from torch.distributed.tensor._op_schema import OpStrategy, TupleStrategy

    original = _sharding_prop._expand_single_dim_strategy_to_mesh

    def per_element(arg: Any) -> bool:  # a tensor list (TupleStrategy) or a scalar list: one item per element
        return isinstance(arg, (TupleStrategy, list))

    def items(arg: Any) -> Sequence[Any]:
        return arg.children if isinstance(arg, TupleStrategy) else arg

    def element_key(arg: Any, i: int) -> Any:
        if isinstance(arg, TupleStrategy):
            return tuple((s.output_specs, s.input_specs) for s in arg.children[i].strategies)
        return arg[i] if isinstance(arg, list) else None  # anything else is the same for every element

    def reduced(arg: Any, picks: list[int]) -> Any:
        if isinstance(arg, TupleStrategy):
            return TupleStrategy([arg.children[i] for i in picks])
        return [arg[i] for i in picks] if isinstance(arg, list) else arg

    def groupable(op_schema: Any, output_tensor_meta: Any) -> int | None:
        """The number of elements of a foreach op whose schema this knows how to group; None otherwise."""
        args = op_schema.args_schema
        lists = [a for a in args if per_element(a)]
        if not (op_schema.op.name().startswith("aten::_foreach_") and lists and isinstance(lists[0], TupleStrategy)):
            return None
        n = len(lists[0].children)
        if (any(len(items(a)) != n for a in lists) or any(isinstance(a, tuple) for a in args)
                or any(per_element(v) or isinstance(v, tuple) for v in op_schema.kwargs_schema.values())
                or any(not isinstance(c, OpStrategy) for a in lists if isinstance(a, TupleStrategy)
                       for c in a.children)
                or not (output_tensor_meta is None
                        or (isinstance(output_tensor_meta, (list, tuple)) and len(output_tensor_meta) == n))):
            return None
        return n

    def expand_once_per_kind(mesh: Any, op_schema: Any, strategy_info: Any, output_tensor_meta: Any) -> Any:
        n = groupable(op_schema, output_tensor_meta)
        if n is None:
            return original(mesh, op_schema, strategy_info, output_tensor_meta)
        args = op_schema.args_schema
        first: dict[Any, int] = {}  # an element's key -> the first element with it
        try:
            keys = [tuple(element_key(a, i) for a in args)
                    + ((output_tensor_meta[i],) if output_tensor_meta is not None else ()) for i in range(n)]
            for i, key in enumerate(keys):
                first.setdefault(key, i)
        except TypeError:  # something unhashable (symbolic shapes): torch's own way
            return original(mesh, op_schema, strategy_info, output_tensor_meta)
        if len(first) == n:
            return original(mesh, op_schema, strategy_info, output_tensor_meta)
        picks = list(first.values())
        group = {key: j for j, key in enumerate(first)}
        schema = dataclasses.replace(op_schema, args_schema=tuple(reduced(a, picks) for a in args),
                                     _comparison_key=None)
        metas = None if output_tensor_meta is None else type(output_tensor_meta)(output_tensor_meta[i] for i in picks)
        expand = original(mesh, schema, strategy_info, metas)

        def expanded(op: Any, args_meta: Any, kwargs_meta: Any) -> Any:
            strategy = expand(op, args_meta, kwargs_meta)
            if not isinstance(strategy, TupleStrategy) or len(strategy.children) != len(picks):  # not one per element
                return original(mesh, op_schema, strategy_info, output_tensor_meta)(op, args_meta, kwargs_meta)
            return TupleStrategy([strategy.children[group[key]] for key in keys])

        return expanded

    _sharding_prop._expand_single_dim_strategy_to_mesh = expand_once_per_kind
    try:
        yield
    finally:
        _sharding_prop._expand_single_dim_strategy_to_mesh = original


@contextmanager
def same_figures_faster() -> Iterator[None]:
    """What a measured or simulated stage runs under: the trackers' global peak only, their direct walk over each
    op's outputs, and DTensor's foreach sharding in linear time (the strided flag scanned once, the strategy
    expanded once per kind of element). None changes a figure; each drops work whose result nothing reads or that
    was repeated."""
    with global_peak_only(), direct_output_walk(), strided_flag_scanned_once(), foreach_expanded_once_per_kind():
        yield


# ---------------------------------------------------------------- DDP


@_self_check("ddp_buckets", "DDP's bucket assignment dist._compute_bucket_assignment_by_size, "
                            "dist._DEFAULT_FIRST_BUCKET_BYTES and DistributedDataParallel._get_ddp_logging_data")
def _check_ddp_buckets() -> None:
    from torch.nn.parallel import DistributedDataParallel

    _need(callable(dist._compute_bucket_assignment_by_size), "not callable")
    _need(isinstance(dist._DEFAULT_FIRST_BUCKET_BYTES, int), "no first-bucket size")
    _need(callable(DistributedDataParallel._get_ddp_logging_data), "no logging data")
    p = torch.zeros(3)
    groups, _ = dist._compute_bucket_assignment_by_size([p, p], [8, 2**20], [False, False])
    _need([list(g) for g in groups] == [[0], [1]], f"two 12-byte tensors under an 8-byte first bucket give {groups}")


def ddp_first_bucket_bytes() -> int:
    """DDP's cap for its first (smallest) bucket."""
    check("ddp_buckets")
    return dist._DEFAULT_FIRST_BUCKET_BYTES


def ddp_bucket_assignment(tensors: list, caps: list[int]) -> list[list[int]]:
    """DDP's own grouping of `tensors` (in the order DDP registers them) into buckets under `caps` bytes."""
    check("ddp_buckets")
    groups, _ = dist._compute_bucket_assignment_by_size(tensors, caps, [False] * len(tensors))
    return [list(g) for g in groups]


def ddp_bucket_bytes(ddp: Any) -> int:
    """The bytes of a DDP's gradient buckets as it reports them (rebuilt after its first step), or its stand-in's."""
    check("ddp_buckets")
    info = ddp._get_ddp_logging_data()
    if "rebuilt_bucket_sizes" not in info and "bucket_sizes" not in info:
        raise TorchInternalsMoved("torch", "DDP's logged bucket sizes", f"keys {sorted(info)[:20]}", "unsupported")
    sizes = info.get("rebuilt_bucket_sizes") or info.get("bucket_sizes") or ""
    return sum(int(s) for s in str(sizes).split(",") if s.strip())


# ---------------------------------------------------------------- tensors, kernels, devices


@_self_check("storage_identity", "a storage's identity UntypedStorage._cdata (fake tensors' data_ptr() is 0)")
def _check_storage_identity() -> None:
    a, b = torch.zeros(4), torch.zeros(4)
    _need(a.untyped_storage()._cdata == a[1:].untyped_storage()._cdata, "a view has another storage id")
    _need(a.untyped_storage()._cdata != b.untyped_storage()._cdata, "two storages share an id")


def storage_key(tensor: Any) -> int:
    """What tells the storage (StorageImpl) behind a tensor apart, real or fake: views share it."""
    return tensor.untyped_storage()._cdata


@_self_check("sdp_choice", "the SDPA dispatcher torch._fused_sdp_choice")
def _check_sdp_choice() -> None:
    q = torch.zeros(1, 2, 4, 8, dtype=torch.bfloat16)
    _sdp_kernel(q, q[:, :1], True)


def sdp_kernel(q: Any, k: Any, enable_gqa: bool) -> str:
    """The kernel torch's SDPA dispatcher picks for causal attention of q over k (and v shaped as k), as
    torch.nn.attention.SDPBackend names it: FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION or MATH."""
    check("sdp_choice")
    return _sdp_kernel(q, k, enable_gqa)


def _sdp_kernel(q: Any, k: Any, enable_gqa: bool) -> str:
    from torch.nn.attention import SDPBackend

    return SDPBackend(torch._fused_sdp_choice(q, k, k, None, 0.0, True, scale=None, enable_gqa=enable_gqa)).name



@_self_check("cublas_workspaces", "torch._C._cuda_clearCublasWorkspaces (in a CUDA build)")
def _check_cublas_workspaces() -> None:
    _need(not torch.version.cuda or callable(getattr(torch._C, "_cuda_clearCublasWorkspaces", None)), "missing")


def clear_cublas_workspaces() -> None:
    """Free cuBLAS's workspace per handle and stream, which the next stage's peak would carry (CUDA only)."""
    check("cublas_workspaces")
    torch._C._cuda_clearCublasWorkspaces()


# ---------------------------------------------------------------- the simulation's fake world


@_self_check("fake_world", "the fake process group (torch.testing._internal.distributed.fake_pg.FakeStore, "
                           "backend 'fake') and torch._subclasses.fake_tensor.FakeTensorMode",
             code="tracker_unavailable")
def _check_fake_world() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: F401
    from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: F401  (registers the backend)

    _need("fake" in dist.Backend.backend_list, "no 'fake' backend")


def fake_store() -> Any:
    """A store for dist.init_process_group("fake", ...): collectives that move nothing."""
    check("fake_world")
    from torch.testing._internal.distributed.fake_pg import FakeStore

    return FakeStore()


def fake_tensor_mode() -> Any:
    """A FakeTensorMode: tensors made under it carry shapes and dtypes, no data."""
    check("fake_world")
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode()


# ---------------------------------------------------------------- FakeTensor's dispatch cache


class _KeyFallback(Exception):
    """An argument the direct key walk leaves to torch's own."""


def _direct_key_walk() -> Callable[[Any, list, Any], None]:
    """walk(mode, result, args): what FakeTensorMode._prep_args_for_hash appends for `args`, value for value, where
    every argument is a plain value, a list, tuple or dict of them, or a strided FakeTensor of `mode` with static
    sizes and no constant; _KeyFallback for anything else (the caller rolls back and lets torch walk it)."""
    from torch._prims_common import suggest_memory_format
    from torch._subclasses.fake_tensor import FakeTensor

    plain = {int, float, bool, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format}
    strided, size_type, contiguous = torch.strided, torch.Size, torch.contiguous_format

    def tensor(mode: Any, result: list, t: Any) -> None:
        # extract_tensor_metadata(t) flattened by TensorMetadata._flatten_into, field by field
        if t.fake_mode is not mode or t.constant is not None or t.layout is not strided \
                or t._has_symbolic_sizes_strides:
            raise _KeyFallback
        shape, stride = t.shape, t.stride()
        fmt = contiguous if len(shape) not in (4, 5) else suggest_memory_format(t)
        if not t.is_contiguous(memory_format=fmt):
            fmt = None
        result.append(t.dtype)
        result.append(size_type)
        result.append(f"length_{len(shape)}")
        for d in shape:
            result.append(int)
            result.append(d)
        result.append(tuple)
        result.append(f"length_{len(stride)}")
        for s in stride:
            result.append(int)
            result.append(s)
        result.extend((t.device, strided, fmt, t.storage_offset(), t.untyped_storage().nbytes(), t.requires_grad,
                       t.is_quantized, t.is_conj(), t.is_neg(), t.is_inference(), t.is_sparse, None, None, None))

    def walk(mode: Any, result: list, args: Any) -> None:
        if isinstance(args, (list, tuple, dict)):
            result.append(type(args))
            result.append(f"length_{len(args)}")
        if isinstance(args, dict):
            walk(mode, result, args.keys())
            walk(mode, result, args.values())
            return
        for arg in args:
            kind = type(arg)
            if kind in plain:
                result.append(kind)
                result.append(arg)
            elif kind is FakeTensor:
                tensor(mode, result, arg)
            elif kind in (list, tuple, dict, size_type):
                walk(mode, result, arg)
            else:
                raise _KeyFallback

    return walk


@_self_check("fake_cache_key", "FakeTensorMode._prep_args_for_hash(self, result, args, state, id_hashed_objects) and "
                               "the cache key it builds from extract_tensor_metadata")
def _check_fake_cache_key() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch._subclasses._fake_tensor_utils import _CacheKeyState

    original = FakeTensorMode._prep_args_for_hash
    params = list(inspect.signature(original).parameters)
    _need(params == ["self", "result", "args", "state", "id_hashed_objects"], f"its parameters are {params}")
    _need("_prep_args_for_hash" in _code_names(FakeTensorMode), "FakeTensorMode no longer calls it")
    walk = _direct_key_walk()
    with FakeTensorMode() as mode:
        x = torch.empty(2, 3, 4, 5)
        probes = [x, x[:, 1], x.transpose(1, 3), x.to(memory_format=torch.channels_last), torch.empty(2, 3, 4, 5, 6),
                  torch.empty(0), torch.empty(()), torch.empty(3, dtype=torch.bfloat16, requires_grad=True),
                  torch.empty(6, 2)[1:].t(), torch.empty(4, dtype=torch.complex64).conj()]
        args = [(p,) for p in probes] + [(x, [x[0], None], {"a": 1.5, "b": (2, True)}, "s", torch.float16,
                                          torch.device("cpu"), torch.strided, torch.Size([2, 3]))]
        for arg in args:
            want, got = [], []
            original(mode, want, arg, _CacheKeyState(), [])
            walk(mode, got, arg)
            _need(got == want and list(map(type, got)) == list(map(type, want)),
                  f"its key for {[type(a).__name__ for a in arg]} is {want}, not {got}")


@contextmanager
def fake_cache_keys_direct() -> Iterator[None]:
    """FakeTensor's dispatch cache keys built without its general walk: the same key, value for value.

    Under FakeTensorMode every op looks its output up in a cache keyed by the op and its arguments' metadata;
    building that key (a dataclass per tensor argument, then a recursive walk with a dozen type checks per
    element of every size and stride) was a fifth of a 70B simulation. For static shapes and plain arguments
    this appends the very same values directly; anything else (symbolic sizes, another mode's tensors, sparse
    layouts, graph modules) rolls back and goes to torch's own walk, which may then refuse to cache as before."""
    check("fake_cache_key")
    from torch._subclasses.fake_tensor import FakeTensorMode

    original = FakeTensorMode._prep_args_for_hash
    walk = _direct_key_walk()

    def prep_args_for_hash(self: Any, result: list, args: Any, state: Any, id_hashed_objects: list) -> None:
        if self.shape_env is None:
            start = len(result)
            try:
                walk(self, result, args)
                return
            except _KeyFallback:
                del result[start:]
        original(self, result, args, state, id_hashed_objects)

    FakeTensorMode._prep_args_for_hash = prep_args_for_hash
    try:
        yield
    finally:
        FakeTensorMode._prep_args_for_hash = original


@_self_check("transformers_packing", "transformers.masking_utils.find_packed_sequence_indices, used by its masks",
             library="transformers")
def _check_transformers_packing() -> None:
    try:
        import transformers.masking_utils as masking
    except ImportError:  # no transformers: only the custom family runs, which builds no mask
        return
    _need(callable(masking.find_packed_sequence_indices), "not callable")
    _need("find_packed_sequence_indices" in _code_names(masking), "its masks no longer call it")


@contextmanager
def one_sequence_per_row() -> Iterator[None]:
    """transformers' masks decided as on a real rank: one sequence per row, so SDPA runs with is_causal.

    transformers looks for packed sequences in the position ids and, unable to read a fake tensor's
    data, keeps a full (b, 1, s, s) mask that every attention layer converts and saves; a real rank
    finds the worker's positions (0..s-1 in every row) unpacked and passes no mask at all."""
    check("transformers_packing")
    masking = sys.modules.get("transformers.masking_utils")
    if masking is None:
        try:
            import transformers.masking_utils as masking
        except ImportError:
            yield
            return
    original = masking.find_packed_sequence_indices
    masking.find_packed_sequence_indices = lambda position_ids: None
    try:
        yield
    finally:
        masking.find_packed_sequence_indices = original


# ---------------------------------------------------------------- the step's timeline (step_trace, attention_probe)


@_self_check("dispatch_mode", "torch.utils._python_dispatch.TorchDispatchMode and torch.utils._pytree's "
             "tree_leaves/tree_map, which see every op of a step")
def _check_dispatch_mode() -> None:
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves, tree_map

    _need(callable(getattr(TorchDispatchMode, "__torch_dispatch__", None)), "no __torch_dispatch__")
    _need(tree_leaves(([1], {"a": 2})) == [1, 2] and tree_map(lambda x: x, [1]) == [1], "pytree walks differently")


def dispatch_mode_base() -> type:
    """The base class of a mode that sees every op (after autograd): the step's timeline subclasses it."""
    check("dispatch_mode")
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode


def tree_leaves(tree: Any) -> list:
    """Every leaf of a nest of lists, tuples and dicts (an op's outputs, a module's arguments)."""
    check("dispatch_mode")
    from torch.utils._pytree import tree_leaves as leaves

    return leaves(tree)


def tree_map(fn: Callable, tree: Any) -> Any:
    check("dispatch_mode")
    from torch.utils._pytree import tree_map as mapped

    return mapped(fn, tree)


def check_all() -> None:
    """Every self-check, in order: what a new torch must pass before ZeroDesk runs on it."""
    for run in CHECKS.values():
        run()
