"""Step 1: the 16 bytes per parameter, built up as one stacked bar, with a legend of formulas."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPen

from ...core.accounting import SCHEMES
from ...core.lesson import LESSON_SCHEME
from ..base import i18n
from . import numbers as fmt
from .figure import GrowingFigure

ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class BytesFigure(GrowingFigure):
    GROW = "build"  # entering the step builds the bar from nothing, one state after another

    def __init__(self, parent=None) -> None:
        super().__init__("lessonBytesFigure", parent)

    def paintEvent(self, _event) -> None:
        p = self.begin_paint()
        f = self.figures
        if f is None:
            return
        s = self.style_
        m = 16 * s.scale
        comps = list(f.components.items())
        total_bpp = sum(float(n.formula.rstrip("P")) for _, n in comps)
        total = f.stage_totals[0]
        total_text = f"16P = {fmt.fmt_short_bytes(total.bytes, self.unit)}"
        total_w = self.text_width(total_text, 13, True) + 2 * m
        bar = QRectF(m, m + 2.2 * self.line_height(10), self.width() - 2 * m - total_w, max(56 * s.scale, self.height() * 0.22))
        self.number(p, QRectF(bar.right() + m, bar.top(), total_w - m, bar.height()), total_text, total, ALIGN_LEFT, 13)

        build = self.value("build", 1.0) * len(comps)
        x = bar.left()
        opt_left = opt_right = None
        for i, (key, number) in enumerate(comps):
            bpp = float(number.formula.rstrip("P"))
            full = bar.width() * bpp / total_bpp
            width = full * max(0.0, min(1.0, build - i))
            seg = QRectF(x, bar.top(), width, bar.height())
            p.fillRect(seg, s.color(key))
            p.setPen(QPen(s.qcolor("background"), s.line(2)))
            p.drawRect(seg)
            label = f"{bpp:g}P"
            if width > self.text_width(label, 12, True) + 8:
                self.text(p, seg, label, ALIGN_CENTER, 12, True, color=self.ink_on(s.color(key)))
            if key in ("master", "adam_m", "adam_v"):
                opt_left = x if opt_left is None else opt_left
                opt_right = x + full
            x += full
        if opt_left is not None and build > len(comps) - 1:
            self._brace(p, opt_left, opt_right, bar.top() - 6 * s.scale)
            k_text = self.tr("Optimizer states K = 12: {v}").format(v=fmt.fmt_short_bytes(f.numbers["class_optimizer"].bytes, self.unit))
            self.number(p, QRectF(opt_left, m, opt_right - opt_left, 1.8 * self.line_height(10)), k_text,
                        f.numbers["class_optimizer"], ALIGN_CENTER, 10)
        self._legend(p, QRectF(m, bar.bottom() + 1.5 * m, self.width() - 2 * m, self.height() - bar.bottom() - 2.5 * m))
        p.end()

    def _brace(self, p, left: float, right: float, y: float) -> None:
        s = self.style_
        p.setPen(QPen(s.qcolor("frame"), s.line(2)))
        tick = 8 * s.scale
        p.drawLine(int(left), int(y), int(right), int(y))
        p.drawLine(int(left), int(y), int(left), int(y + tick))
        p.drawLine(int(right), int(y), int(right), int(y + tick))

    def _legend(self, p, area: QRectF) -> None:
        f, s = self.figures, self.style_
        rows = list(f.components.items())
        pts = 11
        pts = min(14, max(9, pts * area.height() / (len(rows) * 2.2 * self.line_height(pts))))
        row_h = min(area.height() / len(rows), 2.2 * self.line_height(pts))
        names = [i18n.component_label(k) for k, _ in rows]
        classes = {c.key: c.state_class for c in SCHEMES[LESSON_SCHEME].components}
        name_w = max(self.text_width(n, pts) for n in names) + 16 * s.scale
        formula_w = self.text_width("16P", pts, True) + 24 * s.scale
        value_w = max(self.text_width(fmt.fmt_short_bytes(n.bytes, self.unit), pts, True) for _, n in rows) + 24 * s.scale
        y = area.top()
        sw = 0.6 * row_h
        for (key, number), label in zip(rows, names):
            x = area.left()
            p.fillRect(QRectF(x, y + (row_h - sw) / 2, sw, sw), s.color(key))
            x += sw + 10 * s.scale
            self.text(p, QRectF(x, y, name_w, row_h), label, ALIGN_LEFT, pts)
            x += name_w
            self.text(p, QRectF(x, y, formula_w, row_h), number.formula, ALIGN_LEFT, pts, True)
            x += formula_w
            self.number(p, QRectF(x, y, value_w, row_h), fmt.fmt_short_bytes(number.bytes, self.unit), number, ALIGN_LEFT, pts)
            x += value_w
            if classes[key] == "optimizer":  # parameters and gradients name their class already
                cls = i18n.state_class_label(classes[key])
                self.text(p, QRectF(x, y, area.right() - x, row_h), cls, ALIGN_LEFT, pts, color="muted")
            y += row_h
