"""Work that the first frame does not need runs right after it: the window paints first."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class _AfterFirstPaint(QObject):
    def __init__(self, watched: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(watched)
        self._callback = callback
        watched.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self, self._callback)  # a turn later: the painted frame is out by then
        return False


def after_first_paint(widget: QWidget, callback: Callable[[], object]) -> QObject:
    """Call `callback` once, an event-loop turn after `widget` is first painted (never if it never is).

    Returns the watcher (a child of `widget`, gone with it)."""
    return _AfterFirstPaint(widget, callback)
