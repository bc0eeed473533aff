"""`zerodesk measure`: run one real training step per ZeRO stage and compare the states with the torch profile.

Torch-free here: the step runs in a subprocess (runner.py), which must find a Python with torch.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.json_files import json_text
from ..core.plan import Plan
from ..core.text import shorten
from .cli_text import (
    STATE_KEYS,
    aligned,
    collect,
    diff_text,
    in_unit,
    parse_fraction,
    parse_python,
    parse_ranks,
    parse_stages,
    parse_timeout,
    run_line,
    show_progress,
    started_json,
    units_line,
)
from .interpreter import resolve_python
from .module_report import add_by_module_argument, by_module_json, module_lines
from .protocol import Result, Scale, Started, scale_plan
from .progress import fmt_seconds
from .rules import default_ranks, host_fit, measure_seconds, unit_family
from .run_state import RunState
from .runner import run_measure

def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("measurement")
    g.add_argument("--stage", "--stages", dest="stages", type=parse_stages, default=[0, 1, 2, 3], metavar="LIST",
                   help="ZeRO stages to measure, e.g. 0,1,2,3 (default: all)")
    g.add_argument("--ranks", type=parse_ranks, default=None, metavar="N",
                   help="local ranks to start (default: the plan's dp, at most 2); predictions use this Nd")
    g.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="cuda ranks with NCCL, or cpu ranks with gloo (auto: cuda when available)")
    for name, what in (("layers", "the number of blocks"), ("hidden", "head width, hidden and ffn"),
                       ("seq", "the sequence length"), ("vocab", "the vocabulary")):
        g.add_argument(f"--{name}-scale", type=parse_fraction, default=1.0, metavar="F",
                       help=f"scale {what} down by F in (0, 1] so the step fits this machine")
    g.add_argument("--timeout", type=parse_timeout, default=600.0, metavar="S", help="give up after S seconds (default 600)")
    g.add_argument("--python", type=parse_python, default=None, metavar="PATH", help="the Python with torch that runs the ranks")
    g.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_by_module_argument(g)


def hybrid_words(started: Started) -> str:
    """' as 2 groups of 2 (HSDP; ZeRO-1 in the group)' for a run on a hybrid mesh, else ''."""
    n = started.shard_group
    if n is None or n >= started.ranks:
        return ""
    return f" as {started.ranks // n} groups of {n} (HSDP; ZeRO-1 in the group)"


def table(started: Started | None, results: list[Result], family: str) -> str:
    unit, units = units_line(results, family, "measured")
    lines = []
    if started is not None:
        scaled = "" if started.scale.identity else (
            f", scaled down (layers x{started.scale.layers:g}, hidden x{started.scale.hidden:g}, "
            f"seq x{started.scale.seq:g}, vocab x{started.scale.vocab:g})")
        lines.append(f"Measured on {started.device}{f' ({started.device_name})' if started.device_name else ''}, "
                     f"{started.ranks} ranks{hybrid_words(started)}, torch {started.torch}; model {started.params:,} parameters, "
                     f"seq {started.seq_len} x batch {started.micro_batch}{scaled}.")
        how = [f"AdamW {started.optimizer_impl}" if started.optimizer_impl else "",
               f"attention kernel {started.attention}" if started.attention else ""]
        if any(how):
            lines.append("Ran with " + ", ".join(h for h in how if h) + ".")
    lines.append(units)
    head = ["stage", "rank", "peak", "params", "grads", "optimizer", "states", "diff"]
    rows = [head]
    for r in results:
        m, p = r.states, r.predicted_states
        rows.append([str(r.stage), str(r.rank), in_unit(r.peak_bytes, unit)]
                    + [f"{in_unit(getattr(m, k), unit)} / {in_unit(getattr(p, k), unit)}" for k in STATE_KEYS]
                    + [f"{in_unit(m.total, unit)} / {in_unit(p.total, unit)}", diff_text(m.total, p.total)])
    lines += aligned(rows)
    for r in (r for r in results if r.max_allocated_bytes is not None):
        lines.append(f"stage {r.stage} rank {r.rank}: CUDA max allocated {in_unit(r.max_allocated_bytes, unit)} {unit}, "
                     f"max reserved {in_unit(r.max_reserved_bytes or 0, unit)} {unit}; fragmentation (measured, "
                     f"reserved - allocated) {in_unit(max(0, (r.max_reserved_bytes or 0) - r.max_allocated_bytes), unit)} {unit}")
        if r.untracked_bytes is not None:
            lines.append(f"  allocated beyond the tracked peak {in_unit(r.untracked_bytes, unit)} {unit} (what the "
                         f"tracker never sees: cuBLAS/cuDNN workspaces, blocks held for other CUDA streams)"
                         + (f"; outside torch's allocator {in_unit(r.device_overhead_bytes, unit)} {unit} (CUDA "
                            f"context, NCCL buffers, other processes)" if r.device_overhead_bytes is not None else ""))
    for r in results:
        lines += module_lines(r, unit)
    if started is not None and started.device == "cuda":
        lines.append("On CUDA the attention kernel and autocast's op lists differ from CPU and simulate, so do the "
                     "activations; the tracker rounds each tensor to 512 B, the states at rest are exact bytes.")
    lines.append("Peaks include activations and temporaries; DDP's gradient buckets are reported there as activations.")
    if started is not None and started.offload:
        lines.append("Stages 2-3 ran FSDP2 with CPUOffloadPolicy: their states live in host memory "
                     "(on CUDA, ZeroDesk has not yet checked this on a GPU).")
    return "\n".join(lines)


def result_json(started: Started | None, results: list[Result]) -> dict[str, Any]:
    out = started_json(started, results, "measured")
    for r, result in zip(out["results"], results):
        if result.by_module is not None:
            r.update(by_module_json(result))
    return out


def host_problem(plan: Plan, ranks: int, stages: list[int], device: str) -> str | None:
    """On CPU ranks, refuse a model whose states alone would not fit the host's free memory."""
    refusal = host_fit(plan, stages, ranks, device)
    if refusal is None:
        return None
    return (f"the model states of {ranks} CPU ranks need about {refusal.need / 1e9:.1f} GB, "
            f"more than this machine can spare ({refusal.free / 1e9:.1f} GB free); "
            f"scale the model down with --layers-scale/--hidden-scale")


def main(args: argparse.Namespace, plan: Plan) -> int:
    def fail(message: str, status: int = 1) -> int:
        print(f"zerodesk measure: {shorten(message, 4000)}", file=sys.stderr)
        return status

    scale = Scale(layers=args.layers_scale, hidden=args.hidden_scale, seq=args.seq_scale, vocab=args.vocab_scale)
    try:
        scaled = scale_plan(plan, scale)
    except ValueError as exc:
        return fail(str(exc).splitlines()[0], 2)
    # Without --ranks the launcher decides with the device (one per GPU); this is what CPU ranks would be.
    ranks = args.ranks if args.ranks is not None else default_ranks(plan, args.device)
    if ranks < 1:
        return fail(f"--ranks must be at least 1, not {ranks}", 2)
    problem = host_problem(scaled, ranks, args.stages, args.device)  # explicit cpu; "auto": the launcher checks
    if problem:
        return fail(problem, 2)

    python, problem = resolve_python(args.python)
    if problem:
        return fail(problem)
    estimate = None
    if show_progress(args.json):
        def estimate(device: str | None) -> float:
            return measure_seconds(scaled, len(args.stages), ranks, device or args.device)

        print(f"zerodesk measure: {run_line(args.stages, ranks, args.device, scaled, plan)}; "
              f"expect about {fmt_seconds(estimate(None))}, much of it starting the ranks (each imports torch).",
              file=sys.stderr)
    messages = run_measure(plan, args.stages, args.ranks, args.device, scale, timeout=args.timeout, python=python,
                           samples=False, by_module=args.by_module)
    state = collect(messages, RunState(args.stages, ranks), estimate)
    if state.error is not None:
        return fail(state.error.message)
    if not state.results:
        return fail("the measurement finished without results")
    results = state.sorted_results()
    if args.json:
        print(json_text(result_json(state.started, results)))
    else:
        print(table(state.started, results, unit_family(plan)))
    return 0
