"""Start-up work the first frame does not show: done an event-loop turn after the window is first painted.

The first frame holds the form with the plan and the stage chart with its computed states; what
waits (the Nd chart's lines, the window icon, the keyboard filter) arrives right after it. Whoever
needs it all at once (a screenshot, an export) calls flush().
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from ... import start_collector
from ..base.first_paint import after_first_paint


class DeferredStart(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._jobs: list[Callable[[], object]] = []
        self._done = False
        after_first_paint(window, self.flush)

    def add(self, job: Callable[[], object]) -> None:
        """Run `job` after the first paint (now, if that has passed)."""
        if self._done:
            job()
        else:
            self._jobs.append(job)

    def flush(self) -> None:
        """Run what is still waiting, in the order it was added; later calls do nothing."""
        self._done = True
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            job()
        start_collector.release()  # everything is in place: what the start made is frozen, the collector runs as usual

    def is_done(self) -> bool:
        return self._done
