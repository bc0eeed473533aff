"""The Measure tab's interpreter: the Python that runs the ranks, checked before Start and found for a bundle.

Its widgets sit in MeasureControls' grid (label, field, Browse, Check, the note under them); it remembers what
each interpreter it checked lacks and the GPUs its torch sees. Its strings keep the MeasureControls context,
so their translations did not move with the code.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading

from PySide6.QtCore import QCoreApplication, QObject, QProcess, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QLineEdit, QPushButton, QWidget

from ...measure.interpreter import CPU_TORCH_INDEX
from ...measure.interpreter import default_python as find_python_with_torch
from .interpreter_probe import probe_interpreter

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


class InterpreterField(QObject):
    edited = Signal()  # a path was chosen (typed and left, browsed or found): the controls remember it
    checked = Signal()  # a check answered: Start follows what it found

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._probe: QProcess | None = None
        self._search_timer: QTimer | None = None  # search's, kept across searches
        self._search: tuple[threading.Thread, list[str]] | None = None
        self._probe_text = ""
        self._lacks: dict[str, str] = {}  # interpreter -> what it lacks for the worker ("" = ready)
        self._gpus: dict[str, int | None] = {}  # interpreter -> GPUs its torch sees (the probe's answer)
        self.label = QLabel()
        self.edit = QLineEdit()
        self.edit.setObjectName("measurePython")
        self.edit.setMinimumWidth(120)
        self.label.setBuddy(self.edit)
        self.browse = QPushButton()
        self.browse.setObjectName("measureBrowse")
        self.check_button = QPushButton()
        self.check_button.setObjectName("measureCheckPython")
        self.note = QLabel()
        self.note.setObjectName("measurePythonNote")
        self.note.setWordWrap(True)
        self.edit.editingFinished.connect(self._on_left)
        self.edit.textChanged.connect(self._on_typed)
        self.browse.clicked.connect(self._browse)
        self.check_button.clicked.connect(self.check)

    def retranslate(self) -> None:
        self.label.setText(translate("MeasureControls", "&Python with torch:"))
        self.edit.setPlaceholderText(translate("MeasureControls", "path to a Python interpreter that can import torch"))
        self.edit.setAccessibleName(translate("MeasureControls", "Python interpreter that runs the ranks"))
        self.browse.setText(translate("MeasureControls", "Browse…"))
        self.check_button.setText(translate("MeasureControls", "Check"))
        self.check_button.setToolTip(translate("MeasureControls", "Ask this interpreter for its torch version and whether it sees a GPU"))
        self._update_note()

    def path(self) -> str:
        return self.edit.text().strip()

    def _update_note(self) -> None:
        path = self.path()
        if self._probe_text:
            text = self._probe_text
        elif not path:
            text = translate("MeasureControls", "ZeroDesk itself does not load torch: the ranks run in this interpreter.")
        elif path == sys.executable:
            text = translate("MeasureControls", "The running interpreter (ZeroDesk's own); a frozen bundle needs another Python that has torch.")
        else:
            text = translate("MeasureControls", "The ranks run in this interpreter; it needs torch (press Check to see its version).")
        self.note.setText(text)

    def _on_typed(self, _text: str = "") -> None:
        if self._probe is None:
            self._probe_text = ""
        self._update_note()

    def _on_left(self) -> None:
        self.edited.emit()
        self.check()  # what it lacks, said before Start

    def _browse(self) -> None:
        start = os.path.dirname(self.path()) or os.path.expanduser("~")
        path, _filter = QFileDialog.getOpenFileName(self.parent(), translate("MeasureControls", "Python interpreter that has torch"), start)
        if path:
            self.edit.setText(path)
            self.edited.emit()
            self.check()

    def check(self) -> None:
        """Ask the interpreter (asynchronously) what it has for the worker; the answer goes under the field."""
        path = self.path()
        if not path or self._probe is not None:
            return
        self._probe_text = translate("MeasureControls", "Checking {path}…").format(path=path)
        self._update_note()
        self.check_button.setEnabled(False)

        def done(text: str, lacks: str, gpus: int | None = None) -> None:
            self._probe, self._probe_text = None, text
            self._lacks[path], self._gpus[path] = lacks, gpus
            self.check_button.setEnabled(True)
            self._update_note()
            self.checked.emit()

        self._probe = probe_interpreter(self, path, done)

    def gpus(self) -> int | None:
        """GPUs the chosen interpreter's torch sees, once checked (None: not known yet)."""
        return self._gpus.get(self.path())

    def ready(self) -> bool:
        """Whether the chosen interpreter is known to run the worker: checked and lacking nothing, or ZeroDesk's own
        Python with torch installed (its runs may then start in a warm worker of it)."""
        path = self.path()
        if path in self._lacks:
            return not self._lacks[path]
        return path == sys.executable and importlib.util.find_spec("torch") is not None

    def problem(self) -> str:
        """Why the chosen interpreter cannot run the ranks, as far as known before Start ("" when none is known)."""
        path = self.path()
        if self._lacks.get(path):
            return self._lacks[path]
        if path == sys.executable and importlib.util.find_spec("torch") is None:  # a lookup, no import
            return translate("MeasureControls", "ZeroDesk's own Python has no torch: install it with "
                             "{python} -m pip install torch transformers (on Linux add --index-url {cpu_index} for the "
                             "CPU build), or choose another Python that has torch.").format(
                python=path, cpu_index=CPU_TORCH_INDEX)
        return ""

    def search(self) -> None:
        """A bundle has no Python of its own: find one with torch in a plain thread; a timer picks up the answer.

        The timer is kept and stopped, never deleted from inside its own timeout (a crash in ~QObject was seen in
        full test runs around this search, not reproduced alone): one timer for every search."""
        found: list[str] = []
        thread = threading.Thread(target=lambda: found.append(find_python_with_torch() or ""), daemon=True)
        self._search = (thread, found)
        if self._search_timer is None:
            self._search_timer = QTimer(self)
            self._search_timer.setInterval(100)
            self._search_timer.timeout.connect(self._pick_up_search)
        thread.start()
        self._search_timer.start()

    def _pick_up_search(self) -> None:
        thread, found = self._search
        if thread.is_alive():
            return
        self._search_timer.stop()
        if found and found[0] and not self.path():
            self.edit.setText(found[0])
            self.edited.emit()
            self.check()
