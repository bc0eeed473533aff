"""What --by-module costs a simulation, printed: Llama 2 7B at Nd = 64, every stage, with and without, side by side.

Each run is one `zerodesk simulate` worker process (stages 0-3, seq 4096 x 1), as the command line starts it; the
two kinds alternate round by round, so a change in the machine's load falls on both alike. Prints wall and CPU
seconds and the peak resident memory (CPU time is steadier on a shared machine), the added share, whether the figures are the same with and
without (peaks, phase peaks, states) and whether each stage's parts sum to its peak, and the top parts of stage 3.
Bar (issue 30): under 10% added.
Usage: python benchmarks/by_module.py [--rounds N] [--stages 0,1,2,3] [--preset NAME (a quick check; the bar is Llama 2 7B)]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402

GIB = 2**30


def run(argv: list[str]) -> tuple[float, float, int, dict[int, Result]]:
    """One simulation: wall seconds, CPU seconds and peak resident memory (bytes) of that child, its results by stage."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=measure_env())
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (Popen.wait would reap it without)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    results: dict[int, Result] = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            msg = decode(line)
            if isinstance(msg, Error):
                raise SystemExit(msg.message)
            if isinstance(msg, Result):
                results[msg.stage] = msg
    if proc.returncode:
        raise SystemExit(f"the simulation failed with exit status {proc.returncode}: {stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, results


def main() -> int:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    stages = ([int(s) for s in sys.argv[sys.argv.index("--stages") + 1].split(",")] if "--stages" in sys.argv
              else [0, 1, 2, 3])
    preset = sys.argv[sys.argv.index("--preset") + 1] if "--preset" in sys.argv else "llama-2-7b"
    plan = Plan.model_validate({"model": find_model(preset).to_model_spec().model_dump(), "seq_len": 4096,
                                "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 8, "gpus_per_node": 8}})
    print(f"{preset} ({plan.params:,} params), seq 4096 x 1, Nd = {plan.dp}, stages {stages}, fake tensors on cpu; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; load average {os.getloadavg()[0]:.2f}")
    kinds = {"simulate": False, "simulate --by-module": True}
    times: dict[str, list[tuple[float, float, int]]] = {k: [] for k in kinds}
    results: dict[str, dict[int, Result]] = {}
    for i in range(rounds):
        for kind, by_module in (kinds.items() if i % 2 == 0 else reversed(kinds.items())):
            wall, cpu, rss, results[kind] = run(simulate_command(plan, stages, by_module=by_module))
            times[kind].append((wall, cpu, rss))
            print(f"  round {i + 1}: {kind:22} {wall:6.1f} s wall, {cpu:6.1f} s CPU, {rss / GIB:5.2f} GiB resident",
                  flush=True)
    base_wall, base_cpu, base_rss = (statistics.median(t[j] for t in times["simulate"]) for j in (0, 1, 2))
    for kind in kinds:
        wall, cpu, rss = (statistics.median(t[j] for t in times[kind]) for j in (0, 1, 2))
        print(f"  {kind:22} {wall:6.1f} s wall ({100 * (wall / base_wall - 1):+.1f}%), "
              f"{cpu:6.1f} s CPU ({100 * (cpu / base_cpu - 1):+.1f}%), {rss / GIB:5.2f} GiB resident "
              f"({100 * (rss / base_rss - 1):+.1f}%)  (median of {rounds})")
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
