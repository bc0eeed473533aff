"""Simulation cost, printed: Llama 2 7B at Nd = 64 stage 3 (tracked vs untracked), Llama 2 70B at Nd = 1024 side by side.

1. The same fake-tensor FSDP2 step three ways, each in its own process: the worker's step with no memory
   tracker at all (the floor), `zerodesk simulate` as it runs (warm-up untracked, measured step tracked), and
   with --tracked-warmup (warm-up tracked too, as real ranks run it). Prints wall and CPU seconds (CPU time
   is steadier on a shared machine), ratios to the floor, and whether the two simulations' figures are the
   same: peak, peak categories, phase peaks with their categories, resting states.
2. Llama 2 70B (seq 4096) at Nd = 1024, stage 3, through `zerodesk simulate --json`. With --baseline DIR (another
   checkout of ZeroDesk with its own .venv, e.g. a worktree of an older commit) both run in the same rounds,
   alternating, and it prints both sides' wall and CPU seconds, the speed-up, and whether the two Result objects
   are byte-identical once the timings are left out.
Usage: python benchmarks/bench_simulate.py [--skip-7b] [--skip-70b] [--rounds N] [--baseline DIR]
  (N interleaved rounds, medians printed)
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.core.peak import predict  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30
BIG = ["--preset", "llama-2-70b", "--seq", "4096", "--batch", "1", "--dp", "1024", "--profile", "torch",
       "--stage", "3", "--json"]


def plan_for(name: str, dp: int, seq: int = 4096) -> Plan:
    return Plan.model_validate({"model": find_model(name).to_model_spec().model_dump(), "seq_len": seq,
                                "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": dp}})


def untracked(plan_json: str, stage: int) -> None:
    """Child: the worker's FSDP2 step as measure_stage runs it (the same model and seed, recompute, engine, tokens
    and targets), warm-up and measured, under the simulation's fake world, no tracker."""
    import torch

    from zerodesk.measure.worker.engines import build_engine
    from zerodesk.measure.worker.model import blocks_of, build_model
    from zerodesk.measure.worker.recompute import apply_recompute
    from zerodesk.measure.worker.simulate import fake_world
    from zerodesk.measure.worker.step import batch, train_step

    plan = Plan.model_validate_json(plan_json)
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    device = torch.device("cpu")
    with fake_world(plan.dp) as mesh:
        model = build_model(plan.model, device, seed=0)
        blocks = blocks_of(model)
        apply_recompute(blocks, plan.recompute)
        engine = build_engine(stage, plan, model, blocks, device, mesh)
        tokens, targets = batch(plan, 0, device)
        for _ in range(2):  # warm-up + measured, as the simulation runs them
            train_step(engine, tokens, targets, lambda *_: None, lambda _phase: None)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, str]:
    """Run one child to the end: its wall seconds, its CPU seconds (user + system of it and the processes it waited
    for: steadier than wall on a shared machine) and its stdout."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=measure_env(), text=True, cwd=cwd)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed with exit status {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, cpu, proc.stdout


def last_result(stdout: str) -> Result:
    messages = [decode(line) for line in stdout.splitlines() if line.strip()]
    errors = [m for m in messages if isinstance(m, Error)]
    if errors:
        raise SystemExit(f"the simulation failed: {errors[0].message}")
    return [m for m in messages if isinstance(m, Result)][-1]


def without_timings(value):
    """A Result (or the CLI's JSON) with every timing left out: keys ending in _s, and wall/date fields."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if not (k.endswith("_s") or k in ("wall", "date", "elapsed"))}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def seven_b(rounds: int) -> None:
    plan = plan_for("llama-2-7b", 64)
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
            wall, cpu, out = timed(argv())
            times[name].append((wall, cpu))
            if name != "floor":
                results[name] = last_result(out)
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


def seventy_b(rounds: int, baseline: Path | None) -> None:
    big = plan_for("llama-2-70b", 1024)
    sides = {"this tree": ROOT} | ({f"baseline {baseline}": baseline} if baseline else {})
    print(f"Llama 2 70B ({big.params:,} params), seq 4096 x 1, Nd = 1024, stage 3: `zerodesk simulate "
          f"{' '.join(BIG)}`, {rounds} round(s), sides alternating; load average {os.getloadavg()[0]:.2f}")
    times: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    outputs: dict[str, dict] = {}
    for i in range(rounds):
        for side, tree in (list(sides.items()) if i % 2 == 0 else list(sides.items())[::-1]):
            python = tree / ".venv" / "bin" / "python" if tree != ROOT else Path(sys.executable)
            wall, cpu, out = timed([str(python), "-m", "zerodesk", "simulate", *BIG], cwd=tree)
            times[side].append((wall, cpu))
            outputs[side] = json.loads(out)
            print(f"    round {i + 1} {side}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    medians = {side: tuple(statistics.median(t[k] for t in times[side]) for k in (0, 1)) for side in sides}
    for side, (wall, cpu) in medians.items():
        print(f"  {side:40} {wall:6.1f} s wall, {cpu:6.1f} s CPU" + (f"  (median of {rounds})" if rounds > 1 else ""))
    result = outputs["this tree"]["results"][-1]
    print(f"  peak {result['peak_bytes'] / GIB:.3f} GiB, predicted {predict(big)[3].total_bytes / GIB:.3f} GiB; "
          f"load average now {os.getloadavg()[0]:.2f}")
    if baseline:
        (wall, cpu), (wall_b, cpu_b) = medians["this tree"], medians[f"baseline {baseline}"]
        same = json.dumps(without_timings(outputs["this tree"]), sort_keys=True) == \
            json.dumps(without_timings(outputs[f"baseline {baseline}"]), sort_keys=True)
        print(f"  speed-up over the baseline: {wall_b / wall:.2f}x wall, {cpu_b / cpu:.2f}x CPU; the whole --json "
              f"output without timings byte-identical: {same}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds (medians printed)")
    parser.add_argument("--baseline", type=Path, help="another ZeroDesk checkout with its own .venv, run side by side")
    parser.add_argument("--skip-7b", action="store_true")
    parser.add_argument("--skip-70b", action="store_true")
    args = parser.parse_args()
    if not args.skip_7b:
        seven_b(args.rounds)
    if not args.skip_70b:
        seventy_b(args.rounds, args.baseline.resolve() if args.baseline else None)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if len(sys.argv) > 1 and sys.argv[1] == "--untracked":
        untracked(sys.argv[2], int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
