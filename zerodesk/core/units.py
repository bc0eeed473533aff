"""Byte units and parameter-count parsing. GB = 1e9 B and GiB = 2**30 B are never mixed."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from .options import Unit
from .text import shorten

__all__ = ["Unit", "UNIT_BYTES", "LADDERS", "UNIT_NOTES", "unit_family", "scaled_unit", "parse_count", "parse_decimal",
           "to_unit", "fmt_bytes", "fmt_count"]

# The plan's unit (options.UNITS) names a family, decimal GB or binary GiB; figures step down its ladder
# when they are small (a 164K-parameter model is 2.45 MiB, not 0.00245 GiB). B ends both ladders.
UNIT_BYTES: dict[str, int] = {"GB": 10**9, "MB": 10**6, "kB": 10**3, "GiB": 2**30, "MiB": 2**20, "KiB": 2**10, "B": 1}
UNIT_NOTES = {"GB": "1e9 B", "MB": "1e6 B", "kB": "1e3 B", "GiB": "2^30 B", "MiB": "2^20 B", "KiB": "2^10 B"}
LADDERS = {"GB": ("GB", "MB", "kB", "B"), "GiB": ("GiB", "MiB", "KiB", "B")}


def unit_family(unit: str) -> str:
    """'GB' (decimal: GB, MB, kB) or 'GiB' (binary: GiB, MiB, KiB) for any unit of either ladder."""
    return "GiB" if unit in LADDERS["GiB"][:-1] else "GB"


def scaled_unit(largest: float, unit: str) -> str:
    """The one unit for a set of figures whose largest is `largest` bytes: the biggest step of `unit`'s ladder
    that the figure reaches (GB for 32e9, MB for 5e6, B below 1 kB). Every view that shows bytes asks this,
    so a chart's axis, its labels, its hover and the table step down together."""
    for name in LADDERS[unit_family(unit)]:
        if abs(largest) >= UNIT_BYTES[name]:
            return name
    return "B"

_SUFFIX = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
_COUNT_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([KMBGT]?)\s*$", re.IGNORECASE)


# One rule for every number typed: ASCII digits only ('١٢', '１２', '1_000', '0x10', nan and inf are not numbers).
_DECIMAL_RE = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII)


def parse_decimal(text: str) -> float:
    """A finite decimal number written with ASCII digits: '0.25', '1e-3', ' 5 '; ValueError for anything else."""
    if len(text) > 64 or not _DECIMAL_RE.fullmatch(text):
        raise ValueError(f"{_shown(text)} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{_shown(text)} is not a finite number")
    return value


def parse_count(text: str | int | float) -> int:
    """Parse a parameter count such as 2e9, 7B, 1.5T, 350M or 124439808: a whole number from 1 to 1e18.

    Exact decimal arithmetic, so 1.1B is 1,100,000,000 and 1.5 is refused rather than rounded to 2."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        shown = str(text).lower() if isinstance(text, bool) else type(text).__name__
        raise ValueError(f"{shown} is not a parameter count; use a number such as 2e9, 7B, 350M or 1.5T")
    if isinstance(text, (int, float)):
        if isinstance(text, float) and not math.isfinite(text):
            raise ValueError(f"{_shown(text)} is not a parameter count; it must be between 1 and 1e18")
        value = Decimal(text)
    else:
        match = _COUNT_RE.match(text) if len(text) <= 64 else None
        if not match:
            raise ValueError(f"{_shown(text)} is not a parameter count; use a number such as 2e9, 7B, 350M or 1.5T")
        value = Decimal(match.group(1)) * _SUFFIX[match.group(2).upper()]
    if not 1 <= value <= 10**18:
        raise ValueError(f"{_shown(text)} is not a parameter count; it must be between 1 and 1e18")
    if value != value.to_integral_value():
        raise ValueError(f"{_shown(text)} is not a parameter count; it must be a whole number of parameters")
    return int(value)


def _shown(value: object) -> str:
    """The value as typed, quoted, safe for one terminal line (control characters escaped, long text cut)."""
    return f"'{shorten(value, 40)}'"


def to_unit(nbytes: float, unit: str) -> float:
    return nbytes / UNIT_BYTES[unit]


def fmt_bytes(nbytes: float, unit: str, digits: int = 2) -> str:
    """'14.00 GB' — the unit always travels with the number."""
    return f"{to_unit(nbytes, unit):,.{digits}f} {unit}"


def fmt_count(n: int) -> str:
    """Human parameter count: 1.50B, 124.4M."""
    for div, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= div:
            return f"{n / div:.2f}{suffix}"
    return str(n)
