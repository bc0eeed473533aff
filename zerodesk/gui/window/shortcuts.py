"""Window shortcuts win over a text field's own key bindings.

A focused QLineEdit claims some Ctrl+letter keys for itself (on X11, Ctrl+U erases the line,
Ctrl+K cuts to its end, Ctrl+E moves to it), so Switch Units or Export did nothing, or erased
the field, while the user was typing. This filter answers Qt's ShortcutOverride for every
shortcut of the window's actions, except the editing keys a field must keep (copy, paste,
undo, select all...), so the window's action runs instead. Qt sends ShortcutOverride to the focus
widget alone, so the filter watches whichever widget of the window has the focus (it follows
QApplication.focusChanged) rather than every event of the application, a Python call each.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from shiboken6 import isValid
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

# what a text field keeps: the standard editing keys of the platform
_EDITING = (
    QKeySequence.StandardKey.Copy, QKeySequence.StandardKey.Cut, QKeySequence.StandardKey.Paste,
    QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo, QKeySequence.StandardKey.SelectAll,
    QKeySequence.StandardKey.Delete, QKeySequence.StandardKey.Backspace,
    QKeySequence.StandardKey.MoveToPreviousWord, QKeySequence.StandardKey.MoveToNextWord,
    QKeySequence.StandardKey.SelectPreviousWord, QKeySequence.StandardKey.SelectNextWord,
    QKeySequence.StandardKey.DeleteStartOfWord, QKeySequence.StandardKey.DeleteEndOfWord,
)


def _editing_keys() -> set[int]:
    keys = set()
    for standard in _EDITING:
        for seq in QKeySequence.keyBindings(standard):
            if seq.count() == 1:
                keys.add(seq[0].toCombined())
    return keys


class WindowShortcutsFirst(QObject):
    """Watches the focus widget of one window (its keyboard events only)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._editing = _editing_keys()
        self._watched: QWidget | None = None
        app = QApplication.instance()
        app.focusChanged.connect(self._follow_focus)
        self._follow_focus(None, app.focusWidget())

    def _follow_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        if not isValid(self):  # its window is gone
            return
        if self._watched is not None and isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = new if new is not None and new.window() is self._window else None
        if self._watched is not None:
            self._watched.installEventFilter(self)

    def window_keys(self) -> set[int]:
        keys = set()
        for action in self._window.findChildren(QAction):
            if not action.isEnabled():
                continue
            for seq in action.shortcuts():
                if seq.count() == 1:
                    keys.add(seq[0].toCombined())
        return keys - self._editing

    def eventFilter(self, obj, event) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(obj, QWidget):
            return False
        if obj.window() is not self._window:
            return False
        combined = event.keyCombination().toCombined()
        if combined in self.window_keys():
            event.ignore()  # not the field's: let the shortcut map run the window's action
            return True
        return False
