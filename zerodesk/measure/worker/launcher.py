"""Start N ranks of the measuring worker on this machine: `python -m zerodesk.measure.worker.launcher --ranks N ...`.

(Runners start it isolated through child.py: see runner.measure_command.)

Uses torch.multiprocessing (fork on CPU: the ranks inherit the imported torch and start in
well under a second; spawn on CUDA, which must not be forked) on a free loopback port.
All other arguments go to the worker unchanged; each stage runs on a fresh set of ranks (torch's memory
trackers leave a stage's model alive, so one process would carry earlier stages into later peaks). The
ranks share this process's stdout, where they write protocol lines; the launcher adds a line only for a
rank that died without saying why. Runners kill the whole process group (start_new_session) to stop
everything; and each rank dies with the launcher, the launcher with its runner (lifeline.py), whatever
kills them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import socket
import sys
import time

from ...core.plan import Plan
from .. import proctree
from ..devices import decide_device, default_ranks
from ..job import rank_arguments, rank_job
from ..lifeline import die_with_parent, parent_gone
from ..protocol import EXIT_COLLATERAL, EXIT_REPORTED, Error, WorkerError, encode
from ..rules import MAX_DEFAULT_RANKS, MAX_LOCAL_RANKS, host_fit
from .fork_ready import prepare_to_fork


def _say(code: str, message: str) -> None:
    sys.stdout.write(encode(Error(code=code, message=message)) + "\n")
    sys.stdout.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_entry(index: int, argv: list[str], world: int, port: int) -> None:
    die_with_parent()
    os.environ.update(RANK=str(index), LOCAL_RANK=str(index), WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    from .rank import main

    main(argv)  # leaves with os._exit


def _job(worker_argv: list[str]) -> tuple[Plan | None, list[int]]:
    """The plan the ranks will measure (scaled) and its stages, read as a rank reads them; a plan that
    does not load is the ranks' to report (bad_plan): (None, [])."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # argparse's usage is the ranks' to print
            plan, _scale, stages = rank_job(rank_arguments().parse_args(worker_argv))
        return plan, stages
    except (SystemExit, WorkerError):
        return None, []


def host_problem(plan: Plan, stages: list[int], ranks: int, free: int | None = None) -> str | None:
    """CPU ranks whose model states alone would not fit this host: one sentence, else None."""
    refusal = host_fit(plan, stages, ranks, "cpu", free)
    if refusal is None:
        return None
    return (f"the model states of {ranks} CPU ranks need about {refusal.need / 1e9:.1f} GB, more than this "
            f"machine can spare ({refusal.free / 1e9:.1f} GB free): scale the model down, use fewer ranks, or simulate")


def preload(plan: Plan | None = None) -> None:
    """Import what every stage needs, once: forked ranks then start each stage without importing torch's
    engines, trackers and transformers' model again."""
    import torch.distributed.device_mesh  # noqa: F401
    import torch.distributed.fsdp  # noqa: F401
    import torch.distributed.optim  # noqa: F401
    import torch.nn.parallel  # noqa: F401

    from . import rank, step, torch_compat  # noqa: F401
    from .model import build_model, built_by_transformers

    try:  # their checks import the trackers' modules; a failed one is for each rank to report
        torch_compat.check("mem_tracker")
        torch_compat.check("fsdp_mem_tracker")
    except torch_compat.TorchInternalsMoved:
        pass

    if plan is not None and built_by_transformers(plan.model):
        try:  # transformers' modules load with the first model of a type: build it once on the meta device
            build_model(plan.model, "meta")
        except Exception:  # noqa: BLE001 - each rank meets the same problem and reports it in one sentence
            pass


def _describe(rank: int, exitcode: int) -> str:
    if exitcode < 0:
        sig = -exitcode
        name = signal.Signals(sig).name if sig in {s.value for s in signal.Signals} else f"signal {sig}"
        hint = " (perhaps the system ran out of memory)" if sig == proctree.SIGKILL else ""
        return f"rank {rank} was killed by {name}{hint}"
    return f"rank {rank} exited with status {exitcode} without reporting an error"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zerodesk.measure.launcher", description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=None, help="default: the plan's Nd, at most 2, one per GPU")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    args, worker_argv = parser.parse_known_args(argv)
    if args.ranks is not None and not 1 <= args.ranks <= MAX_LOCAL_RANKS:
        _say("bad_plan", f"--ranks must be from 1 to {MAX_LOCAL_RANKS}, not {args.ranks}")
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if os.path.isdir("/sys/class/net/lo"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # offline machines: keep gloo on loopback
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError as exc:
        _say("launcher_failed", f"this Python ({sys.executable}) cannot import torch: {exc}")
        return 1

    # The one device decision (the front ends cannot ask torch): then ranks, then the host's memory.
    # CPU ranks are forked, so this process must not initialise CUDA: ask NVML, and only when CUDA may be used.
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    available = args.device != "cpu" and torch.cuda.is_available()
    device = decide_device(args.device, available)
    gpus = torch.cuda.device_count() if available else 0
    plan, stages = _job(worker_argv)
    dp = plan.dp if plan is not None else 1
    ranks = args.ranks if args.ranks is not None else default_ranks(dp, device, gpus, MAX_DEFAULT_RANKS)
    if device == "cuda":
        if not available:
            _say("no_gpu", "CUDA was asked for, but this torch build or machine has no usable GPU")
            return 1
        if ranks > gpus:
            _say("no_gpu", f"{ranks} ranks need {ranks} GPUs, but {gpus} are visible")
            return 1
    elif plan is not None:
        refusal = host_problem(plan, stages, ranks)
        if refusal:
            _say("host_memory", refusal)
            return 1
    worker_argv = [*worker_argv, "--device", device]
    # One set of ranks per stage: torch's memory trackers leave each stage's model alive in C++ (a cycle
    # the collector cannot see), so stages in one process would carry the earlier stages' memory.
    stages = stages or [None]
    if proctree.rank_start_method(device) == "fork":
        preload(plan)  # imported once here, so each stage's forked ranks start at once
        prepare_to_fork()  # and find them neither walked by the collector nor short of reusable memory
    t0 = time.time()
    for i, stage in enumerate(stages):
        extra = [] if stage is None else ["--only-stage", str(stage), "--t0", repr(t0)]
        extra += ["--no-started"] if i > 0 else []
        extra += ["--no-done"] if i < len(stages) - 1 else []
        code = _run_ranks(mp, [*worker_argv, *extra], ranks, device)
        if code:
            return code
    return 0


def _run_ranks(mp, worker_argv: list[str], ranks: int, device: str) -> int:
    """Start `ranks` ranks of the worker, wait for them all; 0 when every rank finished."""
    try:
        ctx = mp.start_processes(_rank_entry, args=(worker_argv, ranks, free_port()), nprocs=ranks,
                                 join=False, start_method=proctree.rank_start_method(device))
    except Exception as exc:  # noqa: BLE001
        _say("launcher_failed", f"could not start {ranks} ranks: {exc}")
        return 1
    procs = ctx.processes

    from multiprocessing.connection import wait

    failed_at = None
    while any(p.exitcode is None for p in procs):
        wait([p.sentinel for p in procs if p.exitcode is None], timeout=0.25)
        if parent_gone():  # where the kernel cannot tie us to the runner (not Linux): notice it ourselves
            break
        if failed_at is None and any(p.exitcode not in (None, 0) for p in procs):
            failed_at = time.monotonic()
        if failed_at is not None and time.monotonic() - failed_at > 2.0:
            break  # the others are stuck in a collective with a dead peer
    stopped = set()
    for r, p in enumerate(procs):
        if p.exitcode is None:
            p.kill()
            stopped.add(r)
        p.join()
    codes = [p.exitcode for p in procs]
    if all(c == 0 for c in codes):
        return 0
    if EXIT_REPORTED not in codes:
        died = [(r, c) for r, c in enumerate(codes) if r not in stopped]
        unexplained = [(r, c) for r, c in died if c not in (0, EXIT_REPORTED, EXIT_COLLATERAL, -proctree.SIGKILL)]
        killed = [(r, c) for r, c in died if c == -proctree.SIGKILL]
        if unexplained or killed:
            _say("worker_crashed", _describe(*(unexplained or killed)[0]))
        else:
            _say("worker_crashed", "the ranks lost contact with each other before any of them reported why")
    return 1


if __name__ == "__main__":
    sys.exit(main())
