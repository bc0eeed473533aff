"""A warm worker: torch imported once, one forked child per job. `... zerodesk.measure.worker.serve --socket FD`.

A fresh worker Python spends most of a small job importing torch, its compiler's config and sympy (FakeTensorMode
reaches torch._dynamo). Where a user runs several jobs (fit --verify's batches, a script's runs) the runner keeps
one of these (job_server.py) and each job is forked from it, as the launcher forks CPU ranks: the child starts with
everything imported and runs the job's module exactly as `python -m` would (child.py's BOOT), with the job's own
stdout, stderr, folder and environment, in a session of its own (its pid is its process group: kill_group stops it
and its ranks as it stops a one-shot job). Nothing ever runs here but imports, so each job starts from the same
state, and its lines are the one-shot job's.

A job whose environment differs from the one this process imported under is refused (the runner then starts it as
its own Python): torch reads some variables at import. Only the runner's `neutral` variables may differ, and those
the imports themselves set (torch sets TORCHINDUCTOR_CACHE_DIR) may be absent or as the imports set them.

Requests and replies are JSON lines on a SOCK_SEQPACKET socket (job_server.py says which); a request brings the
job's stdout and stderr as two descriptors. This process dies with its runner (child.py), a job with this process
(lifeline.py); when the runner closes the socket (or dies) every running job's group is killed and this one exits.
Torch stays out of the protocol: only stdlib here, torch is only imported.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import runpy
import select
import signal
import socket
import sys
import time
import traceback

MAX_REQUEST = 1 << 20  # a request larger than this is not taken (the runner starts such a job by itself)
_ours: dict = {}  # what the loop changed in this process (SIGCHLD, the wakeup pipe): a job gets it back as it was
_imported_under: dict[str, str] = dict(os.environ)  # the environment the imports ran under


def preload(transformers: bool = True) -> None:
    """What the launcher and the simulation import before their first op: torch's engines and trackers, fake tensors
    (torch._dynamo's config and sympy come with them), the worker's own modules; transformers' base if installed and
    wanted (about half the imports: a runner whose jobs build only ZeroDesk's own decoder goes without)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from .torch_compat import preload_fake_world

    preload_fake_world()
    from . import attention_probe, block_extrapolation, ddp_sim, light_warmup, simulate  # noqa: F401
    from .launcher import preload as launcher_preload

    launcher_preload()
    if not transformers:
        return
    try:
        import transformers.modeling_utils  # noqa: F401
    except ImportError:
        pass


# What a shell between the runner and this Python sets on its way (a wrapper script given as the interpreter,
# pyenv's shims): its own bookkeeping, which no import reads. Were it compared, every job of such an interpreter
# would be refused and start as its own Python, importing torch again.
SHELL_BOOKKEEPING = frozenset({"PWD", "OLDPWD", "SHLVL", "_"})


def job_environment(job: dict[str, str], neutral: tuple[str, ...], before: dict[str, str],
                    after: dict[str, str]) -> dict[str, str] | None:
    """The environment the job would have as its own Python once torch is imported, or None where its imports could
    have gone otherwise: a variable not `neutral` differs from `before` (what the imports ran under), other than one
    the imports set, absent from the job or as they set it, or a shell's bookkeeping (SHELL_BOOKKEEPING: the job
    keeps its own)."""
    set_by_imports = {k: v for k, v in after.items() if before.get(k) != v}
    for key in set(job) | set(before):
        if key.startswith(neutral) or key in SHELL_BOOKKEEPING or job.get(key) == before.get(key):
            continue
        if key in set_by_imports and job.get(key) == set_by_imports[key]:
            continue
        return None
    return {**set_by_imports, **job}


def _reply(sock: socket.socket, **fields) -> None:
    try:
        sock.send(json.dumps(fields).encode())
    except OSError:
        pass  # the runner is gone: the loop sees the end of the socket next


def _run_job(sock: socket.socket, request: dict, out: int, err: int) -> None:
    """The forked child: become the job's process, run its module, never return."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, _ours["sigchld"])
        for fd in _ours["wake"]:
            os.close(fd)
        sock.close()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in (null, out, err):
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["environment"])
        from ..child import run_module
        from ..lifeline import die_with_parent

        die_with_parent()
        code = run_module(request["module"], request["args"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - as an uncaught exception ends `python -m`: the traceback, status 1
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _start(sock: socket.socket, data: bytes, fds: list[int], jobs: dict[int, int]) -> None:
    try:
        request = json.loads(data)
        environment = job_environment(request["env"], tuple(request["neutral"]), _imported_under, dict(os.environ))
        why = "descriptors" if len(fds) != 2 else "environment" if environment is None else None
    except (ValueError, KeyError, TypeError):
        request, why = {}, "request"
    if why is not None:
        for fd in fds:
            os.close(fd)
        _reply(sock, job=request.get("job"), refused=why)
        return
    request["environment"] = environment
    pid = os.fork()
    if pid == 0:
        _run_job(sock, request, *fds)
    for fd in fds:
        os.close(fd)
    jobs[pid] = request["job"]
    _reply(sock, job=request["job"], pid=pid)


def _reap(sock: socket.socket, jobs: dict[int, int]) -> None:
    while jobs:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        job = jobs.pop(pid, None)
        if job is not None:
            _reply(sock, job=job, exit=os.waitstatus_to_exitcode(status),
                   cpu_s=usage.ru_utime + usage.ru_stime)


def serve(sock: socket.socket) -> None:
    jobs: dict[int, int] = {}  # pid -> the runner's job number
    wake_r, wake_w = os.pipe()  # SIGCHLD writes here, so a finished job is reaped at once
    os.set_blocking(wake_w, False)
    _ours.update(wake=(wake_r, wake_w), sigchld=signal.getsignal(signal.SIGCHLD))
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    try:
        while True:
            ready, _, _ = select.select([sock, wake_r], [], [], 1.0)
            if wake_r in ready:
                os.read(wake_r, 512)
            _reap(sock, jobs)
            if sock in ready:
                try:
                    data, fds, _flags, _addr = socket.recv_fds(sock, MAX_REQUEST, 2)
                except OSError:
                    data, fds = b"", []
                if not data:
                    break  # the runner closed the socket, or is gone
                _start(sock, data, fds, jobs)
    finally:
        for pid in jobs:  # whatever still runs goes with us: the job's group, its ranks included
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m zerodesk.measure.worker.serve",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--socket", type=int, required=True, help="the inherited descriptor of the runner's socket")
    parser.add_argument("--no-transformers", action="store_true",
                        help="do not preload transformers (a job that builds its model imports it itself)")
    args = parser.parse_args(argv)
    sock = socket.socket(fileno=args.socket)
    try:
        preload(transformers=not args.no_transformers)
        problem = None
    except Exception as exc:  # noqa: BLE001 - the runner then starts its jobs one process each, which report it
        problem = f"{type(exc).__name__}: {exc}"
    gc.collect()
    gc.freeze()  # imported once, never walked by a job's collector (fork_ready.py)
    # cpu_s: what preparing cost, for whoever counts the CPU of the jobs (a job's own comes with its exit)
    _reply(sock, ready=problem is None, problem=problem, cpu_s=time.process_time())
    if problem is None:
        serve(sock)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
