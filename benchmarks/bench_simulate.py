"""Simulation cost, printed: Llama 2 7B at Nd = 64 stage 3, tracked vs untracked side by side; Llama 2 70B at Nd = 1024.

1. The same fake-tensor FSDP2 step three ways, each in its own process: the worker's step with no memory
   tracker at all (the floor), `zerodesk simulate` as it runs (warm-up untracked, measured step tracked), and
   with --tracked-warmup (warm-up tracked too, as real ranks run it). Prints wall and CPU seconds (CPU time
   is steadier on a shared machine), ratios to the floor, and whether the two simulations' figures are the
   same: peak, peak categories, phase peaks with their categories, resting states.
2. Llama 2 70B (seq 4096) at Nd = 1024, stage 3, with the simulation's progress streamed as it runs.
Usage: python benchmarks/bench_simulate.py [--skip-70b] [--rounds N]  (N interleaved rounds, medians printed)
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.core.peak import predict  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure.protocol import Error, PhaseMsg, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30


def plan_for(name: str, dp: int, seq: int = 4096) -> Plan:
    return Plan.model_validate({"model": find_model(name).to_model_spec().model_dump(), "seq_len": seq,
                                "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": dp}})


def untracked(plan_json: str, stage: int) -> None:
    """Child: the worker's FSDP2 step as measure_stage runs it (the same model and seed, recompute, wrapping and
    offload policy, AdamW kernels, tokens and targets), warm-up and measured, under the fake group, no tracker."""
    import torch

    from zerodesk.measure.worker.engines import build_engine
    from zerodesk.measure.worker.model import blocks_of, build_model
    from zerodesk.measure.worker.recompute import apply_recompute
    from zerodesk.measure.worker.simulate import fake_world
    from zerodesk.measure.worker.step import batch, train_step

    plan = Plan.model_validate_json(plan_json)
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    cpu = torch.device("cpu")
    with fake_world(plan.dp) as mesh:
        model = build_model(plan.model, cpu, seed=0)
        blocks = blocks_of(model)
        apply_recompute(blocks, plan.recompute)
        engine = build_engine(stage, plan, model, blocks, cpu, mesh)
        tokens, targets = batch(plan, 0, cpu)
        for _ in range(2):  # warm-up + measured, as the simulation runs them
            train_step(engine, tokens, targets, lambda _phase, _progress: None, lambda _phase: None)


def timed(argv: list[str], progress: bool = False) -> tuple[float, float, Result | None]:
    """Run one child: its wall seconds, its CPU seconds (user + system, steadier than wall on a shared machine)
    and its last Result."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=measure_env(), text=True)
    result = None
    for line in proc.stdout:
        if not line.strip() or not line.startswith("{"):
            continue
        msg = decode(line)
        if isinstance(msg, Error):
            raise SystemExit(msg.message)
        if isinstance(msg, Result):
            result = msg
        if progress and isinstance(msg, PhaseMsg):
            print(f"  {time.perf_counter() - t0:6.1f} s  stage {msg.stage} {msg.phase:9} {100 * msg.progress:5.1f}%",
                  flush=True)
    if proc.wait():
        raise SystemExit(f"{argv[2]} failed with exit status {proc.returncode}")
    return time.perf_counter() - t0, _children_cpu() - cpu0, result


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    plan = plan_for("llama-2-7b", 64)
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 1
    print(f"Llama 2 7B ({plan.params:,} params), seq 4096 x 1, Nd = 64, stage 3, fake tensors on cpu; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; load average {os.getloadavg()[0]:.2f}")
    runs = {"floor": lambda: [sys.executable, __file__, "--untracked", plan.model_dump_json(exclude_none=True), "3"],
            "simulate": lambda: simulate_command(plan, [3]),  # a fresh plan file each time: the child deletes it
            "tracked": lambda: simulate_command(plan, [3]) + ["--tracked-warmup"]}
    labels = {"floor": "no tracker (floor)", "simulate": "simulate", "tracked": "simulate --tracked-warmup"}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    results: dict[str, Result] = {}
    for _ in range(rounds):  # interleaved, so a change in the machine's load falls on all three alike
        for name, argv in runs.items():
            wall, cpu, results[name] = timed(argv())
            times[name].append((wall, cpu))
    wall0, cpu0 = (statistics.median(t[i] for t in times["floor"]) for i in (0, 1))
    for name in runs:
        wall, cpu = (statistics.median(t[i] for t in times[name]) for i in (0, 1))
        print(f"  {labels[name]:28} {wall:6.1f} s wall = {wall / wall0:.2f}x, {cpu:6.1f} s CPU = {cpu / cpu0:.2f}x"
              + (f"  (median of {rounds})" if rounds > 1 else ""))
    r_fast, r_slow = results["simulate"], results["tracked"]
    same = {"peak": (r_fast.peak_bytes, r_fast.peak) == (r_slow.peak_bytes, r_slow.peak),
            "phase totals": ({ph: v["total"] for ph, v in r_fast.phase_peaks.items()}
                             == {ph: v["total"] for ph, v in r_slow.phase_peaks.items()}),
            "phase categories": r_fast.phase_peaks == r_slow.phase_peaks, "states": r_fast.states == r_slow.states}
    print("  simulate vs --tracked-warmup, the same " + "; ".join(f"{k}: {v}" for k, v in same.items())
          + f"; load average now {os.getloadavg()[0]:.2f}")
    print(f"  peak {r_slow.peak_bytes / GIB:.3f} GiB, predicted {predict(plan)[3].total_bytes / GIB:.3f} GiB")
    if "--skip-70b" not in sys.argv:
        big = plan_for("llama-2-70b", 1024)
        print(f"Llama 2 70B ({big.params:,} params), seq 4096 x 1, Nd = 1024, stage 3 (progress streamed):")
        wall, _, r = timed(simulate_command(big, [3]), progress=True)
        print(f"  simulated in {wall:.1f} s; peak {r.peak_bytes / GIB:.3f} GiB, predicted "
              f"{predict(big)[3].total_bytes / GIB:.3f} GiB")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if len(sys.argv) > 1 and sys.argv[1] == "--untracked":
        untracked(sys.argv[2], int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
