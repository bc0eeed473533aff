"""Hostile command lines for `zerodesk plan | measure | simulate`, in process, from two generators; counts by outcome.

    python benchmarks/fuzz.py [--cases 10000] [--seed 1] [--generator hostile|bounds|both]

Target: 0 traceback, 0 internal_error, 0 hang (10 s), 0 non_json, 0 negative, 0 multi_line, 0 raw_control.
- hostile: a base model plus one to three hostile flag/value pairs (numbers such as nan, 1e400 or 5,000 digits;
  texts with ESC, newlines or NUL; special and malformed files for --plan/--config). measure and simulate get an
  interpreter that does not exist, so valid cases end at "could not start" (status 1).
- bounds: `plan` with a random subset of flags at the edges of their allowed ranges (read from the plan's own
  fields), over a preset, a count, an architecture or a plan file holding a random tensor list and random fields.
"negative" is a figure below zero in --json output or in the printed tables.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile_inputs import (  # noqa: E402
    BAD,
    BASES,
    FILE_FLAGS,
    MEASURE_FLAGS,
    NUMBERS,
    NUMERIC_FLAGS,
    OUTCOMES,
    TEXT_FLAGS,
    TEXTS,
    boundary_case,
    hostile_files,
    numeric_bounds,
    run_cli,
    with_python,
)


def hostile_case(rng: random.Random, files: list[str]) -> list[str]:
    command = rng.choice(["plan", "plan", "measure", "simulate"])
    pools = [(NUMERIC_FLAGS, NUMBERS), (TEXT_FLAGS, TEXTS), (NUMERIC_FLAGS, TEXTS), (FILE_FLAGS, files)]
    if command != "plan":
        pools += [(MEASURE_FLAGS, NUMBERS), (MEASURE_FLAGS, TEXTS), (["--python"], TEXTS)]
    argv = [command, *rng.choice(BASES)]
    for _ in range(rng.randint(1, 3)):
        flags, values = rng.choice(pools)
        argv += [rng.choice(flags), rng.choice(values)]
    if rng.random() < 0.5:
        argv.append("--json")
    return with_python(command, argv)


def run(name: str, cases: int, make) -> Counter[str]:
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    slowest = (0.0, [])
    t0 = time.perf_counter()
    for i in range(cases):
        answer = run_cli(make(i))
        counts[answer.outcome] += 1
        if answer.outcome in BAD:
            examples.setdefault(answer.outcome, answer.argv)
        slowest = max(slowest, (answer.seconds, answer.argv))
    wall = time.perf_counter() - t0
    print(f"{name}: {cases:,} cases in {wall:.1f} s ({wall / max(cases, 1) * 1e3:.2f} ms each); "
          f"slowest {slowest[0]:.3f} s: {_shown(slowest[1])}")
    for outcome in OUTCOMES:
        print(f"  {outcome:15} {counts[outcome]:6,}")
    for outcome, argv in examples.items():
        print(f"first {outcome}: {_shown(argv)}")
    return counts


def _shown(argv: list[str]) -> list[str]:
    return [a if len(a) < 60 else a[:57] + "..." for a in argv]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases per generator")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--generator", choices=["hostile", "bounds", "both"], default="both")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder:
        if args.generator in ("hostile", "both"):
            rng = random.Random(args.seed)
            files = [str(p) for p in hostile_files(Path(folder) / "hostile").values()]
            total += run("hostile", args.cases, lambda _i: hostile_case(rng, files))
        if args.generator in ("bounds", "both"):
            rng = random.Random(args.seed)
            bounds, plans = numeric_bounds(), Path(folder) / "plans"
            plans.mkdir()
            total += run("bounds", args.cases, lambda i: boundary_case(rng, bounds, plans, i))
    bad = sum(total[o] for o in BAD)
    print(f"total: {sum(total.values()):,} cases, {bad} bad ({', '.join(f'{o} {total[o]}' for o in BAD)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
