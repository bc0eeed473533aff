"""A word-wrapped label that remembers its sizes for its recent texts until its font or style changes.

QLabel lays its text out anew for every height-for-width question, and one layout pass after an edit asks several
times at two or three widths (the box layouts, a scroll area's fit with and without its scroll bar); a new text also
asks for its size hints, each a layout of the whole text. For a rich-text caption every answer costs a layout, and each
one marks the label for a repaint. The answers depend only on the text, the font and the style, so they are kept for
the last few texts (a scheme or profile chosen again says what it said before).

With `keep_height`, the label also keeps, per width, the tallest height any of its texts needed there, so a new text one
line shorter leaves the line blank instead of moving (and repainting) the charts below it; the text is set at the top.
A new font, style or language starts afresh, as do the label's first texts: the first frame is laid out as before.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel

_RESETS = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange, QEvent.Type.LanguageChange)
TEXTS_KEPT = 16
WIDTHS_KEPT = 64  # a window resized by dragging asks at many widths: the oldest are dropped


class _Sizes:
    __slots__ = ("hint", "least", "heights")

    def __init__(self) -> None:
        self.hint: QSize | None = None
        self.least: QSize | None = None
        self.heights: dict[int, int] = {}


class WrappedLabel(QLabel):
    def __init__(self, parent=None, keep_height: bool = False) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self._known: dict[str, _Sizes] = {}
        self._tallest: dict[int, int] | None = {} if keep_height else None  # width -> the tallest height needed there
        if keep_height:
            self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # a kept blank line is below

    def _sizes(self) -> _Sizes:
        text = self.text()
        sizes = self._known.get(text)
        if sizes is None:
            if len(self._known) >= TEXTS_KEPT:
                del self._known[next(iter(self._known))]  # the oldest text
            sizes = self._known[text] = _Sizes()
        return sizes

    def heightForWidth(self, width: int) -> int:
        heights = self._sizes().heights
        height = heights.get(width)
        if height is None:
            height = heights[width] = super().heightForWidth(width)
        tallest = self._tallest
        if tallest is None:
            return height
        kept = tallest.get(width, 0)
        if height > kept:
            if width not in tallest and len(tallest) >= WIDTHS_KEPT:
                del tallest[next(iter(tallest))]
            tallest[width] = kept = height
        return kept

    def sizeHint(self) -> QSize:
        sizes = self._sizes()
        if sizes.hint is None:
            sizes.hint = super().sizeHint()
        return QSize(sizes.hint)

    def minimumSizeHint(self) -> QSize:
        sizes = self._sizes()
        if sizes.least is None:
            sizes.least = super().minimumSizeHint()
        return QSize(sizes.least)

    def changeEvent(self, event) -> None:
        if event.type() in _RESETS:
            self._known.clear()
            if self._tallest is not None:
                self._tallest.clear()
        super().changeEvent(event)
