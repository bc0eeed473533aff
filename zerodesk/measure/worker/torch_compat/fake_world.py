"""The simulation's fake world: the fake process group and tensors, FakeTensor's dispatch cache keys built directly,
and the one transformers internal the simulation patches."""

from __future__ import annotations

import inspect
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import torch
import torch.distributed as dist

from ._registry import _code_names, _need, _self_check, check

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


def preload_fake_world() -> None:
    """Import fake tensors ahead of a job (torch._dynamo's config and sympy come with them: most of a small job's
    start); a torch without them is left for the job's own check to name."""
    try:
        import torch._subclasses.fake_tensor  # noqa: F401
    except ImportError:
        pass


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
def one_sequence_per_row(transformers_model: bool = True) -> Iterator[None]:
    """transformers' masks decided as on a real rank: one sequence per row, so SDPA runs with is_causal.

    transformers looks for packed sequences in the position ids and, unable to read a fake tensor's
    data, keeps a full (b, 1, s, s) mask that every attention layer converts and saves; a real rank
    finds the worker's positions (0..s-1 in every row) unpacked and passes no mask at all.
    transformers_model False (ZeroDesk's own decoder, model.built_by_transformers): no mask to decide, and
    transformers stays unimported (a second or more of CPU at every simulation's and rank's start)."""
    if not transformers_model:
        yield
        return
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
