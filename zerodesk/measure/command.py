"""`zerodesk measure`: run one real training step per ZeRO stage and compare the states with the torch profile.

Torch-free here: the step runs in a subprocess (runner.py), which must find a Python with torch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..core.plan import Plan
from .protocol import Error, PhaseMsg, Result, Scale, Started, scale_plan
from .runner import host_available_bytes, run_measure

STATE_KEYS = ("params", "grads", "optimizer")


def _stages(text: str) -> list[int]:
    try:
        stages = sorted({int(s) for s in text.split(",") if s.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of stages; use e.g. 0,1,2,3") from None
    if not stages or any(s not in (0, 1, 2, 3) for s in stages):
        raise argparse.ArgumentTypeError(f"stages must be among 0, 1, 2, 3, not '{text}'")
    return stages


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a scale; use a fraction in (0, 1], e.g. 0.25")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("measurement")
    g.add_argument("--stage", "--stages", dest="stages", type=_stages, default=[0, 1, 2, 3], metavar="LIST",
                   help="ZeRO stages to measure, e.g. 0,1,2,3 (default: all)")
    g.add_argument("--ranks", type=int, default=None, metavar="N",
                   help="local ranks to start (default: the plan's dp, at most 2); predictions use this Nd")
    g.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="cuda ranks with NCCL, or cpu ranks with gloo (auto: cuda when available)")
    for name, what in (("layers", "the number of blocks"), ("hidden", "head width, hidden and ffn"),
                       ("seq", "the sequence length"), ("vocab", "the vocabulary")):
        g.add_argument(f"--{name}-scale", type=_fraction, default=1.0, metavar="F",
                       help=f"scale {what} down by F in (0, 1] so the step fits this machine")
    g.add_argument("--timeout", type=float, default=600.0, metavar="S", help="give up after S seconds (default 600)")
    g.add_argument("--python", default=None, metavar="PATH", help="the Python with torch that runs the ranks")
    g.add_argument("--json", action="store_true", help="print one JSON object for scripts")


_SIZES = {"GB": 1e9, "MB": 1e6, "kB": 1e3, "GiB": 2**30, "MiB": 2**20, "KiB": 2**10, "B": 1}
_NOTES = {"GB": "1e9 B", "MB": "1e6 B", "kB": "1e3 B", "GiB": "2^30 B", "MiB": "2^20 B", "KiB": "2^10 B"}


def _table_unit(largest: int, family: str) -> str:
    """One unit for the whole table, from the plan's family: GB/MB/kB (decimal) or GiB/MiB/KiB (binary)."""
    for name in (("GB", "MB", "kB") if family == "GB" else ("GiB", "MiB", "KiB")):
        if largest >= _SIZES[name]:
            return name
    return "B"


def _in(nbytes: float, unit: str) -> str:
    return f"{nbytes / _SIZES[unit]:,.2f}" if unit != "B" else f"{nbytes:,.0f}"


def _diff(measured: int, predicted: int) -> str:
    if predicted == 0:
        return "n/a" if measured else "+0.00%"
    return f"{(measured - predicted) / predicted * 100:+.2f}%"


def table(started: Started | None, results: list[Result], family: str) -> str:
    largest = max([r.peak_bytes for r in results] + [r.states.total for r in results] + [1])
    unit = _table_unit(largest, family)
    lines = []
    if started is not None:
        scaled = "" if started.scale.identity else (
            f", scaled down (layers x{started.scale.layers:g}, hidden x{started.scale.hidden:g}, "
            f"seq x{started.scale.seq:g}, vocab x{started.scale.vocab:g})")
        lines.append(f"Measured on {started.device}{f' ({started.device_name})' if started.device_name else ''}, "
                     f"{started.ranks} ranks, torch {started.torch}; model {started.params:,} parameters, "
                     f"seq {started.seq_len} x batch {started.micro_batch}{scaled}.")
    lines.append(f"Bytes in {unit}" + ("" if unit == "B" else f" (1 {unit} = {_NOTES[unit]})")
                 + "; states at rest after the optimizer step, measured / predicted by the torch profile.")
    head = ["stage", "rank", "peak", "params", "grads", "optimizer", "states", "diff"]
    rows = [head]
    for r in results:
        m, p = r.states, r.predicted_states
        rows.append([str(r.stage), str(r.rank), _in(r.peak_bytes, unit)]
                    + [f"{_in(getattr(m, k), unit)} / {_in(getattr(p, k), unit)}" for k in STATE_KEYS]
                    + [f"{_in(m.total, unit)} / {_in(p.total, unit)}", _diff(m.total, p.total)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for row in rows:
        lines.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    cuda = [r for r in results if r.max_allocated_bytes is not None]
    for r in cuda:
        lines.append(f"stage {r.stage} rank {r.rank}: CUDA max allocated {_in(r.max_allocated_bytes, unit)} {unit}, "
                     f"max reserved {_in(r.max_reserved_bytes or 0, unit)} {unit}; fragmentation (measured, "
                     f"reserved - allocated) {_in(max(0, (r.max_reserved_bytes or 0) - r.max_allocated_bytes), unit)} {unit}")
    lines.append("Peaks include activations and temporaries; DDP's gradient buckets are reported there as activations.")
    return "\n".join(lines)


def result_json(started: Started | None, results: list[Result]) -> dict[str, Any]:
    out: dict[str, Any] = {"schema": 1, "kind": "measured", "device": started.device if started else None,
                           "ranks": started.ranks if started else None, "torch": started.torch if started else None}
    if started is not None:
        out.update(params=started.params, seq_len=started.seq_len, micro_batch=started.micro_batch,
                   scale=started.scale.model_dump(), architecture=started.architecture.model_dump(exclude_none=True))
    out["results"] = [r.model_dump(exclude_none=True, exclude={"kind"}) for r in results]
    return out


def _fits_host(plan: Plan, ranks: int, stages: list[int]) -> str | None:
    """On CPU ranks, refuse a model whose states alone would not fit the host's free memory."""
    from ..core.architecture import tensor_shapes
    from ..core.torch_profile import rank_states

    shapes = [s for _, s in tensor_shapes(plan.model.architecture)]
    need = max(sum(sum(r.values()) for r in rank_states(shapes, plan.params, s, ranks)) for s in stages)
    free = host_available_bytes()
    if free is not None and need > 0.7 * free:
        return (f"the model states of {ranks} CPU ranks need about {need / 1e9:.1f} GB, "
                f"more than this machine can spare "
                f"({free / 1e9:.1f} GB free); scale the model down with --layers-scale/--hidden-scale")
    return None


def collect(messages, progress: bool) -> tuple[Started | None, list[Result], str | None]:
    """Read a run to its end: (started, results, error sentence or None); progress goes to stderr.

    Closing the message stream on the way out kills the subprocess if we leave early."""
    started: Started | None = None
    results: list[Result] = []
    try:
        for msg in messages:
            if isinstance(msg, Started):
                started = msg
            elif isinstance(msg, Result):
                results.append(msg)
            elif isinstance(msg, Error):
                return started, results, msg.message
            elif isinstance(msg, PhaseMsg) and progress and msg.rank == 0 and msg.progress == 0.0:
                print(f"\rstage {msg.stage}: {msg.phase}...      ", end="", file=sys.stderr, flush=True)
    finally:
        messages.close()
        if progress:
            print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    return started, results, None


def main(args: argparse.Namespace, plan: Plan) -> int:
    def fail(message: str, status: int = 1) -> int:
        print(f"zerodesk measure: {message}", file=sys.stderr)
        return status

    scale = Scale(layers=args.layers_scale, hidden=args.hidden_scale, seq=args.seq_scale, vocab=args.vocab_scale)
    try:
        scaled = scale_plan(plan, scale)
    except ValueError as exc:
        return fail(str(exc).splitlines()[0], 2)
    ranks = args.ranks if args.ranks is not None else min(plan.dp, 2)
    if ranks < 1:
        return fail(f"--ranks must be at least 1, not {ranks}", 2)
    if args.device == "cpu" or (args.device == "auto" and not os.path.exists("/dev/nvidiactl")):
        problem = _fits_host(scaled, ranks, args.stages)
        if problem:
            return fail(problem, 2)

    messages = run_measure(plan, args.stages, ranks, args.device, scale, timeout=args.timeout, python=args.python,
                           samples=False)
    started, results, error = collect(messages, progress=sys.stderr.isatty() and not args.json)
    if error:
        return fail(error)
    if not results:
        return fail("the measurement finished without results")
    results.sort(key=lambda r: (r.stage, r.rank))
    if args.json:
        print(json.dumps(result_json(started, results), indent=2))
    else:
        print(table(started, results, "GB" if plan.units == "GB" else "GiB"))
    return 0
