"""A chart that draws what it holds once per change, and only while it is seen.

A pyqtgraph chart lays its labels out in pixels, so it redraws on every resize of its view box as well as on new
data. At start that drew a chart four times before the first frame (hidden at Qt's default 640x480, then at a size
it already had), and an edit that changed a caption's height drew it twice (new data, then the new size).
Here a redraw asked for while the chart is hidden, or while its owner holds drawing (to lay itself out first), is
noted and done once when it is shown or released; a resize to the size it was drawn at draws nothing.
"""

from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import QMetaObject, Qt


class DrawOnceMixin:
    """For a pg.PlotWidget whose drawing is `_draw(force)`: call `_redraw(force)` to ask for it, and connect the view
    box's sigResized to `_resized`."""

    _pending = False  # a redraw was asked for and not done (hidden, or held)
    _pending_force = False
    _held = 0
    _drawn_size: tuple[float, float] | None = None

    def _draw(self, force: bool = False) -> None:
        raise NotImplementedError

    def _view_size(self) -> tuple[float, float]:
        vb = self.getPlotItem().vb
        return vb.width(), vb.height()

    def _redraw(self, force: bool = False) -> None:
        if self._held or not self.isVisible():
            self._pending, self._pending_force = True, self._pending_force or force
            return
        force, self._pending, self._pending_force = force or self._pending_force, False, False
        self._drawn_size = self._view_size()
        self._draw(force)
        # pyqtgraph fits its view box's matrix to a new size when the view paints, which moves every item and asks
        # for a second paint; the scene asks its view for a paint by a queued call of its own. Both now: the chart's
        # update joins the window's, and the event loop paints it once.
        self.scene().prepareForPaint()
        QMetaObject.invokeMethod(self.scene(), "_q_processDirtyItems", Qt.ConnectionType.DirectConnection)

    def _resized(self, *_args) -> None:
        """Head room and labels are in pixels: a new size is drawn anew, the size drawn at is not."""
        if self._pending or self._view_size() != self._drawn_size:
            self._redraw()

    @property
    def redraw_pending(self) -> bool:
        return self._pending

    @contextmanager
    def drawing_held(self):
        """Note the redraws asked for inside (new data, the resizes of a layout settled inside) and draw once after."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._pending:
                self._redraw()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending:
            self._redraw()
