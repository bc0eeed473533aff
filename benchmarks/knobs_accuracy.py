"""Predicted (zerodesk.core.peak) vs simulated (fake tensors) full-step peak for each knob of issue 30. Prints figures.

One row per knob setting, model and stage: the mixed-precision policy (param_dtype, reduce_dtype, autocast), the
FSDP2 units (per N blocks, the root only) and backward prefetch, recomputation on every k-th block and a choice per
block, each at two models with untied heads (Pythia 410M: LayerNorm, parallel attention; Llama 2 7B: RMSNorm, gated
MLP) and two stages where it applies (the policy's FSDP2 dtypes, the units and recomputation at stages 2 and 3,
autocast at 0 and 1), at shapes where the default knobs predict the simulator exactly or nearly (the "default" rows),
so a row's error is its knob's. Each simulation is `python -m zerodesk.measure.worker.simulate` (backend nccl: what
a GPU rank would track). Prints each error, then the worst; the bar (issue 30) is every row within 3%.
Usage: python benchmarks/knobs_accuracy.py [--only KNOB,KNOB] [--models pythia-410m,llama-2-7b]
"""

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zerodesk.core.catalog import find_model  # noqa: E402
from zerodesk.core.peak import predict  # noqa: E402
from zerodesk.core.plan import Plan  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30
MODELS = {"pythia-410m": (8, 256, 1), "llama-2-7b": (64, 2048, 1)}  # preset: (Nd, seq, micro-batch); untied heads
# knob: (plan fields, stages)
KNOBS = {
    "default": ({}, (2, 3)),
    "reduce_dtype bf16": ({"reduce_dtype": "bf16"}, (2, 3)),
    "param_dtype fp16": ({"param_dtype": "fp16"}, (2, 3)),
    "param_dtype fp32": ({"param_dtype": "fp32"}, (2, 3)),
    "autocast off": ({"autocast": "off"}, (0, 1)),
    "wrap blocks N=2": ({"wrap": "blocks", "wrap_blocks": 2}, (2, 3)),
    "wrap blocks N=4": ({"wrap": "blocks", "wrap_blocks": 4}, (2, 3)),
    "wrap root": ({"wrap": "root"}, (2, 3)),
    "prefetch off": ({"prefetch": "off"}, (2, 3)),
    "recompute full every 2": ({"recompute": "full", "recompute_every": 2}, (2, 3)),
    "recompute per block": ({"recompute_blocks": ("full", "selective", "none", "full")}, (2, 3)),  # repeated
}


def plan_for(name: str, fields: dict) -> Plan:
    dp, seq, batch = MODELS[name]
    spec = find_model(name).to_model_spec()
    if "recompute_blocks" in fields:  # the pattern repeated over the model's blocks, in order
        pattern = fields["recompute_blocks"]
        fields = dict(fields, recompute_blocks=[pattern[i % len(pattern)] for i in range(spec.blocks)])
    return Plan.model_validate({"model": spec.model_dump(), "seq_len": seq,
                                "micro_batch": batch, "profile": "torch",
                                "cluster": {"nodes": 1, "gpus_per_node": dp}, **fields})


def simulate(plan: Plan, stage: int) -> tuple[Result, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(simulate_command(plan, [stage]), capture_output=True, text=True, env=measure_env())
    messages = [decode(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    errors = [m for m in messages if isinstance(m, Error)]
    if errors or proc.returncode:
        raise RuntimeError(errors[0].message if errors else proc.stderr[-500:])
    (result,) = [m for m in messages if isinstance(m, Result)]
    return result, time.perf_counter() - t0


def main() -> int:
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(KNOBS)
    models = sys.argv[sys.argv.index("--models") + 1].split(",") if "--models" in sys.argv else list(MODELS)
    print("knob                     model        st  predicted GiB (phase, moment)            simulated GiB (phase)  "
          "error    sim s")
    worst = 0.0
    for knob in only:
        fields, stages = KNOBS[knob]
        for name in models:
            plan = plan_for(name, fields)
            for stage in stages:
                pred = predict(plan)[stage]
                sim, wall = simulate(plan, stage)
                sim_phase = max(sim.phase_peaks, key=lambda ph: sim.phase_peaks[ph]["total"])
                err = pred.total_bytes / sim.peak_bytes - 1
                worst = max(worst, abs(err))
                print(f"{knob:24} {name:12} {stage:2}  {pred.total_bytes / GIB:8.3f} ({pred.phase:9}, "
                      f"{pred.moment:26})  {sim.peak_bytes / GIB:8.3f} ({sim_phase:9})  {100 * err:+6.2f}%  "
                      f"{wall:6.1f}", flush=True)
    print(f"worst |error|: {100 * worst:.2f}% (bar 3%)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
