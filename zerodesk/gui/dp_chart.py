"""Per-rank state memory versus the data-parallel degree Nd, one line per stage, log2 x axis.

x is drawn as log2(Nd) with ticks labelled 1, 2, 4, ... so the axis is logarithmic and the tick
labels are the Nd values themselves. The current Nd is a vertical line; the GPU's memory a
horizontal one.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from ..core.accounting import STAGES, Breakdown, compute, sweep_dp
from ..core.plan import Plan
from ..core.units import UNIT_BYTES
from . import i18n
from .chart_grid import GridLines, apply_axis_palette
from .stage_chart import GPU_LINE_COLOR

from .style import MARKER_OUTLINE, ND_LINE_COLOR, STAGE_COLORS
STAGE_SYMBOLS = ("o", "s", "t", "d")
MIN_MAX_DP = 1024


def _literal(text: str) -> str:
    """InfLineLabel formats its text with str.format: keep braces literal."""
    return text.replace("{", "{{").replace("}", "}}")


def dp_grid(current: int) -> list[int]:
    """1, 2, 4, ... up to at least 1024 and at least the current Nd."""
    top = max(MIN_MAX_DP, 1 << max(0, math.ceil(math.log2(max(current, 1)))))
    out, n = [], 1
    while n <= top:
        out.append(n)
        n *= 2
    return out


class DpChart(pg.PlotWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("dpChart")
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self._grid: list[int] = []
        self._sweep: dict[int, list[int]] = {}
        self._key: tuple | None = None
        self._drawn: tuple | None = None
        self._nd_drawn: tuple | None = None
        self._gpu_drawn: tuple | None = None
        self._yrange: tuple | None = None
        self._top = 0.0
        self._stage_brushes = [pg.mkBrush(c) for c in STAGE_COLORS]
        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        for name in ("left", "bottom"):
            pi.getAxis(name).enableAutoSIPrefix(False)
            # an axis (ticks, labels, grid) repaints from a cached pixmap until its range or text changes
            pi.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAntialiasing(True)
        self._curves = []
        for s in STAGES:
            # stages 2 and 3 coincide in the torch profile: stage 2 is dashed and drawn on top
            style = Qt.PenStyle.DashLine if s == 2 else Qt.PenStyle.SolidLine
            c = pg.PlotDataItem([], [], pen=pg.mkPen(STAGE_COLORS[s], width=2.5 if s == 2 else 2, style=style),
                                symbol=STAGE_SYMBOLS[s], symbolSize=6, symbolBrush=pg.mkBrush(STAGE_COLORS[s]), symbolPen=None)
            c.setZValue(3 if s == 2 else 2)
            self.addItem(c)
            self._curves.append(c)
        self._nd_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(ND_LINE_COLOR, width=1.5, style=Qt.PenStyle.DotLine),
                                        label="", labelOpts={"position": 0.6, "anchors": [(0, 0.5), (0, 0.5)]})
        self.addItem(self._nd_line)
        self._current = pg.ScatterPlotItem(size=11, symbol="o", pen=pg.mkPen(MARKER_OUTLINE, width=1.5))
        self._current.setZValue(10)
        self.addItem(self._current)
        self._gpu_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(GPU_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                         label="", labelOpts={"position": 0.99, "anchors": [(1, 1), (1, 1)], "color": GPU_LINE_COLOR})
        self.addItem(self._gpu_line)
        self._gpu_line.hide()
        self.grid_lines = GridLines(self, vertical=True)
        self._apply_palette()
        self._ready = True

    @property
    def grid(self) -> list[int]:
        return list(self._grid)

    def sweep(self) -> dict[int, list[int]]:
        """{stage: [bytes at each Nd of grid]} as drawn (tests read this)."""
        return {s: list(v) for s, v in self._sweep.items()}

    def curve_data(self, stage: int) -> tuple[list[float], list[float]]:
        x, y = self._curves[stage].getData()
        return ([] if x is None else list(map(float, x))), ([] if y is None else list(map(float, y)))

    def nd_line_x(self) -> float:
        return float(self._nd_line.value())

    def set_plan(self, plan: Plan, breakdown: Breakdown | None = None) -> None:
        """Recompute the sweep only when something it depends on changed (not Nd, units or GPU)."""
        self._plan = plan
        self._breakdown = breakdown if breakdown is not None else compute(plan)
        grid = dp_grid(plan.dp)
        key = (plan.model.model_dump_json(), plan.scheme, plan.profile, tuple(grid))
        if key != self._key:
            self._grid = grid
            self._sweep = sweep_dp(plan, grid)
            self._key = key
        self._redraw()

    def _redraw(self, force: bool = False) -> None:
        plan = self._plan
        if plan is None:
            return
        scale = UNIT_BYTES[plan.units]
        xs = [math.log2(n) for n in self._grid]
        drawn = (self._key, plan.units, i18n.current_language())
        if force or drawn != self._drawn:  # curves, ticks and labels change only with these
            self._drawn = drawn
            self._top = 0.0
            for s in STAGES:
                ys = [v / scale for v in self._sweep[s]]
                self._curves[s].setData(xs, ys)
                self._top = max(self._top, max(ys))
            pi = self.getPlotItem()
            pi.getAxis("bottom").setTicks([[(x, str(n)) for x, n in zip(xs, self._grid)]])
            self.grid_lines.set_vertical(xs)
            pi.setLabel("bottom", self.tr("Data-parallel degree Nd (log scale)"))
            pi.setLabel("left", self.tr("Per rank, {unit}").format(unit=i18n.unit_label(plan.units)))
            self.setXRange(-0.3, xs[-1] + 0.3, padding=0)
        top = self._top
        # current values at the plan's Nd (exact, even off the power-of-two grid)
        x_now = math.log2(plan.dp)
        self._current.setData(x=[x_now] * len(STAGES), y=[self._breakdown.stage(s).total_bytes / scale for s in STAGES],
                              brush=self._stage_brushes)
        if self._nd_line.value() != x_now or force or drawn != self._nd_drawn:
            self._nd_drawn = drawn
            self._nd_line.setValue(x_now)
            self._nd_line.label.setFormat(_literal(self.tr("current Nd = {nd}").format(nd=plan.dp)))
        gpu = plan.cluster.gpu_memory_bytes
        if gpu:
            self._gpu_line.show()  # before the text: a hidden label ignores setFormat
            if (gpu, drawn) != self._gpu_drawn or force:
                self._gpu_drawn = (gpu, drawn)
                self._gpu_line.setValue(gpu / scale)
                self._gpu_line.label.setFormat(_literal(self.tr("GPU memory {v}").format(v=i18n.fmt_bytes(gpu, plan.units))))
            top = max(top, gpu / scale)
        else:
            self._gpu_line.hide()
        yrange = (-top * 0.01, top * 1.1 if top else 1)
        if yrange != self._yrange or force:
            self._yrange = yrange
            self.setYRange(*yrange, padding=0)

    def legend_html(self) -> str:
        marks = {2: "╍●"}
        parts = [f'<span style="color:{STAGE_COLORS[s]}">{marks.get(s, "━●")}</span>&nbsp;{i18n.stage_short(s)}' for s in STAGES]
        return "&nbsp;&nbsp; ".join(parts)

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        self._nd_line.setPen(pg.mkPen(text, width=1.5, style=Qt.PenStyle.DotLine))
        self._nd_line.label.setColor(text)
        self._current.setPen(pg.mkPen(text, width=1.5))
        fill = QColor(base)
        fill.setAlpha(210)
        self._gpu_line.label.fill = pg.mkBrush(fill)
        self._nd_line.label.fill = pg.mkBrush(fill)
        if hasattr(self, "grid_lines"):
            self.grid_lines.apply_palette()

    def changeEvent(self, event) -> None:
        if not getattr(self, "_ready", False):
            pass
        elif event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        elif event.type() == QEvent.Type.LanguageChange:
            self._redraw(force=True)
        super().changeEvent(event)
