"""The time estimate `zerodesk measure` prints before a run, beside the run's wall time (CPU ranks, stages 0-3).

Prints one line per configuration: the estimate (rules.measure_seconds, with this machine's load at the
start), the wall time of the whole command, its CPU time (user + sys of every process of the run) and the
1-minute load average before and after. The first configuration is README's first measure example.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zerodesk.cli import plan_from_args, _Parser, add_plan_arguments  # noqa: E402
from zerodesk.measure import command, rules  # noqa: E402
from zerodesk.measure.protocol import Scale, scale_plan  # noqa: E402

CONFIGS = [
    "--preset gpt2 --layers-scale 0.1 --hidden-scale 0.5 --vocab-scale 0.1 --seq 64",  # README's first measure
    "--preset gpt2 --layers-scale 0.1 --vocab-scale 0.1 --seq 64",
    "--preset gpt2 --layers-scale 0.1 --seq 64",  # README's example before: the full vocabulary
    "--layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 256 --seq 32 --dp 2",  # benchmarks/bench_measure.py's
    "--preset llama-2-7b --layers-scale 0.0625 --hidden-scale 0.125 --vocab-scale 0.25 --seq 128",
]


def estimate(flags: list[str]) -> tuple[float, int]:
    parser = _Parser(prog="bench")
    add_plan_arguments(parser)
    command.add_arguments(parser)
    args = parser.parse_args(flags)
    plan = plan_from_args(args)
    scaled = scale_plan(plan, Scale(layers=args.layers_scale, hidden=args.hidden_scale, seq=args.seq_scale,
                                    vocab=args.vocab_scale))
    ranks = rules.default_ranks(plan, "cpu")
    return rules.measure_seconds(scaled, len(args.stages), ranks, "cpu"), scaled.params


def main() -> int:
    print(f"{os.cpu_count()} CPUs; CPU ranks (gloo), stages 0-3")
    for config in CONFIGS:
        flags = config.split()
        load = os.getloadavg()[0]
        guess, params = estimate(flags)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "zerodesk", "measure", *flags, "--device", "cpu", "--json"],
                              capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        status = "ok" if proc.returncode == 0 else f"failed: {proc.stderr.strip()[-200:]}"
        print(f"{params / 1e6:6.1f}M params: estimate {guess:5.1f} s, wall {wall:5.1f} s, CPU {cpu:5.1f} s, "
              f"load {load:.1f} -> {os.getloadavg()[0]:.1f}; {status}  [{config}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
