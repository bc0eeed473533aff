"""One run at a time, simulated or measured: the process and its RunState, with signals and no widgets.

The tab asks it to start a RunJob and renders what it says; the main window listens to it to put
results on the Plan chart. It holds no reference to either.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...core.plan import Plan
from ...measure.protocol import Done, Error, Message, Sample, Scale
from ...measure.run_state import RunState
from ...measure.runner import collective_timeout, measure_command, simulate_command
from ..base import i18n
from .process import RunProcess
from .warm import warm_server

if TYPE_CHECKING:
    from ...measure.job_server import JobServer


@dataclass(frozen=True)
class RunJob:
    """What to run: a measurement on `ranks` local ranks, or a simulation of rank 0 of plan.dp."""

    kind: str  # "measured" or "simulated"
    plan: Plan  # as planned; a measurement scales it down by `scale`
    stages: tuple[int, ...]
    ranks: int
    device: str = "cpu"
    scale: Scale = field(default_factory=Scale)
    python: str = ""
    timeout_s: float = 600.0
    env: dict[str, str] = field(default_factory=dict)
    warm: bool = False  # its Python is known to run the worker: start it in that Python's warm worker (warm.py)

    def argv(self) -> list[str]:
        plan = self.plan.model_copy(update={"evidence": None})  # the worker needs the shapes, not the file's evidence
        if self.kind == "simulated":
            return simulate_command(plan, self.stages, python=self.python or None, by_module=True)
        return measure_command(plan, self.stages, self.ranks, self.device, self.scale, python=self.python or None,
                               samples=True, collective_timeout=collective_timeout(self.timeout_s), by_module=True)

    @property
    def on_chart(self) -> bool:
        """Whether its results belong beside the plan's bars: full size, and Nd ranks (a simulation always is)."""
        return self.kind == "simulated" or (self.scale.identity and self.ranks == self.plan.dp)


class RunController(QObject):
    runStarted = Signal()
    changed = Signal()  # the RunState took a message
    sample = Signal(object)  # a live memory Sample (the timeline draws them)
    logLine = Signal(str)  # stderr of the ranks, and what was done to stop them
    stopping = Signal()  # the run has its outcome; its processes are being stopped
    runFinished = Signal(bool)  # every process of the run is gone; True when it ended with Done

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job: RunJob | None = None
        self.state = RunState()
        self.process: RunProcess | None = None
        self.started_at = 0.0
        self.server: JobServer | None = None  # a warm worker given by use_server(), for every run it can take
        self.warm = True  # runs of a ready interpreter start in the application's warm worker; False: their own Python

    def use_server(self, server: "JobServer | None") -> None:
        """Start runs in this warm worker where it can take them (its owner closes it), not in the application's."""
        self.server = server

    def _server_for(self, job: RunJob) -> "JobServer | None":
        if self.server is not None:
            return self.server
        return warm_server(job.python or sys.executable) if self.warm and job.warm else None

    def is_running(self) -> bool:
        return self.process is not None and not self.process.is_finished

    def is_stopping(self) -> bool:
        return self.is_running() and self.process.outcome is not None

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started_at if self.job is not None else 0.0

    def start(self, job: RunJob) -> bool:
        """Start `job` (False while another run is under way)."""
        if self.is_running():
            return False
        if self.process is not None:
            self.process.deleteLater()  # the previous run's, finished
        self.job = job
        self.state = RunState(list(job.stages), 1 if job.kind == "simulated" else job.ranks, job.kind)
        proc = RunProcess(self)
        proc.message.connect(self._on_message)
        proc.stderrLine.connect(self.logLine)
        proc.stopping.connect(self.stopping)
        proc.finished.connect(self._on_finished)
        self.process = proc
        self.started_at = time.monotonic()
        self.runStarted.emit()
        proc.start(job.argv(), job.env, float(job.timeout_s), self._server_for(job))
        return True

    def cancel(self) -> None:
        if self.is_running():
            self.logLine.emit(self.tr("Cancel: stopping every process of the run (SIGTERM, then SIGKILL after 1 s)."))
            self.process.cancel()

    def kill_now(self) -> None:
        """The application is going away: SIGKILL the whole run at once."""
        if self.is_running():
            self.process.kill_now()

    def _on_message(self, msg: Message) -> None:
        if isinstance(msg, Sample):
            self.state.apply(msg)
            self.sample.emit(msg)
            return
        if isinstance(msg, Error):
            self.logLine.emit(self.tr("Error ({code}): {message}").format(code=msg.code, message=msg.message))
        elif isinstance(msg, Done):
            self.logLine.emit(self.tr("Done in {wall}.").format(wall=i18n.fmt_seconds(msg.wall_s or 0.0)))
        if self.state.apply(msg):
            self.changed.emit()

    def _on_finished(self) -> None:
        proc = self.process
        if proc.gave_up:
            pass  # the process said so on stderrLine already
        elif proc.stopped_in_s is not None:
            self.logLine.emit(self.tr("Every process of the run stopped {s} after the first signal.").format(
                s=i18n.fmt_seconds(proc.stopped_in_s)))
        else:
            self.logLine.emit(self.tr("Every process of the run has exited."))
        if self.state.outcome is None:  # cannot happen: the process concludes before it finishes
            self.state.apply(Error(code="internal", message="the run ended without an outcome"))
        self.changed.emit()
        self.runFinished.emit(self.state.succeeded)
