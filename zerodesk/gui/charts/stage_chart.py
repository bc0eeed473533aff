"""Per-stage stacked bars of per-rank state memory, by component (Orange3-style PlotWidget).

The items are created once and updated in place (BarGraphItem.setOpts, TextItem.setText,
InfiniteLine.setValue), so an edit costs a few hundred microseconds of Python, not a rebuild.
Figures are stored in bytes and drawn in the plan's unit. Above the states, a hatched, outlined layer
shows the predicted full-step peak (zerodesk.core.peak): an estimate, drawn so it cannot be mistaken
for the computed states. Beside them live the chart's other parts: what is under the mouse
(stage_hits: hover a segment for its bytes and formula, click it for the glossary claim it rests on)
and the simulated and measured runs' markers (run_overlay).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette

from ...core.accounting import STAGES, Breakdown, ComponentSpec
from ...core.peak import StagePeak, predict
from ...core.plan import Plan
from ...core.units import UNIT_BYTES
from ..base import i18n
from ..base.provenance import component_specs
from ..base.style import GPU_LINE_COLOR, PEAK_COLOR, component_color
from .grid import GridLines, apply_axis_palette
from .run_markers import BAR_WIDTH, Measured
from .run_overlay import RunOverlay
from .stage_hits import PEAK_KEY, SegmentHits
from .stage_texts import stage_tick_labels
from .tools import ChartMenu, LogScaleMixin, StickyTip, ValueAxis, log_floor, settle_axes

__all__ = ["GPU_REACH", "PEAK_KEY", "StageChart"]

GPU_REACH = 3  # the GPU line stays on a linear axis while it is at most this many times the tallest bar


class StageChart(LogScaleMixin, pg.PlotWidget):
    segmentHovered = Signal(int, str)  # stage, component key
    segmentClicked = Signal(int, str)
    measuredChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"left": ValueAxis("left")}, enableMenu=False)  # our own ChartMenu
        self.setObjectName("stageChart")
        self._log = False
        self._floor = 1.0  # bottom of the log axis, in the plan's unit
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self.specs: dict[str, ComponentSpec] = {}  # the plan's components by key
        self._bars: dict[str, pg.BarGraphItem] = {}
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

        bold = QFont()
        bold.setBold(True)
        self._total_labels = []
        for s in STAGES:
            t = pg.TextItem("", anchor=(0.5, 1.0))
            t.setFont(bold)
            t.setZValue(10)
            self.addItem(t)
            self._total_labels.append(t)
        # The predicted peak: hatched and dashed-outlined, above the states (an estimate, not a state).
        self._peak_bar = pg.BarGraphItem(x=[0.0], y0=[0.0], height=[0.0], width=BAR_WIDTH,
                                         brush=pg.mkBrush(QColor(PEAK_COLOR), style=Qt.BrushStyle.FDiagPattern),
                                         pen=pg.mkPen(PEAK_COLOR, width=1.5, style=Qt.PenStyle.DashLine))
        self._peak_bar.setZValue(1)
        self.addItem(self._peak_bar)
        self._peak_labels = []
        for s in STAGES:
            t = pg.TextItem("", anchor=(0.5, 1.0), color=PEAK_COLOR)
            t.setZValue(10)
            self.addItem(t)
            self._peak_labels.append(t)
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
        self.getPlotItem().vb.sigResized.connect(self._fit_total_labels)

        self.hits = SegmentHits(self)  # hover and click
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
        return self._plan.units if self._plan is not None else "GB"

    # -- value axis (linear or log) -------------------------------------------------------------
    def _log_changed(self) -> None:
        self._yrange = None
        self._axes_key = None
        self._redraw()

    def component_keys(self) -> list[str]:
        return list(self._breakdown.stages[0].components) if self._breakdown else []

    def bar_data(self) -> dict[str, dict[str, list[float]]]:
        """What is drawn, in the plan's unit: {key: {'y0': [...], 'height': [...]}} (tests read this)."""
        out = {}
        for key in self.component_keys():
            item = self._bars[key]
            out[key] = {"y0": list(map(float, item.opts["y0"])), "height": list(map(float, item.opts["height"]))}
        return out

    def total_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText().replace("\n", " ") for t in self._total_labels]

    def set_breakdown(self, plan: Plan, breakdown: Breakdown) -> None:
        self._plan, self._breakdown = plan, breakdown
        self.specs = component_specs(plan)
        self._peaks = predict(plan, breakdown)
        self._redraw()

    @property
    def peaks(self) -> list[StagePeak]:
        """The predicted full-step peak per stage, as drawn."""
        return list(self._peaks)

    def peak_label_texts(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._peak_labels]

    def _draw_peaks(self, scale: float) -> float:
        """Place the hatched peak layer and its labels; returns the highest peak in bytes."""
        b = self._breakdown
        states = [s.total_bytes for s in b.stages]
        peaks = [p.total_bytes for p in self._peaks] or states
        ty = self._ty  # drawn coordinates: linear or log axis
        self._peak_bar.setOpts(x=[float(s.stage) for s in b.stages], y0=[ty(v / scale) for v in states],
                               height=[max(0.0, ty(max(p, v) / scale) - ty(v / scale)) for p, v in zip(peaks, states)])
        top = max(peaks + states)
        for label, p, v in zip(self._peak_labels, self._peaks, states):
            label.setPos(p.stage, ty(max(p.total_bytes, v) / scale))
            # a thin layer would put this label on the states total: lift it one line
            label.setAnchor((0.5, 2.0 if p.total_bytes - v < 0.08 * top else 1.0))
        self._peak_texts()
        return max(peaks)

    def _peak_texts(self) -> None:
        """Each peak label in the room one stage has: in full, short ('≈ 69.49 GB'), or none (hover still says it)."""
        gpu = self._plan.cluster.gpu_memory_bytes if self._plan is not None else None
        vb = self.getPlotItem().vb
        (x0, x1), _ = vb.viewRange()
        room = vb.width() / max(x1 - x0, 1e-9)  # pixels between two bars: centred labels this wide never meet
        for label, p in zip(self._peak_labels, self._peaks):
            short = "≈ " + i18n.fmt_bytes(p.total_bytes, self.unit)
            full = self.tr("peak ≈ {v}").format(v=i18n.fmt_bytes(p.total_bytes, self.unit))
            if gpu:
                full += " " + (self.tr("(fits)") if p.total_bytes <= gpu else self.tr("(over)"))
            metrics = QFontMetrics(label.textItem.font())
            fits = [t for t in (full, short) if metrics.horizontalAdvance(t) <= room]
            label.setText(fits[0] if fits else "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if getattr(self, "_peaks", None):  # resized while being built: nothing to label yet
            self._peak_texts()

    def _redraw(self) -> None:
        b = self._breakdown
        if b is None:
            return
        scale = UNIT_BYTES[self.unit]
        keys = self.component_keys()
        if self._log:
            self._floor = log_floor([v / scale for s in b.stages for v in (s.total_bytes, *s.components.values())])
        bottoms = [0.0] * len(b.stages)
        xs = [float(s.stage) for s in b.stages]
        ty = self._ty
        for i, key in enumerate(keys):
            values = [s.components.get(key, 0) / scale for s in b.stages]
            heights = [ty(b0 + v) - ty(b0) if self._log else v for b0, v in zip(bottoms, values)]
            drawn_bottoms = [ty(b0) for b0 in bottoms]
            item = self._bars.get(key)
            if item is None:
                color = QColor(component_color(key, i))
                item = pg.BarGraphItem(x=xs, y0=drawn_bottoms, height=heights, width=BAR_WIDTH,
                                       brush=pg.mkBrush(color), pen=self._segment_pen())
                item.setZValue(1)
                self.addItem(item)
                self._bars[key] = item
            else:
                item.setOpts(x=xs, y0=drawn_bottoms, height=heights)
                if not item.isVisible():
                    item.show()
            bottoms = [b0 + v for b0, v in zip(bottoms, values)]
        for key, item in self._bars.items():
            if key not in keys and item.isVisible():
                item.hide()
        for label, s in zip(self._total_labels, b.stages):
            label.setText(i18n.fmt_bytes(s.total_bytes, self.unit))
            label.setPos(s.stage, ty(s.total_bytes / scale))
        gpu = self._plan.cluster.gpu_memory_bytes
        top = max(max(s.total_bytes for s in b.stages), self._draw_peaks(scale))
        top = max(top, self.runs.top_bytes())
        # a GPU far above the bars would squash them into the bottom: fit the bars and name the GPU at the top
        gpu_on_axis = bool(gpu) and (self._log or gpu <= top * GPU_REACH)
        if gpu_on_axis:
            top = max(top, gpu)
        self._draw_runs()
        head = 1.25 if self.runs else 1.15
        if self._log:
            yrange = (ty(self._floor), math.log10(top / scale) + math.log10(head) * 2 if top else 1)
        else:
            yrange = (-top / scale * 0.005, top / scale * head if top else 1)
        if yrange != self._yrange:
            self._yrange = yrange
            self.setYRange(*yrange, padding=0)
        text = self.tr("GPU memory {v}").format(v=i18n.fmt_bytes(gpu, self.unit)) if gpu else ""
        if gpu_on_axis:
            self._gpu_line.show()  # before the text: a hidden label ignores setFormat
            self._gpu_line.setValue(ty(gpu / scale))
            self._gpu_line.label.setFormat(text.replace("{", "{{").replace("}", "}}"))
        else:
            self._gpu_line.hide()
        if gpu and not gpu_on_axis:
            self._gpu_above.setText("↑ " + self.tr("{gpu}, above the chart").format(gpu=text))
            self._gpu_above.setPos(self.getPlotItem().vb.viewRange()[0][1], yrange[1])
            self._gpu_above.show()
        else:
            self._gpu_above.hide()
        self._set_axes_text()
        self._fit_total_labels()

    def gpu_line_shown(self) -> bool:
        """True when the GPU's memory is drawn as a line on the axis (False: named above the chart)."""
        return self._gpu_line.isVisible()

    def gpu_above_text(self) -> str:
        return self._gpu_above.textItem.toPlainText() if self._gpu_above.isVisible() else ""

    def _fit_total_labels(self, *_args) -> None:
        """Totals above the bars must not run into each other: smaller type, then the unit on a second line."""
        labels = self._total_labels
        if not labels or self._breakdown is None:
            return
        vb = self.getPlotItem().vb
        (x0, x1), _ = vb.viewRange()
        room = vb.width() / max(x1 - x0, 1e-9) * 0.96  # pixels between two stages
        texts = [i18n.fmt_bytes(s.total_bytes, self.unit) for s in self._breakdown.stages]
        font = QFont()
        font.setBold(True)
        size = font.pointSizeF()
        while size > 6.5 and max(QFontMetrics(font).horizontalAdvance(t) for t in texts) > room:
            size -= 0.5
            font.setPointSizeF(size)
        wrap = max(QFontMetrics(font).horizontalAdvance(t) for t in texts) > room
        for label, text in zip(labels, texts):
            label.setFont(font)
            label.setText(text.replace(" ", "\n", 1) if wrap else text)
        self._set_axes_text()

    def _set_x_range(self) -> None:
        self.setXRange(-0.5, self.runs.series.right_edge(), padding=0)

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
        for t in self._total_labels:  # a translucent backing keeps a total legible across the GPU line
            t.setColor(text)
            t.fill = pg.mkBrush(fill)
            t.update()
        fill = QColor(base)
        fill.setAlpha(210)
        self._gpu_line.label.fill = pg.mkBrush(fill)
        self._gpu_above.fill = pg.mkBrush(fill)
        for item in self._bars.values():
            item.setOpts(pen=self._segment_pen())
        if hasattr(self, "grid_lines"):
            self.grid_lines.apply_palette()

    def changeEvent(self, event) -> None:
        if not getattr(self, "_ready", False):
            pass
        elif event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        elif event.type() == QEvent.Type.LanguageChange:
            self._axes_key = None
            self._redraw()
        super().changeEvent(event)

    # -- what is under the mouse (stage_hits) -------------------------------------------------------
    @property
    def hover_text(self) -> str:
        return self.hits.text

    @property
    def hovered(self) -> tuple[int, str] | None:
        return self.hits.hovered

    def segment_at(self, x: float, y: float) -> tuple[int, str] | None:
        return self.hits.segment_at(x, y)

    def segment_center(self, stage: int, key: str):
        return self.hits.center(stage, key)

    def segment_widget_pos(self, stage: int, key: str):
        return self.hits.widget_pos(stage, key)

    def segment_text(self, stage: int, key: str) -> str:
        return self.hits.segment_text(stage, key)

    # -- simulated and measured runs beside the bars (run_overlay; fed by the runs' records) ---------------
    def overlay_measured(self, stage: int, peak_bytes: int, states_bytes: int | None, label: str,
                         kind: str = "measured", reference_bytes: int | None = None) -> None:
        """Mark a measured or simulated step beside a stage's bar: states, peak, and % of the states.

        kind picks the marker (measured ▲◆, simulated ■●). reference_bytes is what the states are compared
        with: the torch profile's prediction for the run, whichever profile the bars show (the bars when None).
        One call per stage and series; a second call with the same stage and label replaces it.
        """
        self.runs.series.put(Measured(label, stage, int(peak_bytes), None if states_bytes is None else int(states_bytes),
                                      kind, None if reference_bytes is None else int(reference_bytes)))
        self._runs_changed()

    def clear_measured(self, label: str | None = None) -> None:
        self.runs.series.clear(label)
        self._runs_changed()

    def _runs_changed(self) -> None:
        self._set_x_range()
        self._redraw() if self._breakdown is not None else self._draw_runs()

    def _draw_runs(self) -> None:
        self.runs.draw()
        self.measuredChanged.emit()

    def measured(self) -> list[Measured]:
        return self.runs.markers()

    def measured_text(self, m: Measured) -> str:
        return self.runs.text(m)

    def measured_difference(self, m: Measured) -> float | None:
        return self.runs.difference(m)

    def measured_legend_html(self) -> str:
        return self.runs.legend_html()
