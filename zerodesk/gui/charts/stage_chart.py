"""Per-stage stacked bars of per-rank state memory, by component (Orange3-style PlotWidget).

The items are created once and updated in place (BarGraphItem.setOpts, TextItem.setText,
InfiniteLine.setValue), so an edit costs a few hundred microseconds of Python, not a rebuild.
Figures are stored in bytes and drawn in the plan's unit. Hover a segment for its bytes and
formula; click it to ask for the glossary claim it rests on (segmentClicked).
Above the states, a hatched, outlined layer shows the predicted full-step peak (zerodesk.core.peak):
an estimate, drawn so it cannot be mistaken for the computed states.
"""

from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette

from ...core.accounting import SCHEMES, STAGES, TORCH_COMPONENTS, Breakdown, ComponentSpec
from ...core.peak import StagePeak, predict
from ...core.plan import Plan, Profile
from ...core.units import UNIT_BYTES
from ..base import i18n
from . import stage_texts as texts
from .grid import GridLines, apply_axis_palette
from .run_markers import BAR_WIDTH, Measured, MeasuredSeries
from ..base.style import GPU_LINE_COLOR, PEAK_COLOR, TIER_GLYPHS, TIER_SYMBOLS, component_color
from .tools import ChartMenu, LogScaleMixin, settle_axes, StickyTip, ValueAxis, log_floor, widget_rect_of


PEAK_KEY = "predicted_peak"  # the hatched layer's key in hover and click signals
GPU_REACH = 3  # the GPU line stays on a linear axis while it is at most this many times the tallest bar


def wrap_to_width(text: str, metrics: QFontMetrics, room: float) -> str:
    """Break each line of `text` at spaces so that no line is wider than `room` pixels (if words allow)."""
    out = []
    for line in text.split("\n"):
        current = ""
        for word in line.split(" "):
            trial = f"{current} {word}" if current else word
            if current and metrics.horizontalAdvance(trial) > room:
                out.append(current)
                current = word
            else:
                current = trial
        out.append(current)
    return "\n".join(out)


def stage_tick_labels(font: QFont, room: float) -> tuple[QFont, dict[int, str]]:
    """Each stage's name wrapped to `room` pixels; where one word is wider than that (Russian's
    "оптимизатора" in a narrow chart) a smaller type, and failing that the stage number alone,
    so neighbouring names never run into each other (the caption and hover name the stages in full)."""
    for scale in (1.0, 0.85):
        small = QFont(font)
        small.setPointSizeF(font.pointSizeF() * scale)
        metrics = QFontMetrics(small)
        labels = {s: wrap_to_width(i18n.stage_label(s), metrics, room) for s in STAGES}
        if all(metrics.horizontalAdvance(line) <= room for text in labels.values() for line in text.split("\n")):
            return small, labels
    return QFont(font), {s: i18n.stage_short(s) for s in STAGES}


def component_specs(plan: Plan) -> dict[str, ComponentSpec]:
    specs = TORCH_COMPONENTS if plan.profile == Profile.TORCH else SCHEMES[plan.scheme].components
    return {c.key: c for c in specs}


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
        self._specs: dict[str, ComponentSpec] = {}
        self._bars: dict[str, pg.BarGraphItem] = {}
        self._measured = MeasuredSeries()  # simulated and measured steps beside the bars
        self._measure_items: list = []
        self.hover_text = ""
        self.hovered: tuple[int, str] | None = None
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

        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
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
        self._specs = component_specs(plan)
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
        for m in self._measured:
            top = max(top, m.peak_bytes, m.states_bytes or 0)
        # a GPU far above the bars would squash them into the bottom: fit the bars and name the GPU at the top
        gpu_on_axis = bool(gpu) and (self._log or gpu <= top * GPU_REACH)
        if gpu_on_axis:
            top = max(top, gpu)
        self._draw_measured()
        head = 1.25 if self._measured else 1.15
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
        self.setXRange(-0.5, self._measured.right_edge(), padding=0)

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

    # -- hit testing, hover, click ------------------------------------------------------------
    def segment_at(self, x: float, y: float) -> tuple[int, str] | None:
        """The (stage, component) under a point in data coordinates, or None."""
        b = self._breakdown
        if b is None:
            return None
        stage = round(x)
        if stage not in STAGES or abs(x - stage) > BAR_WIDTH / 2:
            return None
        for key, (low, high) in self._segment_spans(stage).items():
            if low <= y <= high and high > low:
                return stage, key
        if self._peaks:  # the hatched layer above the states
            states_top = max((high for _, high in self._segment_spans(stage).values()), default=0.0)
            if states_top < y <= self._ty(self._peaks[stage].total_bytes / UNIT_BYTES[self.unit]):
                return stage, PEAK_KEY
        return None

    def _segment_spans(self, stage: int) -> dict[str, tuple[float, float]]:
        """Each component's (bottom, top) in drawn coordinates."""
        scale = UNIT_BYTES[self.unit]
        out, bottom = {}, 0.0
        for key, nbytes in self._breakdown.stage(stage).components.items():
            top = bottom + nbytes / scale
            out[key] = (self._ty(bottom), self._ty(top))
            bottom = top
        return out

    def segment_center(self, stage: int, key: str) -> QPointF:
        """Data coordinates of a segment's middle (tests click there)."""
        low, high = self._segment_spans(stage)[key]
        return QPointF(stage, (low + high) / 2)

    def segment_widget_pos(self, stage: int, key: str):
        """Widget (viewport) coordinates of a segment's middle."""
        scene_pos = self.getPlotItem().vb.mapViewToScene(self.segment_center(stage, key))
        return self.mapFromScene(scene_pos)

    def peak_text(self, stage: int) -> str:
        """Hover text of the peak layer: the predicted peak, its phase and what fills memory then."""
        return texts.peak_text(self._peaks[stage], stage, self.unit, self._plan.cluster.gpu_memory_bytes)

    def segment_text(self, stage: int, key: str) -> str:
        """The hover text: component, bytes in the unit and exactly, its formula, where it comes from."""
        if key == PEAK_KEY:
            return self.peak_text(stage)
        return texts.segment_text(self._breakdown, stage, key, self._specs.get(key), self.unit)

    def _scene_to_segment(self, scene_pos) -> tuple[int, str] | None:
        vb = self.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        return self.segment_at(p.x(), p.y())

    def _on_mouse_moved(self, scene_pos) -> None:
        m = self._measured_at(scene_pos) if self._measured else None
        if m is not None:
            self.hovered = None
            self.hover_text = self.measured_text(m)
            self.tip.show(self.hover_text)
            return
        hit = self._scene_to_segment(scene_pos)
        if hit == self.hovered:
            return
        self.hovered = hit
        if hit is None:
            self.hover_text = ""
            self.setCursor(Qt.CursorShape.ArrowCursor)
            self.tip.show("")
            return
        self.hover_text = self.segment_text(*hit)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        spans = self._segment_spans(hit[0])
        if hit[1] == PEAK_KEY:
            low = max((high for _, high in spans.values()), default=0.0)
            high = self._ty(self._peaks[hit[0]].total_bytes / UNIT_BYTES[self.unit])
        else:
            low, high = spans[hit[1]]
        self.tip.show(self.hover_text, widget_rect_of(self, hit[0] - BAR_WIDTH / 2, low, hit[0] + BAR_WIDTH / 2, high))
        if hit[1] != PEAK_KEY:  # listeners read the hovered state's bytes from the breakdown
            self.segmentHovered.emit(*hit)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._scene_to_segment(event.scenePos())
        if hit is not None:
            event.accept()
            self.segmentClicked.emit(*hit)

    # -- measured overlay (fed by the Measure tab) ---------------------------------------------
    def overlay_measured(self, stage: int, peak_bytes: int, states_bytes: int | None, label: str,
                         kind: str = "measured", reference_bytes: int | None = None) -> None:
        """Mark a measured or simulated step beside a stage's bar: states, peak, and % of the states.

        kind picks the marker (measured ▲◆, simulated ■●). reference_bytes is what the states are compared
        with: the torch profile's prediction for the run, whichever profile the bars show (the bars when None).
        One call per stage and series; a second call with the same stage and label replaces it.
        """
        self._measured.put(Measured(label, stage, int(peak_bytes), None if states_bytes is None else int(states_bytes),
                                    kind, None if reference_bytes is None else int(reference_bytes)))
        self._set_x_range()
        self._redraw() if self._breakdown is not None else self._draw_measured()

    def clear_measured(self, label: str | None = None) -> None:
        self._measured.clear(label)
        self._set_x_range()
        self._redraw() if self._breakdown is not None else self._draw_measured()

    def measured(self) -> list[Measured]:
        return list(self._measured)

    def measured_text(self, m: Measured) -> str:
        """Hover text of a marker: peak, states, and the states' difference to what they are compared with."""
        computed = self._breakdown.stage(m.stage).total_bytes if self._breakdown is not None else None
        return texts.measured_text(m, self.measured_difference(m), computed, self.unit)

    def measured_difference(self, m: Measured) -> float | None:
        """(states - reference) / reference in %: the torch profile's prediction when known, else the bar; or None."""
        return self._measured.difference(m, self._breakdown)

    def measured_legend_html(self) -> str:
        labels = self._measured.labels()
        if not labels:
            return ""
        series = "&nbsp;&nbsp;".join(
            f'<span style="color:{self._measured.color(label)}">{TIER_GLYPHS.get(self._measured.kind(label), "▲◆")}</span>'
            f'&nbsp;{html.escape(label)}' for label in labels)
        return html.escape(self.tr("beside each bar: peak (▲ measured, ■ simulated), model states (◆, ●), "
                                   "% = states vs the torch profile")) + " — " + series

    def _measured_at(self, scene_pos) -> Measured | None:
        vb = self.getPlotItem().vb
        scale = UNIT_BYTES[self.unit]
        for m in self._measured:
            x = self._measured.marker_x(m)
            for y in (m.peak_bytes, m.states_bytes):
                if y is None:
                    continue
                p = vb.mapViewToScene(QPointF(x, self._ty(y / scale)))
                if abs(p.x() - scene_pos.x()) <= 8 and abs(p.y() - scene_pos.y()) <= 8:
                    return m
        return None

    def _draw_measured(self) -> None:
        for item in self._measure_items:
            self.removeItem(item)
        self._measure_items = []
        if not self._measured:
            self.measuredChanged.emit()
            return
        scale = UNIT_BYTES[self.unit]
        text_color = self.palette().color(QPalette.ColorRole.Text)
        outline = pg.mkPen(text_color, width=1)
        small = QFont()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        for label in self._measured.labels():
            color = self._measured.color(label)
            peak_symbol, states_symbol = TIER_SYMBOLS.get(self._measured.kind(label), TIER_SYMBOLS["measured"])
            brush = pg.mkBrush(color)
            spots, xs, ys = [], [], []
            for m in (m for m in self._measured if m.label == label):
                x = self._measured.marker_x(m)
                ty = self._ty
                spots.append({"pos": (x, ty(m.peak_bytes / scale)), "symbol": peak_symbol, "size": 11, "brush": brush, "pen": outline})
                if m.states_bytes is not None:
                    spots.append({"pos": (x, ty(m.states_bytes / scale)), "symbol": states_symbol, "size": 10, "brush": brush, "pen": outline})
                    xs += [x, x]
                    ys += [ty(m.states_bytes / scale), ty(m.peak_bytes / scale)]
                d = self.measured_difference(m)
                if d is not None:
                    note = pg.TextItem(f"{d:+.1f}%", color=color, anchor=(-0.1, 0.5), angle=90)
                    note.setFont(small)
                    note.setPos(x, self._ty(max(m.peak_bytes, m.states_bytes or 0) / scale))
                    note.setZValue(8)
                    self.addItem(note)
                    self._measure_items.append(note)
            if xs:
                line = pg.PlotCurveItem(xs, ys, pen=pg.mkPen(color, width=2), connect="pairs")
                line.setZValue(6)
                self.addItem(line)
                self._measure_items.append(line)
            scatter = pg.ScatterPlotItem(spots=spots)
            scatter.setZValue(7)
            self.addItem(scatter)
            self._measure_items.append(scatter)
        self.measuredChanged.emit()
