"""The data ZeroDesk ships (catalogs, glossaries): checked once, by the tests, and read at run time as plain data.

Validating a shipped file at every start would import pydantic and build its validators for the file's models (and
its plugin machinery, importlib.metadata with it): a large part of the window's start for files the tests have checked
(tests/test_shipped.py: each one builds here exactly as validation builds it). A file anywhere else (a test's, or one
that a caller points at) is validated as before: untrusted input is never built unchecked.
"""

from __future__ import annotations

import enum
import os
import types
import typing
from pathlib import Path
from functools import cache
from typing import Any, Callable

from ..resources import resources_dir
from .record import Record


def is_shipped(path: str | os.PathLike) -> bool:
    """The file is one of ZeroDesk's own resources (beside the code in a wheel, at the repo top in a checkout)."""
    try:
        return Path(path).resolve().is_relative_to(resources_dir().resolve())
    except (OSError, ValueError, FileNotFoundError):
        return False


def build(model: type, data: Any) -> Any:
    """`data` (a shipped file's JSON, known valid) as the Record `model` (core.record), without validation: nested
    Records, tuples and enums as validation makes them, absent fields at their defaults (model_construct)."""
    values = {}
    for name, key, alias, convert in _plan(model):
        if key in data:
            values[name] = convert(data[key])
        elif alias is not None and alias in data:
            values[name] = convert(data[alias])
    return model.model_construct(**values)


@cache
def _plan(model: type) -> tuple[tuple[str, str, str | None, Callable[[Any], Any]], ...]:
    """Per field: its name, the key and alias it may have in the data, and what makes the value from the JSON's."""
    types_ = model.field_types()
    return tuple((name, name, field.alias, _converter(types_[name])) for name, field in model.record_fields().items())


def _same(value: Any) -> Any:
    return value


def _converter(annotation: Any) -> Callable[[Any], Any]:
    """What validation makes of a JSON value for a field of this type (for the types the shipped data holds)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) != 1:
            return _same
        inner = _converter(options[0])
        return lambda v: None if v is None else inner(v)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _converter(args[0])
            return tuple if item is _same else lambda v: tuple(item(x) for x in v)
        items = [_converter(a) for a in args]
        return lambda v: tuple(f(x) for f, x in zip(items, v))
    if origin is list:
        item = _converter(args[0])
        return list if item is _same else lambda v: [item(x) for x in v]
    if origin is dict:
        return dict
    if isinstance(annotation, type):
        if issubclass(annotation, Record):
            return lambda v: build(annotation, v)
        if issubclass(annotation, enum.Enum):
            return annotation
        if annotation is float:
            return lambda v: float(v) if type(v) is int else v
    return _same
