"""The mouse wheel scrolls a form; it changes a combo box or spin box only once that box has focus.

Qt gives these boxes the wheel as soon as the pointer passes over them (and the focus with it), so
scrolling the form changed the Training scheme to 8-bit Adam on the way down. Qt Creator's and KDE's
forms do what this does: the boxes take focus by Tab or a click only, and a wheel turned over a box
without focus goes to the scroll area around it. One application-wide event filter does it for
every such box, built now or later, in any window.

The filter sees every event of the application, a Python call each: the main window installs it once
it is first painted (no wheel reaches a window before), and installing sets the boxes built by then
in one walk, rather than the filter answering the thousands of events that build the window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QSlider, QWidget

GUARDED = (QComboBox, QAbstractSpinBox, QSlider)  # not scroll bars: the wheel is theirs


def _guarded(obj: QObject) -> QWidget | None:
    """The box an event's receiver belongs to (a combo box's or spin box's own line edit included)."""
    for widget in (obj, obj.parent() if isinstance(obj, QWidget) else None):
        if isinstance(widget, GUARDED) and not isinstance(widget.parent(), QApplication):
            return widget
    return None


def _no_wheel_focus(box: QWidget) -> None:
    if box.focusPolicy() == Qt.FocusPolicy.WheelFocus:  # the wheel must not hand it the focus
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class WheelGuard(QObject):
    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(obj, GUARDED):
            _no_wheel_focus(obj)
        elif kind == QEvent.Type.Wheel:
            box = _guarded(obj)
            if box is not None and not box.hasFocus():
                _pass_on(box, event)
                return True
        return False


def _pass_on(box: QWidget, event: QWheelEvent) -> None:
    """Give the wheel to the scroll area around `box` (none: the wheel does nothing there)."""
    area = box.parentWidget()
    while area is not None and not isinstance(area, QAbstractScrollArea):
        area = area.parentWidget()
    event.accept()  # ours now: Qt passes it on to no one else
    if area is None:
        return
    viewport = area.viewport()
    at = QPointF(viewport.mapFromGlobal(event.globalPosition().toPoint()))
    QApplication.sendEvent(viewport, QWheelEvent(at, event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                                                 event.buttons(), event.modifiers(), event.phase(), event.inverted()))


def install_wheel_guard(app: QApplication | None = None) -> WheelGuard:
    """Install the guard on the application once (later calls return the same one); the boxes that exist
    already are set now, those built later when they are polished."""
    app = app or QApplication.instance()
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        for widget in app.allWidgets():
            if isinstance(widget, GUARDED):
                _no_wheel_focus(widget)
        app.installEventFilter(guard)
    return guard
