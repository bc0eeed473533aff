"""What `zerodesk measure` and `zerodesk simulate` share on the terminal: arguments, reading a run, tables.

Torch-free. The numbers come from rules.py and the run from RunState; this module only words them.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Callable, Iterator

from ..core.plan import Plan
from ..core.text import shorten
from .progress import ProgressLine
from .protocol import Message, Result, Started
from .rules import MAX_LOCAL_RANKS, UNIT_BYTES, UNIT_NOTES, difference_pct, table_unit
from .run_state import RunState
from ..core.units import parse_decimal

STATE_KEYS = ("params", "grads", "optimizer")


MAX_TIMEOUT_S = 7 * 24 * 3600.0


def parse_stages(text: str) -> list[int]:
    """'0,2,3' -> [0, 2, 3]; anything else is one sentence for argparse."""
    parts = [s.strip() for s in text.split(",") if s.strip()] if len(text) <= 64 else ["?"]
    if not parts or any(p not in ("0", "1", "2", "3") for p in parts):
        raise argparse.ArgumentTypeError(f"stages must be among 0, 1, 2, 3 (e.g. 0,1,2,3), not '{shorten(text, 40)}'")
    return sorted({int(p) for p in parts})


def _number(text: str) -> float:
    """The number (ASCII digits, as every numeric flag), else nan (refused by every caller's range check)."""
    try:
        return parse_decimal(text)
    except ValueError:
        return math.nan


def parse_fraction(text: str) -> float:
    value = _number(text)
    if not 1e-6 <= value <= 1:  # nan fails every comparison
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a scale; use a fraction in (0, 1], e.g. 0.25")
    return value


def parse_timeout(text: str) -> float:
    value = _number(text)
    if not 0 < value <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a timeout; use seconds above 0 and at most "
                                         f"{MAX_TIMEOUT_S:.0f} (7 days)")
    return value


def parse_python(text: str) -> str:
    """A path to an interpreter: an empty one would silently mean ours, a NUL byte cannot be started."""
    if not text.strip() or "\x00" in text or len(text) > 4096:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a path to a Python interpreter")
    return text


def parse_ranks(text: str) -> int:
    if not (len(text) <= 8 and text.strip().isascii() and text.strip().isdigit() and 1 <= int(text) <= MAX_LOCAL_RANKS):
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a number of ranks; use 1 to {MAX_LOCAL_RANKS}")
    return int(text)


def in_unit(nbytes: float, unit: str) -> str:
    return f"{nbytes / UNIT_BYTES[unit]:,.2f}" if unit != "B" else f"{nbytes:,.0f}"


def diff_text(value: int, reference: int) -> str:
    d = difference_pct(value, reference)
    return "n/a" if d is None else f"{d:+.2f}%"


def units_line(results: list[Result], family: str, what: str) -> tuple[str, str]:
    """(unit, the sentence naming it): one unit for the whole table, from the plan's family."""
    largest = max([r.peak_bytes for r in results] + [r.states.total for r in results] + [1])
    unit = table_unit(largest, family)
    return unit, (f"Bytes in {unit}" + ("" if unit == "B" else f" (1 {unit} = {UNIT_NOTES[unit]})")
                  + f"; states at rest after the optimizer step, {what} / predicted by the torch profile.")


def aligned(rows: list[list[str]], left_first: bool = False) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if left_first and i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def collect(messages: Iterator[Message], state: RunState,
            estimate: Callable[[str | None], float] | None = None) -> RunState:
    """Read a run to its end into `state`; with `estimate` (the prior in seconds for a device), a progress line
    on stderr (progress.ProgressLine) that is erased at the end.

    Closing the message stream on the way out kills the subprocess if we leave early."""
    line = ProgressLine(state, estimate, sys.stderr) if estimate is not None else None
    try:
        for msg in messages:
            if line is not None:
                line.apply(msg)
            else:
                state.apply(msg)
            if state.finished:
                break
    finally:
        messages.close()
        if line is not None:
            line.close()
    return state


def run_line(stages: list[int], ranks: int, device: str | None, plan: Plan, planned: Plan | None = None) -> str:
    """What a run will do, before it starts: 'stages 0, 1, 2, 3 on 2 CPU ranks, 11,720,448 parameters (scaled
    down from 124,439,808)'; device None: a simulation (one rank of `ranks` under fake tensors)."""
    listed = ", ".join(str(s) for s in stages)
    what = f"stage{'s' if len(stages) > 1 else ''} {listed}"
    if device is None:
        where = f"rank 0 of {ranks:,} under fake tensors"
    else:
        kind = {"cpu": "CPU ", "cuda": "GPU "}.get(device, "local ")
        where = f"{ranks} {kind}rank{'s' if ranks > 1 else ''}" + (
            "" if device in ("cpu", "cuda") else " (on GPUs if their torch sees one, else CPU)")
    size = f"{plan.params:,} parameters"
    if planned is not None and planned.params != plan.params:
        size += f" (scaled down from {planned.params:,})"
    return f"{what} on {where}, {size}"


def show_progress(json_output: bool) -> bool:
    """The CLI's rule for the estimate and the progress line: on a terminal's stderr, never with --json."""
    return not json_output and sys.stderr.isatty()


def started_json(started: Started | None, results: list[Result], kind: str) -> dict:
    """One JSON object for scripts: where and how the run went, then its results (measure and simulate alike)."""
    out: dict = {"schema": 1, "kind": kind, "device": started.device if started else None,
                 "ranks": started.ranks if started else None, "torch": started.torch if started else None}
    if started is not None:
        arch = started.architecture  # None: a tensor list read by transformers
        out.update(params=started.params, seq_len=started.seq_len, micro_batch=started.micro_batch,
                   scale=started.scale.model_dump(), architecture=arch.model_dump(exclude_none=True) if arch else None,
                   offload=started.offload, optimizer_impl=started.optimizer_impl, attention=started.attention,
                   shard_group=started.shard_group)
    out["results"] = [r.model_dump(exclude_none=True, exclude={"kind"}) for r in results]
    return out
