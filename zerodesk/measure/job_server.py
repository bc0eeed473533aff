"""A warm worker for several jobs in a row: torch imported once, each job a process forked from it. Torch-free.

A small simulation or measurement spends most of its CPU importing torch (3-4 s of about 5 here). Whoever runs
several (`fit --verify` simulates two batches; a script or a test session many) keeps a JobServer and hands it to
MeasureRun: the job then runs in a child forked from worker/serve.py, which imported torch once, with the same
argv, environment, folder, stdout and stderr it would have had as its own Python, in its own session. So
everything the runner does with a job's process works unchanged: its lines, its exit status, kill_group on its
process group, its ranks dying with it.

A job runs as its own Python instead (start() answers None) where the warm worker cannot give the same start:
another Python, a command that is not a worker module (child.python_command), an environment that differs from the
worker's in anything but the `neutral` variables and those torch's imports set themselves (the worker refuses it:
torch reads some at import), a platform without fork or SOCK_SEQPACKET, or a worker that failed to start (or ended
before it was ready). A worker that dies later is started again for the next job; its running jobs die with it.
start() waits for the job to be forked; submit() does not (the window's runs: leaders.py in gui/runs/).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Iterable

from . import proctree
from .child import forget_plan_file, inline_plan, python_command

SERVE_MODULE = "zerodesk.measure.worker.serve"
START_WAIT_S = 300.0  # the first job waits for the worker's imports (seconds here, minutes on a cold disk)

_cpu_lock = threading.Lock()
_cpu_outside = 0.0  # see cpu_outside_children_rusage()


def _count_cpu(seconds: float) -> None:
    global _cpu_outside
    with _cpu_lock:
        _cpu_outside += seconds


def cpu_outside_children_rusage() -> float:
    """CPU seconds of warm-worker jobs (and the workers' imports) that getrusage(RUSAGE_CHILDREN) here does not
    hold yet: a job is its worker's child, counted here when it ends and there only once its worker is waited for
    (then taken off here). For whoever adds up the CPU a run of jobs cost (tests/conftest.py's --cpu-table)."""
    return _cpu_outside


def supported() -> bool:
    return proctree.POSIX and hasattr(os, "fork") and hasattr(socket, "SOCK_SEQPACKET") and hasattr(socket, "send_fds")


class ServerJob:
    """One job forked by the warm worker, as much of subprocess.Popen as MeasureRun and kill_group use."""

    def __init__(self, number: int, argv: list[str]) -> None:
        self.number, self.args = number, argv
        self.pid: int | None = None
        self.returncode: int | None = None
        self.cpu_s = 0.0
        self.stdout = self.stderr = None
        self.worker: socket.socket | None = None  # the socket of the worker that runs it
        self.abandoned = False  # its start was not waited for: kill it the moment it starts
        self.started, self.exited = threading.Event(), threading.Event()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self.exited.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode  # type: ignore[return-value]


class JobServer:
    """A warm worker for `python` (default: this one), started at the first job; close() (or `with`) stops it."""

    def __init__(self, python: str | None = None, env: dict[str, str] | None = None,
                 neutral: Iterable[str] = ("ZERODESK_",), transformers: bool = True) -> None:
        """transformers False: the worker does not preload it (half its start), for jobs on ZeroDesk's own decoder;
        a job that builds transformers' model still can (it imports it itself)."""
        from .runner import measure_env

        self.python = python or sys.executable
        self.env = measure_env(env)  # the worker imports torch under this environment
        self.neutral = tuple(neutral)  # variables (by prefix) a job may set otherwise: none is read at import
        self.transformers = transformers
        self.forked = 0  # jobs started in a warm worker
        self.refused = 0  # jobs the worker did not take (their environment), started as their own Pythons
        self.started_workers = 0
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._gone = False  # the worker's socket ended: start another for the next job
        self._jobs: dict[int, ServerJob] = {}
        self._next = 0
        self._unusable = not supported()  # the worker could not import what a job needs: one process per job

    def __enter__(self) -> "JobServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def takes(self, argv: list[str]) -> bool:
        """Whether a job with this argv may start in the warm worker (which still checks its environment)."""
        head = python_command(self.python, "", [])[:-1]
        return (not self._unusable and argv[:len(head)] == head and len(argv) > len(head)
                and argv[len(head)].startswith("zerodesk.measure.worker.") and argv[len(head)] != SERVE_MODULE)

    def start(self, argv: list[str], env: dict[str, str], cwd: str | None = None,
              give_up: threading.Event | None = None, wait_s: float = START_WAIT_S) -> ServerJob | None:
        """Fork the job from the warm worker and return it started, or None: start it as its own process.

        give_up (a cancelled run) or wait_s past: stop waiting for the worker, and kill the job as soon as it starts."""
        job = self.submit(argv, env, cwd)
        if job is not None:
            deadline = time.monotonic() + wait_s
            while not job.started.wait(0.1):
                if job.exited.is_set() or time.monotonic() > deadline or (give_up is not None and give_up.is_set()):
                    break
        if job is None or job.pid is None:
            if job is not None:
                self.abandon(job)
            return None
        self.took(job)
        return job

    def submit(self, argv: list[str], env: dict[str, str], cwd: str | None = None) -> ServerJob | None:
        """Hand the job to the warm worker without waiting (None: it cannot take it; start it as its own process).

        For a caller that must not block (the window): watch job.started and job.exited; once started, call
        took(job); a job that exited without a pid never started (refused, or its worker died): run argv as its
        own process then, after abandon(job). Its stdout and stderr are there from now on (raw, unbuffered)."""
        if not self.takes(argv):
            return None
        head = len(python_command(self.python, "", [])) - 1
        # The plan travels in the request; its file stays until the job has started, for a job started on its own
        # instead (the worker died, or it was not waited for).
        request = {"module": argv[head], "args": inline_plan(argv[head + 1:]), "env": env, "neutral": self.neutral,
                   "cwd": cwd or os.getcwd()}
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            job = self._send(request, argv, [out_w, err_w])
        finally:
            os.close(out_w)
            os.close(err_w)
        if job is None:
            os.close(out_r)
            os.close(err_r)
            return None
        job.stdout, job.stderr = os.fdopen(out_r, "rb", buffering=0), os.fdopen(err_r, "rb", buffering=0)
        return job

    def took(self, job: ServerJob) -> None:
        """The job started in the worker: its plan file is no longer needed."""
        forget_plan_file(job.args)
        self.forked += 1

    def abandon(self, job: ServerJob) -> None:
        """The job will not be waited for (it did not start in time, or its run was cancelled): kill it the moment
        it starts, if it ever does, and close its pipes here."""
        job.abandoned = True
        self._kill_if_started(job)
        for pipe in (job.stdout, job.stderr):
            if pipe is not None:
                pipe.close()
        job.stdout = job.stderr = None

    def _send(self, request: dict, argv: list[str], fds: list[int]) -> ServerJob | None:
        with self._lock:
            if not self._running() and not self._start_worker():
                return None
            self._next += 1
            job = self._jobs[self._next] = ServerJob(self._next, argv)
            job.worker = self._sock
            try:
                socket.send_fds(self._sock, [json.dumps({**request, "job": job.number}).encode()], fds)
            except OSError:  # too large a request, or the worker is gone
                del self._jobs[job.number]
                return None
            return job

    def _running(self) -> bool:
        return self._sock is not None and not self._gone

    def _start_worker(self) -> bool:
        if self._unusable:
            return False
        self._stop_worker()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv = python_command(self.python, SERVE_MODULE, ["--socket", str(theirs.fileno()),
                                                              *([] if self.transformers else ["--no-transformers"])])
            self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, pass_fds=[theirs.fileno()], env=self.env,
                                          **proctree.popen_kwargs())
        except (OSError, ValueError):
            ours.close()
            self._unusable = True
            return False
        finally:
            theirs.close()
        self._sock, self._gone = ours, False
        self.started_workers += 1
        threading.Thread(target=self._replies, args=(ours, self._proc), daemon=True).start()
        return True

    def _replies(self, sock: socket.socket, proc: subprocess.Popen) -> None:
        """The worker's replies: ready, each job's pid and exit. At the socket's end, its jobs are gone."""
        ready = False
        while True:
            try:
                data = sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            reply = json.loads(data)
            _count_cpu(reply.get("cpu_s", 0.0))
            if "ready" in reply:
                ready = True
                if not reply["ready"]:
                    self._unusable = True  # it cannot import what a job needs: each job says why on its own
                continue
            with self._lock:
                job = self._jobs.get(reply["job"])
            if job is None:
                continue
            if "pid" in reply:
                job.pid = reply["pid"]
                job.started.set()
                if job.abandoned:
                    self._kill_if_started(job)
            else:  # exit, or refused
                self.refused += "refused" in reply
                job.cpu_s = reply.get("cpu_s", 0.0)
                job.returncode = reply.get("exit", 1)
                self._forget(job)
        with self._lock:
            if self._sock is sock:
                self._gone = True
                self._unusable = self._unusable or not ready  # it could not start (not a Python that runs it)
            left = [j for j in self._jobs.values() if j.worker is sock]
        for job in left:  # they died with the worker (lifeline.py)
            if job.returncode is None:
                job.returncode = -proctree.SIGKILL
            self._forget(job)
        _reap(proc)  # the socket ends when the worker does: wait for it here (a worker never ready is not restarted)

    def _forget(self, job: ServerJob) -> None:
        with self._lock:
            self._jobs.pop(job.number, None)
        job.exited.set()
        job.started.set()

    def _kill_if_started(self, job: ServerJob) -> None:
        if job.pid is None:
            return
        proctree.signal_tree(job.pid, proctree.SIGKILL)
        if not job.exited.is_set():  # it may not have made its own group yet (setsid, its first step); not reaped yet
            try:
                os.kill(job.pid, proctree.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _stop_worker(self) -> None:
        proc, sock, self._proc, self._sock = self._proc, self._sock, None, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # the worker sees the end: it kills its jobs' groups and leaves
            except OSError:
                pass
            sock.close()
        if proc is not None:
            _reap(proc)

    def close(self) -> None:
        """Stop the worker and every job still running in it."""
        with self._lock:
            self._stop_worker()


def _reap(proc: subprocess.Popen, wait_s: float = 10.0) -> None:
    """Wait for the worker (SIGKILL after wait_s), its CPU taken off cpu_outside_children_rusage(): from now on
    getrusage(RUSAGE_CHILDREN) holds it and every job it waited for."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:  # someone else waited for it
            return
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            _count_cpu(-(usage.ru_utime + usage.ru_stime))
            return
        if time.monotonic() > deadline:
            proctree.signal_tree(proc.pid, proctree.SIGKILL)
            deadline = float("inf")
        time.sleep(0.01)

