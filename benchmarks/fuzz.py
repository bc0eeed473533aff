"""10,000 hostile command lines for `zerodesk plan | measure | simulate`, in process; counts by outcome.

    python benchmarks/fuzz.py [--cases 10000] [--seed 1]

Target: 0 traceback, 0 internal_error, 0 hang, 0 non_json, 0 multi_line, 0 raw_control. Each case is a
base model plus one to three hostile flag/value pairs (numbers such as nan, 1e400 or 5,000 digits;
texts with ESC, newlines or NUL; special and malformed files for --plan/--config). measure and
simulate get an interpreter that does not exist, so valid cases end at "could not start" (status 1).
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
    hostile_files,
    run_cli,
    with_python,
)


def case(rng: random.Random, files: list[str]) -> list[str]:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    slowest = (0.0, [])
    with tempfile.TemporaryDirectory() as folder:
        files = [str(p) for p in hostile_files(Path(folder)).values()]
        t0 = time.perf_counter()
        for _ in range(args.cases):
            answer = run_cli(case(rng, files))
            counts[answer.outcome] += 1
            if answer.outcome in BAD:
                examples.setdefault(answer.outcome, answer.argv)
            slowest = max(slowest, (answer.seconds, answer.argv))
        wall = time.perf_counter() - t0
    print(f"{args.cases:,} cases in {wall:.1f} s ({wall / args.cases * 1e3:.2f} ms each); slowest {slowest[0]:.3f} s")
    for outcome in OUTCOMES:
        print(f"  {outcome:15} {counts[outcome]:6,}")
    for outcome, argv in examples.items():
        print(f"first {outcome}: {[a if len(a) < 60 else a[:57] + '...' for a in argv]}")
    return 1 if any(counts[o] for o in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
