"""Simulated full-size step of one rank: `python -m zerodesk.measure.worker.simulate --plan-json '<json>' --dp N`.

The middle tier of evidence. One process plays rank 0 of a fake world of Nd ranks: a fake
process group (collectives do nothing), the model built and sharded under FakeTensorMode
(tensors carry shapes and dtypes, no data), and the rank's own step.measure_stage() run on
it unchanged: the same model, the same FSDP2 wrapping and MixedPrecisionPolicy, the same
AdamW, a warm-up and a measured step under FSDPMemTracker. So a 7B model at Nd = 64 is
simulated on a laptop in seconds, and the figures are the ones a real rank 0 would track.
Stages 2-3 run their warm-up untracked (tracking it added a tenth to a 7B simulation) and
then tell the tracker what a tracked warm-up would have left it knowing, so every figure is the
same byte for byte; --tracked-warmup tracks the warm-up as real ranks do, to check that. That warm-up leaves
the blocks' arithmetic out (light_warmup.py; --full-warmup keeps it), and a model of many identical blocks is
simulated from the same model cut to 3, 4 and 5 blocks where the tracker's own stream proves the figures exact
(block_extrapolation.py; --full-model simulates every block): the same figures, byte for byte, in a fraction of
the time.

Stages 2 and 3 run FSDP2 itself. DDP (stages 0 and 1) reads tensor data in its constructor, so
its reducer is replayed in Python with torch's own bucket assignment (ddp_sim.SimulatedDDP);
ZeroRedundancyOptimizer runs as it is. Each Result says how it was simulated ("method").

--backend gloo adds the copies gloo makes that NCCL does not: ProcessGroupGloo reduce-scatters
through a full-size copy of the input, which a real CPU rank holds while the collective runs.
The default, nccl, models a GPU rank (in-place reduce-scatter, no copy).

Sizes are CPU sizes (fake CUDA tensors need a CUDA build): a GPU's caching allocator
would round each block up to 512 B, which these figures leave out.

Writes the rank's protocol lines (Started, PhaseMsg, Result, Error, Done) to stdout with
source="simulated"; exit status 0 done, EXIT_REPORTED an error was reported (protocol.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ...core.offload import fsdp2_offloads
from ..job import run_shard_group, simulation_arguments, simulation_job
from ..protocol import EXIT_INTERRUPTED, EXIT_REPORTED, Done, Error, PhaseMsg, Started, WorkerError
from .emitter import Emitter
from .failures import classify

METHODS = {
    0: "fake process group: DDP's reducer replayed (torch's bucket assignment, flat fp32 buckets) + AdamW",
    1: "fake process group: DDP's reducer replayed + torch's ZeroRedundancyOptimizer(AdamW)",
    2: "fake process group: torch's FSDP2 fully_shard(reshard_after_forward=False) + AdamW",
    3: "fake process group: torch's FSDP2 fully_shard(reshard_after_forward=True) + AdamW",
}


def method(stage: int, backend: str, offload: bool = False, shard_group: int | None = None) -> str:
    """How a stage is simulated, in one phrase (each Result carries it; the CLI and the window print it).

    shard_group: N of a hybrid mesh (None: flat), said for the stages it changes (1: ZeRO-1's group, 2-3: HSDP)."""
    hybrid = ""
    if shard_group is not None and stage >= 1:
        hybrid = (f"; ZeroRedundancyOptimizer in a shard group of {shard_group}" if stage == 1 else
                  f"; HSDP: 2-D mesh (replicate, shard), shard group of {shard_group}")
    return _method(stage, backend, offload) + hybrid


def _method(stage: int, backend: str, offload: bool) -> str:
    if stage <= 1:
        copies = f"{backend}: DDP all-reduces its buckets in place"
    else:
        copies = "gloo's reduce-scatter copy added" if backend == "gloo" else "nccl: no collective copies"
        if offload:
            copies += "; CPUOffloadPolicy: the states counted are host memory"
    return f"{METHODS[stage]}; {copies}"


@contextmanager
def fake_world(world: int, backend: str = "nccl", shard_group: int | None = None,
               transformers_model: bool = True) -> Iterator[Any]:
    """Rank 0 of a fake process group of `world` ranks, a CPU device mesh, and FakeTensorMode; yields the mesh.

    shard_group: N of a hybrid (HSDP) mesh, (world/N, N) with dims ("replicate", "shard"); None or world: flat.

    Inside it FSDP2 makes its chunks on demand (torch_compat.chunks_on_demand) and FakeTensor builds its cache keys
    directly (torch_compat.fake_cache_keys_direct), which leave every figure as it is;
    the trackers' own speed-ups are step.measure_stage's, as on real ranks."""
    import torch.distributed as dist

    from . import torch_compat
    from .mesh import data_parallel_mesh

    dist.init_process_group("fake", store=torch_compat.fake_store(), rank=0, world_size=world)
    name = torch_compat.fsdp_reduce_scatter_name()
    original = getattr(dist, name)
    if backend == "gloo":
        setattr(dist, name, _gloo_reduce_scatter(original))
    try:
        mesh = data_parallel_mesh("cpu", world, shard_group or world)
        with torch_compat.fake_tensor_mode(), torch_compat.one_sequence_per_row(transformers_model), \
                torch_compat.chunks_on_demand(), torch_compat.fake_cache_keys_direct():
            yield mesh
    finally:
        setattr(dist, name, original)
        dist.destroy_process_group()


def _gloo_reduce_scatter(original: Any) -> Any:
    """FSDP2's reduce-scatter as gloo runs it: on a full-size copy of the input, held while it runs."""

    def reduce_scatter_single(output: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        copy = input.clone()  # ProcessGroupGloo's working copy (the fake group moves nothing)
        work = original(output=output, input=input, *args, **kwargs)
        del copy
        return work

    return reduce_scatter_single


def run(args: argparse.Namespace, emit: Emitter, where: dict) -> None:
    plan, stages, world = simulation_job(args)
    import torch

    from .block_extrapolation import eligible, simulate_stage
    from .ddp_sim import SimulatedDDP
    from .model import built_by_transformers
    from .step import measure_stage

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    t0 = time.perf_counter()
    from .attention_probe import attention_kernel

    group = run_shard_group(plan, world, args.shard_group)
    emit(Started(torch=torch.__version__, offload=fsdp2_offloads(plan), optimizer_impl=plan.optimizer_impl,
                 attention=attention_kernel(plan.model, plan.seq_len, "cpu"), device="cpu", ranks=world, stages=stages,
                 architecture=plan.model.architecture, params=plan.params, seq_len=plan.seq_len,
                 micro_batch=plan.micro_batch, source="simulated", shard_group=group))
    device = torch.device("cpu")
    with fake_world(world, args.backend, group, built_by_transformers(plan.model)) as mesh:
        for stage in stages:
            where["stage"] = stage

            def measure(plan: Any, recording: Any = None, stage: int = stage, preparing: float | None = None) -> Any:
                return measure_stage(stage, plan, device, 0, world, emit if preparing is None else as_setup(
                                     emit, preparing), mesh,
                                     args.warmup, samples=False,
                                     ddp_class=SimulatedDDP, track_warmup=args.tracked_warmup or stage < 2,
                                     by_module=args.by_module, light_warmup=not args.full_warmup, recording=recording)

            result = None
            if not (args.tracked_warmup or args.by_module or args.full_model) and eligible(plan, stage):
                result = simulate_stage(plan, device, measure)  # None: a check failed, simulate the full model
            if result is None:
                result = measure(plan)
            # step_s would be the time to simulate, not a step's time: leave it out.
            emit(result.model_copy(update={"source": "simulated", "step_s": None,
                                           "method": method(stage, args.backend, fsdp2_offloads(plan),
                                                            group if group < world else None)}))
            where["stage"] = None
    emit(Done(wall_s=time.perf_counter() - t0))


def as_setup(emit: Emitter, progress: float) -> Any:
    """emit for a short model the block extrapolation runs before its last: its step's phases are reported as the
    stage's setup, `progress` of the way through, so a stage's progress goes through warm-up, forward, backward and
    optimizer once, not three times."""

    def emit_setup(msg: Any, every_rank: bool = False) -> None:
        if isinstance(msg, PhaseMsg):
            msg = msg.model_copy(update={"phase": "setup", "progress": progress})
        emit(msg, every_rank)

    return emit_setup


def main(argv: list[str] | None = None) -> None:
    """Run and leave with os._exit, as a rank does (torch teardown must not add a line or a crash)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    emit = Emitter(0)
    where: dict = {"stage": None}
    code = 0
    try:
        run(simulation_arguments().parse_args(argv), emit, where)
    except SystemExit as exc:  # argparse: usage went to stderr
        code = exc.code if isinstance(exc.code, int) else 2
        if code:
            emit(Error(code="bad_plan", message="the simulation was started with invalid arguments (see its stderr)"))
            code = EXIT_REPORTED
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one protocol line
        import traceback

        traceback.print_exc(file=sys.stderr)
        stage = where["stage"]
        if isinstance(exc, MemoryError):
            code_msg = ("out_of_memory", "the simulation ran out of host memory"
                        + (f" in stage {stage}" if stage is not None else ""))
        else:
            code_msg = classify(exc, 0, stage) or ("internal", f"the simulation failed: {exc}")
            if not isinstance(exc, WorkerError):  # a rank's wording names a rank: here it is the simulation
                code_msg = (code_msg[0], code_msg[1].replace("rank 0", "the simulation", 1))
        try:
            emit(Error(code=code_msg[0], message=code_msg[1], stage=stage))
            code = EXIT_REPORTED
        except OSError:  # the reader is gone
            code = 1
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
