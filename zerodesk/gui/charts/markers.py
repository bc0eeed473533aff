"""A curve's markers that measure their bounds once per change, not once per question.

pyqtgraph's ScatterPlotItem works its bounding rectangle out anew (data bounds, then the markers' pixel padding through
the view's transform) each time Qt asks, and Qt asks several times per curve per edit (the scene's dirty pass, the
paint). The answer changes only when pyqtgraph drops its data bounds (new points, new marker sizes, a new view
transform: each replaces its `bounds` list) or the markers' widest size changes: it is kept until then.
"""

from __future__ import annotations

import pyqtgraph as pg


class KeptBoundsScatter(pg.ScatterPlotItem):
    _kept = None  # (the bounds list it was measured with, the widest marker, the rectangle)

    def boundingRect(self):
        kept = self._kept
        if kept is None or kept[0] is not self.bounds or kept[1] != self._maxSpotPxWidth:
            rect = super().boundingRect()
            kept = self._kept = (self.bounds, self._maxSpotPxWidth, rect)
        return kept[2]


def keep_marker_bounds(curve: pg.PlotDataItem) -> pg.PlotDataItem:
    """The curve's markers, built by PlotDataItem itself, keep their bounds (the class is swapped in place: the
    item and its options stay as pyqtgraph made them)."""
    curve.scatter.__class__ = KeptBoundsScatter
    return curve
