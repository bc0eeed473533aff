"""The invariant every figure ZeroDesk makes keeps: a finite number of bytes (or seconds, or ranks) that is >= 0.

Checked where the figures are made (the dataclasses that carry them call check_figures on creation), so a
negative component is a loud bug of ours at its source, never a "grads -0.46 GB" in a table.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any


class FigureError(AssertionError):
    """A figure broke its invariant: a bug of ours, named by where it was made."""


def _walk(value: Any, where: str):
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _walk(item, f"{where}[{i}]")


def check_figures(obj: Any) -> None:
    """Raise FigureError unless every number in the dataclass `obj` (nested dicts, lists and tuples included) is finite
    and >= 0."""
    name = type(obj).__name__
    for f in dataclasses.fields(obj):
        for where, value in _walk(getattr(obj, f.name), f"{name}.{f.name}"):
            if not (math.isfinite(value) and value >= 0):
                raise FigureError(f"{where} is {value!r}; every figure must be a finite number >= 0")
