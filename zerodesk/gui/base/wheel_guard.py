"""The mouse wheel scrolls a form; it changes a combo box or spin box only once that box has focus.

Qt gives these boxes the wheel as soon as the pointer passes over them (and the focus with it), so
scrolling the form changed the Training scheme to 8-bit Adam on the way down. Qt Creator's and KDE's
forms do what this does: a wheel turned over a box without focus goes to the scroll area around it,
and so never reaches the box (nor hands it the focus).

Every wheel a user turns comes from the platform to the top-level window under the pointer (its QWindow)
before Qt hands it to the widget there, so the guard watches the windows, not the application: an
application-wide filter was a Python call for every event of every widget (~230 per edit of the plan), the
windows' own events are the input ones. A window is watched once the guard is installed (those there
already) or when it is first activated (those shown later); every box inside it, built at any time, is
guarded.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent, QWindow
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QSlider, QWidget

GUARDED = (QComboBox, QAbstractSpinBox, QSlider)  # not scroll bars: the wheel is theirs


def _guarded(obj: QObject | None) -> QWidget | None:
    """The box a widget belongs to (a combo box's or spin box's own line edit included)."""
    for widget in (obj, obj.parent() if isinstance(obj, QWidget) else None):
        if isinstance(widget, GUARDED) and not isinstance(widget.parent(), QApplication):
            return widget
    return None


def _no_wheel_focus(box: QWidget) -> None:
    if box.focusPolicy() == Qt.FocusPolicy.WheelFocus:  # the wheel must not hand it the focus
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


WATCHED = "zerodeskWheelGuard"  # a QWindow's property: its guard is installed


class WheelGuard(QObject):
    """The application's one guard: watches each top-level window once."""

    def watch(self, widget: QWidget) -> None:
        """Guard a top-level widget's window (once it has one: a window not yet shown has none)."""
        handle = widget.windowHandle()
        if handle is None or handle.property(WATCHED):
            return
        handle.setProperty(WATCHED, True)
        for box in widget.findChildren(QWidget):
            if isinstance(box, GUARDED):
                _no_wheel_focus(box)
        handle.installEventFilter(_WindowGuard(widget))

    def _window_activated(self, window: QWindow | None) -> None:
        if window is None or window.property(WATCHED):
            return
        for widget in QApplication.topLevelWidgets():
            if widget.windowHandle() is window:
                self.watch(widget)
                return


class _WindowGuard(QObject):
    """One window's filter (a child of its top-level widget, gone with it)."""

    def __init__(self, root: QWidget) -> None:
        super().__init__(root)
        self._root = root

    def eventFilter(self, obj, event) -> bool:
        if event.type() != QEvent.Type.Wheel or QApplication.activePopupWidget() is not None:
            return False  # an open popup (a combo's list) takes the wheel itself
        root = self._root
        modal = QApplication.activeModalWidget()
        if modal is not None and modal is not root:
            return False  # Qt keeps it from a window a modal dialog blocks
        box = _guarded(root.childAt(event.position().toPoint()))
        if box is None or box.hasFocus():
            return False
        _pass_on(box, event)
        return True


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
    """Install the guard once (later calls return the same one): the windows shown now are watched now, those
    shown later when first activated."""
    app = app or QApplication.instance()
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        app.focusWindowChanged.connect(guard._window_activated)
    for widget in app.topLevelWidgets():
        guard.watch(widget)
    return guard
