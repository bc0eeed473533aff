"""`zerodesk simulate`: one rank of a full-size training step under fake tensors, for every stage.

Torch-free here: the simulation runs in a subprocess (simulate.py via runner.py), which must find a
Python with torch. Each result says how it was simulated; next to it, the core's predicted peak.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.peak import predict
from ..core.plan import Plan, Profile
from .command import _NOTES, STATE_KEYS, _diff, _in, _stages, _table_unit, collect, result_json
from .protocol import Result, Started
from .runner import MeasureRun, simulate_command
from .simulate import BACKENDS, SIMULATED_STAGES

PHASES = ("forward", "backward", "optimizer")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("simulation")
    g.add_argument("--stage", "--stages", dest="stages", type=_stages, default=list(SIMULATED_STAGES), metavar="LIST",
                   help="ZeRO stages to simulate, e.g. 0,1,2,3 (default)")
    g.add_argument("--backend", choices=BACKENDS, default="nccl",
                   help="whose collective copies to model: nccl (a GPU rank, default) or gloo (a CPU rank)")
    g.add_argument("--timeout", type=float, default=600.0, metavar="S", help="give up after S seconds (default 600)")
    g.add_argument("--python", default=None, metavar="PATH", help="the Python with torch that runs the simulation")
    g.add_argument("--json", action="store_true", help="print one JSON object for scripts")


def predicted_peaks(plan: Plan) -> dict[int, int]:
    """The core's closed-form peak per stage for the engines the simulation runs (torch profile)."""
    return {p.stage: p.total_bytes for p in predict(plan.model_copy(update={"profile": Profile.TORCH}))}


def table(started: Started | None, results: list[Result], family: str, predicted: dict[int, int] | None = None) -> str:
    largest = max([r.peak_bytes for r in results] + [r.states.total for r in results] + [1])
    unit = _table_unit(largest, family)
    lines = []
    if started is not None:
        lines.append(f"Simulated rank 0 of {started.ranks} (fake tensors, fake process group), torch {started.torch}; "
                     f"model {started.params:,} parameters, seq {started.seq_len} x batch {started.micro_batch}.")
    lines.append(f"Bytes in {unit}" + ("" if unit == "B" else f" (1 {unit} = {_NOTES[unit]})")
                 + "; states at rest after the optimizer step, simulated / predicted by the torch profile.")
    head = ["stage", "peak", *(["predicted", "diff"] if predicted else []), *PHASES, *STATE_KEYS, "states", "diff"]
    rows = [head]
    for r in results:
        m, p = r.states, r.predicted_states
        guess = [_in(predicted[r.stage], unit), _diff(r.peak_bytes, predicted[r.stage])] if predicted else []
        rows.append([str(r.stage), _in(r.peak_bytes, unit), *guess]
                    + [_in(r.phase_peaks.get(ph, {}).get("total", 0), unit) for ph in PHASES]
                    + [f"{_in(getattr(m, k), unit)} / {_in(getattr(p, k), unit)}" for k in STATE_KEYS]
                    + [f"{_in(m.total, unit)} / {_in(p.total, unit)}", _diff(m.total, p.total)])
    lines += _aligned(rows)
    # The peak moment of each phase, split by category: what fills memory when.
    columns = [(r.stage, ph) for r in results for ph in PHASES if ph in r.phase_peaks]
    by = {(r.stage, ph): r.phase_peaks[ph] for r in results for ph in PHASES if ph in r.phase_peaks}
    cats = [c for c in dict.fromkeys(k for v in by.values() for k in v)
            if c != "total" and any(by[k].get(c) for k in by)]
    if columns:
        lines.append(f"Each phase's peak by category ({unit}):")
        rows = [["category", *(f"{s} {ph}" for s, ph in columns)]]
        rows += [[c, *(_in(by[k].get(c, 0), unit) for k in columns)] for c in [*cats, "total"]]
        lines += _aligned(rows, left_first=True)
    for r in results:
        if r.method:
            lines.append(f"Stage {r.stage} simulated with {r.method}.")
    if predicted:
        lines.append("predicted: zerodesk.core.peak's closed form for a GPU rank (NCCL, no collective copies); "
                     "diff = simulated vs predicted.")
    lines.append("CPU sizes: a GPU's caching allocator would round each block up to 512 B.")
    return "\n".join(lines)


def _aligned(rows: list[list[str]], left_first: bool = False) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if left_first and i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def simulated_json(started: Started | None, results: list[Result], predicted: dict[int, int] | None = None) -> dict[str, Any]:
    """measure --json's object with kind "simulated": the same result keys, so scripts read both alike,
    plus the core's predicted peak per result."""
    out = {**result_json(started, results), "kind": "simulated"}
    for r in out["results"]:
        if predicted and r["stage"] in predicted:
            r["predicted_peak_bytes"] = predicted[r["stage"]]
    return out


def main(args: argparse.Namespace, plan: Plan) -> int:
    def fail(message: str, status: int = 1) -> int:
        print(f"zerodesk simulate: {message}", file=sys.stderr)
        return status

    if plan.model.architecture is None:
        return fail("simulating needs an architecture (layers, hidden, heads, ffn, vocab), "
                    "not only a parameter count", 2)

    run = iter(MeasureRun(simulate_command(plan, args.stages, args.python, backend=args.backend), timeout=args.timeout))
    started, results, error = collect(run, progress=sys.stderr.isatty() and not args.json)
    if error:
        return fail(error)
    if not results:
        return fail("the simulation finished without results")
    results.sort(key=lambda r: r.stage)
    predicted = predicted_peaks(plan)
    if args.json:
        print(json.dumps(simulated_json(started, results, predicted), indent=2))
    else:
        print(table(started, results, "GB" if plan.units == "GB" else "GiB", predicted))
    return 0
