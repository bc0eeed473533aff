"""What the simulation replaces to run faster, each figure unchanged: the trackers' peak update and output walk,
DTensor's foreach sharding propagation."""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import torch

from ._registry import _Missing, _code_names, _need, _self_check, check

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
