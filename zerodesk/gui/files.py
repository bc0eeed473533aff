"""Plan files for the window: the document state (path, saved text), file dialogs, recent files.

Reading and writing go through the core (load_plan / save_plan, which writes atomically), so
the window and `zerodesk plan` read and write exactly the same files.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ..core.plan import PLAN_SUFFIX, Plan, PlanError, load_plan, plan_to_json, save_plan
from .settings import Settings


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
    """Which file the plan belongs to and what was last saved there (to tell unsaved changes)."""

    pathChanged = Signal(object)
    recentChanged = Signal(list)

    def __init__(self, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.path: Path | None = None
        self._saved_json: str | None = None

    def mark_saved(self, plan: Plan | None, path: Path | None) -> None:
        self.path = path
        self._saved_json = plan_to_json(plan) if plan is not None else None
        self.pathChanged.emit(path)

    def is_modified(self, plan: Plan | None, form_valid: bool = True) -> bool:
        if not form_valid:
            return True  # half-typed input is a change the user would lose
        if plan is None:
            return False
        return plan_to_json(plan) != self._saved_json

    def open(self, path: str | Path) -> Plan:
        """Read a plan file; PlanError (one sentence) if it cannot be read. Updates the recent list."""
        path = Path(path)
        try:
            plan = load_plan(path)
        except PlanError:
            if not path.exists():
                self.remove_recent(path)
            raise
        self.mark_saved(plan, path.resolve())
        self.add_recent(path)
        return plan

    def save(self, plan: Plan, path: str | Path) -> Path:
        """Atomic write through the core; PlanError if it fails (the old file is then untouched)."""
        path = Path(path)
        save_plan(plan, path)
        self.mark_saved(plan, path.resolve())
        self.add_recent(path)
        return path

    def add_recent(self, path: Path) -> None:
        self.settings.add_recent(path)
        self.settings.last_directory = str(Path(path).resolve().parent)
        self.recentChanged.emit(self.settings.recent_files)

    def remove_recent(self, path: Path) -> None:
        self.settings.remove_recent(path)
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
