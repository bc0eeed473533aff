"""`zerodesk simulate`: one rank of a full-size training step under fake tensors, every ZeRO stage (0-3).

Torch-free here: the simulation runs in a subprocess (worker/simulate.py via runner.py), which must find a
Python with torch.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.json_files import json_text
from ..core.peak import predict
from ..core.plan import Plan, Profile
from ..core.text import shorten
from .cli_text import (
    STATE_KEYS,
    aligned,
    collect,
    diff_text,
    in_unit,
    parse_python,
    parse_stages,
    parse_timeout,
    run_line,
    show_progress,
    started_json,
    units_line,
)
from .interpreter import resolve_python
from .module_report import add_by_module_argument, by_module_json, module_lines
from .protocol import SIMULATED_BACKENDS, SIMULATED_STAGES, Result, Started
from .progress import fmt_seconds
from .rules import simulate_seconds, unit_family
from .run_state import RunState
from .runner import MeasureRun, simulate_command

PHASES = ("forward", "backward", "optimizer")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("simulation")
    g.add_argument("--stage", "--stages", dest="stages", type=parse_stages, default=list(SIMULATED_STAGES), metavar="LIST",
                   help="ZeRO stages to simulate, e.g. 0,1,2,3 (default)")
    g.add_argument("--backend", choices=SIMULATED_BACKENDS, default="nccl",
                   help="whose collective copies to model: nccl (a GPU rank, default) or gloo (a CPU rank)")
    g.add_argument("--timeout", type=parse_timeout, default=600.0, metavar="S", help="give up after S seconds (default 600)")
    g.add_argument("--python", type=parse_python, default=None, metavar="PATH", help="the Python with torch that runs the simulation")
    g.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_by_module_argument(g)


def predicted_peaks(plan: Plan) -> dict[int, int]:
    """The core's closed-form peak per stage for the engines the simulation runs (torch profile)."""
    return {p.stage: p.total_bytes for p in predict(plan.model_copy(update={"profile": Profile.TORCH}))}


def table(started: Started | None, results: list[Result], family: str, predicted: dict[int, int] | None = None) -> str:
    unit, units = units_line(results, family, "simulated")
    lines = []
    if started is not None:
        lines.append(f"Simulated rank 0 of {started.ranks} (fake tensors, fake process group), torch {started.torch}; "
                     f"model {started.params:,} parameters, seq {started.seq_len} x batch {started.micro_batch}.")
    lines.append(units)
    head = ["stage", "peak", *(["predicted", "diff"] if predicted else []), *PHASES, *STATE_KEYS, "states", "diff"]
    rows = [head]
    for r in results:
        m, p = r.states, r.predicted_states
        guess = [in_unit(predicted[r.stage], unit), diff_text(r.peak_bytes, predicted[r.stage])] if predicted else []
        rows.append([str(r.stage), in_unit(r.peak_bytes, unit), *guess]
                    + [in_unit(r.phase_peaks.get(ph, {}).get("total", 0), unit) for ph in PHASES]
                    + [f"{in_unit(getattr(m, k), unit)} / {in_unit(getattr(p, k), unit)}" for k in STATE_KEYS]
                    + [f"{in_unit(m.total, unit)} / {in_unit(p.total, unit)}", diff_text(m.total, p.total)])
    lines += aligned(rows)
    # The peak moment of each phase, split by category: what fills memory when.
    columns = [(r.stage, ph) for r in results for ph in PHASES if ph in r.phase_peaks]
    by = {(r.stage, ph): r.phase_peaks[ph] for r in results for ph in PHASES if ph in r.phase_peaks}
    cats = [c for c in dict.fromkeys(k for v in by.values() for k in v)
            if c != "total" and any(by[k].get(c) for k in by)]
    if columns:
        lines.append(f"Each phase's peak by category ({unit}):")
        rows = [["category", *(f"{s} {ph}" for s, ph in columns)]]
        rows += [[c, *(in_unit(by[k].get(c, 0), unit) for k in columns)] for c in [*cats, "total"]]
        lines += aligned(rows, left_first=True)
    for r in results:
        lines += module_lines(r, unit)
    for r in results:
        if r.method:
            lines.append(f"Stage {r.stage} simulated with {r.method}.")
    if predicted:
        lines.append("predicted: zerodesk.core.peak's closed form for a GPU rank (NCCL, no collective copies); "
                     "diff = simulated vs predicted.")
    lines.append("CPU sizes: a GPU's caching allocator would round each block up to 512 B.")
    return "\n".join(lines)


def simulated_json(started: Started | None, results: list[Result], predicted: dict[int, int] | None = None) -> dict[str, Any]:
    """measure --json's object with kind "simulated": the same result keys, so scripts read both alike,
    plus the core's predicted peak per result."""
    out = started_json(started, results, "simulated")
    for r, result in zip(out["results"], results):
        if predicted and r["stage"] in predicted:
            r["predicted_peak_bytes"] = predicted[r["stage"]]
        if result.by_module is not None:
            r.update(by_module_json(result))
    return out


def main(args: argparse.Namespace, plan: Plan) -> int:
    def fail(message: str, status: int = 1) -> int:
        print(f"zerodesk simulate: {shorten(message, 4000)}", file=sys.stderr)
        return status

    if not plan.model.buildable:
        return fail("simulating needs an architecture (layers, hidden, heads, ffn, vocab), "
                    "not only a parameter count", 2)

    python, problem = resolve_python(args.python)
    if problem:
        return fail(problem)
    estimate = None
    if show_progress(args.json):
        def estimate(_device: str | None) -> float:
            return simulate_seconds(plan, len(args.stages))

        print(f"zerodesk simulate: {run_line(args.stages, plan.dp, None, plan)}; "
              f"expect about {fmt_seconds(estimate(None))}.", file=sys.stderr)
    run = iter(MeasureRun(simulate_command(plan, args.stages, python, backend=args.backend,
                                                  by_module=args.by_module), timeout=args.timeout))
    state = collect(run, RunState(args.stages, plan.dp, kind="simulated"), estimate)
    if state.error is not None:
        return fail(state.error.message)
    if not state.results:
        return fail("the simulation finished without results")
    results = state.sorted_results()
    predicted = predicted_peaks(plan)
    if args.json:
        print(json_text(simulated_json(state.started, results, predicted)))
    else:
        print(table(state.started, results, unit_family(plan), predicted))
    return 0
