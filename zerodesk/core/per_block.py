"""A choice per block written compactly, as the command line, the form and a plan file take it: 'full,none,full' or
'full*16,none*16' (a mode and how many consecutive blocks take it), and back. Pure Python."""

from __future__ import annotations

import re

from .options import RECOMPUTE
from .text import shorten

MAX_TEXT = 100_000  # characters: a list that long is a mistake, not a model


def parse_per_block(text: str) -> list[str]:
    """One recomputation mode per block, in order; ValueError (one sentence) for anything else."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"the list of choices per block is {len(text):,} characters long; at most {MAX_TEXT:,}")
    out: list[str] = []
    for item in text.split(","):
        mode, star, times = item.strip().partition("*")
        if mode not in RECOMPUTE.values or (star and not re.fullmatch(r"[0-9]{1,6}", times.strip() or "x")):
            raise ValueError(f"'{shorten(item.strip(), 40)}' is not a block's recomputation: use "
                             f"{', '.join(RECOMPUTE.values)}, optionally with *count (e.g. full*16,none*16)")
        count = int(times) if star else 1
        if count < 1:
            raise ValueError(f"'{shorten(item.strip(), 40)}' repeats a mode {count} times; at least once")
        out += [mode] * count
    return out


def per_block_text(choices: list[str] | tuple[str, ...]) -> str:
    """The compact form of a list of choices: runs as mode*count ('full*16,none*16'), a single block as its mode."""
    runs: list[list] = []
    for mode in choices:
        if runs and runs[-1][0] == mode:
            runs[-1][1] += 1
        else:
            runs.append([mode, 1])
    return ",".join(mode if n == 1 else f"{mode}*{n}" for mode, n in runs)
