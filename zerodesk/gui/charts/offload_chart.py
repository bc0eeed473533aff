"""Offload beside the stage bars, never stacked into them: per stage, what stays on one GPU, what one node's
host memory (or NVMe) holds, the host's RAM as a line, and which memory runs out first.

Renders zerodesk.core.offload; decides nothing itself.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ...core.accounting import STAGES
from ...core.notes import Note
from ...core.offload import OffloadBreakdown, compute_offload, pressures, traffic_seconds
from ...core.plan import Offload, Plan
from ...core.units import UNIT_BYTES, scaled_unit
from ..base import i18n
from ..base.wrapped_label import WrappedLabel
from .draw_once import PaintCounted
from .grid import apply_axis_palette

SERIES_COLORS = {"gpu": "#0072B2", "working": "#56B4E9", "host": "#009E73", "nvme": "#8E6CC9"}
HOST_LINE_COLOR = "#009E73"
GPU_LINE_COLOR = "#D62728"
WIDTH = 0.26


def _set_label(axis: pg.AxisItem, text: str) -> None:
    """The axis's title, set only when it changes: setting it (even to the same words) drops the axis's drawing and
    measures its size again, and the axis is drawn anew on the next paint."""
    if axis.labelText != text or not axis.label.isVisible():
        axis.setLabel(text)


def _set_format(label: pg.InfLineLabel, text: str) -> None:
    """A line's label's text, set only when it changes (setting it lays the label out along its line again)."""
    if label.format != text:
        label.setFormat(text)


class _Plot(PaintCounted, pg.PlotWidget):
    """Painted with the plan tab's charts after an edit, once (see draw_once.drawing_held)."""


class OffloadChart(QWidget):
    """A small grouped-bar chart with its verdict; hidden by its owner when the plan offloads nothing."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("offloadChart")
        self._plan: Plan | None = None
        self._b: OffloadBreakdown | None = None
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)
        # WrappedLabel: QLabel's sizes and pixels, measured once per text and width (a profile toggled changes both texts;
        # the layout that follows asked each QLabel its height several times, each a layout of its rich text)
        self.title = WrappedLabel()
        self.title.setObjectName("offloadTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        v.addWidget(self.title)
        self.plot = _Plot()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        for name in ("left", "bottom"):  # our labels name the unit: no "(x1e-09)" of pyqtgraph's own
            self.plot.getAxis(name).enableAutoSIPrefix(False)
        self.plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # nothing to do there by keyboard: Tab passes it by
        apply_axis_palette(self.plot)
        v.addWidget(self.plot, 1)
        self.verdict = WrappedLabel()
        self.verdict.setObjectName("offloadVerdict")
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        v.addWidget(self.verdict)
        self.bars = {key: pg.BarGraphItem(x=[], height=[], width=WIDTH, brush=color, pen=pg.mkPen(None))
                     for key, color in SERIES_COLORS.items()}
        for item in self.bars.values():
            self.plot.addItem(item)
        self.host_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(HOST_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine))
        self.gpu_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(GPU_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine))
        for line in (self.host_line, self.gpu_line):
            self.plot.addItem(line)
        self.host_label = pg.InfLineLabel(self.host_line, "", position=0.02, anchors=[(0, 0), (0, 0)], color=HOST_LINE_COLOR)
        self.gpu_label = pg.InfLineLabel(self.gpu_line, "", position=0.55, anchors=[(0, 1), (0, 1)], color=GPU_LINE_COLOR)
        self._marks: list[pg.TextItem] = []  # '?' where the working set needs the architecture; kept, the first _shown shown
        self._shown = 0
        self.plot.getAxis("bottom").setTicks([[(s, str(s)) for s in STAGES]])
        self.plot.setXRange(-0.6, 3.6, padding=0)

    @property
    def unknown_marks(self) -> list[pg.TextItem]:
        """The '?' marks shown, one per GPU bar whose working set is unknown."""
        return self._marks[:self._shown]

    def breakdown(self) -> OffloadBreakdown | None:
        return self._b

    def set_plan(self, plan: Plan) -> None:
        self._plan = plan
        self._b = compute_offload(plan)
        self.setVisible(self._b is not None)
        self._draw()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._draw()
        super().changeEvent(event)

    def _draw(self) -> None:
        plan, b = self._plan, self._b
        if plan is None or b is None:
            return
        applicable = [s for s in b.stages if s.applicable]
        self.plot.setVisible(bool(applicable))  # no stage can offload so: the words say why, no empty axes
        largest = max([max(s.gpu_bytes + (s.gpu_working_bytes or 0), s.offloaded_node_bytes) for s in applicable] or [1])
        unit = scaled_unit(largest, plan.units)
        scale = UNIT_BYTES[unit]
        series: dict[str, tuple[list[float], list[float], list[float]]] = {k: ([], [], []) for k in SERIES_COLORS}

        def put(key: str, x: float, height: int, y0: int = 0) -> None:
            xs, hs, ys = series[key]
            xs.append(x)
            hs.append(height / scale)
            ys.append(y0 / scale)

        top = 0.0
        marks = 0
        for s in b.stages:
            if not s.applicable:
                continue
            put("gpu", s.stage - WIDTH, s.gpu_bytes)
            if s.gpu_working_bytes is None:  # unknown (no shapes): a '?' on the GPU bar, never a bar of 0
                self._unknown_mark(marks).setPos(s.stage - WIDTH, s.gpu_bytes / scale)
                marks += 1
            put("working", s.stage - WIDTH, s.gpu_working_bytes or 0, s.gpu_bytes)
            put("nvme" if s.on_nvme else "host", s.stage, s.offloaded_node_bytes)
            top = max(top, s.gpu_bytes + (s.gpu_working_bytes or 0), s.offloaded_node_bytes)
        for mark in self._marks[marks:]:
            mark.hide()
        self._shown = marks
        for key, (xs, hs, ys) in series.items():
            self.bars[key].setOpts(x=xs, height=hs, y0=ys, width=WIDTH)
        for line, nbytes in ((self.host_line, plan.cluster.host_memory_bytes),
                             (self.gpu_line, plan.cluster.gpu_memory_bytes)):
            line.setVisible(bool(nbytes))
            if nbytes:
                line.setValue(nbytes / scale)
        _set_format(self.host_label, self.tr("host RAM per node {size}").format(
            size=i18n.fmt_bytes(plan.cluster.host_memory_bytes or 0, unit)))
        _set_format(self.gpu_label, self.tr("GPU memory {size}").format(
            size=i18n.fmt_bytes(plan.cluster.gpu_memory_bytes or 0, unit)))
        # a line far above the bars (20x) would squash them: it then stays off the axis, named in the verdict
        lines = [n for n in (plan.cluster.host_memory_bytes, plan.cluster.gpu_memory_bytes) if n and n < 20 * max(top, 1)]
        self.plot.setYRange(0, max([top, *lines, 1]) * 1.1 / scale, padding=0)
        _set_label(self.plot.getAxis("left"), self.tr("memory, {unit}").format(unit=i18n.unit_label(unit)))
        _set_label(self.plot.getAxis("bottom"), self.tr("ZeRO stage"))
        self._texts(plan, b, unit)

    def _unknown_mark(self, index: int) -> pg.TextItem:
        """The index-th '?' mark, shown; made once and kept (a raw parameter count made and added a text item per
        stage on every edit, each laid out and transformed anew when first painted)."""
        if index == len(self._marks):
            mark = pg.TextItem("?", color=SERIES_COLORS["working"], anchor=(0.5, 1.0))
            self.plot.addItem(mark)
            self._marks.append(mark)
        mark = self._marks[index]
        mark.show()
        return mark

    def _texts(self, plan: Plan, b: OffloadBreakdown, unit: str) -> None:
        where = self.tr("NVMe") if b.target == "nvme" else self.tr("host memory")
        choice = self.tr("optimizer states and gradients") if b.offload == Offload.OPTIMIZER else self.tr(
            "optimizer states, gradients and parameters")
        source = self.tr("ZeRO-Offload / ZeRO-Infinity bookkeeping") if b.profile.value == "paper" else self.tr(
            "PyTorch FSDP2 with CPUOffloadPolicy")
        working = self.tr("GPU working set")
        if any(s.applicable and s.gpu_working_bytes is None for s in b.stages):
            working = self.tr("GPU working set: unknown (needs the architecture)")
        legend = " ".join(
            f"<span style='color:{SERIES_COLORS[k]}'>■</span>&nbsp;{html.escape(t)}"
            for k, t in (("gpu", self.tr("GPU, per rank, at rest")), ("working", working),
                         ("nvme" if b.target == "nvme" else "host", self.tr("{where}, per node").format(where=where))))
        self.title.setText(
            "<b>" + html.escape(self.tr("Offload: {choice} to {where}").format(choice=choice, where=where)) + "</b> — "
            + html.escape(self.tr("computed, apart from the stages; {source}").format(source=source)) + "<br>" + legend)
        lines = []
        for s in b.stages:
            if not s.applicable:
                continue
            found = pressures(s, plan.cluster.gpu_memory_bytes, plan.cluster.host_memory_bytes)
            ms = traffic_seconds(s.traffic_bytes, b.pcie_gbps) * 1e3
            traffic = self.tr("traffic {bytes} per step, {ms} ms at {bw} GB/s").format(
                bytes=i18n.fmt_bytes(s.traffic_bytes, scaled_unit(s.traffic_bytes, plan.units)), ms=i18n.fmt_number(ms, 1),
                bw=i18n.fmt_number(b.pcie_gbps, 0))
            if not found:
                verdict = self.tr("give the GPU and host memory to compare")
            else:
                tight = found[0]
                name = self.tr("GPU memory") if tight.memory == "gpu" else self.tr("host memory per node")
                share = self.tr("{pct}% of {total}").format(pct=i18n.fmt_number(100 * tight.fraction, 0),
                                                            total=i18n.fmt_bytes(tight.available, scaled_unit(tight.available, plan.units)))
                verdict = (self.tr("{name} runs out first ({share})") if tight.fraction > 1
                           else self.tr("fits; tightest: {name} ({share}), states only")).format(name=name, share=share)
            lines.append(html.escape(self.tr("Stage {n}: {verdict}; {traffic}").format(
                n=s.stage, verdict=verdict, traffic=traffic)))
        by_reason: dict[Note, list[str]] = {}
        for s in b.stages:
            if not s.applicable:
                by_reason.setdefault(s.reason, []).append(str(s.stage))
        for reason, stages in by_reason.items():
            lines.append(html.escape(self.tr("Stage {stages}: {reason}").format(
                stages=", ".join(stages), reason=i18n.core_note(reason))))
        self.verdict.setText("<br>".join(lines))
