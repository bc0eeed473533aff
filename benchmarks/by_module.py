"""What --by-module costs a simulation, printed: Llama 2 7B at Nd = 64, every stage, with and without, side by side.

Each run is one `zerodesk simulate` worker process (stages 0-3, seq 4096 x 1), as the command line starts it; the
two kinds alternate round by round, so a change in the machine's load falls on both alike. Prints wall and CPU
seconds (CPU time is steadier on a shared machine), the added share, whether the figures are the same with and
without (peaks, phase peaks, states) and whether each stage's parts sum to its peak, and the top parts of stage 3.
Bar (issue 30): under 10% added.
Usage: python benchmarks/by_module.py [--rounds N] [--stages 0,1,2,3]
"""

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402

GIB = 2**30


def run(argv: list[str]) -> tuple[float, float, dict[int, Result]]:
    """One simulation: wall seconds, CPU seconds of the child, its results by stage."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = usage.ru_utime + usage.ru_stime
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=measure_env())
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    results: dict[int, Result] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            msg = decode(line)
            if isinstance(msg, Error):
                raise SystemExit(msg.message)
            if isinstance(msg, Result):
                results[msg.stage] = msg
    if proc.returncode:
        raise SystemExit(f"the simulation failed with exit status {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime - cpu0, results


def main() -> int:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    stages = ([int(s) for s in sys.argv[sys.argv.index("--stages") + 1].split(",")] if "--stages" in sys.argv
              else [0, 1, 2, 3])
    plan = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
                                "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 8, "gpus_per_node": 8}})
    print(f"Llama 2 7B ({plan.params:,} params), seq 4096 x 1, Nd = {plan.dp}, stages {stages}, fake tensors on cpu; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; load average {os.getloadavg()[0]:.2f}")
    kinds = {"simulate": False, "simulate --by-module": True}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    results: dict[str, dict[int, Result]] = {}
    for i in range(rounds):
        for kind, by_module in (kinds.items() if i % 2 == 0 else reversed(kinds.items())):
            wall, cpu, results[kind] = run(simulate_command(plan, stages, by_module=by_module))
            times[kind].append((wall, cpu))
            print(f"  round {i + 1}: {kind:22} {wall:6.1f} s wall, {cpu:6.1f} s CPU", flush=True)
    base_wall, base_cpu = (statistics.median(t[j] for t in times["simulate"]) for j in (0, 1))
    for kind in kinds:
        wall, cpu = (statistics.median(t[j] for t in times[kind]) for j in (0, 1))
        print(f"  {kind:22} {wall:6.1f} s wall ({100 * (wall / base_wall - 1):+.1f}%), "
              f"{cpu:6.1f} s CPU ({100 * (cpu / base_cpu - 1):+.1f}%)  (median of {rounds})")
    plain, shared = results["simulate"], results["simulate --by-module"]
    same = all(plain[s].peak_bytes == shared[s].peak_bytes and plain[s].phase_peaks == shared[s].phase_peaks
               and plain[s].states == shared[s].states for s in stages)
    sums = all(sum(p.total for p in shared[s].by_module) == shared[s].peak_bytes for s in stages)
    print(f"  the same figures with and without: {same}; each stage's parts sum to its peak: {sums}")
    last = shared[max(stages)]
    print(f"  stage {last.stage} peak {last.peak_bytes / GIB:.3f} GiB, {len(last.by_module)} parts; the largest:")
    for p in last.by_module[:5]:
        print(f"    {p.module or '(rest of the model)':32} {p.kind:10} {p.total / GIB:7.3f} GiB")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
