"""A word-wrapped label that remembers its sizes for its recent texts until its font or style changes.

QLabel lays its text out anew for every height-for-width question, and one layout pass after an edit asks several
times at two or three widths (the box layouts, a scroll area's fit with and without its scroll bar); a new text also
asks for its size hints, each a layout of the whole text. For a rich-text caption every answer costs a layout, and each
one marks the label for a repaint. The answers depend only on the text, the font and the style, so they are kept for
the last few texts (a scheme or profile chosen again says what it said before).

With `keep_height`, the label also keeps, per width, the tallest height any of its texts needed there, so a new text one
line shorter leaves the line blank instead of moving (and repainting) the charts below it; the text is set at the top.
A new font, style or language starts afresh, as do the label's first texts: the first frame is laid out as before.

A rich-text label is measured and painted from documents of its own, one per recent text, laid out once per width:
QLabel lays its document out four times when it first paints or measures a new text (the text, then its options,
margin and width, each a full layout) and twice more per width it is asked about (there and back), and the captions
an edit changes cost a tenth of the edit. A document is set up as QLabel sets up its own (the label's font, alignment
and wrapping, no margin) and measured and drawn as QLabel measures and draws it (the palette's text in the label's
foreground colour): the sizes and pixels are QLabel's. A selection is drawn by QLabel, as is a label with a style
sheet, a frame, a margin, an indent or right-to-left text.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QStyleOption

from .font_key import font_key

_RESETS = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange, QEvent.Type.LanguageChange)
TEXTS_KEPT = 16
QWIDGETSIZE_MAX = (1 << 24) - 1
DOCUMENTS_KEPT = 4  # laid-out documents for painting: a few texts a choice toggles between
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
        self._documents: dict[str, QTextDocument] = {}  # text -> its document, laid out for _document_key
        self._document_key: tuple | None = None
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
            own = self._owns_document()
            height = heights[width] = self._size_for_width(width).height() if own else super().heightForWidth(width)
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
            if self._owns_document():
                self._measure_hints(sizes)
            else:
                sizes.hint = super().sizeHint()
        return QSize(sizes.hint)

    def minimumSizeHint(self) -> QSize:
        sizes = self._sizes()
        if sizes.least is None:
            if self._owns_document():
                self._measure_hints(sizes)
            else:
                sizes.least = super().minimumSizeHint()
        return QSize(sizes.least)

    def _measure_hints(self, sizes: _Sizes) -> None:
        """QLabel::minimumSizeHint's measures, which also give its sizeHint: the golden-ratio size of the text, and at
        least its one-line height and its longest word's width."""
        self.ensurePolished()
        hint = self._size_for_width(-1)
        one_line = self._size_for_width(QWIDGETSIZE_MAX).height()
        least = QSize(self._size_for_width(0).width(), min(one_line, hint.height()))
        sizes.hint, sizes.least = hint, least

    def _size_for_width(self, w: int) -> QSize:
        """QLabelPrivate::sizeForWidth for a rich text with no margin, indent or frame, from the text's own document."""
        if self.minimumWidth() > 0:
            w = max(w, self.minimumWidth())
        m = self.contentsMargins()
        extra_w, extra_h = m.left() + m.right(), m.top() + m.bottom()
        if not self.wordWrap():
            doc = self._laid_out(-1)
        elif w >= 0:
            doc = self._laid_out(max(w - extra_w, 0))
        else:
            doc = self._laid_out(None)
            doc.adjustSize()  # QWidgetTextControl::adjustSize: a width of golden-ratio proportions
        size = doc.size()
        size = QSize(math.ceil(size.width()) + extra_w, math.ceil(size.height()) + extra_h)
        return size.expandedTo(self.minimumSize())

    def _owns_document(self) -> bool:
        """Rich text QLabel would lay out and draw from its document, with no style sheet, frame, margin, indent or
        right-to-left text: measured and painted from the label's own documents."""
        return (self.textFormat() == Qt.TextFormat.RichText and self.frameShape() == QFrame.Shape.NoFrame
                and self.margin() == 0 and self.indent() <= 0
                and self.layoutDirection() == Qt.LayoutDirection.LeftToRight
                and self.style().metaObject().className() != "QStyleSheetStyle")

    def _paints_itself(self) -> bool:
        """Painted from its own document: a selection is QLabel's to draw (from QLabel's document)."""
        return self._owns_document() and not self.hasSelectedText()

    def _laid_out(self, width: int | None) -> QTextDocument:
        """The text's document, set up as QLabel sets up its own (options before the text, so the text is laid out
        once) and laid out at `width` (None: as it is, for adjustSize); the newest of the kept texts."""
        key = (font_key(self.font()), int(self.alignment().value), self.wordWrap())
        if key != self._document_key:
            self._documents.clear()
            self._document_key = key
        text = self.text()
        doc = self._documents.pop(text, None)
        if doc is None:
            doc = QTextDocument()
            doc.setUndoRedoEnabled(False)
            doc.setDefaultFont(self.font())
            doc.setDocumentMargin(0)
            option = doc.defaultTextOption()
            option.setAlignment(self.alignment())
            option.setWrapMode(QTextOption.WrapMode.WordWrap if self.wordWrap() else QTextOption.WrapMode.ManualWrap)
            doc.setDefaultTextOption(option)
            doc.setTextWidth(-1 if width is None else width)
            doc.setHtml(text)
            if len(self._documents) >= DOCUMENTS_KEPT:
                del self._documents[next(iter(self._documents))]  # the oldest
        elif width is not None and doc.textWidth() != width:  # QTextDocument lays out again on any width it is given
            doc.setTextWidth(width)
        self._documents[text] = doc
        return doc

    def paintEvent(self, event) -> None:
        if not self._paints_itself():
            super().paintEvent(event)
            return
        cr = self.contentsRect()  # QLabel's document rectangle, with no margin, indent or frame
        doc = self._laid_out(cr.width())
        # QLabel::paintEvent's rich-text branch: its layout rectangle, its palette, its clip
        height = doc.documentLayout().documentSize().height()
        align = self.alignment()
        yo = 0.0
        if align & Qt.AlignmentFlag.AlignVCenter:
            yo = max((cr.height() - height) / 2, 0.0)
        elif align & Qt.AlignmentFlag.AlignBottom:
            yo = max(cr.height() - height, 0.0)
        lr = QRectF(cr.x(), yo + cr.y(), cr.width(), cr.height()).toAlignedRect()
        option = QStyleOption()
        option.initFrom(self)
        context = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(option.palette)
        if self.foregroundRole() != QPalette.ColorRole.Text and self.isEnabled():
            palette.setColor(QPalette.ColorRole.Text, palette.color(self.foregroundRole()))
        context.palette = palette
        painter = QPainter(self)
        painter.translate(lr.topLeft())
        painter.setClipRect(lr.translated(-lr.x(), -lr.y()))
        doc.documentLayout().draw(painter, context)
        painter.end()

    def changeEvent(self, event) -> None:
        if event.type() in _RESETS:
            self._known.clear()
            self._documents.clear()
            if self._tallest is not None:
                self._tallest.clear()
        super().changeEvent(event)
