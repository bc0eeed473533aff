"""End-to-end time of a measured step: tiny model, 2 CPU ranks, stages 0-3 (target: under 20 s). Prints figures."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure.protocol import Done, Error, Result, Started  # noqa: E402
from zerodesk.measure.runner import run_measure  # noqa: E402

PLAN = Plan.model_validate({"model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
                            "seq_len": 32, "micro_batch": 1})


def main(repeats: int = 3) -> int:
    print(f"python {sys.version.split()[0]}; tiny decoder ({PLAN.params:,} params), 2 gloo ranks, stages 0-3, {repeats} runs")
    for i in range(repeats):
        t0 = time.perf_counter()
        first_started = first_result = None
        steps, worker_wall, exact = {}, None, True
        for msg in run_measure(PLAN, (0, 1, 2, 3), 2, "cpu", timeout=120):
            now = time.perf_counter() - t0
            if isinstance(msg, Started):
                first_started = now
            elif isinstance(msg, Result):
                first_result = first_result or now
                steps[msg.stage] = max(steps.get(msg.stage, 0.0), msg.step_s or 0.0)
                exact &= msg.states == msg.predicted_states
            elif isinstance(msg, Done):
                worker_wall = msg.wall_s
            elif isinstance(msg, Error):
                print(f"run {i + 1}: failed: {msg.message}")
                return 1
        total = time.perf_counter() - t0
        print(f"run {i + 1}: total {total:5.2f} s  (ranks up {first_started:4.2f} s, first result {first_result:4.2f} s, "
              f"stages in worker {worker_wall:4.2f} s; measured step per stage "
              + ", ".join(f"{s}: {t * 1e3:.0f} ms" for s, t in sorted(steps.items()))
              + f"; states predicted == measured: {exact})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
