"""A word-wrapped label that remembers its height for a width until its text or font changes.

QLabel lays its text out anew for every height-for-width question, and one layout pass after an edit asks several
times at two or three widths (the box layouts, a scroll area's fit with and without its scroll bar): for a rich-text
caption each answer is a layout of its whole text, and each one also marks the label for a repaint. The answers do not
change while the text, the font and the style do not, so they are kept.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel

_RESETS = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange)


class WrappedLabel(QLabel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self._heights: dict[int, int] = {}
        self._for_text: str | None = None

    def heightForWidth(self, width: int) -> int:
        text = self.text()
        if text != self._for_text:
            self._heights, self._for_text = {}, text
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event) -> None:
        if event.type() in _RESETS:
            self._for_text = None
        super().changeEvent(event)
