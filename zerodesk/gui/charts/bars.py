"""Stacked-bar items that measure their bounds once per change, not once per question.

pyqtgraph's BarGraphItem works its bounding rectangle out anew (data bounds, then the pixel padding through the
view's transform) each time Qt asks, and Qt asks three or four times per bar per edit (the scene's dirty pass, the
paint, the hover index). The answer changes only with the bars' options (set through setOpts, which announces it with
prepareGeometryChange) or with the view's transform (viewTransformChanged): it is kept until one of them happens.
"""

from __future__ import annotations

import pyqtgraph as pg


class Bars(pg.BarGraphItem):
    _bounds = None

    def boundingRect(self):
        bounds = self._bounds
        if bounds is None:
            bounds = self._bounds = super().boundingRect()
        return bounds

    def prepareGeometryChange(self) -> None:
        self._bounds = None  # before Qt asks for the new bounds inside
        super().prepareGeometryChange()

    def viewTransformChanged(self) -> None:
        self._bounds = None  # the pixel padding is in view pixels
        super().viewTransformChanged()
