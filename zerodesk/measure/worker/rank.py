"""One rank of a measured training step: `python -m zerodesk.measure.worker --plan-json '<json>' --stage 0,1,2,3`.

Runs under our launcher or unchanged under `torchrun` (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT from the environment; without them it runs as a single rank). Per stage (step.py): build
the engine, one warm-up step, reset, one measured step under torch's memory trackers, then the
model states at rest counted from the live tensors. Rank 0 writes protocol JSON lines to stdout
(other ranks only their own errors); everything else goes to stderr.

Exit status (protocol.py): 0 done, EXIT_REPORTED an error was reported on stdout, EXIT_COLLATERAL lost
contact with another rank (the rank that failed reports), EXIT_INTERRUPTED interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import timedelta

from ...core.offload import fsdp2_offloads
from ..devices import cuda_index, decide_device, env_rank
from ..job import check_positions, rank_arguments, rank_job, run_shard_group
from ..protocol import EXIT_COLLATERAL, EXIT_INTERRUPTED, EXIT_REPORTED, Done, Error, Result, Started, WorkerError
from .emitter import Emitter
from .failures import classify


def run(args: argparse.Namespace, rank: int, world: int, local: int | None, emit: Emitter, where: dict) -> None:
    """Measure the job of `args` as this rank: the process group, Started (rank 0), each stage's Results, Done."""
    plan, scale, stages = rank_job(args)
    check_positions(plan)

    import torch
    import torch.distributed as dist

    from .exchange import gather_bytes
    from .attention_probe import attention_kernel
    from .step import measure_stage

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    # the launcher passes its decision down; a CPU rank never touches CUDA (it may be a fork)
    want = decide_device(args.device, args.device == "auto" and torch.cuda.is_available())
    timeout = {} if args.collective_timeout is None else {"timeout": timedelta(seconds=args.collective_timeout)}
    if want == "cuda":
        if not torch.cuda.is_available():
            raise WorkerError("no_gpu", "CUDA was asked for, but this torch build or machine has no usable GPU")
        try:
            index = cuda_index(local, rank, torch.cuda.device_count())
        except ValueError as exc:
            raise WorkerError("no_gpu", str(exc)) from None
        device = torch.device("cuda", index)
        torch.cuda.set_device(device)
        where["backend"] = "nccl"
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device, **timeout)
        device_name = torch.cuda.get_device_name(device)
    else:
        device = torch.device("cpu")
        where["backend"] = "gloo"
        dist.init_process_group("gloo", rank=rank, world_size=world, **timeout)
        device_name = None
    t0 = time.perf_counter()
    arch = plan.model.architecture
    if not args.no_started:
        emit(Started(torch=torch.__version__, offload=fsdp2_offloads(plan), optimizer_impl=plan.optimizer_impl,
                     attention=attention_kernel(plan.model, plan.seq_len, device),
                     device=device.type, device_name=device_name, ranks=world, stages=stages,
                     architecture=arch, params=plan.params, seq_len=plan.seq_len, micro_batch=plan.micro_batch,
                     scale=scale, shard_group=run_shard_group(plan, world, args.shard_group)))
    run_now = stages if args.only_stage is None else [args.only_stage]
    mesh = None
    group = run_shard_group(plan, world, args.shard_group)
    if any(s >= 2 for s in run_now) or (group < world and 1 in run_now):  # FSDP2's mesh; ZeRO-1's group
        from .mesh import data_parallel_mesh

        mesh = data_parallel_mesh(device.type, world, group)
    for stage in run_now:
        where["stage"] = stage
        result = measure_stage(stage, plan, device, rank, world, emit, mesh, args.warmup, not args.no_samples,
                               by_module=args.by_module)
        for item in gather_bytes(result.model_dump_json().encode(), rank, world, device):  # JSON, not pickle
            emit(Result.model_validate_json(item))
        where["stage"] = None
    dist.barrier()  # nobody leaves while another rank still talks
    if not args.no_done:
        emit(Done(wall_s=time.time() - args.t0 if args.t0 is not None else time.perf_counter() - t0))


def main(argv: list[str] | None = None) -> None:
    """Run and leave with os._exit: FSDP2 on gloo may abort in interpreter teardown after success."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rank, world, local = env_rank()
    emit = Emitter(rank)
    os.environ["ZERODESK_PROTOCOL_FD"] = str(emit.fd)
    where: dict = {"stage": None, "backend": None}
    code = 0
    try:
        run(rank_arguments().parse_args(argv), rank, world, local, emit, where)
    except SystemExit as exc:  # argparse: usage went to stderr
        code = exc.code if isinstance(exc.code, int) else 2
        if code:
            emit(Error(code="bad_plan", message="the worker was started with invalid arguments (see its stderr)"))
            code = EXIT_REPORTED
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one protocol line
        import traceback

        traceback.print_exc(file=sys.stderr)
        verdict = classify(exc, rank, where["stage"], where["backend"])
        if verdict is None:
            code = EXIT_COLLATERAL
        else:
            # Errors found before any communication are the same on every rank: rank 0 says it once.
            early = isinstance(exc, WorkerError) and exc.code == "bad_plan"
            try:
                emit(Error(code=verdict[0], message=verdict[1], stage=where["stage"], rank=rank), every_rank=not early)
                code = EXIT_REPORTED
            except OSError:  # the reader is gone (closed pipe): nobody to tell
                code = 1
    sys.stderr.flush()
    os._exit(code)
