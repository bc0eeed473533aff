"""A measuring run as Qt sees it: protocol lines in, Qt signals out; never blocks the GUI thread.

The launcher (zerodesk.measure.runner.measure_command) starts in its own session, so its pid is
also the process group of every rank it forks: as its own Python under QProcess, or forked by a warm
worker when one is given (leaders.py says both). Whatever ends the run (Done, an Error line, a
line that is not protocol, an unexpected exit, the watchdog, Cancel) ends it the same way:
SIGTERM to the whole group, SIGKILL a second later to whatever is left, polled from a timer;
`finished` comes only once no process of the group is alive. Torch-free: it imports only the
protocol and the runner.
"""

from __future__ import annotations

import os
import signal
import time
from collections import deque
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ...measure.protocol import Done, Error, Message, PhaseMsg, Result, Sample, Started
from ...measure.reader import ProtocolReader
from ...measure.runner import group_alive, measure_env, signal_group
from .leaders import FreshPython, WarmJob

if TYPE_CHECKING:
    from ...measure.job_server import JobServer

KILL_AFTER_S = 1.0  # SIGTERM first; SIGKILL this long after
DONE_GRACE_S = 1.0  # after Done the launcher leaves by itself; stop it only if it lingers
GIVE_UP_S = 6.0  # a process that survives SIGKILL this long (uninterruptible sleep): stop waiting
POLL_MS = 50


def last_stderr(lines) -> str:
    """The most telling stderr line: the last exception line, else the last line (as the runner does)."""
    lines = [line for line in lines if line.strip()]
    for line in reversed(lines):
        head = line.split(":")[0]
        if "Error" in head or "Exception" in head:
            return line.strip()
    return lines[-1].strip() if lines else ""


class RunProcess(QObject):
    """One measuring run. Connect the signals, then start(argv). Not reusable: make one per run."""

    message = Signal(object)  # every protocol message, in order (the outcome comes last): feed a RunState
    startedMsg = Signal(object)  # Started
    phase = Signal(object)  # PhaseMsg
    sample = Signal(object)  # Sample
    result = Signal(object)  # Result
    done = Signal(object)  # Done
    failed = Signal(object)  # Error: from a rank, or made here (garbage, exit, watchdog, cancel); at most once
    stderrLine = Signal(str)
    stopping = Signal()  # the run has its outcome; its processes are being stopped
    finished = Signal()  # every process of the run is gone

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.leader: FreshPython | WarmJob | None = None
        self.argv: list[str] = []
        self.pgid: int | None = None
        self.outcome: Done | Error | None = None
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self.seen_started = False
        self.is_finished = False
        self.stopped_in_s: float | None = None  # from the first signal sent to the group to nothing left
        self.gave_up = False  # a process survived SIGKILL for GIVE_UP_S (uninterruptible sleep): we stopped waiting
        self._reader = ProtocolReader()
        self._env: dict[str, str] = {}
        self._err = b""
        self._stop_at: float | None = None
        self._term_sent = self._kill_sent = False
        self._signal_at = 0.0
        self._watchdog = QTimer(self)
        self._watchdog.setSingleShot(True)
        self._watchdog.setTimerType(Qt.TimerType.PreciseTimer)  # "within N s" must not fire early
        self._watchdog.timeout.connect(self._on_watchdog)
        self._timeout_s = 0.0
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._reap_step)

    # -- control ---------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The launcher's pid (also its session and process-group id), or None before it started."""
        return self.pgid

    @property
    def warm(self) -> bool:
        """Whether the run was forked by a warm worker (not started as its own Python)."""
        return isinstance(self.leader, WarmJob)

    def is_running(self) -> bool:
        return bool(self.argv) and not self.is_finished

    def start(self, argv: list[str], env: dict[str, str] | None = None, timeout_s: float = 600.0,
              server: "JobServer | None" = None) -> None:
        """Start argv (from measure_command) in a new session; env overrides the process environment.

        server: a warm worker that forks the launcher where it can give the same start (else its own Python)."""
        if self.argv:
            raise RuntimeError("a RunProcess runs once; make a new one")
        self.argv = list(argv)
        self._env = measure_env({**os.environ, **(env or {})})
        self._timeout_s = timeout_s
        self._watchdog.start(int(timeout_s * 1000))
        job = server.submit(self.argv, self._env) if server is not None else None
        if job is None:
            self._start_fresh()
            return
        self.leader = self._follow(WarmJob(server, job, self))
        self.leader.forked.connect(lambda _pid: self._take_pid())
        self.leader.notTaken.connect(self._start_fresh)

    def _start_fresh(self) -> None:
        if self.outcome is not None:
            return  # the run ended (cancelled) before its warm worker answered
        if self.leader is not None:
            self.leader.deleteLater()  # the warm worker did not take it
        self.leader = self._follow(FreshPython(self))
        self.leader.start(self.argv, self._env)
        self.pgid = self.leader.pid

    def _follow(self, leader: FreshPython | WarmJob) -> FreshPython | WarmJob:
        leader.stdout.connect(self._on_stdout)
        leader.stderr.connect(self._on_stderr)
        leader.exited.connect(self._on_exit)
        leader.failedToStart.connect(self._on_failed_start)
        return leader

    def cancel(self) -> None:
        """Stop the run (asynchronously); `failed` says it was cancelled unless it had ended already."""
        self._conclude(Error(code="cancelled", message=self.tr("the measurement was cancelled")))

    def kill_now(self) -> None:
        """SIGKILL the whole group at once (the application is quitting: no time for grace)."""
        if self.is_finished:
            return
        self._take_pid()
        if self.pgid:
            signal_group(self.pgid, signal.SIGKILL)
            self._kill_sent = True
        else:  # a warm job not forked yet: it never will be, and the run ends now
            self.cancel()

    def _take_pid(self) -> None:
        if self.pgid is None and self.leader is not None and self.leader.pid is not None:
            self.pgid = self.leader.pid

    # -- reading ------------------------------------------------------------------------------------
    def _on_stdout(self, data: bytes) -> None:
        self._take_pid()
        self._dispatch(self._reader.feed(data))

    def _dispatch(self, messages: list[Message]) -> None:
        for msg in messages:
            if self.outcome is not None:
                return  # the run has its outcome; the rest is noise from ranks being stopped
            if isinstance(msg, (Done, Error)):  # Error: the other ranks have nothing left to say
                self._conclude(msg)
                return
            self.message.emit(msg)
            if isinstance(msg, Started):
                self.seen_started = True
                self.startedMsg.emit(msg)
            elif isinstance(msg, PhaseMsg):
                self.phase.emit(msg)
            elif isinstance(msg, Sample):
                self.sample.emit(msg)
            elif isinstance(msg, Result):
                self.result.emit(msg)

    def _on_stderr(self, data: bytes) -> None:
        self._err += data
        *lines, self._err = self._err.split(b"\n")
        for raw in lines:
            text = raw.decode("utf-8", errors="replace").rstrip()
            if text:
                self.stderr_tail.append(text)
                self.stderrLine.emit(text)

    # -- endings ----------------------------------------------------------------------------------
    def _on_failed_start(self, reason: str) -> None:
        self._conclude(Error(code="launcher_failed", message=self.tr("could not start {program}: {reason}").format(
            program=self.argv[0] if self.argv else "?", reason=reason)))

    def _on_exit(self, code: int) -> None:
        self._take_pid()
        if self._err.strip():
            self._on_stderr(b"\n")
        if self.outcome is None:
            self._dispatch(self._reader.finish())  # a last line without its newline
        if self.outcome is None:
            what = (self.tr("the measurement stopped before finishing") if self.seen_started
                    else self.tr("the measurement could not start"))
            why = last_stderr(self.stderr_tail) or self.tr("no output")
            self._conclude(Error(code="worker_crashed" if self.seen_started else "launcher_failed",
                                 message=self.tr("{what} (exit status {code}): {why}").format(what=what, code=code, why=why)))
        self._reap_step()

    def _on_watchdog(self) -> None:
        self._conclude(Error(code="timeout", message=self.tr(
            "the measurement did not finish within {s} s and was stopped").format(s=f"{self._timeout_s:g}")))

    def _conclude(self, msg: Done | Error) -> None:
        """The run's outcome is known (first one wins): report it and stop every process of the run."""
        if self.outcome is not None or self.is_finished:
            return
        self.outcome = msg
        self._watchdog.stop()
        self.message.emit(msg)
        if isinstance(msg, Done):
            self.done.emit(msg)
        else:
            self.failed.emit(msg)
        self.stopping.emit()
        self._take_pid()
        if self.leader is None or (self.pgid is None and (self.leader.forget() or not self.leader.running())):
            self._finish()  # nothing was ever started (a warm job not forked yet never will be)
            return
        grace = DONE_GRACE_S if isinstance(msg, Done) else 0.0
        self._stop_at = time.monotonic() + grace
        self._reap_step()
        if not self.is_finished:
            self._poll.start()

    def _reap_step(self) -> None:
        """One non-blocking step of stopping the group: TERM, then KILL, until nothing is left."""
        if self.outcome is None or self.is_finished or self._stop_at is None:
            return
        now = time.monotonic()
        self._take_pid()
        pgid = self.pgid
        leader_gone = not self.leader.running()
        alive = pgid is not None and group_alive(pgid)
        if leader_gone and not alive:
            self._finish()
            return
        if pgid is None:
            return
        if now >= self._stop_at and not self._term_sent:
            self._term_sent = True
            self._signal_at = now
            signal_group(pgid, signal.SIGTERM)
        elif self._term_sent and not self._kill_sent and now >= self._signal_at + KILL_AFTER_S:
            self._kill_sent = True
            signal_group(pgid, signal.SIGKILL)
        elif self._kill_sent and now >= self._signal_at + GIVE_UP_S:
            self.gave_up = True
            self.stderrLine.emit(self.tr("gave up after SIGKILL: some processes of the run did not stop (group {pgid})").format(
                pgid=pgid))
            self._finish()

    def _finish(self) -> None:
        if self.is_finished:
            return
        self.is_finished = True
        if self.leader is not None:
            self.leader.close()
        self._poll.stop()
        self._watchdog.stop()
        if self._term_sent:
            self.stopped_in_s = time.monotonic() - self._signal_at
        self.finished.emit()
