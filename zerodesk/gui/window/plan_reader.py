"""Reading a big plan file off the GUI thread, so the window keeps answering while it is parsed and checked.

A plan with a tensor list can be megabytes (600,000 tensors: 12 MB); reading, validating and counting it takes a
second or more, during which the window would not repaint or take a click. A file over BACKGROUND_BYTES is read
on a worker thread, which runs only the core (document.read_plan, then the figures the charts will ask for, so
their memos are warm) and touches no Qt object; the plan comes back through a queued signal. Only the latest
request counts: a newer open, New, or closing the window supersedes one still being read.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from ...core.accounting import compute, sweep_dp
from ...core.json_files import MAX_FILE_BYTES
from ...core.plan import PlanError
from ..charts.dp_chart import dp_grid
from .document import read_plan

BACKGROUND_BYTES = 1 << 20  # a plan without a tensor list is a few kilobytes; a file this big is read aside


def reads_aside(path: str | Path) -> bool:
    """Whether path is a regular file big enough to read on the worker (one too big for a plan is refused at once)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and BACKGROUND_BYTES < info.st_size <= MAX_FILE_BYTES


class PlanReader(QObject):
    read = Signal(int, object, object, object)  # ticket, path, plan, disk state
    failed = Signal(int, object, str)  # ticket, path, one sentence

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ticket = 0
        self._reading: Path | None = None

    def start(self, path: str | Path) -> int:
        """Read path on a worker thread; its ticket, which `read` or `failed` carries back."""
        self._ticket += 1
        self._reading = Path(path)
        threading.Thread(target=self._run, args=(self._ticket, Path(path)), name="zerodesk-plan-reader",
                         daemon=True).start()  # a daemon: a window closed meanwhile never waits for it
        return self._ticket

    def cancel(self) -> bool:
        """Whatever is being read is no longer wanted: its result will be dropped. Whether something was."""
        was, self._reading = self._reading is not None, None
        self._ticket += 1
        return was

    def is_current(self, ticket: int) -> bool:
        return ticket == self._ticket

    def reading(self) -> Path | None:
        """The file being read for the window now, if any."""
        return self._reading

    def finish(self, ticket: int) -> bool:
        """The result of `ticket` arrived: whether it is still wanted (then nothing is being read any more)."""
        if ticket != self._ticket:
            return False
        self._reading = None
        return True

    def _run(self, ticket: int, path: Path) -> None:
        try:
            plan, disk = read_plan(path)
        except PlanError as exc:
            self._emit(self.failed, ticket, path, str(exc))
            return
        try:  # the torch profile's partitions and the Nd chart's sweep, memoised for the GUI thread
            compute(plan)
            sweep_dp(plan, dp_grid(plan.dp))
        except Exception:  # noqa: BLE001 - a plan that cannot be computed: the window says why when it shows it
            pass
        self._emit(self.read, ticket, path, plan, disk)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the window, and this reader with it, was destroyed meanwhile
            pass
