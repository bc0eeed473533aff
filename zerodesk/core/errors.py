"""Bad input as one sentence: the error every reader of plans and files raises, and pydantic's errors in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # raised only where pydantic validated something (core.record)
    from pydantic import ValidationError

from .text import shorten


class PlanError(ValueError):
    """One human sentence about what is wrong with a plan or a plan file."""


def os_reason(exc: BaseException) -> str:
    """What the system said, short and safe for one line: 'No such file or directory'."""
    return shorten(getattr(exc, "strerror", None) or str(exc), 120)


_BOUNDS = {"greater_than_equal": ("ge", "at least"), "less_than_equal": ("le", "at most"),
           "greater_than": ("gt", "above"), "less_than": ("lt", "below")}
_WHOLE = {"int_type", "int_parsing", "int_from_float", "int_parsing_size"}


def _number(value: object) -> str:
    if isinstance(value, bool):  # as JSON and the command line write it
        return "true" if value else "false"
    if not isinstance(value, (int, float)):
        return shorten(repr(value), 40)
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e18):
        return f"{int(value):,}"
    return repr(value)  # the shortest that reads back: 0.001, 1e-320


def _sentence(item: Mapping, name: str) -> str:
    kind, ctx, given = item.get("type", ""), item.get("ctx") or {}, item.get("input")
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        return f"{name} must be {words} {_number(ctx.get(key))}, not {_number(given)}"
    if kind in _WHOLE:  # a float shown as written (2.0), so the sentence says what is wrong with it
        return f"{name} must be a whole number, not {repr(given) if isinstance(given, float) else _number(given)}"
    if kind in ("literal_error", "enum") and "expected" in ctx:
        return f"{name} must be {ctx['expected']}, not {shorten(repr(given), 40)}"
    if kind == "missing":
        return f"{name} is missing"
    if kind == "extra_forbidden":
        return f"{name} is not a field ZeroDesk knows"
    # the core's own rules (value errors) and pydantic's other types: their sentence, after the name
    return f"{name}: {item['msg'].removeprefix('Value error, ')}"


def _path(item: Mapping) -> str:
    return ".".join(str(p) for p in item["loc"]) or "plan"


def explain(error: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """The first problem as one sentence naming the field: 'cluster.dp must be at least 1, not 0'.

    `names` gives a field path the name the user knows it by (the command line passes its flags:
    '--dp must be at least 1, not 0')."""
    first = error.errors()[0]
    where = _path(first)
    return _sentence(first, (names or {}).get(where, where))


def field_errors(error: ValidationError) -> dict[str, str]:
    """Every problem keyed by dotted field path, in pydantic's words (the form rewords each beside its field)."""
    out: dict[str, str] = {}
    for item in error.errors():
        out.setdefault(_path(item), item["msg"].removeprefix("Value error, "))
    return out
