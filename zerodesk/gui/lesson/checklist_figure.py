"""Step 7: the card's checklist, read from the glossary at run time, items revealed one by one."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPen

from .figure import LessonFigure

ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter


def card_checklist(glossary) -> tuple[str, ...]:
    """The card's own checklist items (the glossary also carries ZeroDesk's advice, tagged apart)."""
    return tuple(item.text for item in glossary.checklist if item.origin.kind == "card")


class ChecklistFigure(LessonFigure):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: tuple[str, ...] = ()
        self.setObjectName("lessonChecklistFigure")

    def show_items(self, items: tuple[str, ...], animate: bool, entering: bool) -> None:
        self.items = tuple(items)
        self.animate_to({"reveal": 1.0}, animate, start={"reveal": 0.0} if entering and animate else None)

    def paintEvent(self, _event) -> None:
        p = self.begin_paint()
        s = self.style_
        m = 14 * s.scale
        n = len(self.items)
        if not n:
            return
        pts = 16
        while pts > 8 and self._height(pts) > self.height() - 2 * m:
            pts -= 0.5
        reveal = self.value("reveal", 1.0) * n
        y = m
        d = 1.5 * self.line_height(pts, True)
        tx = m + d + 12 * s.scale
        tw = self.width() - tx - m
        for i, item in enumerate(self.items):
            p.setOpacity(max(0.0, min(1.0, reveal - i)))
            h = max(d, self.text_height(item, pts, tw))
            circle = QRectF(m, y, d, d)
            p.setPen(QPen(s.qcolor("highlight"), s.line(2.5)))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(circle)
            self.text(p, circle, str(i + 1), ALIGN_CENTER, pts, True, color="highlight")
            self.text(p, QRectF(tx, y + (d - self.line_height(pts)) / 2, tw, h), item, ALIGN_LEFT, pts, wrap=True)
            y += h + 0.8 * self.line_height(pts)
        p.setOpacity(1.0)
        p.end()

    def _height(self, pts: float) -> float:
        tw = self.width() - 2 * 14 * self.style_.scale - 1.5 * self.line_height(pts, True) - 12 * self.style_.scale
        return sum(max(1.5 * self.line_height(pts, True), self.text_height(t, pts, tw)) + 0.8 * self.line_height(pts)
                   for t in self.items)
