"""Grid lines drawn as one opaque path.

pyqtgraph's axis grid paints translucent lines across the whole plot inside each axis item;
on a software raster that costs ~3 ms per axis repaint, which made a value edit miss its
frame. One PlotCurveItem of line pairs, in a colour blended from the palette, costs ~0.1 ms.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette

from .markers import KeptBoundsCurve


def blend(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(round(a.red() * (1 - t) + b.red() * t), round(a.green() * (1 - t) + b.green() * t),
                  round(a.blue() * (1 - t) + b.blue() * t))


class GridLines:
    """Horizontal lines at the left axis' ticks; vertical lines at given x values (optional)."""

    def __init__(self, plot: pg.PlotWidget, vertical: bool = False) -> None:
        self._plot = plot
        self._vertical = vertical
        self._xs: list[float] = []
        self._drawn: tuple | None = None
        self.curve = KeptBoundsCurve([], [], connect="pairs")
        self.curve.setZValue(-10)
        plot.getPlotItem().addItem(self.curve, ignoreBounds=True)
        vb = plot.getPlotItem().vb
        vb.sigRangeChanged.connect(lambda *_: self.update())
        vb.sigResized.connect(lambda *_: self.update())
        self.apply_palette()

    def apply_palette(self) -> None:
        pal = self._plot.palette()
        color = blend(pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text), 0.16)
        self.curve.setPen(pg.mkPen(color, width=1, cosmetic=True))

    def set_vertical(self, xs: list[float]) -> None:
        self._xs = list(xs)
        self.update()

    def update(self) -> None:
        pi = self._plot.getPlotItem()
        (x0, x1), (y0, y1) = pi.vb.viewRange()
        height = max(1.0, pi.vb.height())
        key = (x0, x1, y0, y1, height, tuple(self._xs))
        if key == self._drawn:
            return
        self._drawn = key
        levels = pi.getAxis("left").tickValues(y0, y1, height)
        ys = sorted({v for _, values in levels[:2] for v in values if y0 <= v <= y1})
        px, py = [], []
        for y in ys:
            px += [x0, x1]
            py += [y, y]
        if self._vertical:
            for x in self._xs:
                px += [x, x]
                py += [y0, y1]
        self.curve.setData(px, py, connect="pairs")


def apply_axis_palette(plot: pg.PlotWidget) -> tuple[QColor, QColor]:
    """Paint a plot's background and its left/bottom axes in the widget's palette; returns (base, text)."""
    pal = plot.palette()
    base, text = pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)
    plot.setBackground(base)
    for name in ("left", "bottom"):
        axis = plot.getPlotItem().getAxis(name)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))
    return base, text
