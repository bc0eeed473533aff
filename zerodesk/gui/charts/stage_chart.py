"""Per-stage stacked bars of per-rank state memory, by component (Orange3-style PlotWidget).

The items are created once and updated in place (BarGraphItem.setOpts, TextItem.setText,
InfiniteLine.setValue), so an edit costs a few hundred microseconds of Python, not a rebuild.
Figures are stored in bytes and drawn in one unit that scales to them (core.units.scaled_unit: a
164K-parameter model in MiB, not 0.00245 GiB). Above the states, a hatched, outlined layer shows the
predicted full-step peak (zerodesk.core.peak): an estimate, drawn so it cannot be mistaken for the
computed states, and drawn only when it is a peak (a raw parameter count has no activations, so no
peak is drawn for it). Beside them live the chart's other parts: that layer (stage_peak_layer), the words
on the plot (stage_labels), what is under the mouse or the keyboard's cursor (stage_hits, stage_keys) and
the simulated and measured runs' markers (run_overlay).
"""

from __future__ import annotations


import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPalette

from ...core.accounting import STAGES, Breakdown, ComponentSpec
from ...core.peak import StagePeak, predict
from ...core.plan import Plan
from ...core.units import UNIT_BYTES, scaled_unit
from ..base import i18n
from ..base.provenance import component_specs
from ..base.style import GPU_LINE_COLOR, component_color
from .bars import Bars
from .grid import GridLines, apply_axis_palette
from .run_markers import BAR_WIDTH
from .run_overlay import RunOverlay
from .stage_chart_parts import StageHitsMixin, StageRunsMixin
from .stage_hits import PEAK_KEY, SegmentHits
from .stage_keys import StageKeys
from .stage_peak_layer import PeakLayer
from .stage_labels import TOP_PX, Obstacle, StageLabels, View, head_room
from .stage_texts import stage_tick_labels
from .draw_once import DrawOnceMixin
from .value_axis import ValueAxis
from .tools import ChartMenu, FocusFrameMixin, LogScaleMixin, StickyTip, log_floor, set_line_text, settle_axes

__all__ = ["GPU_REACH", "PEAK_KEY", "StageChart"]

GPU_REACH = 3  # the GPU line stays on a linear axis while it is at most this many times the tallest bar


class StageChart(StageHitsMixin, StageRunsMixin, DrawOnceMixin, FocusFrameMixin, LogScaleMixin, pg.PlotWidget):
    segmentHovered = Signal(int, str)  # stage, component key
    segmentClicked = Signal(int, str)
    segmentFocused = Signal(int, str)  # the keyboard's cursor moved to a segment (its formula is the chart's description)
    measuredChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"left": ValueAxis("left")}, enableMenu=False)  # our own ChartMenu
        self.setObjectName("stageChart")
        self._log = False
        self._floor = 1.0  # bottom of the log axis, in the shown unit
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self._unit = "GB"  # the unit figures are drawn in (the plan's family, scaled to the figures)
        self.specs: dict[str, ComponentSpec] = {}  # the plan's components by key
        self._bars: dict[str, Bars] = {}
        self.runs = RunOverlay(self)  # simulated and measured steps beside the bars
        self._axes_key: tuple | None = None
        self._yrange: tuple | None = None
        self._peaks: list[StagePeak] = []

        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        pi.vb.setDefaultPadding(0.0)
        settle_axes(pi)
        self.setAntialiasing(True)

        self.labels = StageLabels(self)
        # The predicted peak: hatched and dashed-outlined, above the states (an estimate, not a state).
        self.peak_layer = PeakLayer(self)
        self._peak_bar = self.peak_layer.bar
        self._gpu_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(GPU_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                         label="", labelOpts={"position": 0.99, "anchors": [(1, 1), (1, 1)], "color": GPU_LINE_COLOR})
        self._gpu_line.setZValue(5)
        self.addItem(self._gpu_line)
        self._gpu_line.hide()
        # the GPU far above the bars: the axis fits the bars and this note names the GPU at the top
        self._gpu_above = pg.TextItem("", color=GPU_LINE_COLOR, anchor=(1, 0))
        self._gpu_above.setZValue(11)
        self.addItem(self._gpu_above, ignoreBounds=True)
        self._gpu_above.hide()
        self.tip = StickyTip(self)
        self.menu = ChartMenu(self)
        self.menu.logToggled.connect(self.set_log_y)
        self.getPlotItem().vb.sigResized.connect(self._resized)  # head room and labels are in pixels

        self.hits = SegmentHits(self)  # hover and click
        self.keys = StageKeys(self)  # arrows, Enter
        self.grid_lines = GridLines(self)
        self._apply_palette()
        self._set_x_range()
        self._ready = True

    # -- data ---------------------------------------------------------------------------------
    @property
    def breakdown(self) -> Breakdown | None:
        return self._breakdown

    @property
    def plan(self) -> Plan | None:
        return self._plan

    @property
    def unit(self) -> str:
        """The unit the figures are drawn, labelled and hovered in: the plan's, stepped down for small figures."""
        return self._unit

    # -- value axis (linear or log) -------------------------------------------------------------
    def _log_changed(self) -> None:
        self._yrange = None
        self._axes_key = None
        self._redraw()

    def component_keys(self) -> list[str]:
        return list(self._breakdown.stages[0].components) if self._breakdown else []

    def bar_data(self) -> dict[str, dict[str, list[float]]]:
        """What is drawn, in the chart's unit: {key: {'y0': [...], 'height': [...]}} (tests read this)."""
        out = {}
        for key in self.component_keys():
            item = self._bars[key]
            out[key] = {"y0": list(map(float, item.opts["y0"])), "height": list(map(float, item.opts["height"]))}
        return out

    def total_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText().replace("\n", " ") for t in self.labels.totals]

    def set_breakdown(self, plan: Plan, breakdown: Breakdown) -> None:
        self._plan, self._breakdown = plan, breakdown
        self.specs = component_specs(plan)
        peaks = predict(plan, breakdown)
        # a peak without the activations (a raw count, a tensor list) is no peak: none is drawn, the caption says why
        self._peaks = peaks if all(p.complete for p in peaks) else []
        self._fit_unit()
        self._redraw()

    @property
    def peaks(self) -> list[StagePeak]:
        """The predicted full-step peak per stage, as drawn ([] when the plan cannot predict one)."""
        return list(self._peaks)

    def peak_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText() if t.isVisible() else "" for t in self.labels.peaks]

    def gpu_line_shown(self) -> bool:
        """True when the GPU's memory is drawn as a line on the axis (False: named above the chart)."""
        return self._gpu_line.isVisible()

    def gpu_above_text(self) -> str:
        return self._gpu_above.textItem.toPlainText() if self._gpu_above.isVisible() else ""

    # -- drawing --------------------------------------------------------------------------------
    def _fit_unit(self) -> tuple[int, bool]:
        """The unit the figures are drawn in (set at once, drawn or not: captions name it); (top bytes, GPU on the axis)."""
        b = self._breakdown
        states = [s.total_bytes for s in b.stages]
        peaks = [p.total_bytes for p in self._peaks]
        gpu = self._plan.cluster.gpu_memory_bytes
        top_bytes = max(states + peaks + [self.runs.top_bytes()])
        # a GPU far above the bars would squash them into the bottom: fit the bars and name the GPU at the top
        gpu_on_axis = bool(gpu) and (self._log or gpu <= top_bytes * GPU_REACH)
        self._unit = scaled_unit(max(top_bytes, gpu if gpu_on_axis else 0), self._plan.units)
        return top_bytes, gpu_on_axis

    def _draw(self, force: bool = False) -> None:
        b = self._breakdown
        if b is None or not getattr(self, "_ready", False):
            return
        self._set_x_range()  # the runs' spacing follows the chart's width
        self._fit_stage_axis()
        states = [s.total_bytes for s in b.stages]
        peaks = [p.total_bytes for p in self._peaks]
        gpu = self._plan.cluster.gpu_memory_bytes
        top_bytes, gpu_on_axis = self._fit_unit()
        scale = UNIT_BYTES[self._unit]
        if self._log:
            self._floor = log_floor([v / scale for s in b.stages for v in (s.total_bytes, *s.components.values())])
        ty = self._ty
        self._draw_bars(scale)
        self.peak_layer.draw(peaks, states, scale, self._ty)
        self._draw_runs()
        vb = self.getPlotItem().vb
        (x0, x1), _ = vb.viewRange()
        room = vb.width() / max(x1 - x0, 1e-9)  # pixels between two stages
        self._set_texts(room)
        gpu_text = self.tr("GPU memory {v}").format(v=i18n.fmt_bytes(gpu, self._unit)) if gpu else ""
        self._gpu_line.setVisible(gpu_on_axis)
        if gpu_on_axis:
            self._gpu_line.label.setVisible(True)  # before the value and the text: a hidden label ignores both
            self._gpu_line.setValue(ty(gpu / scale))
            set_line_text(self._gpu_line, gpu_text)
        above = bool(gpu) and not gpu_on_axis
        if above:
            self._gpu_above.setText("↑ " + self.tr("{gpu}, above the chart").format(
                gpu=self.tr("GPU memory {v}").format(v=i18n.fmt_bytes(gpu, scaled_unit(gpu, self._plan.units)))))
        # the value axis: from the bottom (0, or the log floor) to where every label has its pixels
        y0 = ty(self._floor) if self._log else -top_bytes / scale * 0.005
        tops = [ty(max(v, p) / scale) for v, p in zip(states, peaks or states)]
        obstacles = [Obstacle(s - BAR_WIDTH / 2, s + BAR_WIDTH / 2, t) for s, t in zip(STAGES, tops)]
        obstacles += self.runs.obstacles((x1 - x0) / max(vb.width(), 1.0))
        blocks = self._lay_out(x0, x1, y0, obstacles, gpu_on_axis, above)
        if gpu_on_axis:  # the line's label where it meets nothing; else at the top, in head room of its own
            view = View(x0, x1, *self._yrange, vb.width(), vb.height())
            avoid = blocks + [QRectF(o.x0, y0, o.x1 - o.x0, (o.top - y0) + o.above_px * view.px_y) for o in obstacles]
            if not self.labels.place_line_label(self._gpu_line, view, avoid):
                self._gpu_line.label.setVisible(False)
                self._gpu_above.setText("╌ " + gpu_text)
                above = True
                self._lay_out(x0, x1, y0, obstacles, gpu_on_axis, above)
        self._gpu_above.setVisible(above)
        if above:
            self._gpu_above.setPos(x1, self._yrange[1])
        self._set_axes_text()
        self.keys.refresh()

    def _lay_out(self, x0: float, x1: float, y0: float, obstacles: list[Obstacle], gpu_on_axis: bool,
                 note: bool) -> list[QRectF]:
        """Set the value axis's top where every label block (and the GPU line's label, and the note at the top
        when `note`) has its pixels above what it stands on; stand the blocks there. Returns their rectangles."""
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        room = None
        if note:  # the note at the top right: what stands under it keeps below it
            size = self._gpu_above.textItem.boundingRect()
            room = (x1 - size.width() * (x1 - x0) / max(width, 1.0), x1, size.height())
        while True:
            wants = self.labels.wants(View(x0, x1, y0, y0 + 1, width, height), obstacles, list(STAGES), room)
            plain_top = max(o.top for o in obstacles)
            if gpu_on_axis:
                gpu_top = self._gpu_line.value()
                wants.append((gpu_top, self._gpu_line.label.textItem.boundingRect().height() + TOP_PX + (room[2] if room else 0)))
                plain_top = max(plain_top, gpu_top)
            y1, fits = head_room(y0, height, wants)
            if fits or not self.labels.drop_peaks():  # too short for every word: the peaks' go (hover keeps them)
                break
        y1 = max(y1, plain_top + (plain_top - y0) * 0.02, y0 + 1e-9)
        if (y0, y1) != self._yrange:
            self._yrange = (y0, y1)
            self.setYRange(y0, y1, padding=0)
        return self.labels.place(View(x0, x1, y0, y1, width, height), obstacles, list(STAGES))

    def _draw_bars(self, scale: float) -> None:
        b = self._breakdown
        keys = self.component_keys()
        bottoms = [0.0] * len(b.stages)
        xs = [float(s.stage) for s in b.stages]
        ty = self._ty
        for i, key in enumerate(keys):
            values = [s.components.get(key, 0) / scale for s in b.stages]
            heights = [ty(b0 + v) - ty(b0) if self._log else v for b0, v in zip(bottoms, values)]
            drawn_bottoms = [ty(b0) for b0 in bottoms]
            item = self._bars.get(key)
            if item is None:
                item = Bars(x=xs, y0=drawn_bottoms, height=heights, width=BAR_WIDTH,
                                       brush=pg.mkBrush(QColor(component_color(key, i))), pen=self._segment_pen())
                item.setZValue(1)
                self.addItem(item)
                self._bars[key] = item
            else:
                item.setOpts(x=xs, y0=drawn_bottoms, height=heights)
                item.show()
            bottoms = [b0 + v for b0, v in zip(bottoms, values)]
        for key, item in self._bars.items():
            if key not in keys:
                item.hide()

    def hatch_as_lines(self, on: bool, spacing_px: float = 6.0) -> None:
        """Draw the peak layer's hatch as line segments (an export), or as the pattern brush again."""
        self.peak_layer.hatch_as_lines(on, spacing_px)

    def _set_texts(self, room: float) -> None:
        """The totals and the peaks' words, in the room one stage has (hover still says all of it)."""
        b, unit = self._breakdown, self._unit
        gpu = self._plan.cluster.gpu_memory_bytes
        totals = [i18n.fmt_bytes(s.total_bytes, unit) for s in b.stages]
        variants = []
        for p in self._peaks or [None] * len(totals):
            if p is None:
                variants.append([])
                continue
            value = i18n.fmt_bytes(p.total_bytes, unit)
            full = self.tr("peak ≈ {v}").format(v=value)
            fit = [full + " " + (self.tr("(fits)") if p.total_bytes <= gpu else self.tr("(over)"))] if gpu else []
            variants.append([*fit, full, "≈ " + value])
        self.labels.fit_texts(totals, variants, room)

    def _set_x_range(self) -> None:
        self.runs.fit_step(self.getPlotItem().vb.width())
        x_range = (-0.5, self.runs.series.right_edge())
        if x_range != tuple(self.getPlotItem().vb.viewRange()[0]):
            self.setXRange(*x_range, padding=0)

    def _fit_stage_axis(self) -> None:
        """The stage names under the bars follow the chart's width only (a narrower chart wraps them to more lines, a
        taller axis): set them, and lay the chart out at that axis, before anything is placed in pixels. Set after the
        drawing, a new axis height moved the view box and the whole chart was drawn again (an offload choice that shows
        the offload chart beside it, or hides it, did so on most edits)."""
        self._set_axes_text()
        layout = self.getPlotItem().layout
        if not layout.isActivated():
            layout.activate()
            self._drawn_size = self._view_size()  # drawn at this size: the resize it made asks for no other drawing

    def _set_axes_text(self, force: bool = False) -> None:
        pi = self.getPlotItem()
        bottom = pi.getAxis("bottom")
        (x0, x1), _ = pi.vb.viewRange()
        room = max(40.0, pi.vb.width() / max(x1 - x0, 1e-9) * 0.95)  # pixels per stage
        key = (self.unit, i18n.current_language(), self._log, round(room / 8))
        if key == self._axes_key and not force:
            return
        self._axes_key = key
        # short: the caption above says what is drawn; a tall chart has room, a short one does not
        pi.setLabel("left", self.tr("{unit} per rank").format(unit=i18n.unit_label(self.unit)))
        font, labels = stage_tick_labels(self.font(), room)
        bottom.setTickFont(font)
        bottom.setTicks([list(labels.items())])
        lines = max(text.count("\n") + 1 for text in labels.values())
        height = QFontMetrics(font).lineSpacing() * lines + 14
        if bottom.height() != height:
            bottom.setHeight(height)

    # -- palette ------------------------------------------------------------------------------
    def _segment_pen(self):
        return pg.mkPen(self.palette().color(QPalette.ColorRole.Base), width=1)

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        fill = QColor(base)
        fill.setAlpha(200)
        for t in self.labels.totals + self.labels.peaks:  # a translucent backing keeps a label legible across a line
            t.fill = pg.mkBrush(fill)
            t.update()
        for t in self.labels.totals:
            t.setColor(text)
        fill = QColor(base)
        fill.setAlpha(210)
        self._gpu_line.label.fill = pg.mkBrush(fill)
        self._gpu_above.fill = pg.mkBrush(fill)
        for item in self._bars.values():
            item.setOpts(pen=self._segment_pen())
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
            self._axes_key = None
            self._redraw()
        super().changeEvent(event)
