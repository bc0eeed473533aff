"""Predicted (core, closed form) vs simulated (fake tensors) full-step peak, per configuration. Prints figures.

Each configuration is one stage of one model, simulated by `python -m zerodesk.measure.worker.simulate`
(backend nccl: what a GPU rank would track) and predicted by zerodesk.core.peak under the torch
profile. Prints each error, then the worst; the target is every configuration within ±3%.
Usage: python benchmarks/accuracy.py [--quick] [--from N] [--only I,J,...] [--tracked-warmup]
  --quick: only the configurations under 2B parameters; --from N: start at the N-th (0-based);
  --only I,J: only these configurations (0-based);
  --tracked-warmup: FSDP2 stages track the warm-up too, as real ranks do (the same figures, slower).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.accounting import compute  # noqa: E402
from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.core.peak import predict  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30
# (model preset, Nd, stage, seq, micro-batch, recompute)
CONFIGS = [
    ("gpt2", 1, 0, 1024, 4, "none"),
    ("gpt2", 8, 1, 512, 8, "none"),
    ("gpt2", 4, 2, 1024, 2, "selective"),
    ("gpt2", 16, 3, 1024, 1, "full"),
    ("gpt2-medium", 2, 0, 512, 2, "full"),
    ("pythia-410m", 128, 3, 2048, 2, "none"),
    ("pythia-1b", 8, 2, 2048, 1, "none"),
    ("gpt2-large", 32, 3, 1024, 4, "selective"),
    ("gpt2-xl", 8, 1, 1024, 1, "full"),
    ("llama-2-7b", 4, 0, 512, 2, "none"),
    ("llama-2-7b", 16, 1, 2048, 1, "selective"),
    ("llama-2-7b", 8, 2, 4096, 1, "none"),
    ("llama-2-7b", 64, 3, 8192, 1, "full"),
    ("mistral-7b-v0.1", 64, 3, 4096, 1, "none"),
    ("llama-2-13b", 256, 3, 4096, 1, "selective"),
    ("llama-2-70b", 64, 2, 512, 1, "none"),
    ("llama-2-70b", 1024, 3, 4096, 1, "full"),
]


def plan_for(name: str, dp: int, seq: int, batch: int, recompute: str) -> Plan:
    return Plan.model_validate({"model": find_model(name).to_model_spec().model_dump(), "seq_len": seq,
                                "micro_batch": batch, "profile": "torch", "recompute": recompute,
                                "cluster": {"nodes": 1, "gpus_per_node": dp, "dp": dp}})


def simulate(plan: Plan, stage: int, tracked: bool = False) -> tuple[Result, float]:
    t0 = time.perf_counter()
    argv = simulate_command(plan, [stage]) + (["--tracked-warmup"] if tracked else [])
    proc = subprocess.run(argv, capture_output=True, text=True, env=measure_env())
    messages = [decode(line) for line in proc.stdout.splitlines() if line.strip()]
    errors = [m for m in messages if isinstance(m, Error)]
    if errors or proc.returncode:
        raise RuntimeError(errors[0].message if errors else proc.stderr[-500:])
    (result,) = [m for m in messages if isinstance(m, Result)]
    return result, time.perf_counter() - t0


def prediction_cost() -> str:
    """Median wall time predict() adds to a plan whose states are computed, 7B at Nd = 8 and 70B at Nd = 1024."""
    out = []
    for name, dp in (("llama-2-7b", 8), ("llama-2-70b", 1024)):
        plan = plan_for(name, dp, 4096, 1, "none")
        states = compute(plan)
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            predict(plan, states)
            times.append(time.perf_counter() - t0)
        out.append(f"{name} Nd={dp}: {1e3 * sorted(times)[len(times) // 2]:.3f} ms")
    return "predict() added to a computed plan, all four stages, median of 200: " + "; ".join(out)


def main() -> int:
    quick, tracked = "--quick" in sys.argv, "--tracked-warmup" in sys.argv
    start = int(sys.argv[sys.argv.index("--from") + 1]) if "--from" in sys.argv else 0
    only = ({int(i) for i in sys.argv[sys.argv.index("--only") + 1].split(",")} if "--only" in sys.argv
            else set(range(len(CONFIGS))))
    print(prediction_cost())
    print("model            P        Nd  st  seq   b  recompute  predicted GiB (phase)   simulated GiB (phase)  error    sim s")
    worst = 0.0
    for i, (name, dp, stage, seq, batch, rc) in enumerate(CONFIGS):
        plan = plan_for(name, dp, seq, batch, rc)
        if i < start or i not in only or (quick and plan.params > 2e9):
            continue
        pred = predict(plan)[stage]
        sim, wall = simulate(plan, stage, tracked)
        sim_phase = max(sim.phase_peaks, key=lambda ph: sim.phase_peaks[ph]["total"])
        err = pred.total_bytes / sim.peak_bytes - 1
        worst = max(worst, abs(err))
        print(f"{name:16} {plan.params / 1e9:6.2f}B {dp:5} {stage:3} {seq:5} {batch:2}  {rc:9}  "
              f"{pred.total_bytes / GIB:9.3f} ({pred.phase:9})  {sim.peak_bytes / GIB:9.3f} ({sim_phase:9})  "
              f"{100 * err:+6.2f}%  {wall:6.1f}", flush=True)
    print(f"worst |error|: {100 * worst:.2f}% (target 3%)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
