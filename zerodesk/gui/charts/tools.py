"""What both charts share besides grid lines: a tooltip that stays while the mouse rests, a value
axis in the UI's number format with an optional log scale (value_axis), and a context menu of our own.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRect, Signal
from PySide6.QtGui import QAction, QCursor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QGraphicsItem, QMenu, QToolTip

from .value_axis import ValueAxis  # noqa: F401  (re-exported: the charts' memory axis)

TIP_MS = 60_000  # a resting mouse keeps the tip; leaving the hovered item hides it
LOG_FLOOR_DECADES = 3  # a log axis shows at most this many decades below the largest value


class StickyTip(QObject):
    """Shows a chart's hover text and keeps it while the mouse rests on the same item.

    pyqtgraph's scene answers Qt's ToolTip event (sent ~0.7 s after the mouse stops) by hiding
    every tooltip, since no graphics item has one of its own; this filter answers it with ours.
    """

    def __init__(self, plot: pg.PlotWidget) -> None:
        super().__init__(plot)
        self._plot = plot
        self.text = ""
        self.rect = QRect()
        plot.viewport().installEventFilter(self)

    def show(self, text: str, rect: QRect | None = None) -> None:
        """Show `text` now; `rect` (viewport coordinates) is where it stays valid."""
        self.text, self.rect = text, rect or QRect()
        if text:
            QToolTip.showText(QCursor.pos(), text, self._plot.viewport(), self.rect, TIP_MS)
        else:
            QToolTip.hideText()

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            if self.text:
                QToolTip.showText(event.globalPos(), self.text, self._plot.viewport(), self.rect, TIP_MS)
            else:
                QToolTip.hideText()
            return True
        if event.type() == QEvent.Type.Leave and self.text:
            self.show("")
        return False


class FocusFrameMixin:
    """A frame in the palette's highlight colour around a chart while it has the keyboard's focus (the charts
    are in the tab order, and Fusion draws no focus for a graphics view). Painted over the view, so the
    palette, the layout and an export are as they were. Keys and focus go to the chart's keyboard cursor,
    `self.keys` (stage_keys.StageKeys, dp_keys.DpKeys)."""

    def keyPressEvent(self, event) -> None:
        if not self.keys.press(event):
            super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self._focus_changed()
        self.keys.focus_in(event.reason())

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self._focus_changed()
        self.keys.focus_out()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.hasFocus():
            painter = QPainter(self.viewport())
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 2))
            painter.drawRect(self.viewport().rect().adjusted(1, 1, -1, -1))
            painter.end()

    def _focus_changed(self) -> None:
        self.viewport().update()


def settle_axes(plot_item: pg.PlotItem) -> None:
    """Axes that redraw only when they must. The chart sets both ranges itself: no auto-range, which
    would measure every item's bounds after each change. No SI prefixes (our labels name their unit)
    on all four axes, so the hidden top and right ones no longer re-set their label's HTML on every
    range change; the shown ones repaint from a cached pixmap until their range or text changes."""
    plot_item.vb.disableAutoRange()
    for name in ("left", "bottom", "top", "right"):
        plot_item.getAxis(name).enableAutoSIPrefix(False)
    for name in ("left", "bottom"):
        plot_item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def set_line_text(line: pg.InfiniteLine, text: str) -> None:
    """A line's label says `text` (braces kept literal: InfLineLabel formats its text with str.format). A label that
    says it already is left alone: setting it lays the label out along the line again, which the view's change (or
    the chart's placing of the label) does anyway."""
    label = line.label
    literal = text.replace("{", "{{").replace("}", "}}")
    if label.format != literal or label.toPlainText() != text:
        label.setFormat(literal)


def fit_axis_title(axis: pg.AxisItem, font) -> None:
    """A bottom axis tall enough for its tick labels and its whole title (pyqtgraph counts 80% of the title's
    height, so its last pixels were cut off at the chart's bottom edge)."""
    from PySide6.QtGui import QFontMetrics

    style = axis.style
    ticks = QFontMetrics(style.get("tickFont") or font).height()
    axis.setHeight(ticks + style["tickTextOffset"][1] + max(0, style["tickLength"]) + axis.label.boundingRect().height() + 2)


class LogScaleMixin:
    """A chart whose value axis is linear or log10. The chart draws every value through _ty() and
    redraws in _log_changed(); it has a ChartMenu as self.menu."""

    _log = False
    _floor = 1.0  # bottom of the log axis, in the drawn unit

    @property
    def log_y(self) -> bool:
        return self._log

    def set_log_y(self, on: bool) -> None:
        """Log value axis: small stages and models stay readable beside big ones."""
        on = bool(on)
        if on == self._log:
            return
        self._log = on
        self.menu.log_action.setChecked(on)
        self.getPlotItem().getAxis("left").setLogMode(False, on)
        self._log_changed()

    def _log_changed(self) -> None:
        raise NotImplementedError

    def _ty(self, v: float) -> float:
        """A value as drawn: itself, or its log10 on a log axis (clamped at the floor)."""
        return math.log10(max(v, self._floor)) if self._log else v


def log_floor(values) -> float:
    """The bottom of a log axis: a decade at or below the smallest positive value, at most
    LOG_FLOOR_DECADES decades below the largest (so a tiny component does not flatten the rest)."""
    positive = [v for v in values if v > 0]
    if not positive:
        return 1e-3
    low = 10 ** math.floor(math.log10(min(positive)))
    return max(low, 10 ** (math.floor(math.log10(max(positive))) - LOG_FLOOR_DECADES))


class ChartMenu(QObject):
    """Right-click menu of a chart: export (the window's actions) and the log scale, translated.

    Replaces pyqtgraph's untranslated scene menu ("Export...")."""

    logToggled = Signal(bool)

    def __init__(self, plot: pg.PlotWidget) -> None:
        super().__init__(plot)
        self._plot = plot
        self.actions: list[QAction] = []
        self.log_action = QAction(plot)
        self.log_action.setCheckable(True)
        self.log_action.toggled.connect(self.logToggled)
        plot.scene().contextMenu = []  # no "Export..." from pyqtgraph
        plot.scene().sigMouseClicked.connect(self._clicked)
        self.menu: QMenu | None = None

    def build(self) -> QMenu:
        menu = QMenu(self._plot)
        for a in self.actions:
            menu.addAction(a)
        if self.actions:
            menu.addSeparator()
        menu.addAction(self.log_action)
        return menu

    def _clicked(self, event) -> None:
        from PySide6.QtCore import Qt

        if event.button() != Qt.MouseButton.RightButton:
            return
        event.accept()
        self.menu = self.build()
        self.menu.popup(QCursor.pos())


def widget_rect_of(plot: pg.PlotWidget, x0: float, y0: float, x1: float, y1: float) -> QRect:
    """A rectangle given in data coordinates, in the plot's viewport coordinates."""
    vb = plot.getPlotItem().vb
    from PySide6.QtCore import QPointF, QRectF

    a = plot.mapFromScene(vb.mapViewToScene(QPointF(x0, y0)))
    b = plot.mapFromScene(vb.mapViewToScene(QPointF(x1, y1)))
    return QRectF(a.toPointF(), b.toPointF()).normalized().toAlignedRect()
