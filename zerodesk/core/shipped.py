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
from typing import Any

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
    types_ = model.field_types()
    values = {}
    for name, field in model.record_fields().items():
        key = field.alias if field.alias is not None and field.alias in data else name
        if key in data:
            values[name] = _value(types_[name], data[key])
    return model.model_construct(**values)


def _value(annotation: Any, value: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _value(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(args[0], v) for v in value)
        return tuple(_value(a, v) for a, v in zip(args, value))
    if origin is list:
        (arg,) = typing.get_args(annotation)
        return [_value(arg, v) for v in value]
    if origin is dict:
        return dict(value)
    if isinstance(annotation, type):
        if issubclass(annotation, Record):
            return build(annotation, value)
        if issubclass(annotation, enum.Enum):
            return annotation(value)
        if annotation is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
    return value
