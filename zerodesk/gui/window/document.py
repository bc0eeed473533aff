"""Plan files for the window: the document state (path, saved plan, what the disk held), file dialogs, recent files.

Reading and writing go through the core (read_observed / save_plan, which writes atomically), so the window and
`zerodesk plan` read and write exactly the same files. The document remembers what the file was when it was last
read or written here (core.disk_state.DiskState), so a change made on disk by another program or window, whatever
it changed into (other bytes of any size, a symlink elsewhere, a FIFO, a device, a folder, nothing), is noticed:
while the file is open (diskChanged) and before a save overwrites it (core's FileChangedOnDisk, nothing written).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ...core.disk_state import Change, DiskState, change_since, observe
from ...core.plan import (
    PLAN_SUFFIX,
    FileChangedOnDisk,
    Plan,
    PlanError,
    SaveReport,
    load_plan_observed,
    save_plan,
    sweep_stale_temps,
)
from ...core.text import shorten
from ..base.settings import Settings

__all__ = ["PlanDocument", "FileChangedOnDisk", "Change", "safe_resolve", "display_name", "with_plan_suffix"]

POLL_MS = 2000


def _stat(path: Path | None) -> tuple | None:
    """What a change to the file changes: where it leads, inode, size, modification time (None if it is not there)."""
    try:
        st = os.stat(path) if path is not None else None
        return None if st is None else (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    except (OSError, ValueError):
        return None


def _fingerprint(plan: Plan) -> Plan:
    """What a saved file would hold: the plan itself, compared by value (field by field; a tensor list the form
    keeps is a pass over the same objects), not a JSON dump of it at every edit."""
    return plan


def _change_key(change: Change | None) -> tuple | None:
    """One change as a value: a change is announced once, a further one (other bytes, another kind) again."""
    if change is None:
        return None
    now = change.now
    return change.kind, now.kind, now.real, now.size, now.identity


def read_plan(path: str | Path) -> tuple[Plan, DiskState]:
    """(plan, what the file was when read); PlanError (one sentence) for anything that goes wrong. Qt-free: the
    window reads a big file on a worker thread with it."""
    try:
        return load_plan_observed(Path(path))
    except PlanError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a hostile file provokes is still one sentence
        raise PlanError(f"cannot open plan file {shorten(path, 200)}: {shorten(exc, 120) or type(exc).__name__}") from None


def _lexists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return True  # a name no file can have: nothing to take off the recent list


def safe_resolve(path: str | Path) -> Path:
    """Path.resolve() that never raises (symlink loops, names too long): the absolute path instead."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        return Path(os.path.abspath(path))


def plan_filter() -> str:
    return QCoreApplication.translate("Files", "ZeroDesk plans (*{suffix})").format(suffix=PLAN_SUFFIX)


def with_plan_suffix(path: str | Path) -> Path:
    path = Path(path)
    if path.name.endswith(PLAN_SUFFIX):
        return path
    if path.suffix == ".json":
        path = path.with_suffix("")
    return path.with_name(path.name + PLAN_SUFFIX)


def display_name(path: Path | None) -> str:
    if path is None:
        return QCoreApplication.translate("Files", "Untitled")
    return path.name


class PlanDocument(QObject):
    """Which file the plan belongs to, what was last saved there (to tell unsaved changes) and what the disk held."""

    pathChanged = Signal(object)
    recentChanged = Signal(list)
    diskChanged = Signal(object)  # a core.disk_state.Change: the open file changed on disk, not by this window

    def __init__(self, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.path: Path | None = None
        self._saved: Plan | None = None  # _fingerprint() of the plan last read or written
        self._disk: DiskState | None = None  # what path was when this window last read or wrote it
        self._found: Change | None = None  # the change on disk last found since then (None: the disk holds _disk)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(lambda _p: self._settle.start())
        self._settle = QTimer(self)  # a save elsewhere is several events (write, rename): look once they settle
        self._settle.setSingleShot(True)
        self._settle.setInterval(150)
        self._settle.timeout.connect(self.check_disk)
        # The watcher can miss a change (a rename racing our own re-watch, file systems without inotify):
        # look again every few seconds while a file is open, by its stat first (a read only when it moved).
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._poll_disk)
        self._stat: tuple | None = None

    def mark_saved(self, plan: Plan | None, path: Path | None, disk: DiskState | None = None) -> None:
        """The window shows `plan` as saved in `path` (None: no file); `disk`: what the file was when plan was read
        from it or written to it (looked at now when not given)."""
        self.path = path
        self._saved = _fingerprint(plan) if plan is not None else None
        self._disk = disk if disk is not None or path is None else observe(path)
        self._found = None
        self._watch(path)
        self._stat = _stat(path)
        if path is None:
            self._poll.stop()
        else:
            self._poll.start()
        self.pathChanged.emit(path)

    def is_modified(self, plan: Plan | None, form_valid: bool = True) -> bool:
        if not form_valid:
            return True  # half-typed input is a change the user would lose
        if plan is None:
            return False
        return _fingerprint(plan) != self._saved

    def read(self, path: str | Path) -> tuple[Plan, DiskState]:
        """(plan, what the file was when read) of a plan file, claiming nothing; PlanError (one sentence) for anything
        that goes wrong."""
        try:
            return read_plan(path)
        except PlanError:
            self.forget_if_gone(path)
            raise

    def forget_if_gone(self, path: str | Path) -> None:
        """A file that could not be read because it no longer exists leaves the recent list."""
        if not _lexists(Path(path)):
            self.remove_recent(Path(path))

    def claim(self, plan: Plan, path: str | Path, disk: DiskState) -> None:
        """The window now shows plan from path: remember the file and put it first in the recent list."""
        self.mark_saved(plan, safe_resolve(path), disk)
        self.add_recent(Path(path))
        sweep_stale_temps(safe_resolve(path).parent)  # a save here that was killed midway left its temp

    def open(self, path: str | Path) -> Plan:
        """Read and claim a plan file; PlanError (one sentence) if it cannot be read. Updates the recent list."""
        plan, disk = self.read(path)
        self.claim(plan, path, disk)
        return plan

    def expected(self, path: str | Path) -> DiskState | None:
        """What a save to path must find there to overwrite it without asking: what this window last read or wrote,
        when path is the document's file (by the name it was opened as, or by where it leads now); None for another
        file (a Save As the file dialog has already confirmed)."""
        if self.path is None or self._disk is None:
            return None
        if Path(os.path.abspath(path)) == self.path or safe_resolve(path) == self.path:
            return self._disk
        return None

    def changed_on_disk(self, path: str | Path) -> FileChangedOnDisk | None:
        """Whether saving to path would overwrite someone else's change (whatever it changed into)."""
        expect = self.expected(path)
        change = change_since(path, expect) if expect is not None else None
        return FileChangedOnDisk(path, change) if change is not None else None

    def save(self, plan: Plan, path: str | Path, overwrite: DiskState | None = None) -> SaveReport:
        """Atomic write through the core; PlanError if it fails (the old file is then untouched).

        FileChangedOnDisk (nothing written) when the file changed on disk since we read or wrote it, whatever it
        changed into; `overwrite`: the state the user agreed to overwrite (the conflict's Change.now), which must
        still be what is there."""
        path = Path(path)
        report = save_plan(plan, path, expect=overwrite if overwrite is not None else self.expected(path))
        self.mark_saved(plan, safe_resolve(path), report.written)
        self.add_recent(path)
        return report

    def check_disk(self) -> None:
        """Compare the open file with what we last read or wrote; emit diskChanged once per change found."""
        if self.path is None or self._disk is None:
            return
        change = change_since(self.path, self._disk)
        self._watch(self.path)  # a rename over the file drops it from the watcher: watch the new one
        if _change_key(change) == _change_key(self._found):
            return
        self._found = change
        if change is None:  # changed back to what we hold: nothing to offer, but the title may change
            self.pathChanged.emit(self.path)
        else:
            self.diskChanged.emit(change)

    def stop_watching(self) -> None:
        """The window is closing: no more looks at the disk."""
        self._poll.stop()
        self._settle.stop()
        self._watch(None)

    def _poll_disk(self) -> None:
        stat = _stat(self.path)
        if stat != self._stat:
            self._stat = stat
            self.check_disk()

    def disk_differs(self) -> bool:
        """Whether the disk no longer holds what this window last read or wrote there."""
        return self._found is not None

    def _watch(self, path: Path | None) -> None:
        watched = self._watcher.files()
        if watched and (path is None or watched != [str(path)]):
            self._watcher.removePaths(watched)
        if path is not None and str(path) not in self._watcher.files() and os.path.isfile(path):
            self._watcher.addPath(str(path))

    def add_recent(self, path: Path) -> None:
        self.settings.add_recent(path)
        self.settings.last_directory = str(safe_resolve(path).parent)
        self.recentChanged.emit(self.settings.recent_files)

    def remove_recent(self, path: Path) -> None:
        try:
            self.settings.remove_recent(path)
        except (OSError, RuntimeError, ValueError):  # a name no file can have was never in the list
            return
        self.recentChanged.emit(self.settings.recent_files)

    def clear_recent(self) -> None:
        self.settings.recent_files = []
        self.recentChanged.emit([])


def ask_open_path(parent: QWidget, settings: Settings) -> Path | None:
    title = QCoreApplication.translate("Files", "Open plan")
    all_files = QCoreApplication.translate("Files", "All files (*)")
    name, _ = QFileDialog.getOpenFileName(parent, title, settings.last_directory, f"{plan_filter()};;{all_files}")
    return Path(name) if name else None


def ask_save_path(parent: QWidget, settings: Settings, current: Path | None) -> Path | None:
    title = QCoreApplication.translate("Files", "Save plan as")
    start = str(current) if current else str(Path(settings.last_directory) / ("plan" + PLAN_SUFFIX))
    name, _ = QFileDialog.getSaveFileName(parent, title, start, plan_filter())
    return with_plan_suffix(name) if name else None


def ask_export_path(parent: QWidget, settings: Settings, suffix: str) -> Path | None:
    title = QCoreApplication.translate("Files", "Export chart")
    if suffix == ".svg":
        flt = QCoreApplication.translate("Files", "SVG images (*.svg)")
    else:
        flt = QCoreApplication.translate("Files", "PNG images (*.png)")
    start = str(Path(settings.last_directory) / ("zerodesk-chart" + suffix))
    name, _ = QFileDialog.getSaveFileName(parent, title, start, flt)
    if not name:
        return None
    path = Path(name)
    return path if path.suffix.lower() == suffix else path.with_name(path.name + suffix)
