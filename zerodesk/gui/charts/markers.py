"""A curve's markers that measure their bounds once per change, not once per question.

pyqtgraph's ScatterPlotItem works its bounding rectangle out anew (data bounds, then the markers' pixel padding through
the view's transform) each time Qt asks, and Qt asks several times per curve per edit (the scene's dirty pass, the
paint). The answer changes only when pyqtgraph drops its data bounds (new points, new marker sizes, a new view
transform: each replaces its `bounds` list) or the markers' widest size changes: it is kept until then.
"""

from __future__ import annotations

import sys

import pyqtgraph as pg


class KeptBoundsScatter(pg.ScatterPlotItem):
    _kept = None  # (the bounds list it was measured with, the widest marker, the rectangle)

    def boundingRect(self):
        kept = self._kept
        if kept is None or kept[0] is not self.bounds or kept[1] != self._maxSpotPxWidth:
            rect = super().boundingRect()
            kept = self._kept = (self.bounds, self._maxSpotPxWidth, rect)
        return kept[2]


def marked_curve(*args, **kwargs) -> pg.PlotDataItem:
    """A PlotDataItem whose markers keep their bounds. PlotDataItem builds its markers itself, by the name its module
    imported: that name is the kept-bounds class while this one curve is made (the GUI thread's, at once)."""
    module = sys.modules[pg.PlotDataItem.__module__]
    made = module.ScatterPlotItem
    module.ScatterPlotItem = KeptBoundsScatter
    try:
        curve = pg.PlotDataItem(*args, **kwargs)
    finally:
        module.ScatterPlotItem = made
    assert type(curve.scatter) is KeptBoundsScatter
    return curve
