"""File > Import Hugging Face config… and config.json files dropped on the window.

A model_type ZeroDesk has a layout for is read at once (pure Python); any other goes to
transformers in a subprocess (measure/hf_tensors.py) on a worker thread, so the window never
imports torch and never freezes. The imported model replaces the plan's model; the plan is a new,
unsaved document named after the model (from `_name_or_path` or the architecture), its sequence
length the model's context length.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QThread, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow

from ...core.plan import Plan, PlanError, read_json
from ..base import i18n


def is_hf_config(path: str | Path) -> bool:
    """A JSON object with a model_type and no plan `model`: a Hugging Face config.json (or its folder)."""
    try:
        path = Path(path)
        if os.path.isdir(path):  # os.path: never raises on a loop or a name too long
            path = path / "config.json"
        if path.suffix.lower() != ".json":
            return False
        data = read_json(path, "file")  # the one hardened reader: regular files, size cap, finite JSON
    except (PlanError, OSError, ValueError):
        return False
    return isinstance(data, dict) and "model_type" in data and "model" not in data


def imported_plan(base: Plan, model: dict[str, Any], hints: dict[str, Any]) -> Plan:
    """`base` with the imported model and the model's context length as the sequence length."""
    data = base.model_dump()
    data["model"] = model
    if hints.get("seq_len"):
        data["seq_len"] = hints["seq_len"]
    try:
        return Plan.model_validate(data)
    except ValueError as exc:
        raise PlanError(str(exc).splitlines()[0]) from None


class _Reader(QThread):
    """model_from_hf_config off the GUI thread (transformers can take seconds to start)."""

    done = Signal(object, object)  # model fields, hints
    failed = Signal(str)

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path

    def run(self) -> None:
        from ...measure.hf_tensors import model_from_hf_config

        try:
            model, hints = model_from_hf_config(self.path)
        except PlanError as exc:
            self.failed.emit(str(exc))
            return
        self.done.emit(model, hints)


class HfImport(QObject):
    """The action, the drop target and the reading; the window only shows what comes back."""

    imported = Signal(object)  # the new Plan

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.reader: _Reader | None = None
        self.action = QAction(window)
        self.action.setObjectName("actImportHfConfig")
        self.action.triggered.connect(lambda: self.ask())
        window.addAction(self.action)
        window.setAcceptDrops(True)
        window.installEventFilter(self)
        self.retranslate()

    def retranslate(self) -> None:
        self.action.setText(self.tr("Import &Hugging Face config…"))
        self.action.setStatusTip(self.tr("Read a model's config.json (the model is named from the file, "
                                         "its context length kept)"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.LanguageChange:
            self.retranslate()
        elif kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if self._dropped_config(event) is not None:
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            path = self._dropped_config(event)
            if path is not None:
                event.acceptProposedAction()
                self.read(path)
                return True
        return super().eventFilter(watched, event)

    @staticmethod
    def _dropped_config(event) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
        return paths[0] if len(paths) == 1 and is_hf_config(paths[0]) else None

    def ask(self) -> None:
        settings = getattr(self.window, "settings", None)
        start = getattr(settings, "last_directory", "") or ""
        name, _ = QFileDialog.getOpenFileName(self.window, self.tr("Import Hugging Face config"), start,
                                              self.tr("Model config (config.json *.json);;All files (*)"))
        if name:
            self.read(Path(name))

    def read(self, path: str | Path, ask: bool = True) -> bool:
        """Start reading `path` (a config.json or its folder); the plan arrives through `imported`,
        an error as one sentence. ask: offer to save the current plan first."""
        if self.reader is not None and self.reader.isRunning():
            self._status(self.tr("Still reading the previous config…"))
            return False
        if ask and not getattr(self.window, "maybe_save", lambda: True)():
            return False
        self._status(self.tr("Reading {path}…").format(path=path))
        self.reader = _Reader(Path(path), self)
        self.reader.done.connect(self._done)
        self.reader.failed.connect(self._failed)
        self.reader.start()
        return True

    def _done(self, model: dict, hints: dict) -> None:
        base = self.window.model.plan or Plan(model={"params": 1})
        try:
            plan = imported_plan(base, model, hints)
        except PlanError as exc:
            self._failed(str(exc))
            return
        self.window.load_plan(plan, None, saved=base)  # a new, unsaved document: closing asks to save it
        self._status(self.tr("Imported {name}: {n} parameters, context {seq} tokens").format(
            name=i18n.model_label(plan.model.name) or hints.get("model_type"), n=i18n.fmt_int(plan.params),
            seq=i18n.fmt_int(plan.seq_len)))
        self.imported.emit(plan)

    def _failed(self, message: str) -> None:
        show = getattr(self.window, "show_error", None)
        if show is not None:
            show(self.tr("Cannot import the config"), message)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)


def install_hf_import(window: QMainWindow) -> HfImport:
    """Add File > Import Hugging Face config… after File > Open, and accept dropped config.json files."""
    importer = HfImport(window)
    menu = getattr(window, "menu_file", None)
    recent = getattr(window, "menu_recent", None)
    if menu is not None:
        menu.insertAction(recent.menuAction() if recent is not None else None, importer.action)
    return importer
