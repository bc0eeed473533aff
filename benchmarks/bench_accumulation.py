"""Gradient accumulation, in figures (issue 23 item 4). Prints; asserts nothing.

1. Peak: a small model (4 blocks, hidden 512, 21.8M parameters; seq 256, micro-batch 2, Nd = 8, torch profile),
   stages 0-3, at k = 1, 2 and 4 micro-batches a step, gradients reduced on every micro-batch and on the last only:
   the predicted full-step peak (zerodesk.core.peak with core.accumulation) against `zerodesk simulate`'s (one
   subprocess per k and mode, all four stages in it, NCCL's collective copies), and the communication per rank per
   step (core.comm_links: what repeats with each micro-batch).
2. The global-batch solve (core.fit.global_batch_fit) for Llama 2 70B (seq 4096, H100 80 GB, 1 GiB allowance,
   torch profile, 8 x 8 GPUs): cold (fresh memos, the core's caches cleared), warm (the window's case: the memos
   kept, another global batch), and `zerodesk fit --global-batch` as a whole process.
Usage: python benchmarks/bench_accumulation.py [--skip-sim] [--repeats N]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core import architecture_tensors, tensor_census, torch_profile  # noqa: E402
from zerodesk.core.accounting import STAGES, comm_by_link  # noqa: E402
from zerodesk.core.catalog import find_gpu, find_model  # noqa: E402
from zerodesk.core.fit import global_batch_fit  # noqa: E402
from zerodesk.core.peak import predict  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402

SMALL = ["--layers", "4", "--hidden", "512", "--heads", "8", "--ffn", "1536", "--vocab", "8000", "--seq", "256",
         "--batch", "2", "--dp", "8", "--profile", "torch"]
RUNS = [(1, "every"), (2, "every"), (2, "last"), (4, "every"), (4, "last")]  # k = 1 is the same in either mode
MB = 1e6


def small_plan(k: int, sync: str) -> Plan:
    arch = {"layers": 4, "hidden": 512, "heads": 8, "ffn": 1536, "vocab": 8000}
    return Plan.model_validate({"model": {"architecture": arch}, "seq_len": 256, "micro_batch": 2, "profile": "torch",
                                "cluster": {"dp": 8}, "accum_steps": k, "accum_sync": sync})


def simulated(k: int, sync: str) -> tuple[dict[int, int], float]:
    """Each stage's simulated peak (bytes) and the simulation's wall seconds."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "zerodesk", "simulate", *SMALL, "--accum-steps", str(k),
                           "--accum-sync", sync, "--json"], capture_output=True, text=True, timeout=1200)
    if proc.returncode:
        raise SystemExit(f"simulate k={k} {sync} failed: {proc.stderr.strip()[-400:]}")
    results = json.loads(proc.stdout)["results"]
    return {r["stage"]: r["peak_bytes"] for r in results}, time.perf_counter() - t0


def peaks(skip_sim: bool) -> None:
    one = small_plan(1, "every")
    print(f"1. Peak per rank, {one.params / 1e6:.1f}M parameters, seq {one.seq_len}, micro-batch {one.micro_batch}, "
          f"Nd = {one.dp}, torch profile (MB = 1e6 B); communication per rank per step (MB)")
    head = f"  {'k':>2} {'reduced':7} {'stage':>5} {'predicted':>11} {'simulated':>11} {'sim - pred':>11} {'comm/step':>11}"
    print(head + "\n  " + "-" * (len(head) - 2))
    worst, worst_bytes = 0.0, 0
    for k, sync in RUNS:
        plan = small_plan(k, sync)
        predicted = {p.stage: p.total_bytes - plan.cuda_allowance_bytes for p in predict(plan)}
        comm = {c.stage: c.total_bytes for c in comm_by_link(plan)}
        sim, seconds = ({}, 0.0) if skip_sim else simulated(k, sync)
        for s in STAGES:
            got = sim.get(s)
            diff = "" if got is None else f"{(got - predicted[s]) / predicted[s] * 100:+10.3f}%"
            if got is not None:
                worst = max(worst, abs(got - predicted[s]) / predicted[s])
                worst_bytes = max(worst_bytes, abs(got - predicted[s]))
            print(f"  {k:>2} {sync:7} {s:>5} {predicted[s] / MB:11.2f} "
                  f"{'-' if got is None else f'{got / MB:.2f}':>11} {diff:>11} {comm[s] / MB:11.2f}")
        if not skip_sim:
            print(f"  ({seconds:.1f} s to simulate the four stages)")
    if not skip_sim:
        print(f"  largest |simulated - predicted|: {worst_bytes:,} B ({worst * 100:.5f}% of the prediction)")


def cold() -> None:
    """Forget the core's memos of tensor lists and partitions, as a fresh process starts."""
    for memo in (torch_profile._zero_partition, getattr(torch_profile, "_zero_owned", None),
                 getattr(tensor_census, "_architecture_census", None),
                 getattr(architecture_tensors, "_tensor_shapes", None), getattr(architecture_tensors, "_param_count", None)):
        if memo is not None:
            memo.cache_clear()


def big_plan() -> Plan:
    gpu = find_gpu("h100-80gb")
    return Plan.model_validate({"model": find_model("llama-2-70b").to_model_spec().model_dump(), "seq_len": 4096,
                                "cuda_allowance_bytes": 2**30, "profile": "torch",
                                "cluster": {"gpu": "h100-80gb", "gpu_memory_bytes": gpu.memory_bytes, "nodes": 8,
                                            "gpus_per_node": 8}})


def global_batch(repeats: int) -> None:
    plan = big_plan()
    wanted = [1024, 2048, 4096]  # sequences per step over 64 ranks: 16, 32, 64 each
    print(f"\n2. Global-batch solve, Llama 2 70B, seq 4096, H100 80 GB, torch profile, Nd = {plan.dp} "
          f"({repeats} runs each: median, min)")
    for g in wanted:
        cold_wall, warm_wall = [], []
        for _ in range(repeats):
            cold()
            t0 = time.perf_counter()
            answer = global_batch_fit(plan, g)
            cold_wall.append(time.perf_counter() - t0)
        memos: dict = {}
        global_batch_fit(plan, wanted[0] if g != wanted[0] else wanted[-1], memos)  # the window's memos, warm
        for _ in range(repeats):
            t0 = time.perf_counter()
            global_batch_fit(plan, g, memos)
            warm_wall.append(time.perf_counter() - t0)
        best = answer.recommended
        said = "nothing reaches it" if best is None else (
            f"stage {best.stage} {best.recompute}, {best.accum_steps} x micro-batch {best.micro_batch}, "
            f"{best.comm_bytes / 1e9:,.1f} GB/step")
        print(f"  G = {g:5}: cold {statistics.median(cold_wall) * 1e3:6.1f} ms (min {min(cold_wall) * 1e3:6.1f})  "
              f"warm {statistics.median(warm_wall) * 1e3:6.2f} ms (min {min(warm_wall) * 1e3:6.2f});  {said}")
    argv = [sys.executable, "-m", "zerodesk", "fit", "--preset", "llama-2-70b", "--gpu", "h100-80gb", "--profile",
            "torch", "--nodes", "8", "--gpus-per-node", "8", "--cuda-allowance", "1GiB", "--global-batch", "2048",
            "--json"]
    times = []
    for _ in range(max(3, repeats // 3)):
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode:
            print(f"  zerodesk fit --global-batch failed: {proc.stderr.strip()}")
            return
    print(f"  whole process `zerodesk fit ... --global-batch 2048 --json`: median {statistics.median(times) * 1e3:.0f} ms"
          f", min {min(times) * 1e3:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-sim", action="store_true", help="predictions and communication only")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    peaks(args.skip_sim)
    global_batch(args.repeats)


if __name__ == "__main__":
    main()
