"""Simulating Llama 2 7B (seq 4096, micro-batch 1) at Nd = 64, stages 2 and 3: time, peak RSS, peaks. Prints figures.

One simulation process per stage, so each stage's peak RSS is its own (os.wait4 reports the child's).
Next to the simulated peak: the states at rest simulated / computed by the torch profile for rank 0,
the paper's §5 model states, and the core's activation estimate.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.accounting import compute  # noqa: E402
from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.core.residuals import activation_estimate  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30
PLAN = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
                            "micro_batch": 1, "cluster": {"nodes": 8, "gpus_per_node": 8, "dp": 64}})


def simulate(stage: int) -> tuple[float, int, Result]:
    """(wall s, peak RSS bytes, result) of one simulation process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(simulate_command(PLAN, [stage]), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=measure_env())
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    messages = [decode(line) for line in out.splitlines() if line.strip()]
    errors = [m for m in messages if isinstance(m, Error)]
    if errors or proc.returncode:
        raise SystemExit(f"stage {stage}: {errors[0].message if errors else f'exit status {proc.returncode}'}")
    (result,) = [m for m in messages if isinstance(m, Result)]
    return wall, usage.ru_maxrss * 1024, result  # ru_maxrss is in KiB on Linux


def main() -> int:
    paper = compute(PLAN.model_copy(update={"profile": "paper"}))
    act = activation_estimate(PLAN)
    print(f"python {sys.version.split()[0]}; llama-2-7b ({PLAN.params:,} params), seq {PLAN.seq_len} x batch "
          f"{PLAN.micro_batch}, Nd = {PLAN.dp}, rank 0, fake tensors on cpu; GiB = 2^30 B")
    print(f"core activation estimate {act.total_bytes / GIB:.2f} GiB (all layers + logits)")
    for stage in (2, 3):
        wall, rss, r = simulate(stage)
        per_phase = ", ".join(f"{ph} {v['total'] / GIB:.2f}" for ph, v in r.phase_peaks.items())
        print(f"stage {stage}: {wall:5.1f} s, peak RSS {rss / 2**20:6.0f} MiB; "
              f"simulated peak {r.peak_bytes / GIB:6.2f} GiB ({per_phase}); "
              f"states simulated {r.states.total / GIB:.3f} / torch profile {r.predicted_states.total / GIB:.3f} GiB "
              f"(exact: {r.states == r.predicted_states}); paper {paper.stage(stage).total_bytes / GIB:.3f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
