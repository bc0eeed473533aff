"""What leaves or enters the main window as a file: plan files (new, open, save, changed on disk),
chart exports and the table copied as text; the title and the unsaved-changes mark.

A mixin of MainWindow that commands its state (the plan model, the document, the runs' records) and keeps
none of its own; the ask_* methods are the dialogs, which tests replace to answer without one.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from ... import APP_NAME
from ...core.plan import Plan, PlanError
from ...core.text import shorten
from ..form.fields import default_plan
from .document import FileChangedOnDisk, ask_export_path, ask_open_path, ask_save_path, display_name
from .hf_import import is_hf_config


class FileCommands:
    """Plan files, exports and the clipboard for MainWindow."""

    def is_modified(self) -> bool:
        # a file changed on disk no longer holds what the window shows: that too is unsaved
        return self.document.is_modified(self.document_plan(), self.model.is_valid) or self.document.disk_differs()

    def _update_modified(self) -> None:
        self.setWindowModified(self.is_modified())

    def _update_title(self) -> None:
        self.setWindowTitle(f"{display_name(self.document.path)}[*] — {APP_NAME}")
        self._update_modified()

    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save / Discard / Cancel; tests replace this to answer without a dialog."""
        return QMessageBox.question(
            self, self.tr("Unsaved changes"),
            self.tr("The plan “{name}” has unsaved changes. Save them?").format(name=display_name(self.document.path)),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)

    def ask_save_last_valid(self) -> bool:
        """Some fields are invalid: save the last valid plan anyway? (tests replace this)."""
        answer = QMessageBox.question(
            self, self.tr("Invalid fields"),
            self.tr("Some fields are invalid. Save the last valid plan (what the chart shows)?"),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Save

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current plan (saved, discarded, or nothing changed)."""
        if not self.is_modified():
            return True
        answer = self.ask_save_changes()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_plan(self) -> bool:
        if not self.maybe_save():
            return False
        self.run_records.load(default_plan(self.settings.units))
        self.model.load(default_plan(self.settings.units))
        self.document.mark_saved(self.document_plan(), None)
        self._update_title()
        return True

    def load_plan(self, plan: Plan, path: Path | None = None, saved: Plan | None = None) -> None:
        """Show a plan; `saved` is what the file holds (differs when command-line flags changed it)."""
        self.run_records.load(plan)
        self.model.load(plan)
        self.document.mark_saved(saved if saved is not None else self.document_plan(), path)
        self._update_title()

    def open_plan_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a plan file. Nothing changes (form, file, title) unless the whole plan could be read and shown."""
        if is_hf_config(path):  # a config.json opened like a plan is imported, not refused
            return self.hf_import.read(path, ask=ask)
        if ask and not self.maybe_save():
            return False
        try:
            plan, disk = self.document.read(path)
        except PlanError as exc:
            self.show_error(self.tr("Cannot open the plan"), str(exc))
            self._rebuild_recent_menu()
            return False
        previous = self.model.plan
        try:
            self.run_records.load(plan)
            self.model.load(plan)
        except Exception as exc:  # noqa: BLE001 - a plan the form cannot show: put the previous one back
            if previous is not None:
                self.model.load(previous)
            self.show_error(self.tr("Cannot open the plan"),
                            self.tr("Cannot show plan file {path}: {reason}").format(
                                path=shorten(path, 200), reason=shorten(exc, 120) or type(exc).__name__))
            return False
        self.document.claim(self.document_plan(), path, disk)
        self._update_title()
        self.statusBar().showMessage(self.tr("Opened {path}").format(path=shorten(path, 200)), 4000)
        return True

    def open_dialog(self) -> bool:
        if not self.maybe_save():
            return False
        path = ask_open_path(self, self.settings)
        return self.open_plan_file(path, ask=False) if path else False

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        path = ask_save_path(self, self.settings, self.document.path)
        return self.save_to(path) if path else False

    def save_to(self, path: str | Path) -> bool:
        plan = self.document_plan()
        if not self.model.is_valid and not self.ask_save_last_valid():
            return False
        try:
            try:
                saved = self.document.save(plan, path)
            except FileChangedOnDisk as conflict:
                if not self.ask_overwrite_changed(conflict):
                    return False
                saved = self.document.save(plan, path, overwrite=True)
        except PlanError as exc:
            self.show_error(self.tr("Cannot save the plan"), str(exc))
            return False
        self._update_title()
        self.statusBar().showMessage(self.tr("Saved {path}").format(path=shorten(saved, 200)), 4000)
        return True

    def ask_overwrite_changed(self, conflict: FileChangedOnDisk) -> bool:
        """The file changed or vanished on disk since we read it: write ours anyway? (tests replace this)."""
        name = display_name(conflict.path)
        if conflict.deleted:
            text = self.tr("“{name}” was deleted from the disk after it was opened here. Save it again?").format(name=name)
        else:
            text = self.tr("“{name}” was changed on disk by another program or window after it was opened here. "
                           "Overwrite those changes with this plan?").format(name=name)
        if self.quiet:
            self.statusBar().showMessage(text, 8000)
            return False
        answer = QMessageBox.warning(self, self.tr("File changed on disk"), text,
                                     QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                                     QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Save

    def ask_reload_changed(self, modified: bool) -> bool:
        """The open file changed on disk: reload it (losing unsaved edits when `modified`)? (tests replace this)."""
        name = display_name(self.document.path)
        text = (self.tr("“{name}” was changed on disk. Reload it and lose the changes made here?") if modified
                else self.tr("“{name}” was changed on disk. Reload it?")).format(name=name)
        if self.quiet:
            self.statusBar().showMessage(text, 8000)
            return False
        answer = QMessageBox.question(self, self.tr("File changed on disk"), text,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No if modified else QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def _on_disk_changed(self, deleted: bool) -> None:
        """Someone else changed or deleted the open file: say so, offer to reload; a later save will ask first."""
        if self._asking_reload:
            return
        if deleted:
            self.statusBar().showMessage(self.tr("“{name}” was deleted from the disk; Save will ask before writing it "
                                                 "again.").format(name=display_name(self.document.path)), 8000)
            self._update_modified()
            return
        modified = self.document.is_modified(self.model.plan, self.model.is_valid)
        self._asking_reload = True
        try:
            reload = self.ask_reload_changed(modified)
        finally:
            self._asking_reload = False
        if reload and self.document.path is not None:
            self.open_plan_file(self.document.path, ask=False)
        self._update_modified()

    def show_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 8000)
        if self.quiet:
            return
        QMessageBox.warning(self, title, message)

    def export_chart(self, path: str | Path) -> bool:
        """PNG or SVG by suffix: both charts with their captions (what, whence, unit)."""
        path = Path(path)
        self.startup.flush()  # the Nd chart's lines, if the first paint has not brought them yet
        ok = self.plan_tab.export_svg(path) if path.suffix.lower() == ".svg" else self.plan_tab.export_png(path)
        if ok:
            self.statusBar().showMessage(self.tr("Exported {path}").format(path=path), 4000)
        else:
            self.show_error(self.tr("Cannot export the chart"), self.tr("Could not write {path}.").format(path=path))
        return ok

    def export_dialog(self, suffix: str) -> bool:
        path = ask_export_path(self, self.settings, suffix)
        return self.export_chart(path) if path else False

    def copy_table(self) -> str:
        text = self.table_tab.copy_to_clipboard()
        self.statusBar().showMessage(self.tr("Table copied as text"), 3000)
        return text
