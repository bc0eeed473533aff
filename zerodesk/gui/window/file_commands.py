"""What leaves or enters the main window as a file: plan files (new, open, save, changed on disk),
chart exports and the table copied as text; the title and the unsaved-changes mark.

A mixin of MainWindow that commands its state (the plan model, the document, the runs' records) and keeps
none of its own; the ask_* methods are the dialogs, which tests replace to answer without one.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from ... import APP_NAME
from ...core.disk_state import Change, DiskState
from ...core.plan import FileChangedOnDisk, Plan, PlanError
from ...core.text import shorten
from ..form.fields import default_plan
from . import disk_changes
from .disk_changes import Choice
from .document import ask_export_path, ask_open_path, ask_save_path, display_name
from .hf_import import is_hf_config
from .plan_reader import PlanReader, reads_aside


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
        self.stop_reading()  # a file still being read no longer replaces what the user chose
        self.run_records.load(default_plan(self.settings.units))
        self.model.load(default_plan(self.settings.units))
        self.document.mark_saved(self.document_plan(), None)
        self._update_title()
        return True

    def load_plan(self, plan: Plan, path: Path | None = None, saved: Plan | None = None,
                  disk: DiskState | None = None) -> None:
        """Show a plan; `saved` is what the file holds (differs when command-line flags changed it), `disk` what the
        file was when it was read (core.plan.load_plan_observed)."""
        self.stop_reading()
        self.run_records.load(plan)
        self.model.load(plan)
        self.document.mark_saved(saved if saved is not None else self.document_plan(), path, disk)
        self._update_title()

    def open_plan_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a plan file. Nothing changes (form, file, title) unless the whole plan could be read and shown.

        A big file (plan_reader.reads_aside: a long tensor list) is read on a worker thread while the window keeps
        answering: True then says the reading started; the plan is shown (or the error said) when it is read, and
        `ask` (save the current changes first?) is asked then."""
        self.stop_reading()  # a newer request supersedes one still being read
        if reads_aside(path):
            self.plan_reader.start(path)
            self.statusBar().showMessage(self.tr("Opening {path}…").format(path=shorten(path, 200)))
            self._pending = (ask, self.model.plan)  # an edit made while it is read is asked about when it arrives
            return True
        try:
            plan, disk = self.document.read(path)  # read once (a plan may be megabytes); nothing changes yet
        except PlanError as exc:
            return self._open_failed(path, str(exc), ask)
        return self._show_opened(path, plan, disk, ask)

    @property
    def plan_reader(self) -> PlanReader:
        """The worker that reads big plan files (made on first use)."""
        reader = self.__dict__.get("_plan_reader")
        if reader is None:
            reader = self.__dict__["_plan_reader"] = PlanReader(self)
            reader.read.connect(self._on_plan_read)
            reader.failed.connect(self._on_plan_read_failed)
        return reader

    def stop_reading(self) -> None:
        """A plan file still being read is no longer wanted (another opened, New, the window closes)."""
        if self.plan_reader.cancel():
            self.statusBar().clearMessage()

    def _pending_ask(self) -> bool:
        ask, shown = self._pending
        return ask or self.model.plan is not shown or not self.model.is_valid

    def _on_plan_read(self, ticket: int, path: Path, plan: Plan, disk: DiskState) -> None:
        if self.plan_reader.finish(ticket):
            self._show_opened(path, plan, disk, self._pending_ask())

    def _on_plan_read_failed(self, ticket: int, path: Path, message: str) -> None:
        if self.plan_reader.finish(ticket):
            self.document.forget_if_gone(path)
            self._open_failed(path, message, self._pending_ask())

    def _open_failed(self, path: str | Path, message: str, ask: bool) -> bool:
        if is_hf_config(path):  # a config.json opened like a plan is imported, not refused
            return self.hf_import.read(path, ask=ask)
        self.show_error(self.tr("Cannot open the plan"), message)
        self._rebuild_recent_menu()
        return False

    def _show_opened(self, path: str | Path, plan: Plan, disk: DiskState, ask: bool) -> bool:
        """Show a plan read from path, once the current one may go (ask); put the previous back if it cannot be shown."""
        if ask and not self.maybe_save():
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
        """Write the plan to path. A file changed on disk since this window read or wrote it, whatever it changed into,
        is never overwritten without asking (core.disk_state); what the save could not keep is said afterwards."""
        plan = self.document_plan()
        if not self.model.is_valid and not self.ask_save_last_valid():
            return False
        agreed: DiskState | None = None  # what the user agreed to overwrite
        while True:
            try:
                report = self.document.save(plan, path, overwrite=agreed)
                break
            except FileChangedOnDisk as conflict:
                choice = self.ask_changed_on_disk(Path(path), conflict.change)
                if choice == Choice.OVERWRITE:
                    agreed = conflict.change.now  # if it changes again before the write, ask again
                    continue
                return self.save_as() if choice == Choice.SAVE_AS else False
            except PlanError as exc:
                self.show_error(self.tr("Cannot save the plan"), str(exc))
                return False
        self._update_title()
        notices = disk_changes.save_notices(display_name(report.path), report)
        message = self.tr("Saved {path}").format(path=shorten(path, 200))
        message = ". ".join([message] + [" ".join(notices)]) if notices else message
        self.statusBar().showMessage(message, 15000 if notices else 4000)
        if notices and not self.quiet:
            QMessageBox.information(self, self.tr("Saved"), message)
        return True

    def ask_changed_on_disk(self, path: Path, change: Change) -> Choice:
        """The file changed on disk since we read or wrote it: Save As, Overwrite or Cancel, as fit the change
        (tests replace this; quiet: the sentence goes to the status bar and nothing is written)."""
        if self.quiet:
            self.statusBar().showMessage(disk_changes.change_sentence(display_name(path), change), 8000)
            return Choice.CANCEL
        return disk_changes.ask(self, display_name(path), change)

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

    def _on_disk_changed(self, change: Change) -> None:
        """Someone else changed the open file: say what happened; offer to reload other bytes. A later save asks first."""
        if self._asking_reload:
            return
        if not disk_changes.offers_reload(change):  # deleted, now leading elsewhere, no longer a file: only say so
            name = display_name(self.document.path)
            self.statusBar().showMessage(" ".join((disk_changes.change_sentence(name, change),
                                                   self.tr("Save will ask before writing there."))), 8000)
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
        shown = self.tabs.currentIndex()
        self.show_tab("plan")  # a tab out of view renders nothing (the file was blank from another tab): seen,
        QApplication.processEvents()  # its charts draw what waited and it is laid out; then the user's tab again
        try:
            ok = self.plan_tab.export_svg(path) if path.suffix.lower() == ".svg" else self.plan_tab.export_png(path)
        finally:
            self.tabs.setCurrentIndex(shown)
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
