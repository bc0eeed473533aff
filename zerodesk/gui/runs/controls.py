"""The Measure tab's choices: device, ranks, stages, scale-down, interpreter and watchdog.

A widget that renders and remembers; it knows nothing of runs. `changed` fires on every edit.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QProcess, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from ...measure.interpreter import CPU_TORCH_INDEX
from ...measure.interpreter import default_python as find_python_with_torch
from ...measure.protocol import Scale
from ...measure.rules import STAGES
from ..base import i18n
from ..base.settings import MeasureSettings
from .fraction_spin import FractionSpin
from .interpreter_probe import probe_interpreter

SCALE_KEYS = ("layers", "hidden", "seq", "vocab")
DEVICES = (("auto", QT_TRANSLATE_NOOP("MeasureControls", "auto")), ("cuda", "CUDA"), ("cpu", "CPU"))
SCALE_LABELS = {"layers": QT_TRANSLATE_NOOP("MeasureControls", "layers ×"),
                "hidden": QT_TRANSLATE_NOOP("MeasureControls", "hidden ×"),
                "seq": QT_TRANSLATE_NOOP("MeasureControls", "sequence ×"),
                "vocab": QT_TRANSLATE_NOOP("MeasureControls", "vocabulary ×")}
SCALE_TIPS = {
    "layers": QT_TRANSLATE_NOOP("MeasureControls", "Fraction of the transformer blocks to build (0 < f ≤ 1)"),
    "hidden": QT_TRANSLATE_NOOP("MeasureControls", "Fraction of the head width, hence hidden and FFN (heads keep their count)"),
    "seq": QT_TRANSLATE_NOOP("MeasureControls", "Fraction of the sequence length"),
    "vocab": QT_TRANSLATE_NOOP("MeasureControls", "Fraction of the vocabulary"),
}

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


def _t(text: str) -> str:
    return QCoreApplication.translate("MeasureControls", text)


class MeasureControls(QWidget):
    changed = Signal()

    def __init__(self, settings: MeasureSettings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._loading = True
        self._probe: QProcess | None = None
        self._search_timer: QTimer | None = None  # search_python's, kept across searches
        self._search: tuple[threading.Thread, list[str]] | None = None
        self._probe_text = ""
        self._lacks: dict[str, str] = {}  # interpreter -> what it lacks for the worker ("" = ready)
        self._gpus: dict[str, int | None] = {}  # interpreter -> GPUs its torch sees (the probe's answer)
        self._build()
        self._load()
        self._loading = False
        self.retranslate()

    def _build(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        self.device_label = QLabel()
        self.device = QComboBox()
        self.device.setObjectName("measureDevice")
        for value, _text in DEVICES:
            self.device.addItem("", value)
        self.device_label.setBuddy(self.device)
        self.ranks_label = QLabel()
        self.ranks = QSpinBox()
        self.ranks.setObjectName("measureRanks")
        self.ranks.setRange(1, 64)
        self.ranks_label.setBuddy(self.ranks)
        self.stages_label = QLabel()
        self.stage_boxes: dict[int, QCheckBox] = {}
        top = QHBoxLayout()
        top.setSpacing(6)
        top.addWidget(self.device)
        top.addSpacing(10)
        top.addWidget(self.ranks_label)
        top.addWidget(self.ranks)
        top.addSpacing(10)
        top.addWidget(self.stages_label)
        for s in STAGES:
            box = QCheckBox(str(s))
            box.setObjectName(f"measureStage{s}")
            self.stage_boxes[s] = box
            top.addWidget(box)
        top.addStretch(1)
        grid.addWidget(self.device_label, 0, 0)
        grid.addLayout(top, 0, 1)

        self.scale_label = QLabel()
        scales = QGridLayout()
        scales.setHorizontalSpacing(6)
        scales.setVerticalSpacing(4)
        self.scale_names: dict[str, QLabel] = {}
        self.scale_fields: dict[str, FractionSpin] = {}
        for i, key in enumerate(SCALE_KEYS):
            name = QLabel()
            name.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            spin = FractionSpin()
            spin.setObjectName(f"measureScale_{key}")
            spin.setValue(1.0)
            spin.setKeyboardTracking(False)
            name.setBuddy(spin)
            self.scale_names[key], self.scale_fields[key] = name, spin
            scales.addWidget(name, i // 2, 2 * (i % 2))
            scales.addWidget(spin, i // 2, 2 * (i % 2) + 1)
        self.reset_scale = QPushButton()
        self.reset_scale.setObjectName("measureScaleReset")
        scales.addWidget(self.reset_scale, 0, 4)
        scales.setColumnStretch(5, 1)
        grid.addWidget(self.scale_label, 1, 0)
        grid.addLayout(scales, 1, 1)

        self.python_label = QLabel()
        py_row = QHBoxLayout()
        py_row.setSpacing(6)
        self.python = QLineEdit()
        self.python.setObjectName("measurePython")
        self.python.setMinimumWidth(120)
        self.python_label.setBuddy(self.python)
        self.browse = QPushButton()
        self.browse.setObjectName("measureBrowse")
        self.check_python = QPushButton()
        self.check_python.setObjectName("measureCheckPython")
        py_row.addWidget(self.python, 1)
        py_row.addWidget(self.browse)
        py_row.addWidget(self.check_python)
        grid.addWidget(self.python_label, 2, 0)
        grid.addLayout(py_row, 2, 1)
        self.python_note = QLabel()
        self.python_note.setObjectName("measurePythonNote")
        self.python_note.setWordWrap(True)
        grid.addWidget(self.python_note, 3, 1)

        self.timeout_label = QLabel()
        self.timeout = QSpinBox()
        self.timeout.setObjectName("measureTimeout")
        self.timeout.setRange(5, 24 * 3600)
        self.timeout.setSingleStep(30)
        self.timeout_label.setBuddy(self.timeout)
        self.timeout_note = QLabel()
        self.timeout_note.setWordWrap(True)
        t_row = QHBoxLayout()
        t_row.setSpacing(6)
        t_row.addWidget(self.timeout)
        t_row.addWidget(self.timeout_note, 1)
        grid.addWidget(self.timeout_label, 4, 0)
        grid.addLayout(t_row, 4, 1)
        grid.setColumnStretch(1, 1)

        self.device.currentIndexChanged.connect(self._on_edit)
        self.ranks.valueChanged.connect(self._on_ranks)
        for box in self.stage_boxes.values():
            box.toggled.connect(self._on_edit)
        for spin in self.scale_fields.values():
            spin.valueChanged.connect(self._on_edit)
        self.reset_scale.clicked.connect(self.reset_scale_to_full)
        self.python.editingFinished.connect(self._on_edit)
        self.python.editingFinished.connect(self.check_interpreter)  # what it lacks, said before Start
        self.python.textChanged.connect(self._on_python_typed)
        self.timeout.valueChanged.connect(self._on_edit)
        self.browse.clicked.connect(self._browse_python)
        self.check_python.clicked.connect(self.check_interpreter)

    def retranslate(self) -> None:
        self.device_label.setText(translate("MeasureControls", "&Device:"))
        for i, (_value, text) in enumerate(DEVICES):
            self.device.setItemText(i, _t(text))
        self.device.setToolTip(translate("MeasureControls", "CUDA ranks use NCCL, one GPU each; CPU ranks use gloo on this machine"))
        self.ranks_label.setText(translate("MeasureControls", "&Ranks:"))
        self.ranks.setToolTip(translate("MeasureControls", "Local ranks to start; predictions use this Nd (default: the plan's Nd, at most 2)"))
        self.stages_label.setText(translate("MeasureControls", "Stages:"))
        for s, box in self.stage_boxes.items():
            box.setToolTip(i18n.stage_label(s).replace("\n", " — "))
            box.setAccessibleName(translate("MeasureControls", "Stage {n}").format(n=s))
        self.scale_label.setText(translate("MeasureControls", "Scale down:"))
        for key in SCALE_KEYS:
            self.scale_names[key].setText(_t(SCALE_LABELS[key]))
            self.scale_fields[key].setToolTip(_t(SCALE_TIPS[key]))
            self.scale_fields[key].setAccessibleName(_t(SCALE_TIPS[key]))
        self.reset_scale.setText(translate("MeasureControls", "Full size"))
        self.reset_scale.setToolTip(translate("MeasureControls", "Set every scale back to 1 (the model as planned)"))
        self.python_label.setText(translate("MeasureControls", "&Python with torch:"))
        self.python.setPlaceholderText(translate("MeasureControls", "path to a Python interpreter that can import torch"))
        self.python.setAccessibleName(translate("MeasureControls", "Python interpreter that runs the ranks"))
        self.browse.setText(translate("MeasureControls", "Browse…"))
        self.check_python.setText(translate("MeasureControls", "Check"))
        self.check_python.setToolTip(translate("MeasureControls", "Ask this interpreter for its torch version and whether it sees a GPU"))
        self.timeout_label.setText(translate("MeasureControls", "&Give up after:"))
        self.timeout.setSuffix(translate("MeasureControls", " s"))
        self.timeout.setToolTip(translate("MeasureControls", "Stop the run if it has not finished by then (a hung rank cannot stall it)"))
        self.timeout_note.setText(translate("MeasureControls", "a watchdog: a hung rank cannot stall the run"))
        self._update_python_note()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "python_note"):
            self.retranslate()
        super().changeEvent(event)

    # -- what the controls say -------------------------------------------------------------------
    def selected_stages(self) -> list[int]:
        return [s for s, box in self.stage_boxes.items() if box.isChecked()]

    def scale(self) -> Scale:
        return Scale(**{key: float(f"{self.scale_fields[key].value():.6g}") for key in SCALE_KEYS})

    def interpreter(self) -> str:
        return self.python.text().strip()

    def device_choice(self) -> str:
        return self.device.currentData()

    def set_running(self, running: bool) -> None:
        for w in (self.device, self.ranks, self.python, self.browse, self.timeout, self.reset_scale,
                  *self.stage_boxes.values(), *self.scale_fields.values()):
            w.setEnabled(not running)

    def default_ranks(self, ranks: int) -> None:
        """The plan's default ranks, unless the user has chosen a number."""
        if self.settings.ranks is None and not self._ranks_chosen:
            self._loading = True
            self.ranks.setValue(ranks)
            self._loading = False

    def reset_scale_to_full(self) -> None:
        for spin in self.scale_fields.values():
            spin.setValue(1.0)

    # -- remembering ------------------------------------------------------------------------------
    def _load(self) -> None:
        s = self.settings
        self.device.setCurrentIndex(max(0, self.device.findData(s.device)))
        self._ranks_chosen = s.ranks is not None
        if s.ranks is not None:
            self.ranks.setValue(s.ranks)
        chosen = set(s.stages)
        for st, box in self.stage_boxes.items():
            box.setChecked(st in chosen)
        for key in SCALE_KEYS:
            self.scale_fields[key].setValue(getattr(s.scale, key))
        self.python.setText(s.python)
        self.timeout.setValue(s.timeout_s)

    def _on_ranks(self, *_args) -> None:
        if not self._loading:
            self._ranks_chosen = True
            self.settings.ranks = self.ranks.value()
        self._on_edit()

    def _on_edit(self, *_args) -> None:
        if self._loading:
            return
        s = self.settings
        s.device = self.device_choice()
        s.stages = self.selected_stages()
        s.scale = self.scale()
        s.python = self.interpreter()
        s.timeout_s = self.timeout.value()
        self.changed.emit()

    # -- the interpreter ----------------------------------------------------------------------------
    def _update_python_note(self) -> None:
        path = self.interpreter()
        if self._probe_text:
            text = self._probe_text
        elif not path:
            text = translate("MeasureControls", "ZeroDesk itself does not load torch: the ranks run in this interpreter.")
        elif path == sys.executable:
            text = translate("MeasureControls", "The running interpreter (ZeroDesk's own); a frozen bundle needs another Python that has torch.")
        else:
            text = translate("MeasureControls", "The ranks run in this interpreter; it needs torch (press Check to see its version).")
        self.python_note.setText(text)

    def _on_python_typed(self, _text: str = "") -> None:
        if self._probe is None:
            self._probe_text = ""
        self._update_python_note()

    def _browse_python(self) -> None:
        start = os.path.dirname(self.interpreter()) or os.path.expanduser("~")
        path, _filter = QFileDialog.getOpenFileName(self, translate("MeasureControls", "Python interpreter that has torch"), start)
        if path:
            self.python.setText(path)
            self._on_edit()
            self.check_interpreter()

    def check_interpreter(self) -> None:
        """Ask the interpreter (asynchronously) what it has for the worker; the answer goes under the field."""
        path = self.interpreter()
        if not path or self._probe is not None:
            return
        self._probe_text = translate("MeasureControls", "Checking {path}…").format(path=path)
        self._update_python_note()
        self.check_python.setEnabled(False)

        def done(text: str, lacks: str, gpus: int | None = None) -> None:
            self._probe, self._probe_text = None, text
            self._lacks[path], self._gpus[path] = lacks, gpus
            self.check_python.setEnabled(True)
            self._update_python_note()
            self.changed.emit()  # Start follows what the check found

        self._probe = probe_interpreter(self, path, done)

    def gpus(self) -> int | None:
        """GPUs the chosen interpreter's torch sees, once checked (None: not known yet)."""
        return self._gpus.get(self.interpreter())

    def interpreter_problem(self) -> str:
        """Why the chosen interpreter cannot run the ranks, as far as known before Start ("" when none is known)."""
        path = self.interpreter()
        if self._lacks.get(path):
            return self._lacks[path]
        if path == sys.executable and importlib.util.find_spec("torch") is None:  # a lookup, no import
            return translate("MeasureControls", "ZeroDesk's own Python has no torch: install it with "
                             "{python} -m pip install torch transformers (on Linux add --index-url {cpu_index} for the "
                             "CPU build), or choose another Python that has torch.").format(
                python=path, cpu_index=CPU_TORCH_INDEX)
        return ""

    def search_python(self) -> None:
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
        if found and found[0] and not self.interpreter():
            self.python.setText(found[0])
            self._on_edit()
            self.check_interpreter()
