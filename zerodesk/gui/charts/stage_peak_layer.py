"""The stage chart's predicted-peak layer: hatched and dashed-outlined, from each stage's states to its predicted
full-step peak (zerodesk.core.peak), an estimate drawn so it cannot be mistaken for a state. For an export its hatch
is drawn as line segments (SVG viewers know no Qt pattern brush)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from ...core.accounting import STAGES
from ..base.style import PEAK_COLOR
from .bars import Bars
from .run_markers import BAR_WIDTH


def hatch_brush() -> QBrush:
    """The predicted peak's diagonal hatch (pg.mkBrush drops a brush style: it came out solid grey)."""
    return QBrush(QColor(PEAK_COLOR), Qt.BrushStyle.FDiagPattern)


class PeakLayer:
    """The layer's bars (`bar`), added to `chart` when made (their place among the chart's items: made right after
    the labels, before the GPU line)."""

    def __init__(self, chart: pg.PlotWidget) -> None:
        self._chart = chart
        self._hatch: pg.PlotCurveItem | None = None
        self.bar = Bars(x=[0.0], y0=[0.0], height=[0.0], width=BAR_WIDTH, brush=hatch_brush(),
                        pen=pg.mkPen(PEAK_COLOR, width=1.5, style=Qt.PenStyle.DashLine))
        self.bar.setZValue(1)
        chart.addItem(self.bar)

    def draw(self, peaks: list[int], states: list[int], scale: float, ty) -> None:
        """From the states' top to the predicted peak, in the chart's unit (`scale` bytes) through the chart's value
        mapping `ty`; none when no peak is predicted (`peaks` empty)."""
        self.bar.setVisible(bool(peaks))
        if peaks:
            self.bar.setOpts(x=[float(s) for s in STAGES], y0=[ty(v / scale) for v in states],
                             height=[max(0.0, ty(max(p, v) / scale) - ty(v / scale)) for p, v in zip(peaks, states)])

    def hatch_as_lines(self, on: bool, spacing_px: float = 6.0) -> None:
        """Draw the hatch as line segments (an export: SVG viewers know no Qt pattern brush and drew the layer solid
        grey), or as the pattern brush again."""
        chart = self._chart
        if self._hatch is not None:
            chart.removeItem(self._hatch)
            self._hatch = None
        self.bar.setOpts(brush=QBrush(Qt.BrushStyle.NoBrush) if on else hatch_brush())
        if not on or not chart.peaks or not self.bar.isVisible():
            return
        px_x, px_y = chart.getPlotItem().vb.viewPixelSize()
        o = self.bar.opts
        xs, ys = [], []
        for x, y0, h in zip(o["x"], o["y0"], o["height"]):
            width, height = BAR_WIDTH / px_x, h / px_y  # the layer in pixels, y down from its top
            left, top = x - BAR_WIDTH / 2, y0 + h
            c = -height
            while c < width:  # the line x − y = c across the rectangle
                a, b = max(0.0, c), min(width, height + c)
                if b > a:
                    xs += [left + a * px_x, left + b * px_x]
                    ys += [top - (a - c) * px_y, top - (b - c) * px_y]
                c += spacing_px * 1.414
        self._hatch = pg.PlotCurveItem(xs, ys, connect="pairs", pen=pg.mkPen(PEAK_COLOR, width=1))
        self._hatch.setZValue(1.5)
        chart.addItem(self._hatch, ignoreBounds=True)
