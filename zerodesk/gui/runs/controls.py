"""The Measure tab's choices: device, ranks, stages, scale-down, interpreter and watchdog.

A widget that renders and remembers; it knows nothing of runs. `changed` fires on every edit. The interpreter's
row (checked before Start, found for a bundle) is runs.interpreter_field's; this grid places its widgets.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from ...measure.protocol import Scale
from ...measure.rules import STAGES
from ..base import i18n
from ..base.settings import MeasureSettings
from .fraction_spin import FractionSpin
from .interpreter_field import InterpreterField

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

        self.interpreter_field = InterpreterField(self)
        f = self.interpreter_field  # its widgets, by the names the tab and the tests know them
        self.python_label, self.python, self.browse, self.check_python, self.python_note = (
            f.label, f.edit, f.browse, f.check_button, f.note)
        py_row = QHBoxLayout()
        py_row.setSpacing(6)
        py_row.addWidget(self.python, 1)
        py_row.addWidget(self.browse)
        py_row.addWidget(self.check_python)
        grid.addWidget(self.python_label, 2, 0)
        grid.addLayout(py_row, 2, 1)
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
        f.edited.connect(self._on_edit)
        f.checked.connect(self.changed)  # Start follows what the check found
        self.timeout.valueChanged.connect(self._on_edit)

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
        self.interpreter_field.retranslate()
        self.timeout_label.setText(translate("MeasureControls", "&Give up after:"))
        self.timeout.setSuffix(translate("MeasureControls", " s"))
        self.timeout.setToolTip(translate("MeasureControls", "Stop the run if it has not finished by then (a hung rank cannot stall it)"))
        self.timeout_note.setText(translate("MeasureControls", "a watchdog: a hung rank cannot stall the run"))

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
        return self.interpreter_field.path()

    def gpus(self) -> int | None:
        """GPUs the chosen interpreter's torch sees, once checked (None: not known yet)."""
        return self.interpreter_field.gpus()

    def interpreter_problem(self) -> str:
        """Why the chosen interpreter cannot run the ranks, as far as known before Start ("" when none is known)."""
        return self.interpreter_field.problem()

    def interpreter_ready(self) -> bool:
        """Whether the chosen interpreter is known to run the worker (checked, or ZeroDesk's own with torch)."""
        return self.interpreter_field.ready()

    def check_interpreter(self) -> None:
        self.interpreter_field.check()

    def search_python(self) -> None:
        """A bundle has no Python of its own: find one with torch (runs.interpreter_field)."""
        self.interpreter_field.search()

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
