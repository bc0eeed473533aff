"""The command line's value types (argparse's type=): each flag's text parsed, or refused in one sentence that
repeats the value."""

from __future__ import annotations

import argparse
import math
import re
from decimal import Decimal
from pathlib import Path

from .cli_parser import ECHO_LIMIT
from .core.per_block import parse_per_block
from .core.plan import MAX_GPU_MEMORY
from .core.text import shorten
from .core.units import UNIT_BYTES, parse_count, parse_decimal


def _count(text: str) -> int:
    try:
        return parse_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _whole(text: str) -> int:
    """A whole number of at most 18 digits; the plan's own bounds then name the field and its range."""
    if not re.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*", text):
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a whole number")
    return int(text)


def _positive(text: str) -> float:
    """A finite number above zero, ASCII digits (nan, inf, 0, negatives and '١٢' are refused here, with the value)."""
    try:
        value = parse_decimal(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a finite number above 0")
    return value


def _file(text: str) -> Path:
    """A file name: an empty one would silently mean the current folder (and its config.json)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"'{shorten(text, ECHO_LIMIT)}' is not a file name")
    return Path(text)


def _memory(text: str, least: int = 1) -> int:
    """'80GiB', '80 GB' or a plain number of bytes, from 1 B (or `least`) to 1 PB."""
    m = re.fullmatch(r"\s*([0-9]{0,20}\.?[0-9]{1,20})\s*(GB|GiB|B)?\s*", text, re.IGNORECASE) if len(text) <= 64 else None
    if not m:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a memory size; use e.g. 80GiB or 80GB")
    unit = (m.group(2) or "B").lower()
    scale = {"gb": UNIT_BYTES["GB"], "gib": UNIT_BYTES["GiB"], "b": 1}[unit]
    value = round(Decimal(m.group(1)) * scale)
    if not least <= value <= MAX_GPU_MEMORY:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a memory size between {least} B and 1 PB")
    return value


def _allowance(text: str) -> int:
    """A memory size that may be 0 (no allowance, the default)."""
    return _memory(text, least=0)


def _per_block(text: str) -> list[str]:
    """'full,none,full' or 'full*16,none*16': one recomputation mode per block, in order (core.per_block)."""
    try:
        return parse_per_block(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
