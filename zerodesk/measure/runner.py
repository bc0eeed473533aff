"""Run a measurement as a subprocess and read its protocol lines. Torch-free (the CLI's side).

measure_command() is the argv the GUI hands to QProcess as well; run_measure() starts it in its
own session (process group), yields decoded messages as they arrive, and on an error, a
timeout, a cancel or a garbage line kills the whole group, so no rank outlives the run.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Iterator, Sequence

from ..core.plan import Plan
from .protocol import Done, Error, Message, ProtocolError, Scale, Started, decode

PROJECT_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the zerodesk package


def measure_command(
    plan: Plan,
    stages: Sequence[int] = (0, 1, 2, 3),
    ranks: int = 2,
    device: str = "auto",
    scale: Scale | None = None,
    python: str | None = None,
    samples: bool = True,
) -> list[str]:
    """argv that measures `stages` with `ranks` local ranks: [python, -m, zerodesk.measure.launcher, ...]."""
    argv = [python or sys.executable, "-m", "zerodesk.measure.launcher", "--ranks", str(ranks), "--device", device,
            "--plan-json", plan.model_dump_json(exclude_none=True), "--stage", ",".join(str(s) for s in stages),
            "--scale-json", (scale or Scale()).model_dump_json()]
    if not samples:
        argv.append("--no-samples")
    return argv


def simulate_command(plan: Plan, stages: Sequence[int] = (0, 1, 2, 3), python: str | None = None,
                     backend: str = "nccl") -> list[str]:
    """argv that simulates rank 0 of plan.dp ranks under fake tensors: [python, -m, zerodesk.measure.simulate, ...].

    One process, no launcher; MeasureRun reads it like a measurement (its lines carry source="simulated")."""
    return [python or sys.executable, "-m", "zerodesk.measure.simulate", "--plan-json",
            plan.model_dump_json(exclude_none=True), "--stage", ",".join(str(s) for s in stages), "--dp", str(plan.dp),
            "--backend", backend]


def measure_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the subprocess: our package importable, one thread per rank, unbuffered."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PROJECT_ROOT, env.get("PYTHONPATH", "")) if p)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def host_available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (None where unknown): CPU ranks must not exhaust the host."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def signal_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal every process of a run started in its own session (pgid = the launcher's pid); for QProcess users."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process of the group is left (read from /proc; elsewhere ask the kernel)."""
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(pgid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] not in "ZX":
            return True
    return False


def kill_group(proc: subprocess.Popen, grace_s: float = 1.0, settle_s: float = 2.0) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left; reap the leader and wait for the ranks to go."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        signal_group(proc.pid, sig)
        if sig == signal.SIGTERM:
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + settle_s  # a SIGKILLed rank takes a moment to leave
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)


class MeasureRun:
    """One measuring subprocess; iterate it for messages. `pid` is also its process-group id."""

    def __init__(self, argv: list[str], timeout: float = 600.0, env: dict[str, str] | None = None,
                 cancel: threading.Event | None = None) -> None:
        self.argv, self.timeout, self.cancel_event = argv, timeout, cancel or threading.Event()
        self.env = measure_env(env)
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self.proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def cancel(self) -> None:
        self.cancel_event.set()

    def _drain_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip()
            if line:
                self.stderr_tail.append(line)

    def _last_stderr(self) -> str:
        """The most telling stderr line: the last exception line, else the last line."""
        lines = list(self.stderr_tail)
        for line in reversed(lines):
            if "Error" in line.split(":")[0] or "Exception" in line.split(":")[0]:
                return line.strip()
        return lines[-1].strip() if lines else "no output"

    def __iter__(self) -> Iterator[Message]:
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=self.env, start_new_session=True)
        except OSError as exc:
            yield Error(code="launcher_failed", message=f"could not start {self.argv[0]}: {exc.strerror or exc}")
            return
        self._drain = threading.Thread(target=self._drain_stderr, daemon=True)
        self._drain.start()
        try:
            yield from self._read()
        finally:
            kill_group(self.proc)
            self._drain.join(timeout=2)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream:
                    stream.close()

    def _read(self) -> Iterator[Message]:
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        os.set_blocking(fd, False)
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + self.timeout
        buffer, started, exited_at = b"", False, None
        while True:
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
            eof = False
            if sel.select(timeout=min(0.1, max(0.0, deadline - now))):
                chunk = os.read(fd, 1 << 16)
                eof = not chunk
                buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                try:
                    msg = decode(line)
                except ProtocolError as exc:
                    yield Error(code="internal", message=str(exc))
                    return
                started = started or isinstance(msg, Started)
                yield msg
                if isinstance(msg, (Error, Done)):
                    return  # done: finished; error: the other ranks have nothing left to say
            if eof:
                break
        if buffer.strip():
            try:
                yield decode(buffer)
            except ProtocolError as exc:
                yield Error(code="internal", message=str(exc))
            return
        code = self.proc.wait()
        self._drain.join(timeout=1.0)  # let the last stderr lines in before quoting them
        what = "the measurement could not start" if not started else "the measurement stopped before finishing"
        yield Error(code="launcher_failed" if not started else "worker_crashed",
                    message=f"{what} (exit status {code}): {self._last_stderr()}")


def run_measure(
    plan: Plan,
    stages: Sequence[int] = (0, 1, 2, 3),
    ranks: int = 2,
    device: str = "auto",
    scale: Scale | None = None,
    *,
    timeout: float = 600.0,
    python: str | None = None,
    env: dict[str, str] | None = None,
    cancel: threading.Event | None = None,
    samples: bool = True,
) -> Iterator[Message]:
    """Measure and yield protocol messages; ends after Done or one Error. Closing the generator kills the run."""
    yield from MeasureRun(measure_command(plan, stages, ranks, device, scale, python, samples), timeout, env, cancel)
