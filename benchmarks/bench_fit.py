"""What fits, timed (issue 23's bars: the in-process solve under 20 ms for a 70B model, `zerodesk fit` as a whole
process under 1.5 s). Prints figures; asserts nothing.

In-process: zerodesk.core.fit.solve on Llama 2 70B (seq 4096, H100 80 GB, 1 GiB allowance), cold: with every memo
the core keeps between answers (the torch profile's ZeRO-1 partition and per-shape sums, the architecture's tensor
list and count, the step template's moments placed in the plan's step) cleared before each run, as a fresh
process's first solve; warm: those memos kept, as the window's next answer for an edited plan (the fit's own memo of
stage peaks is not reused in either). Wall and CPU time (CPU time is steadier on a shared machine). Whole process: `python -m zerodesk fit ...` as a user runs it.
Usage: python benchmarks/bench_fit.py [--repeats N]
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core import architecture_tensors, peak_totals, peak_traced, tensor_census, torch_profile  # noqa: E402
from zerodesk.core.catalog import find_gpu, find_model  # noqa: E402
from zerodesk.core.fit import solve  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402

SOLVES = {  # label -> plan fields on top of Llama 2 70B at seq 4096 on an H100
    "paper profile (the preset's default), Nd searched 1-65,536": {},
    "torch profile, Nd searched 1-65,536": {"profile": "torch"},
    "paper profile, 8 x 8 GPUs (Nd divides 64)": {"cluster": {"nodes": 8, "gpus_per_node": 8}},
    "torch profile, 8 x 8 GPUs (Nd divides 64)": {"profile": "torch", "cluster": {"nodes": 8, "gpus_per_node": 8}},
}
COMMANDS = {
    "Llama 2 70B, H100, table": ["fit", "--preset", "llama-2-70b", "--gpu", "h100-80gb", "--cuda-allowance", "1GiB"],
    "Llama 2 70B, torch profile, 8 x 8, --json": ["fit", "--preset", "llama-2-70b", "--gpu", "h100-80gb", "--profile",
                                                   "torch", "--nodes", "8", "--gpus-per-node", "8", "--json"],
    "Mixtral 8x7B, H200, Nd 8": ["fit", "--preset", "mixtral-8x7b", "--gpu", "h200-141gb", "--dp", "8"],
    "card example (raw P)": ["fit", "--params", "2e9", "--dp", "4", "--gpu-memory", "40GB"],
}


def cold() -> None:
    """Forget what earlier answers memoised: the next solve starts as a fresh process's first would."""
    for memo in (torch_profile._zero_partition, getattr(torch_profile, "_zero_owned", None),
                 getattr(tensor_census, "_architecture_census", None),
                 getattr(architecture_tensors, "_tensor_shapes", None), getattr(architecture_tensors, "_param_count", None),
                 getattr(peak_traced, "placed_form", None), getattr(peak_traced, "_placed_unscaled", None)):
        if memo is not None:
            memo.cache_clear()
    getattr(peak_traced, "_TERMS", {}).clear()  # the engine's terms by place (core.peak_traced)
    getattr(peak_totals, "_TEMPLATES", {}).clear()  # the step template by architecture (core.peak_totals)


def plan_for(extra: dict) -> Plan:
    cluster = {"gpu": "h100-80gb", "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes, **extra.get("cluster", {})}
    return Plan.model_validate({"model": find_model("llama-2-70b").to_model_spec().model_dump(), "seq_len": 4096,
                                "cuda_allowance_bytes": 2**30, **{k: v for k, v in extra.items() if k != "cluster"},
                                "cluster": cluster})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; in-process solve, {args.repeats} runs each, cold and warm (median, min)")
    for label, extra in SOLVES.items():
        plan = plan_for(extra)
        for mode in ("cold", "warm"):
            wall, cpu = [], []
            for _ in range(args.repeats):
                if mode == "cold":
                    cold()
                t0, c0 = time.perf_counter(), time.process_time()
                answer = solve(plan)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(f"  {label:58} {mode} wall {statistics.median(wall) * 1e3:5.1f} ms (min {min(wall) * 1e3:5.1f})   "
                  f"CPU {statistics.median(cpu) * 1e3:5.1f} ms (min {min(cpu) * 1e3:5.1f}); "
                  f"{answer.evaluations} stage peaks evaluated; {answer.batch_modelled} of 12 batches solved from two "
                  "points at once")
    repeats = max(3, args.repeats // 2)
    print(f"whole process `python -m zerodesk ...`, {repeats} runs each (median, min)")
    for label, argv in COMMANDS.items():
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "zerodesk", *argv], capture_output=True)
            times.append(time.perf_counter() - t0)
            if proc.returncode:
                print(f"  {label}: failed: {proc.stderr.decode().strip()}")
                break
        else:
            print(f"  {label:58} median {statistics.median(times) * 1e3:6.0f} ms   min {min(times) * 1e3:6.0f} ms")


if __name__ == "__main__":
    main()
