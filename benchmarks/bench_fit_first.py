"""The Fit view's first answer for a plan it has not seen (a new model, scheme, dtype or offload): the solver, the map and
the cheapest recomputation per stage, each in a fresh process (no memo warm). Prints figures.

    .venv/bin/python benchmarks/bench_fit_first.py [--runs 5] [--baseline DIR]

Llama 2 70B and 7B on 8 x 8 H100 at sequence 4096 under both profiles (the Fit view's own cases in bench_gui.py).
CPU time of the process from the plan built to the answer (steadier than wall on a shared machine), median of the runs;
--baseline DIR times another checkout the same way (under DIR/.venv when it has one), runs alternating.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys, time
from zerodesk.core import catalog
from zerodesk.core.catalog import find_gpu
from zerodesk.core.fit_map import FitMapModel
from zerodesk.core.plan import Plan
preset, profile = sys.argv[1], sys.argv[2]
plan = Plan.model_validate({"model": catalog.find_model(preset).to_model_spec().model_dump(),
                            "cluster": {"nodes": 8, "gpus_per_node": 8, "gpu": "h100-80gb",
                                        "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes},
                            "seq_len": 4096, "recompute": "full", "cuda_allowance_bytes": 2**30, "profile": profile})
start = time.process_time()
state = FitMapModel().update(plan)
print(time.process_time() - start, state.error == "")
"""

CASES = [("llama-2-70b", "paper"), ("llama-2-70b", "torch"), ("llama-2-7b", "paper"), ("llama-2-7b", "torch")]


def _once(root: Path, python: str, preset: str, profile: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([python, "-c", CHILD, preset, profile], cwd=root, env=env, capture_output=True, text=True,
                         check=True, timeout=600)
    seconds, answered = out.stdout.split()
    if answered != "True":
        raise SystemExit(f"{root}: no answer for {preset} ({profile})")
    return float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another ZeroDesk checkout timed beside this one")
    args = parser.parse_args()
    sides = {"ZeroDesk": (ROOT, sys.executable)}
    if args.baseline is not None:
        venv = args.baseline / ".venv" / "bin" / "python"
        sides[f"baseline ({args.baseline})"] = (args.baseline, str(venv) if venv.exists() else sys.executable)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"the Fit view's first answer, CPU ms, median of {args.runs} fresh processes (load average {load:.1f}):")
    for preset, profile in CASES:
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, (root, python) in sides.items():
                times[name].append(_once(root, python, preset, profile))
        row = " | ".join(f"{name}: {statistics.median(v) * 1e3:7.0f}" for name, v in times.items())
        print(f"  {preset}, {profile:5}: {row}")


if __name__ == "__main__":
    main()
