"""Plan files for the window: the document state (path, saved text), file dialogs, recent files.

Reading and writing go through the core (read_file / save_plan, which writes atomically), so
the window and `zerodesk plan` read and write exactly the same files. The document also remembers
what the file held when it was last read or written (a digest), so a change made on disk by
another program or window is noticed: while the file is open (diskChanged) and before a save
overwrites it (FileChangedOnDisk).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ...core.plan import (
    PLAN_SUFFIX,
    Plan,
    PlanError,
    plan_from_bytes,
    plan_to_json,
    read_file,
    save_plan,
    sweep_stale_temps,
)
from ...core.text import shorten
from ..base.settings import Settings

GONE = "gone"  # the disk state of a file that no longer exists


class FileChangedOnDisk(PlanError):
    """The file was changed (or deleted: `deleted`) by someone else since this window read or wrote it."""

    def __init__(self, path: Path, deleted: bool) -> None:
        self.path, self.deleted = path, deleted
        what = "was deleted" if deleted else "was changed by another program"
        super().__init__(f"plan file {shorten(path, 200)} {what} since it was opened or saved here")


def disk_state(path: Path) -> str:
    """A digest of the file's bytes, GONE if it does not exist, or '' if it cannot be read (then nothing is claimed)."""
    try:
        return hashlib.sha256(read_file(path, "plan file")).hexdigest()
    except PlanError:
        try:
            return "" if os.path.lexists(path) else GONE
        except (OSError, ValueError):
            return ""


POLL_MS = 2000


def _stat(path: Path | None) -> tuple | None:
    """What a change to the file changes: inode, size, modification time (None if it is not there)."""
    try:
        st = os.stat(path) if path is not None else None
    except (OSError, ValueError):
        return None
    return None if st is None else (st.st_ino, st.st_size, st.st_mtime_ns)


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
    diskChanged = Signal(bool)  # the open file changed on disk (True: it was deleted), not by this window

    def __init__(self, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.path: Path | None = None
        self._saved_json: str | None = None
        self._disk = ""  # disk_state() of path when this window last read or wrote it
        self._announced = ""  # the disk state last reported through diskChanged (report each change once)
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

    def mark_saved(self, plan: Plan | None, path: Path | None, disk: str | None = None) -> None:
        self.path = path
        self._saved_json = plan_to_json(plan) if plan is not None else None
        self._disk = disk if disk is not None else (disk_state(path) if path is not None else "")
        self._announced = self._disk
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
        return plan_to_json(plan) != self._saved_json

    def read(self, path: str | Path) -> tuple[Plan, str]:
        """(plan, disk state) of a plan file, claiming nothing; PlanError (one sentence) for anything that goes wrong."""
        path = Path(path)
        try:
            data = read_file(path, "plan file")
            return plan_from_bytes(data, f"plan file {shorten(path, 200)}"), hashlib.sha256(data).hexdigest()
        except PlanError:
            if disk_state(path) == GONE:
                self.remove_recent(path)
            raise
        except Exception as exc:  # noqa: BLE001 - whatever a hostile file provokes is still one sentence
            raise PlanError(f"cannot open plan file {shorten(path, 200)}: {shorten(exc, 120) or type(exc).__name__}") from None

    def claim(self, plan: Plan, path: str | Path, disk: str) -> None:
        """The window now shows plan from path: remember the file and put it first in the recent list."""
        self.mark_saved(plan, safe_resolve(path), disk)
        self.add_recent(Path(path))
        sweep_stale_temps(safe_resolve(path).parent)  # a save here that was killed midway left its temp

    def open(self, path: str | Path) -> Plan:
        """Read and claim a plan file; PlanError (one sentence) if it cannot be read. Updates the recent list."""
        plan, disk = self.read(path)
        self.claim(plan, path, disk)
        return plan

    def changed_on_disk(self, path: str | Path) -> FileChangedOnDisk | None:
        """Whether saving to path would overwrite someone else's change (or recreate a file deleted since)."""
        path = safe_resolve(path)
        if path != self.path or not self._disk or self._disk == GONE:
            return None  # another file, never read, or it did not exist when we last looked
        now = disk_state(path)
        if now in ("", self._disk):
            return None
        return FileChangedOnDisk(path, deleted=now == GONE)

    def save(self, plan: Plan, path: str | Path, overwrite: bool = False) -> Path:
        """Atomic write through the core; PlanError if it fails (the old file is then untouched).

        FileChangedOnDisk (nothing written) when the file changed on disk since we read or wrote it,
        unless overwrite says the user has agreed."""
        path = Path(path)
        if not overwrite:
            conflict = self.changed_on_disk(path)
            if conflict is not None:
                raise conflict
        save_plan(plan, path)
        self.mark_saved(plan, safe_resolve(path))
        self.add_recent(path)
        return path

    def check_disk(self) -> None:
        """Compare the open file with what we last read or wrote; emit diskChanged once per new state."""
        if self.path is None or not self._disk:
            return
        now = disk_state(self.path)
        self._watch(self.path)  # a rename over the file drops it from the watcher: watch the new one
        if now in ("", self._announced):
            return
        self._announced = now
        if now == self._disk:  # changed back to what we hold: nothing to offer, but the title may change
            self.pathChanged.emit(self.path)
        else:
            self.diskChanged.emit(now == GONE)

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
        return bool(self.path is not None and self._disk and self._announced != self._disk)

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
