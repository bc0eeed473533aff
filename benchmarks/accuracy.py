"""Predicted (core, closed form) vs simulated (fake tensors) full-step peak, per configuration. Prints figures.

Each configuration is one stage of one model, simulated by `python -m zerodesk.measure.worker.simulate` (backend nccl:
what a GPU rank would track, CPU kernels) and predicted by zerodesk.core.peak with CPU kernels. Every built-in
family, both profiles, recompute none/selective/full, mixture-of-experts at Nd 8-1024 with either shard
placement, sequences 512-8192. Prints each error, then the worst; the target is every configuration within ±3%.

The paper profile is compared where its step and PyTorch's hold the same bytes: stages 2 and 3, where FSDP2's
fp32 shards plus its gathered bf16 copy sum to the paper's fp16 parameters plus fp32 master weights (stage 2:
2P + 14P/Nd either way). They differ, by bookkeeping, in: FSDP2's dim-0 padding (the paper partitions evenly);
its fp32 reduce-scatter (the paper reduces fp16 gradients); its fp32 gradient shards (the paper's are fp16); and at
stage 3 the paper's fp16 parameter partition, 2P/Nd that FSDP2 does not keep (it casts its fp32 shards when it
gathers) - so stage-3 paper rows are at Nd >= 32, where that is under a percent. The reduce-scatter is the one
left at the peak (a block's backward): its input is 2 B per element of a block more under FSDP2, under a percent for
dense blocks but 2.7 GiB (4.9%) for Mixtral's 1.45B-element block, so the paper's MoE row reads that much below the
simulated FSDP2 step by bookkeeping, not by activations (the torch row of the same shape is its check). Stages 0-1 are not compared:
DDP + autocast keeps fp32 parameters, gradients and buckets and caches bf16 weight copies (20P + casts), where the
paper's step holds 16P and uses its fp16 parameters as they are.

Usage: python benchmarks/accuracy.py [--quick] [--from N] [--only I,J,...] [--family WORD] [--list] [--tracked-warmup]
  --quick: only the configurations under 2B parameters; --from N: start at the N-th (0-based); --only I,J: these
  (0-based); --family WORD: presets whose name holds WORD; --list: print the configurations, simulate nothing;
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
from zerodesk.core.plan import Plan, Profile  # noqa: E402
from zerodesk.core.report import activation_source  # noqa: E402
from zerodesk.measure.protocol import Error, Result, decode  # noqa: E402
from zerodesk.measure.runner import measure_env, simulate_command  # noqa: E402

GIB = 2**30
# (model preset, Nd, stage, seq, micro-batch, recompute, profile, shard placement)
CONFIGS = [
    # the first release's seventeen, torch profile
    ("gpt2", 1, 0, 1024, 4, "none", "torch", "dim0"),
    ("gpt2", 8, 1, 512, 8, "none", "torch", "dim0"),
    ("gpt2", 4, 2, 1024, 2, "selective", "torch", "dim0"),
    ("gpt2", 16, 3, 1024, 1, "full", "torch", "dim0"),
    ("gpt2-medium", 2, 0, 512, 2, "full", "torch", "dim0"),
    ("pythia-410m", 128, 3, 2048, 2, "none", "torch", "dim0"),
    ("pythia-1b", 8, 2, 2048, 1, "none", "torch", "dim0"),
    ("gpt2-large", 32, 3, 1024, 4, "selective", "torch", "dim0"),
    ("gpt2-xl", 8, 1, 1024, 1, "full", "torch", "dim0"),
    ("llama-2-7b", 4, 0, 512, 2, "none", "torch", "dim0"),
    ("llama-2-7b", 16, 1, 2048, 1, "selective", "torch", "dim0"),
    ("llama-2-7b", 8, 2, 4096, 1, "none", "torch", "dim0"),
    ("llama-2-7b", 64, 3, 8192, 1, "full", "torch", "dim0"),
    ("mistral-7b-v0.1", 64, 3, 4096, 1, "none", "torch", "dim0"),
    ("llama-2-13b", 256, 3, 4096, 1, "selective", "torch", "dim0"),
    ("llama-2-70b", 64, 2, 512, 1, "none", "torch", "dim0"),
    ("llama-2-70b", 1024, 3, 4096, 1, "full", "torch", "dim0"),
    # every other family, in the shapes the issue found off
    ("falcon-7b", 8, 3, 2048, 1, "none", "torch", "dim0"),  # math-fallback attention: s^2 scores
    ("falcon-7b", 64, 2, 2048, 1, "selective", "torch", "dim0"),
    ("gemma-2-2b", 8, 2, 4096, 1, "none", "torch", "dim0"),  # eager attention, softcaps, alternating window
    ("gemma-2-2b", 16, 3, 8192, 1, "full", "torch", "dim0"),
    ("bloom-560m", 8, 3, 2048, 2, "none", "torch", "dim0"),  # ALiBi, eager baddbmm
    ("bloom-560m", 4, 0, 1024, 2, "selective", "torch", "dim0"),
    ("qwen3-0.6b", 8, 2, 4096, 2, "none", "torch", "dim0"),  # QK-norm
    ("olmo-1b", 8, 3, 2048, 2, "none", "torch", "dim0"),  # fp32-upcast LayerNorm
    ("gpt-j-6b", 16, 3, 2048, 1, "none", "torch", "dim0"),  # parallel block, one shared norm, gelu_new
    ("stablelm-2-1.6b", 8, 2, 4096, 1, "none", "torch", "dim0"),  # partial rotary
    ("phi-2", 8, 3, 2048, 2, "selective", "torch", "dim0"),  # parallel, partial rotary, gelu_new
    ("phi-3-mini-4k", 16, 3, 4096, 1, "none", "torch", "dim0"),  # its own 2047 window, reached
    ("mistral-7b-v0.1", 32, 2, 8192, 1, "none", "torch", "dim0"),  # window 4096 reached
    ("gemma-2b", 8, 2, 8192, 1, "none", "torch", "dim0"),  # MQA, head_dim 256
    ("opt-350m", 8, 1, 2048, 2, "none", "torch", "dim0"),  # projected embeddings, post-norm
    ("qwen2.5-7b", 32, 3, 4096, 1, "selective", "torch", "dim0"),
    ("llama-3-8b", 64, 3, 8192, 1, "none", "torch", "dim0"),
    # mixture-of-experts: top-2 routing; dim-0 padding against auto placement at large Nd
    ("mixtral-8x7b", 8, 3, 2048, 1, "none", "torch", "dim0"),
    ("mixtral-8x7b", 256, 3, 4096, 1, "none", "torch", "auto"),
    ("mixtral-8x7b", 1024, 3, 4096, 1, "full", "torch", "auto"),
    ("mixtral-8x7b", 256, 3, 2048, 1, "none", "torch", "dim0"),
    # the paper profile, where its step and PyTorch's hold the same bytes (see the docstring)
    ("llama-2-7b", 8, 2, 4096, 1, "none", "paper", "dim0"),
    ("llama-2-7b", 64, 3, 4096, 1, "none", "paper", "dim0"),
    ("gpt2-large", 32, 3, 1024, 4, "selective", "paper", "dim0"),
    ("gemma-2-2b", 8, 2, 4096, 1, "none", "paper", "dim0"),
    ("falcon-7b", 64, 2, 2048, 1, "selective", "paper", "dim0"),
    ("qwen3-0.6b", 64, 3, 4096, 2, "full", "paper", "dim0"),
    ("mixtral-8x7b", 256, 3, 4096, 1, "none", "paper", "auto"),
]
# where the two steps' bookkeeping differs at the peak (the docstring says how): printed, not held to the 3%
BOOKKEEPING_DIFFERS = {("mixtral-8x7b", 256, 3, 4096, 1, "none", "paper", "auto")}


def plan_for(name: str, dp: int, seq: int, batch: int, recompute: str, profile: str = "torch",
             placement: str = "dim0") -> Plan:
    return Plan.model_validate({"model": find_model(name).to_model_spec().model_dump(), "seq_len": seq,
                                "micro_batch": batch, "profile": profile, "recompute": recompute, "kernels": "cpu",
                                "shard_placement": placement,
                                "cluster": {"nodes": 1, "gpus_per_node": dp, "dp": dp}})


def simulate(plan: Plan, stage: int, tracked: bool = False) -> tuple[Result, float]:
    """The simulated step of the torch engines (the paper profile's rows compare with it too)."""
    t0 = time.perf_counter()
    argv = simulate_command(plan.model_copy(update={"profile": Profile.TORCH}), [stage]) + (
        ["--tracked-warmup"] if tracked else [])
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
    for name, dp in (("llama-2-7b", 8), ("llama-2-70b", 1024), ("mixtral-8x7b", 256)):
        plan = plan_for(name, dp, 4096, 1, "none")
        states = compute(plan)
        predict(plan, states)  # the template's first use compiles it
        times = []
        for copy in [plan.model_copy() for _ in range(200)]:  # a new plan object, as an edit makes: predict()
            t0 = time.perf_counter()                           # keeps its last answers by identity
            predict(copy, states)
            times.append(time.perf_counter() - t0)
        out.append(f"{name} Nd={dp}: {1e3 * sorted(times)[len(times) // 2]:.3f} ms")
    return "predict() added to a computed plan, all four stages, median of 200: " + "; ".join(out)


def main() -> int:
    quick, tracked = "--quick" in sys.argv, "--tracked-warmup" in sys.argv
    start = int(sys.argv[sys.argv.index("--from") + 1]) if "--from" in sys.argv else 0
    only = ({int(i) for i in sys.argv[sys.argv.index("--only") + 1].split(",")} if "--only" in sys.argv
            else set(range(len(CONFIGS))))
    family = sys.argv[sys.argv.index("--family") + 1] if "--family" in sys.argv else None
    listing = "--list" in sys.argv
    if not listing:
        print(prediction_cost())
    print("  # model            P        Nd  st  seq   b  recompute  profile place  predicted GiB (phase)   "
          "simulated GiB (phase)  error    sim s")
    worst = (0.0, None)
    for i, (name, dp, stage, seq, batch, rc, profile, placement) in enumerate(CONFIGS):
        plan = plan_for(name, dp, seq, batch, rc, profile, placement)
        if i < start or i not in only or (quick and plan.params > 2e9) or (family and family not in name):
            continue
        head = (f"{i:3} {name:16} {plan.params / 1e9:6.2f}B {dp:5} {stage:3} {seq:5} {batch:2}  {rc:9}  "
                f"{profile:6} {placement:5}")
        if listing:
            print(head, "", activation_source(plan))
            continue
        pred = predict(plan)[stage]
        sim, wall = simulate(plan, stage, tracked)
        sim_phase = max(sim.phase_peaks, key=lambda ph: sim.phase_peaks[ph]["total"])
        err = pred.total_bytes / sim.peak_bytes - 1
        differs = CONFIGS[i] in BOOKKEEPING_DIFFERS
        if not differs and (worst[1] is None or abs(err) > abs(worst[0])):
            worst = (err, i)
        print(f"{head}  {pred.total_bytes / GIB:9.3f} ({pred.phase:9})  {sim.peak_bytes / GIB:9.3f} ({sim_phase:9})  "
              f"{100 * err:+6.2f}%  {wall:6.1f}" + ("  (bookkeeping differs: fp16 vs fp32 reduce-scatter)" if differs
                                                   else ""), flush=True)
    if not listing:
        print(f"worst |error|: {100 * abs(worst[0]):.2f}% (configuration {worst[1]}; target 3%; "
              f"{len(BOOKKEEPING_DIFFERS)} row where the engines' bookkeeping differs printed apart)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
