"""The "Measure" tab: run one real training step per ZeRO stage and set it beside the plan.

The step runs in a subprocess (MeasureProcess over QProcess), so the window stays responsive
and this process never imports torch. The tab shows progress per phase, a live timeline of
rank memory, a results table (measured states vs the torch profile's prediction for the
measured shapes), and a log. A run of the plan as planned (no scale-down, ranks = Nd) also
lands on the Plan tab's per-stage chart as markers; a scaled run stays in this tab, and says so.
"""

from __future__ import annotations

import html
import json
import os
import shlex
import sys
import time

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, QProcess, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.architecture import tensor_shapes
from ..core.plan import Plan
from ..core.torch_profile import rank_states
from ..core.units import fmt_count
from ..measure.protocol import Done, Error, PhaseMsg, Result, Sample, Scale, Started, scale_plan
from ..measure.child import torch_check_command
from ..measure.runner import host_available_bytes, measure_command
from . import i18n
from .chart_grid import apply_axis_palette
from .measure_process import MeasureProcess

STAGES = (0, 1, 2, 3)
SCALE_KEYS = ("layers", "hidden", "seq", "vocab")
DEFAULT_TIMEOUT_S = 600
ERROR_COLOR = "#D62728"
OK_COLOR = "#1A7F37"
STAGE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")  # Okabe-Ito, as the plan chart
RANK_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)

# Phase -> (start, end) of a stage's progress; the worker reports setup, warm-up, then the measured step.
PHASE_SPAN = {"setup": (0.0, 0.1), "warmup": (0.1, 0.45), "forward": (0.45, 0.7), "backward": (0.7, 0.85),
              "optimizer": (0.85, 1.0)}
PHASE_LABELS = {
    "setup": QT_TRANSLATE_NOOP("MeasureTab", "setting up"),
    "warmup": QT_TRANSLATE_NOOP("MeasureTab", "warm-up step"),
    "forward": QT_TRANSLATE_NOOP("MeasureTab", "forward"),
    "backward": QT_TRANSLATE_NOOP("MeasureTab", "backward"),
    "optimizer": QT_TRANSLATE_NOOP("MeasureTab", "optimizer step"),
}
DEVICES = (("auto", QT_TRANSLATE_NOOP("MeasureTab", "auto")), ("cuda", "CUDA"), ("cpu", "CPU"))
DEVICE_TIPS = {"auto": QT_TRANSLATE_NOOP("MeasureTab", "CUDA when this machine has an NVIDIA GPU, else CPU"),
               "cuda": QT_TRANSLATE_NOOP("MeasureTab", "CUDA ranks with NCCL, one GPU each"),
               "cpu": QT_TRANSLATE_NOOP("MeasureTab", "CPU ranks with gloo on this machine (small or scaled-down models)")}
SCALE_LABELS = {"layers": QT_TRANSLATE_NOOP("MeasureTab", "layers ×"), "hidden": QT_TRANSLATE_NOOP("MeasureTab", "hidden ×"),
                "seq": QT_TRANSLATE_NOOP("MeasureTab", "sequence ×"), "vocab": QT_TRANSLATE_NOOP("MeasureTab", "vocabulary ×")}
SCALE_TIPS = {
    "layers": QT_TRANSLATE_NOOP("MeasureTab", "Fraction of the transformer blocks to build (0 < f ≤ 1)"),
    "hidden": QT_TRANSLATE_NOOP("MeasureTab", "Fraction of the head width, hence hidden and FFN (heads keep their count)"),
    "seq": QT_TRANSLATE_NOOP("MeasureTab", "Fraction of the sequence length"),
    "vocab": QT_TRANSLATE_NOOP("MeasureTab", "Fraction of the vocabulary"),
}

# Byte units: the plan's family (decimal GB or binary GiB), stepping down for small models as the CLI does.
UNIT_BYTES = {"GB": 10**9, "MB": 10**6, "kB": 10**3, "GiB": 2**30, "MiB": 2**20, "KiB": 2**10, "B": 1}
SMALL_UNITS = {"MB": QT_TRANSLATE_NOOP("MeasureTab", "MB"), "kB": QT_TRANSLATE_NOOP("MeasureTab", "kB"),
               "MiB": QT_TRANSLATE_NOOP("MeasureTab", "MiB"), "KiB": QT_TRANSLATE_NOOP("MeasureTab", "KiB"),
               "B": QT_TRANSLATE_NOOP("MeasureTab", "B")}

# Rough timing for the "how long" line: start-up (each rank imports torch), then per stage.
START_S = {"cpu": 3.0, "cuda": 10.0}
STAGE_OVERHEAD_S = {"cpu": 1.0, "cuda": 2.0}
FLOPS_PER_RANK = {"cpu": 2e9, "cuda": 2e13}
TRACKER_SLOWDOWN = 3.0
HOST_SHARE = 0.7  # refuse CPU runs whose states alone need more than this share of free memory


def _t(text: str) -> str:
    return QCoreApplication.translate("MeasureTab", text)


def table_unit(largest: float, family: str) -> str:
    """One unit for a set of figures: GB/MB/kB (decimal plans) or GiB/MiB/KiB (binary plans), else B."""
    for name in (("GB", "MB", "kB") if family == "GB" else ("GiB", "MiB", "KiB")):
        if largest >= UNIT_BYTES[name]:
            return name
    return "B"


def unit_text(unit: str) -> str:
    return i18n.unit_label(unit) if unit in ("GB", "GiB") else _t(SMALL_UNITS[unit])


def fmt_in(nbytes: float, unit: str) -> str:
    """'1.23 MB': the unit always travels with the figure, in the UI language's number format."""
    if unit == "B":
        return f"{i18n.fmt_int(int(nbytes))} {unit_text(unit)}"
    return f"{i18n.fmt_number(nbytes / UNIT_BYTES[unit])} {unit_text(unit)}"


def fmt_auto(nbytes: float, family: str) -> str:
    return fmt_in(nbytes, table_unit(nbytes, family))


def fmt_percent(value: float | None) -> str:
    if value is None:
        return "—"
    sign = "−" if value < 0 else "+"
    return f"{sign}{i18n.fmt_number(abs(value))}%"


def difference(measured: int, predicted: int) -> float | None:
    """(measured - predicted) / predicted in %; None when nothing was predicted."""
    if predicted == 0:
        return 0.0 if measured == 0 else None
    return 100.0 * (measured - predicted) / predicted


def fmt_duration(seconds: float) -> str:
    if seconds < 90:
        return QCoreApplication.translate("MeasureTab", "{n} s").format(n=max(1, round(seconds)))
    if seconds < 5400:
        return QCoreApplication.translate("MeasureTab", "{n} min").format(n=round(seconds / 60))
    return QCoreApplication.translate("MeasureTab", "{n} h").format(n=i18n.fmt_number(seconds / 3600, 1))


def resolved_device(device: str) -> str:
    """What "auto" will pick, judged torch-free as the CLI does (an NVIDIA driver present)."""
    if device != "auto":
        return device
    return "cuda" if os.path.exists("/dev/nvidiactl") else "cpu"


def estimate_seconds(plan: Plan, stages: int, ranks: int, device: str) -> float:
    """A rough wall time: start-up, then per stage a warm-up and a measured step under the trackers."""
    dev = resolved_device(device)
    flops = 6 * plan.params * plan.seq_len * plan.micro_batch * 2 * TRACKER_SLOWDOWN
    share = max(1.0, ranks / (os.cpu_count() or 1)) if dev == "cpu" else 1.0
    return START_S[dev] + stages * (STAGE_OVERHEAD_S[dev] + flops / FLOPS_PER_RANK[dev] * share)


def predicted_states(plan: Plan, stages, ranks: int) -> dict[int, list[int]]:
    """Torch-profile state bytes per rank for each stage (what the ranks will hold at rest)."""
    shapes = [s for _, s in tensor_shapes(plan.model.architecture)]
    return {s: [sum(r.values()) for r in rank_states(shapes, plan.params, s, ranks)] for s in stages}


def run_key(plan: Plan) -> str:
    """What a measurement depends on: the architecture, sequence, batch and Nd (not units or profile)."""
    arch = plan.model.architecture
    return json.dumps([arch.model_dump() if arch else plan.params, plan.seq_len, plan.micro_batch, plan.dp],
                      sort_keys=True)


def default_python() -> str:
    """The running interpreter, unless this is a frozen bundle (its executable is not a Python with torch)."""
    return "" if getattr(sys, "frozen", False) else sys.executable


class MeasureSettings:
    """The tab's remembered choices, under "measure/..." in the application's QSettings store."""

    def __init__(self, store: QSettings | None = None, persist: bool = True) -> None:
        self._s = store if store is not None else QSettings()
        self._persist = persist

    def _get(self, key: str, default):
        return self._s.value(f"measure/{key}", default)

    def _set(self, key: str, value) -> None:
        if self._persist:
            self._s.setValue(f"measure/{key}", value)

    @property
    def device(self) -> str:
        value = self._get("device", "auto")
        return value if value in ("auto", "cuda", "cpu") else "auto"

    @device.setter
    def device(self, value: str) -> None:
        self._set("device", value)

    @property
    def ranks(self) -> int | None:
        try:
            value = int(self._get("ranks", 0))
        except (TypeError, ValueError):
            return None
        return value if value >= 1 else None

    @ranks.setter
    def ranks(self, value: int) -> None:
        self._set("ranks", int(value))

    @property
    def stages(self) -> list[int]:
        text = self._get("stages", "0,1,2,3")
        try:
            stages = sorted({int(s) for s in str(text).split(",") if s.strip()} & set(STAGES))
        except ValueError:
            stages = []
        return stages or list(STAGES)

    @stages.setter
    def stages(self, value: list[int]) -> None:
        self._set("stages", ",".join(str(s) for s in value))

    @property
    def scale(self) -> Scale:
        try:
            return Scale.model_validate_json(str(self._get("scale", "{}")))
        except ValueError:
            return Scale()

    @scale.setter
    def scale(self, value: Scale) -> None:
        self._set("scale", value.model_dump_json())

    @property
    def python(self) -> str:
        value = self._get("python", "")
        return value if isinstance(value, str) and value else default_python()

    @python.setter
    def python(self, value: str) -> None:
        self._set("python", value)

    @property
    def timeout_s(self) -> int:
        try:
            return max(5, int(self._get("timeout_s", DEFAULT_TIMEOUT_S)))
        except (TypeError, ValueError):
            return DEFAULT_TIMEOUT_S

    @timeout_s.setter
    def timeout_s(self, value: int) -> None:
        self._set("timeout_s", int(value))


class FractionSpin(QDoubleSpinBox):
    """A scale in (0, 1]: shows 0.03125 or 1 without trailing zeros, and accepts a typed fraction such as 1/32."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDecimals(8)
        self.setRange(0.0001, 1.0)
        self.setSingleStep(0.05)

    def textFromValue(self, value: float) -> str:
        return f"{value:.6g}".replace(".", self.locale().decimalPoint())

    def _parse(self, text: str) -> float | None:
        text = text.strip().replace(self.locale().decimalPoint(), ".").replace(",", ".")
        try:
            if "/" in text:
                num, den = text.split("/", 1)
                return float(num) / float(den)
            return float(text)
        except (ValueError, ZeroDivisionError):
            return None

    def valueFromText(self, text: str) -> float:
        value = self._parse(text)
        return self.value() if value is None else value

    def validate(self, text: str, pos: int):
        from PySide6.QtGui import QValidator

        value = self._parse(text)
        if value is not None and 0 < value <= 1:
            return QValidator.State.Acceptable, text, pos
        stripped = text.strip()
        if all(c in "0123456789./," + self.locale().decimalPoint() for c in stripped):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos


class TimelineChart(pg.PlotWidget):
    """Live memory of each rank through the measured step: one curve per (stage, rank), bytes vs seconds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measureTimeline")
        self.family = "GB"
        self.unit = "B"
        self.stopped_empty = False  # a run ended before any sample: say so instead of the invitation
        self.data: dict[tuple[int, int], tuple[list[float], list[int]]] = {}
        self._curves: dict[tuple[int, int], pg.PlotDataItem] = {}
        self._dirty = False
        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        pi.showGrid(x=True, y=True, alpha=0.25)
        for name in ("left", "bottom"):
            pi.getAxis(name).enableAutoSIPrefix(False)
        self.setMouseEnabled(x=False, y=False)
        self.legend = pi.addLegend(offset=(-10, 10), labelTextSize="8pt")
        self.empty = pg.TextItem("", anchor=(0.5, 0.5))
        self.addItem(self.empty)
        self._timer = QTimer(self)
        self._timer.setInterval(100)  # redraw at most 10 times a second, whatever the sample rate
        self._timer.timeout.connect(self._redraw)
        self._apply_palette()
        self.clear_data()
        self.retranslate()

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        self.empty.setColor(text)
        self.legend.setLabelTextColor(text)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "empty"):
            self._apply_palette()
        super().changeEvent(event)

    def retranslate(self) -> None:
        pi = self.getPlotItem()
        pi.setLabel("bottom", QCoreApplication.translate("MeasureTab", "Time since the measured step began, s"))
        pi.setLabel("left", QCoreApplication.translate("MeasureTab", "Rank memory, {unit}").format(unit=unit_text(self.unit)))
        self.empty.setText(QCoreApplication.translate("MeasureTab", "No memory samples arrived before the run stopped.") if self.stopped_empty else
                           QCoreApplication.translate("MeasureTab", "The memory of each rank through the measured step is drawn here during a run."))
        for (stage, rank), curve in self._curves.items():
            self.legend.removeItem(curve)
            self.legend.addItem(curve, self._curve_name(stage, rank))

    @staticmethod
    def _curve_name(stage: int, rank: int) -> str:
        return QCoreApplication.translate("MeasureTab", "stage {s} · rank {r}").format(s=stage, r=rank)

    def clear_data(self) -> None:
        for curve in self._curves.values():
            self.removeItem(curve)
        self.legend.clear()
        self._curves.clear()
        self.data.clear()
        self.unit = self.family  # until samples arrive: the plan's unit
        self.stopped_empty = False
        self.empty.show()
        self.empty.setPos(0.5, 0.5)
        self.getPlotItem().vb.disableAutoRange()
        self.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.getPlotItem().getAxis("left").setStyle(showValues=False)
        self.getPlotItem().getAxis("bottom").setStyle(showValues=False)
        self.retranslate()

    def add(self, msg: Sample) -> None:
        xs, ys = self.data.setdefault((msg.stage, msg.rank), ([], []))
        xs.append(msg.t)
        ys.append(msg.bytes)
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Draw what has arrived (the timer does this; tests and the end of a run call it directly)."""
        self._dirty = True
        self._redraw()

    def stop(self) -> None:
        self._timer.stop()
        self.flush()
        if not self.data and not self.stopped_empty:
            self.stopped_empty = True
            self.retranslate()

    def _redraw(self) -> None:
        if not self._dirty or not self.data:
            return
        self._dirty = False
        largest = max(max(ys) for _, ys in self.data.values())
        unit = table_unit(largest, self.family)
        if unit != self.unit:
            self.unit = unit
            self.retranslate()
        scale = UNIT_BYTES[unit]
        if self.empty.isVisible():
            self.empty.hide()
            for name in ("left", "bottom"):
                self.getPlotItem().getAxis(name).setStyle(showValues=True)
        for key in sorted(self.data):
            xs, ys = self.data[key]
            curve = self._curves.get(key)
            if curve is None:
                stage, rank = key
                pen = pg.mkPen(STAGE_COLORS[stage % len(STAGE_COLORS)], width=2, style=RANK_STYLES[rank % len(RANK_STYLES)])
                curve = self.plot([], [], pen=pen, name=self._curve_name(stage, rank))
                self._curves[key] = curve
            curve.setData(xs, [y / scale for y in ys])
        right = max(max(xs) for xs, _ in self.data.values())
        self.setRange(xRange=(0, right or 1.0), yRange=(0, largest / scale * 1.08 or 1.0), padding=0.02)  # from zero

    def curve_keys(self) -> list[tuple[int, int]]:
        return sorted(self._curves)


class MeasureTab(QWidget):
    runStarted = Signal()
    runFinished = Signal(bool)  # True: the run ended with Done; every process of it is gone either way

    def __init__(self, settings: MeasureSettings | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measureTab")
        self.settings = settings or MeasureSettings(persist=False)
        self.extra_env: dict[str, str] = {}  # added to the run's environment (tests inject faults here)
        self.process: MeasureProcess | None = None
        self.chart = None  # the Plan tab's StageChart (overlay_measured / clear_measured)
        self.tab_widget = None  # the QTabWidget holding this tab, to retitle it on a language change
        self._plan: Plan | None = None
        self._problem = ""  # why Start is unavailable for this plan, or ""
        self._run_plan: Plan | None = None
        self._run_scale = Scale()
        self._run_ranks = 0
        self._run_stages: list[int] = []
        self._started: Started | None = None
        self._done: Done | None = None
        self._error: Error | None = None
        self.results: dict[tuple[int, int], Result] = {}
        self._phase: dict[int, tuple[str, float] | str] = {}
        self._overlay_label: str | None = None
        self._overlay_key: str | None = None
        self._t0 = 0.0
        self._loading = True
        self._build()
        self._load_settings()
        self._loading = False
        self.retranslate()

    # -- building ------------------------------------------------------------------------------
    def _build(self) -> None:
        self._python_check: QProcess | None = None
        self._python_check_text = ""
        # The controls scroll rather than force the whole window's minimum size up.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setObjectName("measureScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        scroll.setWidget(body)
        outer.addWidget(scroll)
        v = QVBoxLayout(body)
        v.setContentsMargins(6, 6, 6, 6)
        v.setSpacing(4)

        self.status = QLabel()
        self.status.setObjectName("measureStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        v.addWidget(self.status)

        grid = QGridLayout()
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
            field = FractionSpin()
            field.setObjectName(f"measureScale_{key}")
            field.setValue(1.0)
            field.setKeyboardTracking(False)
            name.setBuddy(field)
            self.scale_names[key] = name
            self.scale_fields[key] = field
            scales.addWidget(name, i // 2, 2 * (i % 2))
            scales.addWidget(field, i // 2, 2 * (i % 2) + 1)
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
        v.addLayout(grid)

        run_row = QHBoxLayout()
        self.start_button = QPushButton()
        self.start_button.setObjectName("measureStart")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("measureCancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("measureProgress")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        run_row.addWidget(self.start_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        v.addLayout(run_row)

        phases = QHBoxLayout()
        phases.setSpacing(12)
        self.phase_labels: dict[int, QLabel] = {}
        for s in STAGES:
            label = QLabel()
            label.setObjectName(f"measurePhase{s}")
            label.setMinimumWidth(10)
            label.setWordWrap(True)
            self.phase_labels[s] = label
            phases.addWidget(label, 1)
        v.addLayout(phases)

        self.model_note = QLabel()
        self.model_note.setObjectName("measureModelNote")
        self.model_note.setWordWrap(True)
        self.model_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.model_note)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("measureSplitter")
        split.setChildrenCollapsible(False)
        self.timeline = TimelineChart()
        self.timeline.setMinimumHeight(150)
        split.addWidget(self.timeline)
        self.table = QTableWidget(0, 7)
        self.table.setObjectName("measureResults")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        for col in (0, 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.table.setMinimumHeight(90)
        split.addWidget(self.table)
        self.log = QPlainTextEdit()
        self.log.setObjectName("measureLog")
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.log.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setMinimumHeight(60)
        split.addWidget(self.log)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 3)
        split.setStretchFactor(2, 1)
        split.setSizes([300, 240, 110])
        self.splitter = split
        v.addWidget(split, 1)

        self.device.currentIndexChanged.connect(self._on_controls)
        self.ranks.valueChanged.connect(self._on_controls)
        for box in self.stage_boxes.values():
            box.toggled.connect(self._on_controls)
        for field in self.scale_fields.values():
            field.valueChanged.connect(self._on_controls)
        self.reset_scale.clicked.connect(self._reset_scale)
        self.python.editingFinished.connect(self._on_controls)
        self.python.textChanged.connect(self._on_python_edited)
        self.timeout.valueChanged.connect(self._on_controls)
        self.browse.clicked.connect(self._browse_python)
        self.check_python.clicked.connect(self.check_interpreter)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)

    def retranslate(self) -> None:
        self.device_label.setText(self.tr("&Device:"))
        for i, (_value, text) in enumerate(DEVICES):
            self.device.setItemText(i, _t(text))
        self.device.setToolTip(self.tr("CUDA ranks use NCCL, one GPU each; CPU ranks use gloo on this machine"))
        self.ranks_label.setText(self.tr("&Ranks:"))
        self.ranks.setToolTip(self.tr("Local ranks to start; predictions use this Nd (default: the plan's Nd, at most 2)"))
        self.stages_label.setText(self.tr("Stages:"))
        for s, box in self.stage_boxes.items():
            box.setToolTip(i18n.stage_label(s).replace("\n", " — "))
            box.setAccessibleName(self.tr("Measure stage {n}").format(n=s))
        self.scale_label.setText(self.tr("Scale down:"))
        for key in SCALE_KEYS:
            self.scale_names[key].setText(_t(SCALE_LABELS[key]))
            self.scale_fields[key].setToolTip(_t(SCALE_TIPS[key]))
            self.scale_fields[key].setAccessibleName(_t(SCALE_TIPS[key]))
        self.reset_scale.setText(self.tr("Full size"))
        self.reset_scale.setToolTip(self.tr("Set every scale back to 1 (the model as planned)"))
        self.python_label.setText(self.tr("&Python with torch:"))
        self.python.setPlaceholderText(self.tr("path to a Python interpreter that can import torch"))
        self.python.setAccessibleName(self.tr("Python interpreter that runs the ranks"))
        self.browse.setText(self.tr("Browse…"))
        self.check_python.setText(self.tr("Check"))
        self.check_python.setToolTip(self.tr("Ask this interpreter for its torch version and whether it sees a GPU"))
        self.timeout_label.setText(self.tr("&Give up after:"))
        self.timeout.setSuffix(self.tr(" s"))
        self.timeout.setToolTip(self.tr("Stop the run if it has not finished by then (a hung rank cannot stall it)"))
        self.timeout_note.setText(self.tr("a watchdog: a hung rank cannot stall the run"))
        self.start_button.setText(self.tr("&Start"))
        self.start_button.setToolTip(self.tr("Run one real training step per selected stage"))
        self.cancel_button.setText(self.tr("&Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop every rank of the run now"))
        self.progress.setAccessibleName(self.tr("Measurement progress"))
        self.timeline.setAccessibleName(self.tr("Live memory timeline"))
        self.table.setAccessibleName(self.tr("Measured results"))
        self.log.setAccessibleName(self.tr("Measurement log"))
        self.log.setPlaceholderText(self.tr("The command, the ranks' messages (stderr) and errors appear here."))
        self.timeline.retranslate()
        self._set_headers()
        if self.tab_widget is not None:
            index = self.tab_widget.indexOf(self)
            if index >= 0:
                self.tab_widget.setTabText(index, self.title())
        self._update_python_note()
        self._refresh()

    def title(self) -> str:
        return self.tr("Measure")

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "status"):
            self.retranslate()
        super().changeEvent(event)

    # -- settings ------------------------------------------------------------------------------
    def _load_settings(self) -> None:
        s = self.settings
        self.device.setCurrentIndex(max(0, self.device.findData(s.device)))
        if s.ranks is not None:
            self.ranks.setValue(s.ranks)
        self._ranks_stored = s.ranks is not None
        chosen = set(s.stages)
        for st, box in self.stage_boxes.items():
            box.setChecked(st in chosen)
        scale = s.scale
        for key in SCALE_KEYS:
            self.scale_fields[key].setValue(getattr(scale, key))
        self.python.setText(s.python)
        self.timeout.setValue(s.timeout_s)

    def _on_controls(self, *_args) -> None:
        if self._loading:
            return
        s = self.settings
        s.device = self.device.currentData()
        if self.sender() is self.ranks:
            s.ranks = self.ranks.value()
            self._ranks_stored = True
        s.stages = self.selected_stages()
        s.scale = self.scale()
        s.python = self.python.text().strip()
        s.timeout_s = self.timeout.value()
        self._refresh()

    def _reset_scale(self) -> None:
        for field in self.scale_fields.values():
            field.setValue(1.0)

    # -- what the controls say -------------------------------------------------------------------
    def selected_stages(self) -> list[int]:
        return [s for s, box in self.stage_boxes.items() if box.isChecked()]

    def scale(self) -> Scale:
        return Scale(**{key: float(f"{self.scale_fields[key].value():.6g}") for key in SCALE_KEYS})

    def interpreter(self) -> str:
        return self.python.text().strip()

    def set_plan(self, plan: Plan | None) -> None:
        """The plan to measure (the main window's current plan; follows its changes)."""
        if plan is None:
            return
        first = self._plan is None
        self._plan = plan
        if first and not self._ranks_stored:
            self._loading = True
            self.ranks.setValue(max(1, min(plan.dp, 2)))
            self._loading = False
        self.timeline.family = "GB" if plan.units == "GB" else "GiB"
        if not self.timeline.data and self.timeline.unit != self.timeline.family:
            self.timeline.unit = self.timeline.family
            self.timeline.retranslate()
        if self._overlay_key is not None and self._overlay_key != run_key(plan) and self.chart is not None:
            self.chart.clear_measured(self._overlay_label)  # markers of another model/Nd would mislead
            self._overlay_label = self._overlay_key = None
        if self.results:
            self._fill_table()
        self._refresh()

    def measured_plan(self) -> Plan | None:
        """The current plan scaled as the fields say, or None when it cannot be measured."""
        if self._plan is None or self._plan.model.architecture is None:
            return None
        try:
            return scale_plan(self._plan, self.scale())
        except ValueError:
            return None

    def _check(self) -> str:
        """Why Start cannot run now ("" if it can)."""
        plan = self._plan
        if plan is None:
            return self.tr("There is no valid plan to measure yet.")
        if plan.model.architecture is None:
            return self.tr("Measuring needs the model's architecture (layers, hidden, heads, FFN, vocabulary), not only "
                           "a parameter count: pick a model preset or enter the architecture in the form.")
        scaled = self.measured_plan()
        if scaled is None:
            return self.tr("This scale-down does not give a valid model; change the fractions.")
        arch = scaled.model.architecture
        if arch.positions == "learned" and scaled.seq_len > arch.max_positions:
            return self.tr("The sequence ({seq}) is longer than the learned position table ({n}); shorten it in the form.").format(
                seq=scaled.seq_len, n=arch.max_positions)
        if not self.selected_stages():
            return self.tr("Choose at least one stage to measure.")
        if not self.interpreter():
            return self.tr("Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).")
        if resolved_device(self.device.currentData()) == "cpu":
            need = max(sum(v) for v in predicted_states(scaled, self.selected_stages(), self.ranks.value()).values())
            free = host_available_bytes()
            if free is not None and need > HOST_SHARE * free:
                return self.tr("The model states of {n} CPU ranks need about {need}, more than this machine can spare "
                               "({free} free): scale the model down (layers ×, hidden ×) or use fewer ranks.").format(
                    n=self.ranks.value(), need=fmt_auto(need, "GB"), free=fmt_auto(free, "GB"))
        return ""

    def _family(self) -> str:
        plan = self._run_plan or self._plan
        return "GB" if plan is None or plan.units == "GB" else "GiB"

    def _model_text(self, full: Plan, scale: Scale, scaled: Plan | None) -> str:
        """'2 layers, hidden 64, …; P = …' or, scaled, '2 of 32 layers, …; P = … of …'."""
        a, b = full.model.architecture, (scaled or full).model.architecture
        if scale.identity or scaled is None:
            return self.tr("{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × "
                           "micro-batch {mb}; P = {p} ({short})").format(
                layers=a.layers, hidden=a.hidden, heads=a.heads, ffn=a.ffn, vocab=i18n.fmt_int(a.vocab), seq=full.seq_len,
                mb=full.micro_batch, p=i18n.fmt_int(full.params), short=fmt_count(full.params))
        return self.tr("{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; "
                       "P = {p} ({short}) of {P} ({SHORT})").format(
            l=b.layers, L=a.layers, h=b.hidden, H=a.hidden, f=b.ffn, F=a.ffn, v=i18n.fmt_int(b.vocab),
            V=i18n.fmt_int(a.vocab), s=scaled.seq_len, S=full.seq_len, p=i18n.fmt_int(scaled.params),
            short=fmt_count(scaled.params), P=i18n.fmt_int(full.params), SHORT=fmt_count(full.params))

    def _device_text(self, device: str) -> str:
        return {"cpu": self.tr("CPU"), "cuda": self.tr("CUDA")}.get(device, device)

    def _update_python_note(self) -> None:
        path = self.interpreter()
        if self._python_check_text:
            text = self._python_check_text
        elif not path:
            text = self.tr("ZeroDesk itself does not load torch: the ranks run in this interpreter.")
        elif path == sys.executable:
            text = self.tr("The running interpreter (ZeroDesk's own); a frozen bundle needs another Python that has torch.")
        else:
            text = self.tr("The ranks run in this interpreter; it needs torch (press Check to see its version).")
        self.python_note.setText(text)

    def _on_python_edited(self, _text: str = "") -> None:
        if self._python_check is None:
            self._python_check_text = ""
        self._update_python_note()

    def _browse_python(self) -> None:
        start = os.path.dirname(self.interpreter()) or os.path.expanduser("~")
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Python interpreter that has torch"), start)
        if path:
            self.python.setText(path)
            self._on_controls()

    def check_interpreter(self) -> None:
        """Ask the interpreter (asynchronously) for its torch version and GPUs; the answer goes under the field."""
        path = self.interpreter()
        if not path or self._python_check is not None:
            return
        proc = QProcess(self)
        program, *arguments = torch_check_command(path, "import torch; c = torch.cuda.is_available(); "
                                                        "print(torch.__version__, torch.cuda.device_count() if c else 0)")
        proc.setProgram(program)  # isolated (-I): a torch.py in the current folder is never imported
        proc.setArguments(arguments)
        proc.setStandardInputFile(QProcess.nullDevice())
        self._python_check = proc
        self._python_check_text = self.tr("Checking {path}…").format(path=path)
        self._update_python_note()
        self.check_python.setEnabled(False)

        def finished(*_args) -> None:
            if self._python_check is not proc:
                return
            out = bytes(proc.readAllStandardOutput()).decode("utf-8", "replace").split()
            err = [line for line in bytes(proc.readAllStandardError()).decode("utf-8", "replace").splitlines() if line.strip()]
            if proc.exitStatus() == QProcess.ExitStatus.NormalExit and proc.exitCode() == 0 and len(out) >= 2:
                gpus = int(out[1]) if out[1].isdigit() else 0
                where = self.tr("{n} GPU(s) visible").format(n=gpus) if gpus else self.tr("no GPU visible: CPU ranks only")
                self._python_check_text = self.tr("torch {version}; {where}.").format(version=out[0], where=where)
            elif proc.error() == QProcess.ProcessError.FailedToStart:
                self._python_check_text = self.tr("Cannot start {path}: {reason}.").format(path=path, reason=proc.errorString())
            else:
                self._python_check_text = self.tr("This interpreter cannot import torch: {reason}").format(
                    reason=(err[-1].strip() if err else self.tr("exit status {code}").format(code=proc.exitCode())))
            self._python_check = None
            self.check_python.setEnabled(True)
            self._update_python_note()
            proc.deleteLater()

        proc.finished.connect(finished)
        proc.errorOccurred.connect(lambda e: finished() if e == QProcess.ProcessError.FailedToStart else None)
        QTimer.singleShot(60_000, proc, proc.kill)
        proc.start()

    # -- state -> texts ---------------------------------------------------------------------------
    def _refresh(self) -> None:
        running = self.is_running()
        self._problem = self._check()
        for w in (self.device, self.ranks, self.python, self.browse, self.timeout, self.reset_scale, *self.stage_boxes.values(),
                  *self.scale_fields.values()):
            w.setEnabled(not running)
        self.start_button.setEnabled(not running and not self._problem)
        self.cancel_button.setEnabled(running and self.process is not None and self.process.outcome is None)
        self._update_model_note()
        self._update_phases()
        self._update_status()

    def _showing_run(self) -> bool:
        """Whether the texts describe the last run (running or finished) rather than the controls."""
        return self._run_plan is not None and (self.is_running() or self._started is not None or self._error is not None)

    def _update_model_note(self) -> None:
        if self._showing_run():
            plan, scale, ranks, stages = self._run_plan, self._run_scale, self._run_ranks, self._run_stages
        else:
            plan, scale, ranks, stages = self._plan, self.scale(), self.ranks.value(), self.selected_stages()
        if plan is None or plan.model.architecture is None:
            self.model_note.setText("")
            return
        try:
            scaled = scale_plan(plan, scale)
        except ValueError:
            self.model_note.setText("")
            return
        states = predicted_states(scaled, stages or list(STAGES), ranks)
        largest = max(max(v) for v in states.values())
        what = self.tr("Model as measured: {model}.") if scale.identity else self.tr("Scaled model as measured: {model}.")
        text = what.format(model=self._model_text(plan, scale, scaled)) + " " + self.tr(
            "Predicted model states at rest (torch profile, largest rank): up to {v}.").format(v=fmt_auto(largest, self._family()))
        self.model_note.setText(text)

    def _phase_text(self, stage: int) -> str:
        state = self._phase.get(stage)
        name = i18n.stage_short(stage)
        if state is None:
            if self._showing_run() and stage in self._run_stages:
                return self.tr("{stage}: waiting").format(stage=name)
            if not self._showing_run() and stage in self.selected_stages():
                return self.tr("{stage}: selected").format(stage=name)
            return self.tr("{stage}: not measured").format(stage=name)
        if state == "done":
            return self.tr("{stage}: done ✓").format(stage=name)
        if state == "stopped":
            return self.tr("{stage}: stopped").format(stage=name)
        phase, progress = state
        text = self.tr("{stage}: {phase}").format(stage=name, phase=_t(PHASE_LABELS[phase]))
        if phase in ("warmup", "forward") and 0 < progress < 1:
            text += f" {round(progress * 100)}%"
        return text

    def _update_phases(self) -> None:
        for s, label in self.phase_labels.items():
            label.setText(self._phase_text(s))
            state = self._phase.get(s)
            color = OK_COLOR if state == "done" else ERROR_COLOR if state == "stopped" else None
            if state is None and s not in (self._run_stages if self._showing_run() else self.selected_stages()):
                label.setStyleSheet("color: palette(mid);")
            else:
                label.setStyleSheet(f"color: {color};" if color else "")

    def _update_status(self) -> None:
        if self._error is not None:
            self.status.setText(self._error_html())
        elif self._done is not None and self._started is not None:
            self.status.setText(self._summary_html())
        elif self.is_running():
            self.status.setText(self._running_html())
        else:
            self.status.setText(self._idle_html())

    def _idle_html(self) -> str:
        title = "<b>" + html.escape(self.tr("Measure a real training step.")) + "</b> "
        if self._problem:
            return title + f'<span style="color:{ERROR_COLOR}">{html.escape(self._problem)}</span>'
        scaled = self.measured_plan()
        stages = self.selected_stages()
        device = self.device.currentData()
        where = {"cpu": self.tr("CPU ranks (gloo)"), "cuda": self.tr("CUDA ranks (NCCL, one GPU each)"),
                 "auto": self.tr("CUDA ranks if this machine has a GPU, else CPU ranks")}[device]
        text = self.tr(
            "Start runs a warm-up step and one measured training step for stage(s) {stages} on {ranks} local {where}, "
            "and compares the model states at rest with the torch profile (DDP for stage 0, ZeroRedundancyOptimizer for 1, "
            "FSDP2 for 2 and 3). Expect about {time}, much of it starting the ranks (each imports torch).").format(
            stages=", ".join(map(str, stages)), ranks=self.ranks.value(), where=where,
            time=fmt_duration(estimate_seconds(scaled, len(stages), self.ranks.value(), device)))
        return title + html.escape(text) + "<br>" + html.escape(self._chart_plan_note(self._plan, self.scale(), self.ranks.value()))

    def _chart_plan_note(self, plan: Plan, scale: Scale, ranks: int) -> str:
        if not scale.identity:
            return self.tr("A scaled run is compared here only; the Plan tab's bars stay those of the full model.")
        if ranks != plan.dp:
            return self.tr("The Plan tab's bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab "
                           "(set Ranks to {nd} to put markers on that chart).").format(nd=plan.dp, ranks=ranks)
        return self.tr("Results also land on the Plan tab's chart as markers beside each bar.")

    def _running_html(self) -> str:
        if self._started is None:
            text = self.tr("Starting {ranks} ranks (each imports torch)…").format(ranks=self._run_ranks)
        else:
            current = next((s for s in self._run_stages if self._phase.get(s) not in (None, "done")), None)
            if current is None:
                text = self.tr("Measuring…")
            else:
                text = self.tr("Measuring stage {n}: {phase}…").format(n=current, phase=_t(PHASE_LABELS[self._phase[current][0]]))
        if self.process is not None and self.process.outcome is not None:
            text = self.tr("Stopping every process of the run…")
        elapsed = time.monotonic() - self._t0
        return html.escape(text) + " " + html.escape(self.tr("({s} s so far; Cancel stops every rank)").format(s=round(elapsed)))

    def error_text(self) -> str:
        """The one sentence that says why the last run failed ("" if it did not)."""
        if self._error is None:
            return ""
        if self._error.code == "cancelled":
            return self.tr("The measurement was cancelled; every rank was stopped.")
        reason = " ".join(self._error.message.split()).rstrip(".")
        for prefix in ("the measurement ", self.tr("the measurement ")):  # already a sentence about the run
            if reason.lower().startswith(prefix.lower()) and prefix.strip():
                return reason[:1].upper() + reason[1:] + "."
        return self.tr("The measurement failed: {reason}.").format(reason=reason)

    def _error_html(self) -> str:
        text = html.escape(self.error_text())
        if self._error is not None and self._error.code == "cancelled":
            return f"<b>{text}</b>"
        return f'<span style="color:{ERROR_COLOR}"><b>⚠ {text}</b></span>' + (
            "<br>" + html.escape(self.tr("Details are in the log below.")) if self.log.blockCount() > 1 else "")

    def _summary_html(self) -> str:
        st, done = self._started, self._done
        device = self._device_text(st.device) + (f" ({st.device_name})" if st.device_name else "")
        lines = [html.escape(self.tr("Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.").format(
            device=device, ranks=st.ranks, torch=st.torch,
            wall=i18n.fmt_seconds(done.wall_s) if done.wall_s is not None else "?"))]
        diffs = [(abs(d), d, r) for r in self.results.values()
                 if (d := difference(r.states.total, r.predicted_states.total)) is not None]
        if diffs:
            worst = max(diffs, key=lambda x: x[0])
            if worst[0] < 0.005:
                lines.append(html.escape(self.tr("Model states at rest match the torch profile on every rank ({d}).").format(
                    d=fmt_percent(worst[1]))))
            else:
                lines.append(html.escape(self.tr(
                    "Model states at rest differ from the torch profile by up to {d} (stage {s}, rank {r}).").format(
                    d=fmt_percent(worst[1]), s=worst[2].stage, r=worst[2].rank)))
        plan = self._run_plan
        if not st.scale.identity:
            lines.append("<b>" + html.escape(self.tr("Measured on a scaled model: {model}.").format(
                model=self._model_text(plan, st.scale, scale_plan(plan, st.scale)))) + "</b> " + html.escape(self.tr(
                "The Plan tab's bars are for the full model, so no markers were put there; the comparison here is with "
                "the torch profile for the measured shapes.")))
        elif st.ranks != plan.dp:
            lines.append(html.escape(self.tr(
                "The Plan tab's bars are for Nd = {nd}; this run used {ranks} ranks, so no markers were put there.").format(
                nd=plan.dp, ranks=st.ranks)))
        elif self._overlay_label:
            lines.append(html.escape(self.tr(
                "On the Plan tab's chart, beside each bar: ▲ the peak and ◆ the model states (with DDP's buckets, as the "
                "bars count them) of the largest rank.")))
        elif self._overlay_key is None and self._plan is not None and run_key(self._plan) != run_key(plan):
            lines.append(html.escape(self.tr("The plan has changed since this run; its markers were taken off the chart.")))
        return f'<span style="color:{OK_COLOR}"><b>✓</b></span> ' + "<br>".join(lines)

    # -- running ----------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.process is not None and not self.process.is_finished

    def command(self) -> list[str]:
        """The argv that Start would run now."""
        return measure_command(self._plan, self.selected_stages(), self.ranks.value(), self.device.currentData(),
                               self.scale(), python=self.interpreter(), samples=True)

    def start(self) -> bool:
        """Start a run with the controls' settings; False (and the reason in the tab) if it cannot start."""
        if self.is_running():
            return False
        self._problem = self._check()
        if self._problem:
            self._refresh()
            return False
        argv = self.command()
        self._run_plan, self._run_scale = self._plan, self.scale()
        self._run_ranks, self._run_stages = self.ranks.value(), self.selected_stages()
        self._started = self._done = self._error = None
        self.results.clear()
        self._phase.clear()
        self.table.setRowCount(0)
        self.timeline.family = self._family()
        self.timeline.clear_data()
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("starting ranks…"))
        if self.chart is not None and self._overlay_label:
            self.chart.clear_measured(self._overlay_label)
        self._overlay_label = self._overlay_key = None
        self.log.clear()
        self._log(self.tr("Run: {command}").format(command=self._shown_command(argv)))
        if self.process is not None:
            self.process.deleteLater()  # the previous run's, finished
        proc = MeasureProcess(self)
        proc.startedMsg.connect(self._on_started)
        proc.phase.connect(self._on_phase)
        proc.sample.connect(self.timeline.add)
        proc.result.connect(self._on_result)
        proc.done.connect(self._on_done)
        proc.failed.connect(self._on_failed)
        proc.stderrLine.connect(self._log)
        proc.stopping.connect(self._refresh)
        proc.finished.connect(self._on_finished)
        self.process = proc
        self._t0 = time.monotonic()
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._update_status)
        self._tick.start()
        proc.start(argv, self.extra_env, float(self.timeout.value()))
        self._refresh()
        self.runStarted.emit()
        return True

    def cancel(self) -> None:
        if self.is_running():
            self._log(self.tr("Cancel: stopping every process of the run (SIGTERM, then SIGKILL after 1 s)."))
            self.process.cancel()

    def kill_now(self) -> None:
        """The window is going away: SIGKILL the whole run at once."""
        if self.is_running():
            self.process.kill_now()

    def _shown_command(self, argv: list[str]) -> str:
        shown = []
        for arg in argv:
            shown.append(arg if len(arg) <= 80 else arg[:60] + "…}")
        return shlex.join(shown)

    def _log(self, text: str) -> None:
        self.log.appendPlainText(text)

    def _on_started(self, msg: Started) -> None:
        self._started = msg
        self._run_stages = list(msg.stages)
        self.progress.setFormat("%p%")
        self._log(self.tr("Started: torch {torch} on {device}, {ranks} ranks, P = {p}.").format(
            torch=msg.torch, device=self._device_text(msg.device) + (f" ({msg.device_name})" if msg.device_name else ""),
            ranks=msg.ranks, p=i18n.fmt_int(msg.params)))
        self._refresh()

    def _on_phase(self, msg: PhaseMsg) -> None:
        if self._phase.get(msg.stage) == "done":
            return
        self._phase[msg.stage] = (msg.phase, msg.progress)
        self._update_progress()
        self.phase_labels[msg.stage].setText(self._phase_text(msg.stage))
        self._update_status()

    def _update_progress(self) -> None:
        stages = self._run_stages or [0]
        total = 0.0
        for s in stages:
            state = self._phase.get(s)
            if state == "done":
                total += 1.0
            elif isinstance(state, tuple):
                lo, hi = PHASE_SPAN[state[0]]
                total += lo + (hi - lo) * state[1]
        self.progress.setValue(round(1000 * total / len(stages)))

    def _on_result(self, msg: Result) -> None:
        self.results[(msg.stage, msg.rank)] = msg
        if self._started is None or sum(1 for k in self.results if k[0] == msg.stage) >= self._started.ranks:
            self._phase[msg.stage] = "done"
        self._fill_table()
        self._overlay(msg.stage)
        self._update_progress()
        self._update_phases()

    def _on_done(self, msg: Done) -> None:
        self._done = msg
        self.progress.setValue(1000)
        self._log(self.tr("Done in {wall}.").format(wall=i18n.fmt_seconds(msg.wall_s or 0.0)))
        self.timeline.stop()
        self._refresh()

    def _on_failed(self, msg: Error) -> None:
        self._error = msg
        for s in self._run_stages:
            if self._phase.get(s) != "done":
                self._phase[s] = "stopped"
        self.progress.setFormat(self.tr("stopped"))
        self._log(self.tr("Error ({code}): {message}").format(code=msg.code, message=msg.message))
        self.timeline.stop()
        self._refresh()

    def _on_finished(self) -> None:
        proc = self.process
        self._tick.stop()
        if proc.stopped_in_s is not None:
            self._log(self.tr("Every process of the run stopped {s} after the first signal.").format(
                s=i18n.fmt_seconds(proc.stopped_in_s)))
        else:
            self._log(self.tr("Every process of the run has exited."))
        self.timeline.stop()
        self._refresh()
        self.runFinished.emit(self._done is not None and self._error is None)

    # -- results ----------------------------------------------------------------------------------
    def headers(self) -> list[str]:
        return [self.tr("Stage"), self.tr("Rank"), self.tr("Peak\nof the step"), self.tr("States\nmeasured"),
                self.tr("States\npredicted"), self.tr("Difference\nvs torch profile"), self.tr("DDP buckets\nmeas. / pred.")]

    def header_tips(self) -> list[str]:
        return [self.tr("ZeRO stage (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 and 3 = FSDP2)"), self.tr("Rank of the run"),
                self.tr("Tracked peak of the measured step: model states, activations, temporaries and buffers"),
                self.tr("Parameters, gradients and optimizer state at rest after the optimizer step, measured from live "
                        "tensors"),
                self.tr("The same, predicted by the torch profile for the measured shapes and ranks"),
                self.tr("(measured − predicted) / predicted states"),
                self.tr("DDP's gradient buckets (stages 0 and 1), measured / predicted; the Plan tab's bars include them")]

    def _set_headers(self) -> None:
        for col, (text, tip) in enumerate(zip(self.headers(), self.header_tips())):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(col, item)

    def rows(self) -> list[list[str]]:
        """The results table as text, header first (tests read this)."""
        out = [self.headers()]
        for r in range(self.table.rowCount()):
            out.append([self.table.item(r, c).text() if self.table.item(r, c) else "" for c in range(self.table.columnCount())])
        return out

    def _fill_table(self) -> None:
        results = [self.results[k] for k in sorted(self.results)]
        self._set_headers()
        self.table.setRowCount(len(results))
        if not results:
            return
        largest = max(max(r.peak_bytes, r.states.total, r.predicted_states.total) for r in results)
        unit = table_unit(largest, self._family())
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for row, r in enumerate(results):
            d = difference(r.states.total, r.predicted_states.total)
            buckets = "—" if r.comm_buffers is None else fmt_in(r.comm_buffers, unit)
            if r.comm_buffers is not None and r.predicted_comm_buffers is not None:
                number = fmt_in(r.comm_buffers, unit).rsplit(" ", 1)[0]
                buckets = f"{number} / {fmt_in(r.predicted_comm_buffers, unit)}"  # one unit for the pair
            cells = [str(r.stage), str(r.rank), fmt_in(r.peak_bytes, unit), fmt_in(r.states.total, unit),
                     fmt_in(r.predicted_states.total, unit), fmt_percent(d), buckets]
            tip = "<br>".join([
                "<b>" + html.escape(i18n.stage_short(r.stage) + " · " + self.tr("rank {r}").format(r=r.rank)) + "</b>",
                *(html.escape(self.tr("{what}: measured {m}, predicted {p}").format(
                    what=i18n.component_label(k), m=i18n.fmt_exact_bytes(getattr(r.states, k)),
                    p=i18n.fmt_exact_bytes(getattr(r.predicted_states, k)))) for k in ("params", "grads", "optimizer")),
                html.escape(self.tr("Peak of the step: {v} (activations and temporaries included)").format(
                    v=i18n.fmt_exact_bytes(r.peak_bytes))),
            ] + ([html.escape(self.tr("Step time: {t}").format(t=i18n.fmt_seconds(r.step_s)))] if r.step_s is not None else []))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(right if col >= 2 else Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(tip)
                if col == 5 and d is not None:
                    item.setForeground(pg.mkColor(OK_COLOR if abs(d) < 0.005 else ERROR_COLOR))
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()

    def overlay_label(self) -> str:
        st = self._started
        return self.tr("measured ({device}, {ranks} ranks)").format(
            device=self._device_text(st.device) if st else "?", ranks=st.ranks if st else self._run_ranks)

    def on_chart(self) -> bool:
        """Whether this run's results go onto the Plan tab's chart: the plan as planned (no scale-down, ranks = Nd)."""
        st, plan = self._started, self._run_plan
        return (self.chart is not None and st is not None and plan is not None and st.scale.identity
                and st.ranks == plan.dp and self._plan is not None and run_key(self._plan) == run_key(plan))

    def _overlay(self, stage: int) -> None:
        if not self.on_chart():
            return
        ranks = [r for (s, _), r in self.results.items() if s == stage]
        peak = max(r.peak_bytes for r in ranks)
        states = max(r.states.total + (r.comm_buffers or 0) for r in ranks)  # the bars count DDP's buckets
        self._overlay_label = self.overlay_label()
        self._overlay_key = run_key(self._run_plan)
        self.chart.overlay_measured(stage, peak, states, self._overlay_label)


def install_measure_tab(window) -> MeasureTab:
    """Add the Measure tab to a MainWindow and wire it: the plan, the Plan tab's chart, settings, shutdown."""
    store = window.settings.store
    persist = getattr(window, "_persist", True)
    tab = MeasureTab(MeasureSettings(store, persist=persist))
    tab.chart = window.chart
    tab.tab_widget = window.tabs
    window.add_tab(tab, tab.title())
    tab.set_plan(window.current_plan())
    window.form.planChanged.connect(tab.set_plan)
    guard = _ShutdownGuard(window, tab)
    window._measure_guard = guard
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(tab.kill_now)
    window.measure_tab = tab
    return tab


class _ShutdownGuard(QObject):
    """When the window closes (or is hidden for good) during a run, kill the run at once."""

    def __init__(self, window, tab: MeasureTab) -> None:
        super().__init__(window)
        self._window, self._tab = window, tab
        window.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if obj is self._window and event.type() == QEvent.Type.Hide and not event.spontaneous():
            self._tab.kill_now()
        return False
