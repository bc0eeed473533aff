"""A tensor list counted once: each distinct shape with how many tensors have it, in each FSDP2 group.

The torch profile's figures depend on a model's tensors only through these counts. DDP needs the total;
ZeroRedundancyOptimizer's greedy partition needs the sizes largest first, and tensors of equal size are
interchangeable, so the multiset of sizes gives every rank's figures; FSDP2 needs each shape's dim-0 chunks
and each group's sum. A list of 600,000 tensors in 40 shapes is thus 40 entries to every figure at every Nd.

A tensor list read from a file is counted once per list object (every copy of the plan shares its list: the
form keeps the validated model, a sweep over Nd copies only the cluster). Pure Python: no torch, no Qt.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import compress
from operator import methodcaller
from math import prod
from typing import Iterable, Sequence

from .architecture import Architecture

from .architecture_tensors import block_group, tensor_shapes
from .architecture_tensors import _Fields

Shape = tuple[int, ...]
Entry = tuple[str, Shape, int]  # (FSDP2 group, shape, how many tensors of the group have it)


@dataclass(frozen=True)
class TensorCensus:
    entries: tuple[Entry, ...]  # in order of first appearance
    tensors: int
    params: int
    head: int  # elements of the output head (the last tensor named '...head.weight'), 0 without one
    shapes: tuple[tuple[Shape, int], ...] = field(compare=False)  # (shape, tensors) over all groups, first appearance

    @cached_property
    def sizes(self) -> tuple[tuple[int, int], ...]:
        """(elements, tensors) per distinct size, largest first: what ZeroRedundancyOptimizer partitions."""
        counts: Counter[int] = Counter()
        for shape, n in self.shapes:
            counts[prod(shape)] += n
        return tuple(sorted(counts.items(), reverse=True))

    @cached_property
    def rows(self) -> tuple[tuple[int, int], ...]:
        """(dim 0, elements per row summed over every tensor with that dim 0): all FSDP2 needs. Its dim-0 chunks
        depend on dim 0 alone, so a list of 600,000 different shapes is a few thousand rows (_rows_of)."""
        return _rows_of((shape, n) for shape, n in self.shapes)

    @cached_property
    def group_rows(self) -> dict[str, tuple[tuple[int, int], ...]]:
        """rows per FSDP2 group (a block, or 'root'), groups in order of first appearance."""
        grouped: dict[str, list[tuple[Shape, int]]] = {}
        for group, shape, n in self.entries:
            grouped.setdefault(group, []).append((shape, n))
        return {group: _rows_of(shapes) for group, shapes in grouped.items()}

    def placed_rows(self, dp: int, placement: str = "dim0") -> tuple[tuple[int, int], ...]:
        """rows as FSDP2 shards among dp ranks under the placement: (the sharded dimension's size, elements per unit
        of it). dim0 is `rows`; under auto a tensor whose dim 0 is below dp is counted by its shard dimension."""
        if placement == "dim0":
            return self.rows
        return _rows_of(self.shapes, lambda shape: split_shape(shape, dp, placement))

    def placed_group_rows(self, dp: int, placement: str = "dim0") -> dict[str, tuple[tuple[int, int], ...]]:
        """group_rows under the placement (placed_rows per FSDP2 group)."""
        if placement == "dim0":
            return self.group_rows
        grouped: dict[str, list[tuple[Shape, int]]] = {}
        for group, shape, n in self.entries:
            grouped.setdefault(group, []).append((shape, n))
        split = lambda shape: split_shape(shape, dp, placement)  # noqa: E731
        return {group: _rows_of(shapes, split) for group, shapes in grouped.items()}

    @cached_property
    def widest(self) -> tuple[tuple[int, int], ...]:
        """(dim 0, the most elements per row of a tensor with that dim 0): the largest dim-0 shard at any Nd."""
        out: dict[int, int] = {}
        for shape, _ in self.shapes:
            dim0, rest = _dim0_rest(shape)
            out[dim0] = max(out.get(dim0, 0), rest)
        return tuple(out.items())

    def placed_widest(self, dp: int, placement: str = "dim0") -> tuple[tuple[int, int], ...]:
        """widest under the placement: (the sharded dimension's size, the most elements per unit of it)."""
        if placement == "dim0":
            return self.widest
        out: dict[int, int] = {}
        for shape, _ in self.shapes:
            size, rest = split_shape(shape, dp, placement)
            out[size] = max(out.get(size, 0), rest)
        return tuple(out.items())

    @property
    def largest(self) -> int:
        """Elements of the largest tensor."""
        return self.sizes[0][0] if self.sizes else 0


def _dim0_rest(shape: Shape) -> tuple[int, int]:
    """(rows, elements per row) as FSDP2 shards a tensor: a 0-dim tensor is one row of one element."""
    return (shape[0], prod(shape[1:])) if shape else (1, 1)


def shard_dim(shape: Shape, dp: int, placement: str = "dim0") -> int:
    """The dimension FSDP2 shards a tensor on: 0 (fully_shard's default), or under `auto` placement, for a tensor
    whose dim 0 is smaller than Nd (transformers' stacked experts: dim 0 is the expert count), its largest
    dimension that Nd divides, as a shard_placement_fn returning Shard(d) does (TorchTitan's experts). FSDP2
    reduce-scatters a Shard(d > 0) tensor only when Nd divides that dimension, so without one it stays on dim 0."""
    if placement != "auto" or not shape or shape[0] >= dp:
        return 0
    even = [d for d in range(1, len(shape)) if shape[d] % dp == 0]
    return max(even, key=lambda d: shape[d]) if even else 0


def split_shape(shape: Shape, dp: int, placement: str = "dim0") -> tuple[int, int]:
    """(the sharded dimension's size, elements per unit of it) under the placement."""
    if not shape:
        return 1, 1
    d = shard_dim(shape, dp, placement)
    return shape[d], prod(shape) // shape[d] if shape[d] else 0


def _rows_of(shapes: Iterable[tuple[Shape, int]], split=_dim0_rest) -> tuple[tuple[int, int], ...]:
    out: dict[int, int] = {}
    for shape, n in shapes:
        dim0, rest = split(shape)
        out[dim0] = out.get(dim0, 0) + n * rest
    return tuple(out.items())


def count_tensors(named: Iterable[tuple[str, Sequence[int]]]) -> TensorCensus:
    """The census of (name, shape) pairs in registration order."""
    named = named if isinstance(named, (list, tuple)) else list(named)
    names = [name for name, _ in named]
    entries = Counter(zip(map(block_group, names), (tuple(shape) for _, shape in named)))  # one pass, in C loops
    last_head = next(compress(range(len(names) - 1, -1, -1), map(methodcaller("endswith", "head.weight"),
                                                                  reversed(names))), None)
    head = prod(named[last_head][1]) if last_head is not None else 0
    return _census(tuple((g, s, n) for (g, s), n in entries.items()), head)


def count_shapes(shapes: Iterable[Sequence[int]]) -> TensorCensus:
    """The census of bare shapes (no names: one group, no head)."""
    return _census(tuple(("root", s, n) for s, n in Counter(tuple(s) for s in shapes).items()), 0)


def _census(entries: tuple[Entry, ...], head: int) -> TensorCensus:
    shapes: Counter[Shape] = Counter()
    for _, shape, n in entries:
        shapes[shape] += n
    return TensorCensus(entries, sum(n for _, _, n in entries), sum(prod(s) * n for _, s, n in entries), head,
                        tuple(shapes.items()))


_MEMO: dict[int, tuple[list, TensorCensus]] = {}
_MEMO_SIZE = 2  # the plan on screen and the one before it; each entry keeps its (possibly huge) list alive
_MEMO_LOCK = threading.Lock()  # the window reads a big plan on a worker thread while the GUI thread computes


def census_of(tensors: list) -> TensorCensus:
    """count_tensors(tensors), memoised by the list object itself (never by its contents, which would cost a pass)."""
    hit = _MEMO.get(id(tensors))
    if hit is not None and hit[0] is tensors:
        return hit[1]
    result = count_tensors(tensors)
    with _MEMO_LOCK:
        while len(_MEMO) >= _MEMO_SIZE:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[id(tensors)] = (tensors, result)
    return result


def census_of_architecture(arch: Architecture) -> TensorCensus:
    """count_tensors(tensor_shapes(arch)), memoised per architecture (by its fields: a sweep over Nd, the peak and
    the fit solver ask for one architecture's census again and again)."""
    return _architecture_census(_Fields(arch))


@lru_cache(maxsize=64)
def _architecture_census(fields: _Fields) -> TensorCensus:
    return count_tensors(tensor_shapes(fields.arch))
