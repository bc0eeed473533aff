"""A rich-text WrappedLabel paints what QLabel paints, from a document of its own laid out once per text and width."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from zerodesk.gui.base.wrapped_label import WrappedLabel

TEXTS = (
    "<b>Per-rank model-state memory by ZeRO stage</b> — computed, paper profile<br>custom architecture: P = 2,000,000,000"
    " (2.0B) · Nd = 4 (1 × 4 GPUs) · figures in GB (1 GB = 10<sup>9</sup> bytes)",
    '<span style="color:#0072B2; font-size:large">■</span>&nbsp;parameters&nbsp;&nbsp; '
    '<span style="color:#E69F00; font-size:large">■</span>&nbsp;gradients&nbsp;&nbsp; <i>optimizer</i> states, '
    "a line long enough to wrap at the narrower of the widths below, and then some more words",
    "⚠ Параметры и градиенты: <b>16 ГБ</b> на участника; симуляция шага.",
)


def _pair(qtbot, keep_height: bool, width: int, font_size: int | None = None) -> tuple[QWidget, WrappedLabel, QLabel]:
    """A WrappedLabel and a QLabel set up alike (rich text, wrapped, selectable, the same alignment), side by side."""
    host = QWidget()
    layout = QVBoxLayout(host)
    ours = WrappedLabel(keep_height=keep_height)
    theirs = QLabel()
    theirs.setWordWrap(True)
    theirs.setAlignment(ours.alignment())
    for label in (ours, theirs):
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if font_size:
            font = label.font()
            font.setPointSize(font_size)
            label.setFont(font)
        layout.addWidget(label)
    qtbot.addWidget(host)
    host.resize(width, 400)
    host.show()
    qtbot.waitExposed(host)
    return host, ours, theirs


@pytest.mark.parametrize("keep_height", [True, False])
@pytest.mark.parametrize("width", [260, 700])
def test_a_rich_text_label_paints_the_pixels_qlabel_paints(qtbot, keep_height, width):
    host, ours, theirs = _pair(qtbot, keep_height, width, font_size=None if width == 700 else 11)
    for text in TEXTS:
        for label in (ours, theirs):
            label.setText(text)
            label.setFixedHeight(160)  # both the same size: the vertical alignment is tested too
        QApplication.processEvents()
        assert ours._paints_itself()
        assert ours.size() == theirs.size()
        a, b = ours.grab().toImage(), theirs.grab().toImage()
        assert a.size() == b.size() and not a.isNull()
        assert a == b, f"the label's pixels differ from QLabel's for {text[:30]!r} at {width} px"
        assert len(ours._documents) >= 1  # painted from its own document


def test_a_caption_shown_again_is_painted_with_no_text_laid_out(qtbot):
    """QLabel lays its document out four times per new text it paints (the text, its options, margin and width); the
    label keeps its recent texts laid out: a text shown again (a profile chosen back) lays nothing out."""
    host, ours, _ = _pair(qtbot, True, 500)
    for text in TEXTS[:2]:  # each shown, sized and painted once
        ours.setText(text)
        ours.repaint()
        QApplication.processEvents()
    changes = []
    documents = ours.findChildren(QTextDocument) + list(getattr(ours, "_documents", {}).values())
    for doc in documents:
        doc.contentsChanged.connect(lambda: changes.append(1))
        doc.documentLayout().documentSizeChanged.connect(lambda _size: changes.append(1))
    for text in (TEXTS[0], TEXTS[1], TEXTS[0]):
        ours.setText(text)
        ours.repaint()
        QApplication.processEvents()
        assert ours.text() == text
    assert changes == []


def test_selected_text_is_painted_by_qlabel(qtbot):
    """A selection is QLabel's to draw: the label hands such a paint to it."""
    host, ours, _ = _pair(qtbot, True, 500)
    ours.setText(TEXTS[0])
    QApplication.processEvents()
    assert ours._paints_itself()
    ours.setSelection(0, 5)
    assert ours.hasSelectedText() and not ours._paints_itself()
    ours.repaint()  # drawn by QLabel with its selection (no error, nothing of ours in the way)


@pytest.mark.parametrize("keep_height", [True, False])
def test_a_rich_text_label_asks_for_the_sizes_qlabel_asks_for(qtbot, keep_height):
    """Measured from its own documents (QLabel lays a new text out a dozen times to answer a layout's questions), the
    label's size hints and height for each width are QLabel's, to the pixel."""
    host, ours, theirs = _pair(qtbot, keep_height, 500)
    theirs.setContentsMargins(2, 3, 4, 1)
    ours.setContentsMargins(2, 3, 4, 1)
    for text in TEXTS + ("", "word"):
        for label in (ours, theirs):
            label.setText(text)
        assert ours._owns_document()
        assert ours.sizeHint() == theirs.sizeHint(), text
        assert ours.minimumSizeHint() == theirs.minimumSizeHint(), text
        for width in (0, 1, 37, 120, 260, 333, 700, 5000):
            assert ours.heightForWidth(width) == theirs.heightForWidth(width) or (
                keep_height and ours.heightForWidth(width) > theirs.heightForWidth(width)), (text, width)


def test_a_new_caption_is_laid_out_by_the_label_not_by_qlabel(qtbot):
    """A new text is measured and painted from the label's document alone: QLabel's own document is never filled."""
    host, ours, _ = _pair(qtbot, True, 500)
    for text in TEXTS:
        ours.setText(text)
        ours.adjustSize()
        ours.repaint()
        QApplication.processEvents()
    assert all(doc.isEmpty() for doc in ours.findChildren(QTextDocument))
    assert set(ours._documents) >= set(TEXTS[-2:])
