"""`zerodesk fit`'s largest micro-batch confirmed by `simulate` (issue 23's bar). Prints a table; asserts nothing.

For each configuration (torch profile, the engines the simulator runs): the solver's largest micro-batch b at the
plan's Nd and sequence length, then two fake-tensor simulations of rank 0 (subprocesses, as `zerodesk simulate`
runs them): at b and at b + 1. Confirmed when b fits within 3% of the usable memory (simulated peak <= 1.03 x
usable) and b + 1 does not, within the same 3% (simulated peak > 0.97 x usable); "strict" counts those where b fits
and b + 1 does not with no tolerance. Peaks have no CUDA allowance; usable = the GPU's memory.
Simulating is slow on a small machine (a 70B model takes minutes): --quick runs three small configurations.
Usage: python benchmarks/fit_verify.py [--quick] [--only NAME] [--python PATH] [--timeout S]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.catalog import find_gpu, find_model  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure import fit_verify  # noqa: E402
from zerodesk.measure.interpreter import resolve_python  # noqa: E402
from zerodesk.measure.job_server import JobServer  # noqa: E402

GIB = 2**30
TOLERANCE = 0.03
# (model preset, stage, recompute, Nd, seq, GPU preset); spans 1B-70B, stages 0-3, every recompute mode, one MoE
CONFIGS = [
    ("pythia-1b", 0, "none", 8, 2048, "rtx-4090"),
    ("gemma-2b", 1, "selective", 4, 2048, "a100-80gb"),
    ("llama-2-7b", 2, "none", 8, 4096, "h100-80gb"),
    ("qwen2.5-7b", 1, "full", 8, 4096, "h200-141gb"),
    ("llama-2-13b", 3, "full", 16, 4096, "a100-40gb"),
    ("gpt-neox-20b", 2, "full", 16, 2048, "h100-80gb"),
    ("mixtral-8x7b", 3, "selective", 8, 4096, "h200-141gb"),
    ("llama-2-70b", 3, "full", 64, 4096, "h100-80gb"),
]
QUICK = ("pythia-1b", "gemma-2b", "llama-2-7b")


def plan_for(name: str, recompute: str, dp: int, seq: int, gpu: str) -> Plan:
    return Plan.model_validate({"model": find_model(name).to_model_spec().model_dump(), "seq_len": seq,
                                "profile": "torch", "recompute": recompute,
                                "cluster": {"nodes": 1, "gpus_per_node": dp, "gpu": gpu,
                                            "gpu_memory_bytes": find_gpu(gpu).memory_bytes}})


def gib(nbytes: int | None) -> str:
    return "-" if nbytes is None else f"{nbytes / GIB:,.2f}"


def pct(nbytes: int | None, usable: int) -> str:
    return "-" if nbytes is None else f"{100 * nbytes / usable:.1f}%"


def diff(predicted: int | None, simulated: int | None) -> str:
    return f"{100 * (predicted / simulated - 1):+.2f}%" if predicted and simulated else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three small configurations only")
    parser.add_argument("--only", metavar="NAME", help="one model preset of the list")
    parser.add_argument("--python", default=None, help="the Python with torch that simulates (default: found)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per simulation")
    args = parser.parse_args()
    configs = [c for c in CONFIGS if (not args.quick or c[0] in QUICK) and (args.only in (None, c[0]))]
    head = ["model", "stage", "recompute", "Nd", "seq", "GPU", "usable GiB", "b", "pred b GiB", "sim b GiB",
            "sim b", "sim b+1", "pred/sim b", "pred/sim b+1", "confirmed", "strict", "sim s"]
    rows, confirmed, strict = [head], 0, 0
    print(f"{len(configs)} configurations; torch profile; tolerance {TOLERANCE:.0%}; GiB = 2^30 B; 'sim b' and "
          "'sim b+1' are simulated peaks as a share of the usable memory", flush=True)
    python, _problem = resolve_python(args.python)  # a problem is each check's to report
    server = JobServer(python)  # every simulation forked from one warm worker: torch imported once
    for name, stage, recompute, dp, seq, gpu in configs:
        plan = plan_for(name, recompute, dp, seq, gpu)
        t0 = time.perf_counter()
        b = fit_verify.boundary(plan, stage, recompute)
        c = fit_verify.check(plan, b, python=args.python, timeout=args.timeout, tolerance=TOLERANCE, server=server)
        seconds = time.perf_counter() - t0
        ok = c.agrees and b.micro_batch > 0
        exact = ok and c.simulated_bytes <= b.usable_bytes and (
            c.simulated_above_bytes is None or c.simulated_above_bytes > b.usable_bytes)
        confirmed, strict = confirmed + ok, strict + exact
        row = [name, str(stage), recompute, str(dp), str(seq), gpu, gib(b.usable_bytes), str(b.micro_batch),
               gib(b.predicted_bytes), gib(c.simulated_bytes), pct(c.simulated_bytes, b.usable_bytes),
               pct(c.simulated_above_bytes, b.usable_bytes), diff(b.predicted_bytes, c.simulated_bytes),
               diff(b.predicted_above_bytes, c.simulated_above_bytes),
               "yes" if ok else ("error: " + c.error if c.error else "no"), "yes" if exact else "no", f"{seconds:.0f}"]
        rows.append(row)
        print("  " + " | ".join(row), flush=True)
    server.close()
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    print()
    for r in rows:
        print("  ".join(cell.rjust(w) if i >= 3 else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths))))
    print(f"\nconfirmed: {confirmed} of {len(configs)} (b fits and b+1 does not, within {TOLERANCE:.0%} of the usable "
          f"memory); strict: {strict} of {len(configs)} (no tolerance)")


if __name__ == "__main__":
    main()
