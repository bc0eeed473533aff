"""One friendly sentence per invalid form field, in the UI language, from the core's validation error.

The core (pydantic) reports a type and the field's bounds; the user reads what the field takes
("Sequence length must be a whole number from 1 to 10,000,000."), not "Input should be a valid
integer". Rules the core checks across fields (Nd divides the cluster, heads divide hidden) get
their own sentence with the figures that break them.
"""

from __future__ import annotations

import math
import typing
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from ...core.plan import MAX_RANKS, Plan
from ...core.units import UNIT_BYTES
from ..base import i18n

if TYPE_CHECKING:  # raised by the core's pydantic schemas (core.record), loaded when the form first validates
    from pydantic import BaseModel, ValidationError

_INT_TYPES = {"int_parsing", "int_type", "int_from_float", "missing", "greater_than_equal", "less_than_equal",
              "greater_than", "less_than", "string_type"}
_FLOAT_TYPES = {"float_parsing", "float_type", "finite_number"}


def _model_of(annotation) -> type[BaseModel] | None:
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):  # a pydantic model (a Record's schema)
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def field_bounds(loc: tuple) -> tuple[float | None, float | None]:
    """(lowest, highest) allowed for a Plan field path such as ('cluster', 'dp'), from its Field."""
    model: type[BaseModel] | None = Plan
    info = None
    for part in loc:
        if model is None or part not in model.model_fields:
            return None, None
        info = model.model_fields[part]
        model = _model_of(info.annotation)
    lo = hi = None
    for m in getattr(info, "metadata", []):
        lo = getattr(m, "ge", lo) if getattr(m, "ge", None) is not None else lo
        lo = getattr(m, "gt", lo) if getattr(m, "gt", None) is not None else lo
        hi = getattr(m, "le", hi) if getattr(m, "le", None) is not None else hi
    return lo, hi


def _float_field(loc: tuple) -> bool:
    """Whether the Plan field at `loc` holds a float (a bandwidth): its bounds are then no whole-number range."""
    model: type[BaseModel] | None = Plan
    info = None
    for part in loc:
        if model is None or part not in model.model_fields:
            return False
        info = model.model_fields[part]
        model = _model_of(info.annotation)
    return info is not None and float in (info.annotation, *typing.get_args(info.annotation))


def _num(value) -> str:
    return i18n.fmt_int(int(value)) if float(value).is_integer() else i18n.fmt_number(float(value), 2)


def _in_unit(nbytes: float, unit: str) -> str:
    """A bound in the form's unit, without trailing zeros: 10,000 (GB) or 9,313.23 (GiB)."""
    value = nbytes / UNIT_BYTES[unit]
    return i18n.fmt_int(round(value)) if float(value).is_integer() else i18n.fmt_number(value, 2)


def memory_message(loc: tuple, name: str, unit: str) -> str:
    """An amount of memory typed in the form's unit (GB or GiB): decimals are fine, the bounds are in that unit."""
    lo, hi = field_bounds(loc)
    name = name.rsplit(",", 1)[0]  # the label names the unit; the sentence names it once, after the bounds
    unit_text = i18n.unit_label(unit)
    if lo:  # at least one byte: "greater than 0"
        text = QCoreApplication.translate("FormMessages", "{name} must be a number of {unit} greater than 0, at most {hi}, "
                                                          "such as 2 or 1.5; leave it empty for none.")
    else:
        text = QCoreApplication.translate("FormMessages", "{name} must be a number of {unit} from 0 to {hi}, such as 2 or 1.5; "
                                                          "leave it empty for 0.")
    return text.format(name=name, unit=unit_text, hi=_in_unit(hi or 0, unit))


def _divisors(n: int, limit: int = 6) -> str:
    small = [d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0]
    all_ = sorted(set(small + [n // d for d in small]))
    shown = all_ if len(all_) <= limit else all_[: limit - 1] + [all_[-1]]
    return ", ".join(i18n.fmt_int(d) for d in shown)


def _int(value) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def message(key: str, item: dict, raw: dict, name: str, unit: str) -> str:
    """The sentence for one pydantic error item on the field `key` (dotted path), named `name`."""
    kind = item.get("type", "")
    loc = tuple(str(p) for p in item.get("loc", ()))
    if key == "cluster.gpu_memory_bytes":
        return QCoreApplication.translate("FormMessages", "GPU memory must be a number of {unit} greater than 0, such as 80 or 79.5; "
                  "leave it empty for no GPU line.").format(unit=i18n.unit_label(unit))
    if key.endswith("_bytes"):  # a memory field is typed in the form's unit: its bounds are said in that unit too
        return memory_message(loc, name, unit)
    if key == "model.params":
        return QCoreApplication.translate("FormMessages", "Parameters P must be a count such as 2e9, 7B, 350M or 1.5T, from 1 to {hi}.").format(
            hi=i18n.fmt_int(10**15))
    cluster, arch = raw.get("cluster") or {}, (raw.get("model") or {}).get("architecture") or {}
    if kind == "value_error" or kind == "assertion_error":
        if key == "cluster.dp":
            nodes, gpn = _int(cluster.get("nodes")), _int(cluster.get("gpus_per_node"))
            if nodes and gpn:
                world = nodes * gpn
                return QCoreApplication.translate("FormMessages", "Nd must divide nodes × GPUs per node ({world}): for example {divisors}.").format(
                    world=i18n.fmt_int(world), divisors=_divisors(world))
        if key == "cluster.shard_group":
            nd = _int(cluster.get("dp")) or (_int(cluster.get("nodes")) or 0) * (_int(cluster.get("gpus_per_node")) or 0)
            if nd:
                return QCoreApplication.translate("FormMessages", "The shard group must divide Nd ({nd}): for example "
                                                                  "{divisors}.").format(nd=i18n.fmt_int(nd), divisors=_divisors(nd))
        if key == "hybrid":
            return QCoreApplication.translate("FormMessages", "hpZ is a paper-profile choice: PyTorch's engines keep no "
                                                              "second shard. Choose HSDP, or the paper profile.")
        if key == "cluster.gpus_per_node":
            return QCoreApplication.translate("FormMessages", "Nodes × GPUs per node must be at most {max}.").format(max=i18n.fmt_int(MAX_RANKS))
        if key == "model.architecture.heads":
            return QCoreApplication.translate("FormMessages", "Hidden ({hidden}) must be a multiple of heads ({heads}), unless the head dim is given.").format(
                hidden=arch.get("hidden"), heads=arch.get("heads"))
        if key == "model.architecture.kv_heads":
            return QCoreApplication.translate("FormMessages", "Heads ({heads}) must be a multiple of KV heads ({kv}).").format(
                heads=arch.get("heads"), kv=arch.get("kv_heads"))
    if kind in _INT_TYPES or kind in _FLOAT_TYPES:
        lo, hi = field_bounds(loc)
        whole = kind not in _FLOAT_TYPES and not _float_field(loc)
        if key == "model.architecture.ffn" and kind == "missing":
            return QCoreApplication.translate(
                "FormMessages", "FFN is empty and cannot default yet: give Hidden first, or a whole number.")
        if lo is not None and hi is not None:
            if whole:
                text = QCoreApplication.translate("FormMessages", "{name} must be a whole number from {lo} to {hi}.")
            else:
                text = QCoreApplication.translate("FormMessages", "{name} must be a number greater than {lo}, at most {hi}.")
            return text.format(name=name, lo=_num(lo), hi=_num(hi))
        if whole:
            return QCoreApplication.translate("FormMessages", "{name} must be a whole number.").format(name=name)
        return QCoreApplication.translate("FormMessages", "{name} must be a number.").format(name=name)
    if kind in ("literal_error", "enum"):
        return QCoreApplication.translate("FormMessages", "{name}: choose one of the listed values.").format(name=name)
    # a rule of the core we do not know by name: its own sentence, after the field's name
    return f"{name}: {item.get('msg', '').removeprefix('Value error, ')}"


def friendly_errors(error: ValidationError, raw: dict, names: dict[str, str], unit: str,
                    aliases: dict[str, str]) -> dict[str, str]:
    """{dotted field: sentence}; the first problem of each field wins."""
    out: dict[str, str] = {}
    for item in error.errors():
        key = ".".join(str(p) for p in item["loc"]) or "plan"
        key = aliases.get(key, key)
        if key in out:
            continue
        out[key] = message(key, item, raw, names.get(key, key), unit)
    # an empty ffn waits for hidden: say so only when hidden is fine
    if "model.architecture.hidden" in out:
        out.pop("model.architecture.ffn", None)
    return out
