"""Per-rank state memory versus the data-parallel degree Nd, one line per stage, log2 x axis.

x is drawn as log2(Nd) with ticks labelled 1, 2, 4, ... so the axis is logarithmic and the tick
labels are the Nd values themselves. The current Nd is a vertical line; the GPU's memory a
horizontal one; their labels sit clear of the curves (dp_line_labels).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics

from ...core.accounting import STAGES, Breakdown, compute, sweep_dp
from ...core.plan import Plan
from ...core.units import UNIT_BYTES, scaled_unit
from ..base import i18n
from .grid import GridLines, apply_axis_palette
from .dp_keys import DpKeys
from .dp_line_labels import GPU_LABEL_SPOTS, ND_LABEL_SPOTS, LineLabels
from .markers import KeptBoundsScatter, MarkedCurve
from .draw_once import DrawOnceMixin
from .value_axis import ValueAxis
from .tools import ChartMenu, FocusFrameMixin, LogScaleMixin, StickyTip, fit_axis_title, log_floor, set_line_text, settle_axes
from ..base.style import GPU_LINE_COLOR, MARKER_OUTLINE, ND_LINE_COLOR, STAGE_COLORS
from .stage_chart import GPU_REACH
from .dp_hybrid import HybridCurves, hybrid_name

STAGE_SYMBOLS = ("o", "s", "t", "d")
MIN_MAX_DP = 1024
HOVER_PX = 9  # how near a point the mouse must be for its tooltip


def dp_grid(current: int) -> list[int]:
    """1, 2, 4, ... up to at least 1024 and at least the current Nd."""
    top = max(MIN_MAX_DP, 1 << max(0, math.ceil(math.log2(max(current, 1)))))
    out, n = [], 1
    while n <= top:
        out.append(n)
        n *= 2
    return out


def dp_legend_html() -> str:
    """The stages' line and marker styles, for the caption (stage 2 dashed: it lies on stage 3 in the torch profile)."""
    marks = {2: "╍●"}
    parts = [f'<span style="color:{STAGE_COLORS[s]}">{marks.get(s, "━●")}</span>&nbsp;{i18n.stage_short(s)}' for s in STAGES]
    return "&nbsp;&nbsp; ".join(parts)


class DpChart(DrawOnceMixin, FocusFrameMixin, LogScaleMixin, pg.PlotWidget):
    pointFocused = Signal(int, int)  # stage, Nd: the keyboard's cursor moved to a point (dp_keys)
    pointActivated = Signal(int, int)  # Enter on a point

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"left": ValueAxis("left")}, enableMenu=False)  # our own ChartMenu
        self.setObjectName("dpChart")
        self._log = True  # per-rank memory falls as 1/Nd: straight lines on log-log axes, small stages readable
        self._floor = 1.0
        self.hover_text = ""
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self._unit = "GB"  # the plan's unit, stepped down to the figures (core.units.scaled_unit)
        self._grid: list[int] = []
        self._sweep: dict[int, list[int]] = {}
        self._key: tuple | None = None
        self._drawn: tuple | None = None
        self._axes: tuple | None = None
        self._nd_drawn: tuple | None = None
        self._drawn_look: tuple | None = None  # what the last drawing showed (_look)
        self.line_labels = LineLabels(self)  # the Nd and GPU lines' labels, placed clear of the curves
        self._gpu_drawn: tuple | None = None
        self._yrange: tuple | None = None
        self._top = 0.0
        self._stage_brushes = [pg.mkBrush(c) for c in STAGE_COLORS]
        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        settle_axes(pi)
        self.setAntialiasing(True)
        self._curves = []
        # one pen object for every curve's markers: pyqtgraph keys its symbol atlas by the pen's identity, and a None
        # made a new pen per drawing (each edit rendered the markers again and the atlas grew without end)
        no_pen = pg.mkPen(None)
        for s in STAGES:
            # stages 2 and 3 coincide in the torch profile: stage 2 is dashed and drawn on top
            style = Qt.PenStyle.DashLine if s == 2 else Qt.PenStyle.SolidLine
            self._curves.append(MarkedCurve(self, 3 if s == 2 else 2, pen=pg.mkPen(STAGE_COLORS[s], width=2.5 if s == 2 else 2, style=style),
                                            symbol=STAGE_SYMBOLS[s], symbolSize=6, symbolBrush=pg.mkBrush(STAGE_COLORS[s]),
                                            symbolPen=no_pen))
        self.hybrid = HybridCurves(self)  # the plan's shard group kept as Nd grows, beside the flat curves
        self._nd_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(ND_LINE_COLOR, width=1.5, style=Qt.PenStyle.DotLine),
                                        label="", labelOpts={"position": 0.6, "anchors": [(0, 0.5), (0, 0.5)]})
        self.addItem(self._nd_line)
        self._current = KeptBoundsScatter(size=11, symbol="o", pen=pg.mkPen(MARKER_OUTLINE, width=1.5))
        self._current.setZValue(10)
        self.addItem(self._current)
        self._gpu_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(GPU_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                         label="", labelOpts={"position": 0.99, "anchors": [(1, 1), (1, 1)], "color": GPU_LINE_COLOR})
        self.addItem(self._gpu_line)
        self._gpu_line.hide()
        self._gpu_above = pg.TextItem("", color=GPU_LINE_COLOR, anchor=(1, 0))
        self._gpu_above.setZValue(11)
        self.addItem(self._gpu_above, ignoreBounds=True)
        self._gpu_above.hide()
        self.getPlotItem().getAxis("left").setLogMode(False, True)
        self.tip = StickyTip(self)
        self.menu = ChartMenu(self)
        self.menu.log_action.setChecked(True)
        self.menu.logToggled.connect(self.set_log_y)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.getPlotItem().vb.sigResized.connect(self._resized)  # head room and labels follow the height
        self.grid_lines = GridLines(self, vertical=True)
        self.keys = DpKeys(self)
        self._apply_palette()
        self._ready = True

    @property
    def grid(self) -> list[int]:
        return list(self._grid)

    @property
    def plan(self) -> Plan | None:
        return self._plan

    @property
    def unit(self) -> str:
        """The unit the curves, the axis and the hover are in."""
        return self._unit

    def sweep_values(self, stage: int) -> list[int]:
        return self._sweep[stage]

    def sweep(self) -> dict[int, list[int]]:
        """{stage: [bytes at each Nd of grid]} as drawn (tests read this)."""
        return {s: list(v) for s, v in self._sweep.items()}

    def curve_data(self, stage: int) -> tuple[list[float], list[float]]:
        x, y = self._curves[stage].getData()
        return ([] if x is None else list(map(float, x))), ([] if y is None else list(map(float, y)))

    def nd_line_x(self) -> float:
        return float(self._nd_line.value())

    def _log_changed(self) -> None:
        self._redraw(force=True)

    def set_plan(self, plan: Plan, breakdown: Breakdown | None = None) -> None:
        """Recompute the sweep only when something it depends on changed (not Nd, units or GPU)."""
        self._plan = plan
        self._breakdown = breakdown if breakdown is not None else compute(plan)
        grid = dp_grid(plan.dp)
        # the model by equality, not by its JSON: a million-tensor list compares by identity in microseconds
        key = (plan.model, plan.scheme, plan.profile, plan.shard_placement, tuple(grid))
        if key != self._key:
            self._grid = grid
            self._sweep = sweep_dp(plan, grid)  # the core keeps its last sweeps: an edit back costs a look-up
            self._key = key
        self.hybrid.update(plan, grid[-1])
        self._fit_unit()
        if self._pending or self._look() != self._drawn_look:  # a sequence or micro-batch edit: nothing here changed
            self._redraw()

    def _look(self) -> tuple:
        """What a drawing shows besides the view's size, language and scale (which draw again by themselves): the
        curves, the current Nd's markers and line, the GPU's line. A plan equal in these is not drawn or painted again."""
        plan = self._plan
        return (self._key, self.hybrid.key, plan.units, plan.dp, plan.cluster.gpu_memory_bytes,
                tuple(self._breakdown.stage(s).total_bytes for s in STAGES))

    def _fit_unit(self) -> None:
        """The unit the curves are drawn in (set at once, drawn or not: the caption names it)."""
        self._unit = scaled_unit(max([v for s in STAGES for v in self._sweep[s]] + list(self.hybrid.values())), self._plan.units)

    def _draw(self, force: bool = False) -> None:
        plan = self._plan
        if plan is None:
            return
        self._drawn_look = self._look()
        self._fit_unit()
        scale = UNIT_BYTES[self._unit]
        xs = [math.log2(n) for n in self._grid]
        drawn = (self._key, self.hybrid.key, plan.units, i18n.current_language(), self._log)
        if force or drawn != self._drawn:  # the curves change only with these
            self._drawn = drawn
            self._top = 0.0
            values = [v / scale for s in STAGES for v in self._sweep[s]] + [v / scale for v in self.hybrid.values()]
            self._floor = log_floor(values) if self._log else 1.0
            for s in STAGES:
                ys = [self._ty(v / scale) for v in self._sweep[s]]
                self._curves[s].setData(xs, ys)
            self.hybrid.draw(self._ty, scale)
            self._top = max(values)
        axes = (tuple(self._grid), self._unit, i18n.current_language())
        if force or axes != self._axes:  # the ticks and the axes' titles: only with the grid, the unit, the language
            self._axes = axes
            pi = self.getPlotItem()
            pi.getAxis("bottom").setTicks([[(x, str(n)) for x, n in zip(xs, self._grid)]])
            self.grid_lines.set_vertical(xs)
            pi.setLabel("bottom", self.tr("Data-parallel degree Nd (log scale)"))
            fit_axis_title(pi.getAxis("bottom"), self.font())
            pi.setLabel("left", self.tr("{unit} per rank").format(unit=i18n.unit_label(self._unit)))
        self._fit_x_range(xs)
        top = self._top
        # current values at the plan's Nd (exact, even off the power-of-two grid)
        x_now = math.log2(plan.dp)
        self._current.setData(x=[x_now] * len(STAGES), y=[self._ty(self._breakdown.stage(s).total_bytes / scale) for s in STAGES],
                              brush=self._stage_brushes)
        if self._nd_line.value() != x_now or force or drawn != self._nd_drawn:
            self._nd_drawn = drawn
            self._nd_line.setValue(x_now)
            set_line_text(self._nd_line, self.tr("current Nd = {nd}").format(nd=plan.dp))
        gpu = plan.cluster.gpu_memory_bytes
        gpu_on_axis = bool(gpu) and (self._log or gpu / scale <= top * GPU_REACH)
        if gpu_on_axis:
            top = max(top, gpu / scale)
        # head room above the highest line for one line of label text, however short the chart is
        label_share = min(0.4, (QFontMetrics(self.font()).height() + 8) / max(self.getPlotItem().vb.height(), 1.0))
        if self._log:
            low = self._ty(self._floor)
            high = math.log10(top) if top > 0 else low + 1
            yrange = (low, high + (high - low) * (0.03 + label_share) / (1 - label_share))
        else:
            yrange = (-top * 0.01, top * (1.03 + label_share) / (1 - label_share) if top else 1)
        if yrange != self._yrange or force:
            self._yrange = yrange
            self.setYRange(*yrange, padding=0)
        text = self.tr("GPU memory {v}").format(v=i18n.fmt_bytes(gpu, self._unit if gpu_on_axis else scaled_unit(gpu, plan.units))) if gpu else ""
        if gpu_on_axis:
            self._gpu_line.show()  # before the text: a hidden label ignores setFormat
            if (gpu, drawn) != self._gpu_drawn or force:
                self._gpu_drawn = (gpu, drawn)
                self._gpu_line.setValue(self._ty(gpu / scale))
                set_line_text(self._gpu_line, text)
            self._place_gpu_label(text)
        else:
            self._gpu_line.hide()
            self._gpu_drawn = None
        if gpu and not gpu_on_axis:
            self._gpu_above.setText("↑ " + self.tr("{gpu}, above the chart").format(gpu=text))
            self._gpu_above.setPos(self.getPlotItem().vb.viewRange()[0][1], yrange[1])
            self._gpu_above.show()
        else:
            self._gpu_above.hide()
        self.line_labels.place(self._nd_line, self.tr("current Nd = {nd}").format(nd=plan.dp), ND_LABEL_SPOTS,
                               self._drawn_look)
        self.keys.refresh()

    def _fit_x_range(self, xs: list[float]) -> None:
        """Room at both ends for half a tick label ("1024" is cut off otherwise in a narrow chart)."""
        axis = self.getPlotItem().getAxis("bottom")
        metrics = QFontMetrics(axis.style.get("tickFont") or self.font())
        half_px = metrics.horizontalAdvance(str(self._grid[-1])) / 2 + 6
        width = max(self.getPlotItem().vb.width(), 4 * half_px)
        span = (xs[-1] - xs[0]) / (1 - 2 * half_px / width)  # the ticks' span plus a margin of half_px each side
        margin = max(0.3, (span - (xs[-1] - xs[0])) / 2)
        x_range = (xs[0] - margin, xs[-1] + margin)
        if x_range != getattr(self, "_x_range", None):
            self._x_range = x_range
            self.setXRange(*x_range, padding=0)

    def gpu_line_shown(self) -> bool:
        return self._gpu_line.isVisible()

    def _place_gpu_label(self, text: str) -> None:
        self.line_labels.place(self._gpu_line, text, GPU_LABEL_SPOTS, self._drawn_look)

    # -- hover -------------------------------------------------------------------------------------
    def point_text(self, stage: int, nd: int, nbytes: int, hybrid: bool = False) -> str:
        plan = self._plan
        title = f"{i18n.stage_short(stage)} · Nd = {i18n.fmt_int(nd)}" + (f" · {hybrid_name(plan)}" if hybrid else "")
        return "<br>".join([
            f"<b>{title}</b>",
            self.tr("{v} per rank").format(v=i18n.fmt_bytes(nbytes, self._unit)),
            self.tr("Computed, {profile}.").format(profile=i18n.profile_short(plan.profile.value)),
        ])

    def point_at(self, scene_pos) -> tuple[int, int, int] | tuple[int, int, int, bool] | None:
        """(stage, Nd, bytes) of the drawn point nearest the mouse, within HOVER_PX pixels (and True on a hybrid curve)."""
        if self._plan is None or not self._grid:
            return None
        vb = self.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        scale = UNIT_BYTES[self._unit]
        points = [(s, n, v) for s in STAGES for n, v in zip(self._grid, self._sweep[s])]
        points += [(s, self._plan.dp, self._breakdown.stage(s).total_bytes) for s in STAGES]
        points += [(s, n, v, True) for s, n, v in self.hybrid.points()]
        best, best_d = None, HOVER_PX
        for point in points:
            s, n, v = point[:3]
            p = vb.mapViewToScene(QPointF(math.log2(n), self._ty(v / scale)))
            d = max(abs(p.x() - scene_pos.x()), abs(p.y() - scene_pos.y()))
            if d <= best_d:
                best, best_d = point, d
        return best

    def _on_mouse_moved(self, scene_pos) -> None:
        hit = self.point_at(scene_pos)
        text = self.point_text(*hit) if hit else ""
        if text != self.hover_text:
            self.hover_text = text
            self.tip.show(text)

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        self._nd_line.setPen(pg.mkPen(text, width=1.5, style=Qt.PenStyle.DotLine))
        self._nd_line.label.setColor(text)
        self._current.setPen(pg.mkPen(text, width=1.5))
        fill = QColor(base)
        fill.setAlpha(210)
        self._gpu_line.label.fill = pg.mkBrush(fill)
        self._gpu_above.fill = pg.mkBrush(fill)
        self._nd_line.label.fill = pg.mkBrush(fill)
        if hasattr(self, "grid_lines"):
            self.grid_lines.apply_palette()
        if hasattr(self, "keys"):
            self.keys.apply_palette()

    def changeEvent(self, event) -> None:
        if not getattr(self, "_ready", False):
            pass
        elif event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        elif event.type() == QEvent.Type.LanguageChange:
            self._redraw(force=True)
        super().changeEvent(event)

