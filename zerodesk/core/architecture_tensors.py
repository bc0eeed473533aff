"""An architecture's tensor list and exact parameter count, memoised, and the FSDP2 group of each tensor.

The torch profile shards and counts AdamW `step` tensors from this list, so it must be the real one
(tests/test_hf_families.py compares it with transformers). Pure Python: no torch.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import TYPE_CHECKING

from .architecture_layouts import Shape, lay_out

if TYPE_CHECKING:  # annotations only: core.architecture imports this module
    from .architecture import Architecture


def tensor_shapes(arch: Architecture) -> list[tuple[str, Shape]]:
    """(name, shape) for every trainable tensor, in module registration order; tied weights once."""
    return list(_tensor_shapes(_Fields(arch)))


def numel(shape: Shape) -> int:
    return prod(shape)


def param_count(arch: Architecture) -> int:
    """Exact trainable parameter count (a tied head shares the embedding and adds nothing)."""
    return _param_count(_Fields(arch))


class _Fields:
    """An architecture as a cache key: equal when every field is, whichever object holds them. The solver and
    the peak ask for one architecture's tensor list hundreds of times per answer (once per Nd and stage)."""

    __slots__ = ("arch", "key")

    def __init__(self, arch: Architecture) -> None:
        self.arch, self.key = arch, (type(arch), tuple(arch.__dict__.items()))  # taken now: a later edit is a new key

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Fields) and self.key == other.key


@lru_cache(maxsize=64)
def _tensor_shapes(fields: _Fields) -> tuple[tuple[str, Shape], ...]:
    return lay_out(fields.arch)


@lru_cache(maxsize=64)
def _param_count(fields: _Fields) -> int:
    arch = fields.arch
    # Blocks are alike: count one block and the rest (root) once, then the block `layers` times.
    one = tensor_shapes(arch.model_copy(update={"layers": 1}))
    block = sum(numel(s) for n, s in one if block_group(n) != "root")
    root = sum(numel(s) for n, s in one if block_group(n) == "root")
    return root + block * arch.layers


def block_group(name: str) -> str:
    """The FSDP2 group of a tensor: its block ('model.layers.3') when its path has a layer index, else 'root'.

    Every layout keeps its blocks in one ModuleList, and the first numeric path component is the
    block's index; the measuring worker wraps each block, then the root (measure/worker/model.py)."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.isdigit():
            return ".".join(parts[: i + 1])
    return "root"
