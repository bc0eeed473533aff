"""Plain value classes declared as pydantic models are, validated by pydantic only where input enters.

The plan, its model and cluster, the catalogs and the glossary are declared with Field, field_validator and
model_validator as pydantic models, but subclass Record: a plain class, cheap to import and to build. Its pydantic
model (the "schema": the same fields, validators, properties and methods) is made from the declaration the first time
something is validated or written as JSON (a file, the form's input, the command line, the worker's protocol), so the
window's start, which validates nothing (its plan and the shipped data were checked by the tests), never imports
pydantic (its import, with its plugin scan and the validators' builds, was about a fifth of the start's own time).

A Record behaves as its pydantic model's instances do: Plan(...) and model_validate() validate (raising pydantic's
ValidationError), model_construct() and model_copy() do not, model_dump() and model_dump_json() write exactly what
pydantic writes, instances compare by value, frozen ones hash, and pydantic models may hold Records as fields.
"""

from __future__ import annotations

import copy
import enum
import operator
import types
import typing
from functools import reduce
from typing import Any, ClassVar

ValidationInfo = Any  # pydantic's, as validators are annotated (they only run inside pydantic)
_MISSING = object()
_IMMUTABLE = (type(None), bool, int, float, str, bytes, enum.Enum, frozenset)


class FieldSpec:
    """Field(...) as declared: its default and pydantic's other arguments, replayed on the schema."""

    __slots__ = ("default", "default_factory", "alias", "kwargs")

    def __init__(self, default: Any = _MISSING, **kwargs: Any) -> None:
        self.default = default
        self.default_factory = kwargs.get("default_factory")
        self.alias = kwargs.get("alias")
        self.kwargs = kwargs

    def make_default(self) -> Any:
        if self.default is not _MISSING:
            return self.default if isinstance(self.default, _IMMUTABLE) else copy.deepcopy(self.default)
        return self.default_factory() if self.default_factory is not None else _MISSING


def Field(default: Any = _MISSING, **kwargs: Any) -> Any:  # noqa: N802 - pydantic's name, as declarations read
    return FieldSpec(default, **kwargs)


def ConfigDict(**kwargs: Any) -> dict:  # noqa: N802
    return kwargs


class _Validator:
    """A field_validator or model_validator as declared, replayed on the schema."""

    def __init__(self, func: Any, fields: tuple[str, ...], mode: str) -> None:
        self.func, self.fields, self.mode = func, fields, mode

    def replay(self) -> Any:
        import pydantic

        if self.fields:
            return pydantic.field_validator(*self.fields, mode=self.mode)(self.func)
        return pydantic.model_validator(mode=self.mode)(self.func)


def field_validator(field: str, *fields: str, mode: str = "after"):
    return lambda func: _Validator(func, (field, *fields), mode)


def model_validator(*, mode: str):
    return lambda func: _Validator(func, (), mode)


def validation_error() -> type[Exception]:
    """pydantic's ValidationError, for an `except` clause (evaluated only when something was raised)."""
    from pydantic import ValidationError

    return ValidationError


class _FromSchema:
    """A class attribute read from the schema (model_fields): pydantic's own, with the schema's field types."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type) -> Any:
        return getattr(owner.schema(), self.name)


class Record:
    __slots__ = ("__dict__", "__weakref__", "_fields_set")
    _record_fields: ClassVar[dict[str, FieldSpec]] = {}
    _validators: ClassVar[dict[str, _Validator]] = {}
    _config: ClassVar[dict] = {}
    model_fields = _FromSchema()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields, validators, config = dict(cls._record_fields), dict(cls._validators), dict(cls._config)
        for name in cls.__dict__.get("__annotations__", {}):
            if name.startswith("_") or name == "model_config":
                continue
            value = cls.__dict__.get(name, _MISSING)
            fields[name] = value if isinstance(value, FieldSpec) else FieldSpec(value)
            if name in cls.__dict__:
                delattr(cls, name)  # a field lives on the instance, as in pydantic
        for name, value in list(cls.__dict__.items()):
            if isinstance(value, _Validator):
                validators[name] = value
        config.update(cls.__dict__.get("model_config", {}))
        cls._record_fields, cls._validators, cls._config = fields, validators, config
        cls._schema = None
        cls._types = None
        cls.__hash__ = _hash if config.get("frozen") else None  # type: ignore[method-assign]

    # -- the pydantic schema, made on first use ---------------------------------------------------
    @classmethod
    def schema(cls) -> type:
        """The pydantic model of this class: its fields, validators, properties and methods."""
        if cls.__dict__.get("_schema") is None:
            import pydantic

            hints = cls.field_types()
            ns: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
                                  "__annotations__": {}, "model_config": pydantic.ConfigDict(**cls._config)}
            for klass in reversed(cls.__mro__):
                if klass in (Record, object):
                    continue
                for key, value in vars(klass).items():
                    if key.startswith("__") or key in cls._validators:
                        continue
                    if isinstance(value, (property, staticmethod, classmethod, types.FunctionType)):
                        ns[key] = value  # what the validators and the methods call
            for name, spec in cls._record_fields.items():
                ns["__annotations__"][name] = _schema_type(hints[name])
                kwargs = dict(spec.kwargs)
                if spec.default is not _MISSING:
                    kwargs["default"] = to_schema(spec.default)
                ns[name] = pydantic.Field(**kwargs)
            for key, validator in cls._validators.items():
                ns[key] = validator.replay()
            schema = type(cls.__name__, (pydantic.BaseModel,), ns)
            schema._record = cls
            cls._schema = schema
        return cls._schema

    @classmethod
    def field_types(cls) -> dict[str, Any]:
        """The fields' types, resolved (no pydantic needed)."""
        if cls.__dict__.get("_types") is None:
            hints = typing.get_type_hints(cls, include_extras=True)  # the bases' too, each in its own module
            cls._types = {name: hints[name] for name in cls._record_fields}
        return cls._types

    @classmethod
    def record_fields(cls) -> dict[str, FieldSpec]:
        return cls._record_fields

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """A Record as a field of a pydantic model: validated by its schema, kept as a Record, written as the schema."""
        from pydantic_core import core_schema as cs

        inner = handler.generate_schema(cls.schema())
        return cs.no_info_before_validator_function(
            _schema_input, cs.no_info_after_validator_function(to_record, inner),
            serialization=cs.plain_serializer_function_ser_schema(to_schema, return_schema=inner))

    # -- pydantic's API ---------------------------------------------------------------------------
    def __init__(self, **data: Any) -> None:
        made = to_record(type(self).schema()(**_schema_input(data)))
        self.__dict__.update(made.__dict__)
        object.__setattr__(self, "_fields_set", made._fields_set)

    @classmethod
    def model_validate(cls, obj: Any, *, strict: bool | None = None, context: Any = None, **kwargs: Any) -> Any:
        if isinstance(obj, cls):
            return obj
        return to_record(cls.schema().model_validate(_schema_input(obj), strict=strict, context=context, **kwargs))

    @classmethod
    def model_validate_json(cls, data: Any, **kwargs: Any) -> Any:
        return to_record(cls.schema().model_validate_json(data, **kwargs))

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Any:
        """Built without validation (pydantic's model_construct): values as given, the others at their defaults."""
        obj = object.__new__(cls)
        d = obj.__dict__
        given = set()
        for name, spec in cls._record_fields.items():
            key = name if name in values else spec.alias if spec.alias in values else None
            if key is not None:
                d[name] = values[key]
                given.add(name)
            else:
                default = spec.make_default()
                if default is not _MISSING:
                    d[name] = default
        object.__setattr__(obj, "_fields_set", given if _fields_set is None else set(_fields_set))
        return obj

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Any:
        obj = object.__new__(type(self))
        obj.__dict__.update(copy.deepcopy(self.__dict__) if deep else self.__dict__)
        fields_set = set(self._fields_set)
        if update:
            obj.__dict__.update(update)
            fields_set |= update.keys()
        object.__setattr__(obj, "_fields_set", fields_set)
        return obj

    def model_dump(self, **kwargs: Any) -> Any:
        return to_schema(self).model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return to_schema(self).model_dump_json(**kwargs)

    @property
    def model_fields_set(self) -> set[str]:
        return self._fields_set

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._record_fields:
            object.__setattr__(self, name, value)
            return
        schema = to_schema(self)
        setattr(schema, name, _schema_input(value))  # pydantic's rules: frozen, validate_assignment
        self.__dict__[name] = to_record(schema.__dict__[name])
        self._fields_set.add(name)

    def field_values(self) -> dict[str, Any]:
        """The fields' values by name (an instance may also carry private attributes, '_'-named, as pydantic's)."""
        d = self.__dict__
        return {name: d[name] for name in self._record_fields if name in d}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return type(self) is type(other) and self.field_values() == other.field_values()

    def _fields_text(self, sep: str) -> str:
        return sep.join(f"{k}={v!r}" for k, v in self.field_values().items())

    def __repr__(self) -> str:  # as pydantic writes a model
        return f"{type(self).__name__}({self._fields_text(', ')})"

    def __str__(self) -> str:
        return self._fields_text(" ")

    def __copy__(self) -> Any:
        return self.model_copy()


def _hash(self: Record) -> int:
    return hash((type(self), *self.field_values().values()))


def _schema_type(annotation: Any) -> Any:
    """A field's type with every Record class in it replaced by its schema."""
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return annotation.schema()
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if not args or origin is typing.Literal:
        return annotation
    if origin is typing.Annotated:
        return typing.Annotated[(_schema_type(args[0]), *annotation.__metadata__)]
    mapped = tuple(a if a is Ellipsis else _schema_type(a) for a in args)
    if mapped == args:
        return annotation
    if origin in (typing.Union, types.UnionType):
        return reduce(operator.or_, mapped)
    return origin[mapped]


def _is_schema(value: Any) -> bool:
    return hasattr(type(value), "_record") and hasattr(value, "model_fields_set")


def to_record(value: Any) -> Any:
    """A validated schema instance (and the schema instances in it) as Records."""
    if _is_schema(value):
        obj = object.__new__(type(value)._record)
        d = obj.__dict__
        for key, item in value.__dict__.items():
            d[key] = to_record(item)
        object.__setattr__(obj, "_fields_set", set(value.model_fields_set))
        return obj
    if type(value) in (list, tuple) and value and _is_schema(value[0]):
        return type(value)(to_record(v) for v in value)
    return value


def to_schema(value: Any) -> Any:
    """A Record (and the Records in it) as its schema's instances, unvalidated: for pydantic to write or check."""
    if isinstance(value, Record):
        schema = type(value).schema()
        values = {key: to_schema(item) for key, item in value.field_values().items()}
        return schema.model_construct(_fields_set=set(value._fields_set), **values)
    if type(value) in (list, tuple) and value and isinstance(value[0], Record):
        return type(value)(to_schema(v) for v in value)
    return value


def _schema_input(value: Any) -> Any:
    """Input to validate, with any Record in it handed to pydantic as its schema's instance (taken as it is)."""
    if isinstance(value, Record):
        return to_schema(value)
    if type(value) is dict:
        return {key: _schema_input(item) for key, item in value.items()}
    if type(value) in (list, tuple) and value and isinstance(value[0], (Record, dict)):
        return type(value)(_schema_input(v) for v in value)
    return value
