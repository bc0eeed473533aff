"""Run a measurement as a subprocess and read its protocol lines. Torch-free (the CLI's side).

measure_command() is the argv the GUI hands to QProcess as well; run_measure() starts it in its
own session (process group), yields decoded messages as they arrive, and on an error, a
timeout, a cancel or a garbage line kills the whole group, so no rank outlives the run.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Iterator, Sequence

from ..core.plan import Plan
from ..core.text import shorten
from . import proctree
from .child import PROJECT_ROOT  # noqa: F401 (re-exported: where our package lives)
from .child import PLAN_FILE_FLAG, forget_plan_file, python_command, write_plan_file
from .lifeline import PARENT_ENV
from .protocol import Error, Message, Scale, Started
from .reader import ProtocolReader

if TYPE_CHECKING:
    from .job_server import JobServer, ServerJob


def measure_command(
    plan: Plan,
    stages: Sequence[int] = (0, 1, 2, 3),
    ranks: int | None = 2,
    device: str = "auto",
    scale: Scale | None = None,
    python: str | None = None,
    samples: bool = True,
    collective_timeout: float | None = None,
    by_module: bool = False,
) -> list[str]:
    """argv that measures `stages` with `ranks` local ranks: the launcher in an isolated Python (child.py).

    ranks None: the launcher's default (the plan's Nd, at most 2, one per GPU), decided with the device.
    The plan goes in a private temporary file that the launcher reads and deletes, not on the command line."""
    args = ["--device", device, PLAN_FILE_FLAG, write_plan_file(plan.model_dump_json(exclude_none=True)),
            "--stage", ",".join(str(s) for s in stages), "--scale-json", (scale or Scale()).model_dump_json()]
    if ranks is not None:
        args[:0] = ["--ranks", str(ranks)]
    if not samples:
        args.append("--no-samples")
    if collective_timeout is not None:
        args += ["--collective-timeout", f"{collective_timeout:g}"]
    if by_module:
        args.append("--by-module")
    return python_command(python or sys.executable, "zerodesk.measure.worker.launcher", args)


def simulate_command(plan: Plan, stages: Sequence[int] = (0, 1, 2, 3), python: str | None = None,
                     backend: str = "nccl", by_module: bool = False) -> list[str]:
    """argv that simulates rank 0 of plan.dp ranks under fake tensors: zerodesk.measure.worker.simulate, isolated (child.py).

    One process, no launcher; MeasureRun reads it like a measurement (its lines carry source="simulated")."""
    args = [PLAN_FILE_FLAG, write_plan_file(plan.model_dump_json(exclude_none=True)),
            "--stage", ",".join(str(s) for s in stages), "--dp", str(plan.dp), "--backend", backend]
    if by_module:
        args.append("--by-module")
    return python_command(python or sys.executable, "zerodesk.measure.worker.simulate", args)


def measure_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the subprocess: one thread per rank, and who it must not outlive.

    (Isolated mode ignores PYTHON* variables; child.py puts our package on the path explicitly.)"""
    env = dict(os.environ if base is None else base)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONUNBUFFERED"] = "1"
    env[PARENT_ENV] = str(os.getpid())
    return env


def signal_group(pgid: int, sig: int = proctree.SIGKILL) -> None:
    """Signal every process of a run started as its own tree (pgid = the launcher's pid); for QProcess users."""
    proctree.signal_tree(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process of the run's tree is left."""
    return proctree.tree_alive(pgid)


def kill_group(proc: subprocess.Popen, grace_s: float = 1.0, settle_s: float = 10.0) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left; reap the leader and wait for the ranks to go.

    A signal or Ctrl+C arriving meanwhile cuts the waiting short, never the stop: the group gets SIGKILL first."""
    try:
        for sig in (proctree.SIGTERM, proctree.SIGKILL):
            signal_group(proc.pid, sig)
            if sig == proctree.SIGTERM:
                try:
                    proc.wait(timeout=grace_s)
                except subprocess.TimeoutExpired:
                    pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        # a SIGKILLed rank takes a moment to leave; one holding GPU memory waits for the driver to free it
        deadline = time.monotonic() + settle_s
        while group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
    except BaseException:
        signal_group(proc.pid, proctree.SIGKILL)
        raise


MAX_STDERR_LINE = 1 << 16  # a longer line without a newline is kept by its tail


def _chunks(pipe, stopped: threading.Event) -> Iterator[bytes]:
    """What a raw pipe gives, as it comes (up to 64 KiB a read), until its end or the run has stopped.

    Only the thread reading a pipe closes it: closing it from another thread while a read waits would
    block (a buffered reader's lock) or hand the descriptor's number to the next file opened. A process
    still writing after the run stopped meets a closed pipe at its next write, not a growing queue."""
    try:
        while not stopped.is_set() and (chunk := pipe.read(1 << 16)):
            yield chunk
    except (OSError, ValueError):
        pass
    finally:
        pipe.close()


def _pump(pipe, chunks: "queue.Queue[bytes]", stopped: threading.Event) -> None:
    """Move a child's stdout into `chunks`, b"" at its end. A thread, not select(): portable."""
    for chunk in _chunks(pipe, stopped):
        chunks.put(chunk)
    chunks.put(b"")


class MeasureRun:
    """One measuring subprocess; iterate it for messages. `pid` is also its process-group id."""

    def __init__(self, argv: list[str], timeout: float = 600.0, env: dict[str, str] | None = None,
                 cancel: threading.Event | None = None, server: "JobServer | None" = None) -> None:
        """server: a warm worker (job_server.py) that forks the job where it can give the same start."""
        self.argv, self.timeout, self.cancel_event, self.server = argv, timeout, cancel or threading.Event(), server
        self.env = measure_env(env)
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self.proc: subprocess.Popen | ServerJob | None = None
        self._stopped = threading.Event()  # the run has ended: its pipes' threads read no more

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def cancel(self) -> None:
        self.cancel_event.set()

    def _drain_stderr(self, err) -> None:
        """Keep the child's last stderr lines (a partial line at most MAX_STDERR_LINE bytes) for an error message."""
        partial = b""
        for chunk in _chunks(err, self._stopped):
            *lines, partial = (partial + chunk).split(b"\n")
            partial = partial[-MAX_STDERR_LINE:]
            for raw in lines:
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    self.stderr_tail.append(line)
        if partial.strip():
            self.stderr_tail.append(partial.decode("utf-8", errors="replace").rstrip())

    def _last_stderr(self) -> str:
        """The most telling stderr line: the last exception line, else the last line."""
        lines = list(self.stderr_tail.copy())  # copy(): atomic while the drain thread may still append
        for line in reversed(lines):
            if "Error" in line.split(":")[0] or "Exception" in line.split(":")[0]:
                return line.strip()
        return lines[-1].strip() if lines else "no output"

    def _start(self) -> "subprocess.Popen | ServerJob":
        job = None
        if self.server is not None:
            job = self.server.start(self.argv, self.env, give_up=self.cancel_event, wait_s=self.timeout)
        # bufsize=0: the pipes are raw files, read without the lock a buffered reader holds while it waits
        return job or subprocess.Popen(self.argv, bufsize=0, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=self.env, **proctree.popen_kwargs())

    def __iter__(self) -> Iterator[Message]:
        try:
            self.proc = self._start()
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            forget_plan_file(self.argv)
            yield Error(code="launcher_failed",
                        message=f"could not start {shorten(self.argv[0], 200)}: {shorten(getattr(exc, 'strerror', None) or exc, 200)}")
            return
        # From here on the run's group is stopped however this ends: a signal's SystemExit may land while the
        # reading threads start (each start waits for its thread to run; on a loaded machine, long enough for a
        # signal sent as soon as the run's processes appear), and the group must not outlive the CLI then either.
        try:
            # Each pipe belongs to its reading thread, which closes it at its end: a process that left the run's
            # group may hold it open for minutes, and stopping the run must never wait for that.
            out, err = self.proc.stdout, self.proc.stderr
            self.proc.stdout = self.proc.stderr = None
            self._chunks: queue.Queue[bytes] = queue.Queue()
            threading.Thread(target=_pump, args=(out, self._chunks, self._stopped), daemon=True).start()
            self._drain = threading.Thread(target=self._drain_stderr, args=(err,), daemon=True)
            self._drain.start()
            yield from self._read()
        finally:
            self._stopped.set()
            try:
                kill_group(self.proc)
            finally:
                forget_plan_file(self.argv)

    def _read(self) -> Iterator[Message]:
        chunks = self._chunks
        deadline = time.monotonic() + self.timeout
        reader, started, exited_at = ProtocolReader(), False, None
        while reader.outcome is None:
            now = time.monotonic()
            if self.cancel_event.is_set():
                yield Error(code="cancelled", message="the measurement was cancelled")
                return
            if now > deadline:
                yield Error(code="timeout",
                            message=f"the measurement did not finish within {self.timeout:g} s and was stopped")
                return
            if self.proc.poll() is not None:  # leader gone: ranks that still hold stdout get a short grace
                exited_at = exited_at or now
                if now - exited_at > 2.0:
                    break
            try:
                chunk = chunks.get(timeout=min(0.1, max(0.0, deadline - now)))
            except queue.Empty:
                continue
            if not chunk:
                break  # end of output
            for msg in reader.feed(chunk):
                started = started or isinstance(msg, Started)
                yield msg
        if reader.outcome is not None:
            return  # Done: finished; Error: the other ranks have nothing left to say
        for msg in reader.finish():  # a last line without its newline
            started = started or isinstance(msg, Started)
            yield msg
        if reader.outcome is not None:
            return
        code = self.proc.wait()
        self._drain.join(timeout=1.0)  # let the last stderr lines in before quoting them
        what = "the measurement could not start" if not started else "the measurement stopped before finishing"
        yield Error(code="launcher_failed" if not started else "worker_crashed",
                    message=f"{what} (exit status {code}): {self._last_stderr()}")


def run_measure(
    plan: Plan,
    stages: Sequence[int] = (0, 1, 2, 3),
    ranks: int | None = 2,
    device: str = "auto",
    scale: Scale | None = None,
    *,
    timeout: float = 600.0,
    python: str | None = None,
    env: dict[str, str] | None = None,
    cancel: threading.Event | None = None,
    samples: bool = True,
    by_module: bool = False,
    server: "JobServer | None" = None,
) -> Iterator[Message]:
    """Measure and yield protocol messages; ends after Done or one Error. Closing the generator kills the run."""
    # a collective that waits this long fails on its own, naming the rank, before the run's watchdog fires
    argv = measure_command(plan, stages, ranks, device, scale, python, samples, collective_timeout(timeout), by_module)
    yield from MeasureRun(argv, timeout, env, cancel, server)


def collective_timeout(run_timeout: float) -> float:
    """The ranks' collective timeout for a run stopped after `run_timeout` s: well inside it, at least 10 s."""
    return max(10.0, min(0.8 * run_timeout, run_timeout - 15.0))
