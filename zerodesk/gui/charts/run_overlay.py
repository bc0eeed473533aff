"""The stage chart's run markers: simulated and measured steps drawn beside the bars.

Per series one marker shape for the peak and one for the model states (■● simulated, ▲◆ measured), a
line between them and the states' difference in %; which series exist and where each marker sits is
run_markers.py's (Qt-free). The chart calls draw() when it redraws, on its own value axis.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QPointF
from PySide6.QtGui import QFont, QFontMetricsF, QPalette

from ...core.units import UNIT_BYTES
from ..base.style import TIER_GLYPHS, TIER_SYMBOLS
from . import stage_texts as texts
from .run_markers import MEASURE_X, SERIES_STEP, Measured, MeasuredSeries

HIT_PX = 8  # how near a marker the mouse must be for its hover text
MARKER_PX = 11  # a peak marker's size (a states marker is a pixel smaller)
NOTE_LIFT_PX = MARKER_PX / 2 + 2  # a note starts this far above its marker's centre: clear of the marker
NOTE_MARGIN_PX = 2  # around a note's text (Qt's default 4 makes the notes of two series meet)


class RunOverlay:
    """The markers of one chart (a StageChart: its value axis, unit, breakdown and palette)."""

    def __init__(self, chart) -> None:
        self.chart = chart
        self.series = MeasuredSeries()
        self._items: list = []
        self._notes: list = []  # (x, drawn top it stands on, TextItem)

    def __bool__(self) -> bool:
        return bool(self.series)

    def markers(self) -> list[Measured]:
        return list(self.series)

    def top_bytes(self) -> int:
        """The highest marker (the value axis reaches it)."""
        return max((max(m.peak_bytes, m.states_bytes or 0) for m in self.series), default=0)

    def difference(self, m: Measured) -> float | None:
        """(states - reference) / reference in %: the torch profile's prediction when known, else the bar; or None."""
        return self.series.difference(m, self.chart.breakdown)

    def text(self, m: Measured) -> str:
        """Hover text of a marker: peak, states, and the states' difference to what they are compared with."""
        b = self.chart.breakdown
        computed = b.stage(m.stage).total_bytes if b is not None else None
        return texts.measured_text(m, self.difference(m), computed, self.chart.unit)

    def legend_html(self) -> str:
        labels = self.series.labels()
        if not labels:
            return ""
        series = "&nbsp;&nbsp;".join(
            f'<span style="color:{self.series.color(label)}">{TIER_GLYPHS.get(self.series.kind(label), "▲◆")}</span>'
            f'&nbsp;{html.escape(label)}' for label in labels)
        return html.escape(QCoreApplication.translate(
            "StageChart", "beside each bar: peak (▲ measured, ■ simulated), model states (◆, ●), "
                          "% = states vs the torch profile")) + " — " + series

    def at(self, scene_pos) -> Measured | None:
        """The marker under a scene position, or None."""
        chart = self.chart
        vb = chart.getPlotItem().vb
        scale = UNIT_BYTES[chart.unit]
        for m in self.series:
            x = self.series.marker_x(m)
            for y in (m.peak_bytes, m.states_bytes):
                if y is None:
                    continue
                p = vb.mapViewToScene(QPointF(x, chart._ty(y / scale)))
                if abs(p.x() - scene_pos.x()) <= HIT_PX and abs(p.y() - scene_pos.y()) <= HIT_PX:
                    return m
        return None

    def note_font(self) -> QFont:
        small = QFont(self.chart.font())
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        return small

    def fit_step(self, width_px: float) -> None:
        """Space the series so that their rotated notes stand side by side, not over each other, in a chart
        `width_px` wide: a note's thickness in pixels, as data units of the x range that this step makes."""
        n = len(self.series.labels())
        thick = QFontMetricsF(self.note_font()).height() + 2 * NOTE_MARGIN_PX + 2
        base = 3.7 + MEASURE_X  # the x range without the series: -0.5 to the last bar and its margin
        self.series.step = SERIES_STEP if width_px <= n * thick else max(SERIES_STEP, thick * base / (width_px - n * thick))

    def obstacles(self, px_x: float) -> list:
        """What the markers take on the chart, for the labels to stay clear of: each marker and each note
        (it stands on the higher marker and runs up its own length), as stage_labels.Obstacle."""
        from .stage_labels import Obstacle

        chart, scale = self.chart, UNIT_BYTES[self.chart.unit]
        out = []
        for m in self.series:
            x = self.series.marker_x(m)
            for y in (m.peak_bytes, m.states_bytes):
                if y is not None:
                    out.append(Obstacle(x - MARKER_PX / 2 * px_x, x + MARKER_PX / 2 * px_x, chart._ty(y / scale), MARKER_PX / 2))
        for x, top, note in self._notes:
            rect = note.textItem.boundingRect()  # unrotated: its width runs up the chart
            out.append(Obstacle(x - rect.height() / 2 * px_x, x + rect.height() / 2 * px_x, top, NOTE_LIFT_PX + rect.width()))
        return out

    def draw(self) -> None:
        """Replace the drawn markers with the series' (on the chart's current axis)."""
        chart = self.chart
        for item in self._items:
            chart.removeItem(item)
        self._items, self._notes = [], []
        if not self.series:
            return
        scale = UNIT_BYTES[chart.unit]
        ty = chart._ty  # drawn coordinates: linear or log axis
        outline = pg.mkPen(chart.palette().color(QPalette.ColorRole.Text), width=1)
        small = self.note_font()
        for label in self.series.labels():
            color = self.series.color(label)
            peak_symbol, states_symbol = TIER_SYMBOLS.get(self.series.kind(label), TIER_SYMBOLS["measured"])
            brush = pg.mkBrush(color)
            spots, xs, ys = [], [], []
            for m in (m for m in self.series if m.label == label):
                x = self.series.marker_x(m)
                spots.append({"pos": (x, ty(m.peak_bytes / scale)), "symbol": peak_symbol, "size": MARKER_PX, "brush": brush,
                              "pen": outline})
                if m.states_bytes is not None:
                    spots.append({"pos": (x, ty(m.states_bytes / scale)), "symbol": states_symbol, "size": MARKER_PX - 1,
                                  "brush": brush, "pen": outline})
                    xs += [x, x]
                    ys += [ty(m.states_bytes / scale), ty(m.peak_bytes / scale)]
                d = self.difference(m)
                if d is not None:
                    note = pg.TextItem(texts.fmt_percent(d), color=color, angle=90)
                    note.setFont(small)
                    note.textItem.document().setDocumentMargin(NOTE_MARGIN_PX)
                    length = note.textItem.boundingRect().width()  # it runs up the chart from above the marker
                    note.setAnchor((-NOTE_LIFT_PX / max(length, 1.0), 0.5))
                    top = ty(max(m.peak_bytes, m.states_bytes or 0) / scale)
                    note.setPos(x, top)
                    note.setZValue(8)
                    self._add(note)
                    self._notes.append((x, top, note))
            if xs:
                line = pg.PlotCurveItem(xs, ys, pen=pg.mkPen(color, width=2), connect="pairs")
                line.setZValue(6)
                self._add(line)
            scatter = pg.ScatterPlotItem(spots=spots)
            scatter.setZValue(7)
            self._add(scatter)

    def _add(self, item) -> None:
        self.chart.addItem(item)
        self._items.append(item)
