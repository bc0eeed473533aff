"""A line through points with a marker on each, drawn as pyqtgraph's PlotDataItem draws it, at less cost per change.

pyqtgraph's ScatterPlotItem works its bounding rectangle out anew (data bounds, then the markers' pixel padding through
the view's transform) each time Qt asks, and Qt asks several times per curve per edit (the scene's dirty pass, the
paint). The answer changes only when pyqtgraph drops its data bounds (new points, new marker sizes, a new view
transform: each replaces its `bounds` list) or the markers' widest size changes: it is kept until then.

The curve keeps its data bounds across view changes likewise (KeptBoundsCurve).

PlotDataItem holds a PlotCurveItem and a ScatterPlotItem and, on each new data, builds display copies of it (finite
checks, log mapping, clipping, downsampling: none of which a chart here uses) before handing it to both; MarkedCurve
hands the points to the same two items with the same arguments, so they draw the same pixels.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


def _same_style(a: dict, b: dict) -> bool:
    """The same style arguments: the very objects (a list of brushes: the very brushes, in order)."""
    if a.keys() != b.keys():
        return False
    for key, value in a.items():
        other = b[key]
        if value is other:
            continue
        if not (isinstance(value, list) and isinstance(other, list) and len(value) == len(other)
                and all(x is y for x, y in zip(value, other))):
            return False
    return True


def _restyling(name: str):
    """ScatterPlotItem's method `name`, after which the points are not moved in place by the next setData."""
    def method(self, *args, **kargs):
        self._styled = None
        return getattr(pg.ScatterPlotItem, name)(self, *args, **kargs)

    method.__name__ = method.__qualname__ = name
    return method


class KeptBoundsScatter(pg.ScatterPlotItem):
    """A ScatterPlotItem that keeps its bounding rectangle (above) and moves its points in place when only their
    positions change: setData(x=..., y=...) with as many points and the very style arguments (pen, brush, symbol,
    size: the same objects) as the last setData. pyqtgraph would clear the points and add them anew, looking each
    point's style up in its symbol atlas again and measuring the markers again, all to the same answer (the atlas is
    keyed by the style objects' identity); the points' positions and what follows a new position (the bounds, the
    geometry, the cached picture) are set as setData sets them."""

    _kept = None  # (the bounds list it was measured with, the widest marker, the rectangle)
    _styled: dict | None = None  # the style arguments of the last setData, while nothing restyled the points since

    def boundingRect(self):
        kept = self._kept
        if kept is None or kept[0] is not self.bounds or kept[1] != self._maxSpotPxWidth:
            rect = super().boundingRect()
            kept = self._kept = (self.bounds, self._maxSpotPxWidth, rect)
        return kept[2]

    def setData(self, *args, **kargs) -> None:
        x, y = kargs.get("x"), kargs.get("y")
        style = {k: v for k, v in kargs.items() if k not in ("x", "y")}
        styled = self._styled
        if (not args and styled is not None and x is not None and y is not None and len(x) == len(y) == len(self.data)
                and _same_style(styled, style)):
            data = self.data
            data["item"][...] = None  # as addPoints: a point's SpotItem no longer holds its record
            data["x"] = x
            data["y"] = y
            self.prepareGeometryChange()  # what addPoints does after setting the points
            self.informViewBoundsChanged()
            self.bounds = [None, None]
            self.invalidate()
            self.sigPlotChanged.emit(self)
            return
        super().setData(*args, **kargs)
        self._styled = None if args or x is None or y is None else style

    # anything else that changes the points or their style: the next setData is pyqtgraph's own
    clear, setPen, setBrush, setSymbol, setSize, setPointsVisible, setPointData, setPxMode = (
        _restyling(name) for name in ("clear", "setPen", "setBrush", "setSymbol", "setSize", "setPointsVisible",
                                      "setPointData", "setPxMode"))


class KeptBoundsCurve(pg.PlotCurveItem):
    """A PlotCurveItem that keeps its data bounds when the view's transform changes: pyqtgraph drops them with its
    bounding rectangle (whose pixel padding does follow the transform) and works them out again with numpy's nanmin
    and nanmax on the next paint of each range change. They follow the data and the pens only, and each of those
    changes drops them as before (setData, updateData, setPen, setShadowPen, setFillLevel: invalidateBounds)."""

    def viewTransformChanged(self):
        self._boundingRect = None  # the pixel padding: recomputed; the data bounds (_boundsCache) stay
        self.prepareGeometryChange()


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
        self.curve = KeptBoundsCurve()
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
