"""A chart that draws what it holds once per change, and only while it is seen.

A pyqtgraph chart lays its labels out in pixels, so it redraws on every resize of its view box as well as on new
data. At start that drew a chart four times before the first frame (hidden at Qt's default 640x480, then at a size
it already had), and an edit that changed a caption's height drew it twice (new data, then the new size).
Here a redraw asked for while the chart is hidden, or while its owner holds drawing (to lay itself out first), is
noted and done once when it is shown or released; a resize to the size it was drawn at draws nothing.
"""

from __future__ import annotations

from contextlib import contextmanager

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QLocale, QMetaObject, QRectF, Qt, Slot
from PySide6.QtGui import QFont, QPainter, QPicture
from PySide6.QtWidgets import QGraphicsView

from ..base.font_key import font_key


AXIS_PICTURES_KEPT = 32  # the value axis's pictures for its last ranges (an edit back draws no tick label again)
LABEL_BOUNDS_KEPT = 512  # tick labels' measured boxes ("10", "20", "50" ... recur on every range)


class _MeasuringPainter(QPainter):
    """A QPainter whose text boxes are kept: the axis asks the box of each tick label in the same frame, and shaping
    the text anew for it was a sixth of an axis's drawing. The box depends on the text, the flags, the frame and the
    font only: what is kept is what Qt would answer."""

    _bounds: dict[tuple, QRectF] = {}
    _font_key: str | None = None

    def setFont(self, font) -> None:
        super().setFont(font)
        self._font_key = None

    def boundingRect(self, *args):
        if len(args) != 3 or not isinstance(args[0], QRectF) or not isinstance(args[2], str):
            return super().boundingRect(*args)
        rect, flags, text = args
        if self._font_key is None:  # the axis sets its tick font once, before it measures
            self._font_key = font_key(self.font())
        key = (rect.getRect(), int(flags), text, self._font_key)
        box = self._bounds.get(key)
        if box is None:
            if len(self._bounds) >= LABEL_BOUNDS_KEPT:
                self._bounds.clear()
            box = self._bounds[key] = super().boundingRect(rect, flags, text)
        return QRectF(box)  # the caller may change it (AxisItem shrinks it)


class DrawOnceMixin:
    """For a pg.PlotWidget whose drawing is `_draw(force)`: call `_redraw(force)` to ask for it, and connect the view
    box's sigResized to `_resized`."""

    _pending = False  # a redraw was asked for and not done (hidden, or held)
    _pending_force = False
    _held = 0
    _flush_later = False
    _resize_queued = False
    _drawing = False
    _axis_fitted: tuple | None = None
    _drawn_size: tuple[float, float] | None = None
    draw_count = 0  # drawings done (benchmarks and tests count them)
    paint_count = 0  # paints of the chart's view

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
        self.draw_count += 1
        self._draw(force)
        self._drawing = True
        try:
            refit = self._fit_value_axis()  # its labels grew or shrank: the view box is narrower or wider now
        finally:
            self._drawing = False
        if refit:
            return  # drawn again at the new size (_resized) before anything is painted
        if not self._flush_later:
            self._flush()

    def _flush(self) -> None:
        """pyqtgraph fits its view box's matrix to a new size when the view paints, which moves every item, and a text
        item first painted sets its own transform then: each asks for a second paint. The scene asks its view for a
        paint by a queued call of its own. All of it now: the chart's update joins the window's, one paint (the
        scene's call paints the window's dirty parts at once)."""
        self._prepare()
        QMetaObject.invokeMethod(self.scene(), "_q_processDirtyItems", Qt.ConnectionType.DirectConnection)

    def _prepare(self) -> None:
        scene = self.scene()
        scene.prepareForPaint()  # a text item painted before follows the view by this (it connects when first painted)
        for item in scene.items():
            if isinstance(item, pg.TextItem) and item._lastScene is not scene:
                item.updateTransform()

    def _resized(self, *_args) -> None:
        """Head room and labels are in pixels: a new size is drawn anew, the size drawn at is not. While held, noted;
        else once the layout has settled (a window's layout resizes a chart several times in one pass), before the
        frame is painted (a queued call runs ahead of the paint request)."""
        if self._held or not self.isVisible() or self._drawing:
            self._redraw()  # noted; or, resized by its own axis while drawing, drawn again at once
        elif not self._resize_queued and (self._pending or self._view_size() != self._drawn_size):
            self._resize_queued = True
            QMetaObject.invokeMethod(self, "_draw_resized", Qt.ConnectionType.QueuedConnection)

    @Slot()
    def _draw_resized(self) -> None:
        self._resize_queued = False
        if self._pending or self._view_size() != self._drawn_size:
            self._redraw()

    def _fit_value_axis(self) -> bool:
        """Lay the chart out at what the drawing changed, now: the value axis sized to its tick labels (pyqtgraph does
        it while painting the axis, then lays the chart out again and paints it twice), and any other axis the drawing
        changed (a title set, the bottom axis grown to it; a posted layout request drew the chart again a turn later,
        after a paint). True when the view box has a new size (drawn again at it already)."""
        pi = self.getPlotItem()
        axis = pi.getAxis("left")
        key = (tuple(axis.range), axis.size(), axis.logMode, axis.labelText, axis.labelUnits)
        if key != self._axis_fitted:  # new ticks: new labels
            self._axis_fitted = key
            self._measure_value_axis(axis)
        if pi.layout.isActivated():
            return False
        size = self._drawn_size
        pi.layout.activate()
        return self._view_size() != size

    def _measure_value_axis(self, axis) -> None:
        """Measured as the axis's own paint measures (AxisItem.paint: a QPicture in the tick font), and kept: where the
        width holds, that picture is what the paint would make again (it was made twice per edit, a third of a chart's
        paint). A new width invalidates the chart's layout. Ticks drawn before at the same width (one of the last
        AXIS_PICTURES_KEPT: a scheme or profile chosen again) take that drawing's picture: nothing is measured."""
        width = axis.maximumWidth()
        seen = _picture_key(axis)
        pictures = self.__dict__.setdefault("_axis_pictures", {})
        if _kept_picture(axis, pictures, seen):
            return
        text_width = axis.textWidth
        picture = QPicture()
        painter = _MeasuringPainter(picture)
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        try:
            specs = axis.generateDrawSpecs(painter)
            fits = axis.maximumWidth() == width
            if fits and specs is not None:
                axis.drawPicture(painter, *specs)
        finally:
            painter.end()
        if fits:
            axis.picture = picture
            if axis.textWidth == text_width:  # the axis is as it was: the same ticks make this picture again
                _keep_picture(pictures, seen, picture)

    @property
    def redraw_pending(self) -> bool:
        return self._pending

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paint_count += 1
        return super().viewportEvent(event)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending:
            self._redraw()


def _picture_key(axis: pg.AxisItem) -> tuple:
    """What an axis's picture of its ticks and labels depends on: its range, size, scale and title, the room its labels
    had, their pens, font and decimal point, the spacing."""
    return (tuple(axis.range), (axis.size().width(), axis.size().height()), axis.logMode, axis.labelText,
            axis.labelUnits, axis.textWidth, axis.textHeight, axis.maximumWidth(), axis.maximumHeight(),
            axis.pen().color().rgba(), axis.textPen().color().rgba(), font_key(axis.style["tickFont"] or QFont()),
            QLocale().decimalPoint(), repr(axis._tickSpacing), axis._tickDensity, repr(axis._tickLevels))


def _kept_picture(axis: pg.AxisItem, pictures: dict, seen: tuple) -> bool:
    """The axis takes the picture kept for `seen`, if any (now the newest)."""
    picture = pictures.pop(seen, None)
    if picture is None:
        return False
    pictures[seen] = picture
    axis.picture = picture
    return True


def _keep_picture(pictures: dict, seen: tuple, picture: QPicture) -> None:
    if len(pictures) >= AXIS_PICTURES_KEPT:
        del pictures[next(iter(pictures))]  # the oldest
    pictures[seen] = picture


class PaintCounted:
    """For a pyqtgraph view drawn by its owner (not a DrawOnceMixin chart) that drawing_held paints with the charts:
    `_prepare()` does now what its paint would do first (its axes' labels, the layout they change, the view box's
    matrix, the text items' transforms), so the paint changes nothing that asks for another."""

    paint_count = 0
    axis_draw_count = 0  # axis pictures drawn (not taken from those kept)

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paint_count += 1
        return super().viewportEvent(event)

    def _prepare(self) -> None:
        item = self.getPlotItem()
        for _ in range(3):  # labels drawn, the axis sized to them, drawn at that size: settled in two rounds
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                if axis.picture is None and axis.isVisible():
                    self._axis_picture(name, axis)
            if item.layout.isActivated():
                break
            item.layout.activate()
        DrawOnceMixin._prepare(self)

    def _axis_picture(self, name: str, axis: pg.AxisItem) -> None:
        """Ticks drawn before at the same size, range and room (one of the last AXIS_PICTURES_KEPT: a profile chosen
        again) take that drawing's picture: nothing is measured (drawing it was a tenth of a profile edit on the heavy
        plans). A drawing that changed the room its labels take lays the axis out again: not kept."""
        pictures = self.__dict__.setdefault("_axis_pictures", {}).setdefault(name, {})
        seen = _picture_key(axis)
        if _kept_picture(axis, pictures, seen):
            return
        self.axis_draw_count += 1
        _draw_axis_picture(axis)
        if _picture_key(axis) == seen:
            _keep_picture(pictures, seen, axis.picture)


def _draw_axis_picture(axis: pg.AxisItem) -> None:
    """AxisItem.paint's picture of its ticks and labels, made as it makes it (its paint then plays it)."""
    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
        if specs is not None:
            axis.drawPicture(painter, *specs)
    finally:
        painter.end()
    axis.picture = picture


@contextmanager
def drawing_held(*charts: DrawOnceMixin, views: tuple = ()):
    """Note the charts' redraws asked for inside (new data, the resizes of a layout settled inside) and draw each once
    after, then paint them: the first scene to hand its changes to the window paints all the window has to paint, so
    a chart the layout resized (painted whole then) goes first, and its own changes are not painted a second time.
    `views` (PaintCounted) were drawn by their owner inside: painted with the charts, once (their scene's own queued
    call painted them again a turn after the window's paint)."""
    for chart in charts:
        chart._held += 1
    try:
        yield
    finally:
        drawn = []
        for chart in charts:
            chart._held -= 1
            if not chart._held and chart._pending and chart.isVisible():
                chart._flush_later = True
                try:
                    chart._redraw()
                finally:
                    chart._flush_later = False
                drawn.append(chart)
        drawn += [view for view in views if view.isVisible()]
        # each scene's call for its changes paints the window's dirty parts at once: a chart the layout moved or resized
        # is painted whole then, and its own call would paint it again. So the scenes hand their changes over
        # without asking for a paint, and a drawn chart the window did not paint then is painted whole, once, in the
        # event loop's next frame.
        painted = [chart.paint_count for chart in drawn]
        modes = [chart.viewportUpdateMode() for chart in drawn]
        for chart in drawn:
            chart._prepare()
            chart.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.NoViewportUpdate)
        try:
            for chart in drawn:
                QMetaObject.invokeMethod(chart.scene(), "_q_processDirtyItems", Qt.ConnectionType.DirectConnection)
        finally:
            for chart, mode, count in zip(drawn, modes, painted):
                chart.setViewportUpdateMode(mode)
                if chart.paint_count == count:
                    chart.viewport().update()
