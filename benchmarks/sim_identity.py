"""Byte identity of `zerodesk simulate --json` between this tree and another checkout, over many configurations.

Each configuration runs on both sides (each with its own .venv), one after the other; the whole --json output,
timings left out (bench_simulate.without_timings), is compared byte for byte. Prints one line per configuration and
how many differ. Usage: python benchmarks/sim_identity.py --baseline DIR [--only SUBSTRING ...]

--warm compares within this tree instead: each configuration's simulation as its own Python and forked from one warm
worker (zerodesk.measure.job_server) that serves them all, every protocol line but the final Done, timings aside.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_simulate import without_timings  # noqa: E402
from zerodesk.measure.runner import measure_env  # noqa: E402

CONFIGS = {
    "llama-2-70b Nd 1024 stage 3 (the benchmark's)":
        "--preset llama-2-70b --seq 4096 --batch 1 --dp 1024 --profile torch --stage 3",
    "llama-2-7b Nd 64 stage 3": "--preset llama-2-7b --seq 4096 --batch 1 --dp 64 --profile torch --stage 3",
    "gpt2 (tied head) stages 0-3": "--preset gpt2 --seq 512 --batch 2 --dp 8 --stage 0,1,2,3",
    "custom family stages 0-3": "--layers 4 --hidden 256 --heads 4 --ffn 1024 --vocab 1000 --seq 128 --dp 8 "
                                "--stage 0,1,2,3",
    "pythia-70m recompute selective stages 0-3": "--preset pythia-70m --seq 256 --dp 4 --recompute selective "
                                                 "--stage 0,1,2,3",
    "pythia-70m recompute full stages 2-3": "--preset pythia-70m --seq 256 --dp 4 --recompute full --stage 2,3",
    "mixtral-8x7b (MoE) 2 layers stages 2-3": "--preset mixtral-8x7b --layers 2 --seq 256 --dp 64 --stage 2,3",
    "qwen3-0.6b offload optimizer+params stage 3": "--preset qwen3-0.6b --seq 512 --dp 16 "
                                                   "--offload optimizer+params --profile torch --stage 3",
    "llama-3-8b 4 layers accum 2 sync last stage 2-3": "--preset llama-3-8b --layers 4 --seq 1024 --dp 32 "
                                                       "--accum-steps 2 --accum-sync last --stage 2,3",
    "gemma-2-2b 4 layers recompute every 2nd": "--preset gemma-2-2b --layers 4 --seq 1024 --dp 8 "
                                               "--recompute selective --recompute-every 2 --stage 3",
    "opt-125m gloo by-module stage 3": "--preset opt-125m --seq 512 --dp 8 --backend gloo --by-module --stage 3",
    "llama-2-7b 4 layers HSDP shard group 4": "--preset llama-2-7b --layers 4 --seq 1024 --dp 16 --shard-group 4 "
                                              "--stage 1,2,3",
    "falcon-7b 2 layers wrap 2 blocks prefetch off": "--preset falcon-7b --layers 2 --seq 512 --dp 8 --wrap blocks "
                                                     "--wrap-blocks 2 --prefetch off --stage 3",
    "bloom-560m 4 layers for-loop AdamW fp16": "--preset bloom-560m --layers 4 --seq 256 --dp 8 "
                                                "--optimizer-impl for-loop --param-dtype fp16 --stage 2,3",
    "phi-2 2 layers fused AdamW recompute full": "--preset phi-2 --layers 2 --seq 512 --dp 8 --optimizer-impl fused "
                                                 "--recompute full --stage 3",
    # many blocks: simulated from 3, 4 and 5 of them where the tracker's stream allows (block_extrapolation)
    "llama-2-7b 10 layers HSDP shard group 4 stages 2-3": "--preset llama-2-7b --layers 10 --seq 1024 --dp 16 "
                                                          "--shard-group 4 --stage 2,3",
    "llama-3-8b 9 layers accum 2 sync last recompute selective": "--preset llama-3-8b --layers 9 --seq 1024 --dp 32 "
                                                                 "--accum-steps 2 --accum-sync last "
                                                                 "--recompute selective --stage 2,3",
    "gemma-2-2b (alternating layers) stage 3": "--preset gemma-2-2b --seq 512 --dp 8 --stage 3",
    "mixtral-8x7b (MoE) 8 layers stage 3": "--preset mixtral-8x7b --layers 8 --seq 256 --dp 64 --stage 3",
    "mistral-7b 12 layers gloo recompute full fp16": "--preset mistral-7b-v0.1 --layers 12 --seq 512 --dp 8 "
                                                     "--backend gloo --recompute full --param-dtype fp16 --stage 2,3",
    "qwen2.5-7b 8 layers wrap root offload optimizer": "--preset qwen2.5-7b --layers 8 --seq 512 --dp 8 --wrap root "
                                                       "--offload optimizer --stage 3",
}


def run(tree: Path, args: str) -> str:
    python = tree / ".venv" / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "zerodesk", "simulate", *args.split(), "--json"], cwd=tree,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=measure_env(), text=True)
    try:
        return json.dumps(without_timings(json.loads(proc.stdout)), sort_keys=True)
    except json.JSONDecodeError:  # a refusal: its words and exit status are what must agree
        return f"exit {proc.returncode}: {proc.stdout.strip()[-400:]} {proc.stderr.strip()[-400:]}"


def lines_of(flags: str, server) -> str:
    """The simulation's protocol lines (Done and timings left out): as its own Python (server None) or forked."""
    from zerodesk.cli import command_parser
    from zerodesk.cli_plan import plan_from_args
    from zerodesk.measure.protocol import Done
    from zerodesk.measure.runner import MeasureRun, simulate_command

    args = command_parser("simulate").parse_args(flags.split())
    plan = plan_from_args(args, notes=[])
    argv = simulate_command(plan, args.stages, backend=args.backend, by_module=args.by_module)
    run = MeasureRun(argv, timeout=3600, server=server)
    lines = [without_timings(m.model_dump()) for m in run if not isinstance(m, Done)]
    assert server is None or type(run.proc).__name__ == "ServerJob", "the warm worker did not take the job"
    return json.dumps(lines, sort_keys=True)


def warm_main(args: argparse.Namespace) -> int:
    from zerodesk.measure.job_server import JobServer

    differ = compared = 0
    with JobServer() as server:
        for name, flags in CONFIGS.items():
            if (args.only and not any(s in name for s in args.only)) or any(s in name for s in args.skip):
                continue
            t0 = time.perf_counter()
            own = lines_of(flags, None)
            t1 = time.perf_counter()
            warm = lines_of(flags, server)
            t2 = time.perf_counter()
            compared += 1
            differ += own != warm
            print(f"{'same' if own == warm else 'DIFFERENT':9} {name}: {len(own):,} bytes of lines (own Python "
                  f"{t1 - t0:.0f} s, warm worker {t2 - t1:.0f} s)", flush=True)
    print(f"{compared} configurations compared, own Python against the warm worker: {differ} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--warm", action="store_true", help="own Python against the warm worker, this tree only")
    parser.add_argument("--only", nargs="*", default=[], help="configurations whose name contains one of these")
    parser.add_argument("--skip", nargs="*", default=[], help="configurations whose name contains one of these")
    args = parser.parse_args()
    if args.warm:
        return warm_main(args)
    if args.baseline is None:
        parser.error("--baseline DIR is needed (or --warm)")
    differ = compared = results = 0
    for name, flags in CONFIGS.items():
        if (args.only and not any(s in name for s in args.only)) or any(s in name for s in args.skip):
            continue
        t0 = time.perf_counter()
        mine, theirs = run(ROOT, flags), run(args.baseline.resolve(), flags)
        same = mine == theirs
        compared += 1
        differ += not same
        n = len(json.loads(mine).get("results", [])) if mine.startswith("{") else 0
        results += n
        print(f"{'same' if same else 'DIFFERENT':9} {name}: {n} result(s), {len(mine):,} bytes "
              f"({time.perf_counter() - t0:.0f} s)" + ("" if mine.startswith("{") else f"  [{mine[:300]}]"),
              flush=True)
    print(f"{compared} configurations, {results} stage results compared: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
