"""A line through points with a marker on each, drawn as pyqtgraph's PlotDataItem draws it, at less cost per change.

pyqtgraph's ScatterPlotItem works its bounding rectangle out anew (data bounds, then the markers' pixel padding through
the view's transform) each time Qt asks, and Qt asks several times per curve per edit (the scene's dirty pass, the
paint). The answer changes only when pyqtgraph drops its data bounds (new points, new marker sizes, a new view
transform: each replaces its `bounds` list) or the markers' widest size changes: it is kept until then.

PlotDataItem holds a PlotCurveItem and a ScatterPlotItem and, on each new data, builds display copies of it (finite
checks, log mapping, clipping, downsampling: none of which a chart here uses) before handing it to both; MarkedCurve
hands the points to the same two items with the same arguments, so they draw the same pixels.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


class KeptBoundsScatter(pg.ScatterPlotItem):
    _kept = None  # (the bounds list it was measured with, the widest marker, the rectangle)

    def boundingRect(self):
        kept = self._kept
        if kept is None or kept[0] is not self.bounds or kept[1] != self._maxSpotPxWidth:
            rect = super().boundingRect()
            kept = self._kept = (self.bounds, self._maxSpotPxWidth, rect)
        return kept[2]


class MarkedCurve:
    """A curve (`curve`, a PlotCurveItem) and its markers (`scatter`), added to `plot` in PlotDataItem's order (the line,
    then the markers over it) at `z`. The arguments are PlotDataItem's: pen, symbol, symbolSize, symbolBrush,
    symbolPen, connect."""

    def __init__(self, plot: pg.PlotWidget, z: float, *, pen, symbol: str, symbolSize: float, symbolBrush, symbolPen,
                 connect: str = "finite") -> None:
        # what PlotDataItem.updateItems hands its two items on every setData (its defaults where not given here)
        self._curve_args = {"pen": pen, "shadowPen": None, "fillLevel": None, "fillOutline": False, "brush": None,
                            "antialias": False, "connect": connect, "stepMode": None, "skipFiniteCheck": False}
        self._scatter_args = {"pen": symbolPen, "brush": symbolBrush, "symbol": symbol, "size": symbolSize,
                              "data": None, "pxMode": True, "antialias": False, "useCache": True}
        self.curve = pg.PlotCurveItem()
        self.scatter = KeptBoundsScatter()
        self._x: np.ndarray | None = None
        self._y: np.ndarray | None = None
        for item in (self.curve, self.scatter):
            item.setZValue(z)
            item.hide()  # no data yet (PlotDataItem hides both too)
            plot.addItem(item)

    def setData(self, xs, ys) -> None:
        x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        self._x, self._y = x, y
        if not len(x):
            self.curve.hide()
            self.scatter.hide()
            return
        self.curve.setData(x=x, y=y, **self._curve_args)
        self.curve.show()
        self.scatter.setData(x=x, y=y, **self._scatter_args)
        self.scatter.show()

    def getData(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The points drawn, as PlotDataItem.getData gives them ((None, None) before any)."""
        if self._x is None or not len(self._x):
            return None, None
        return self._x, self._y
