"""Steps 2-5: Nd rank boxes and one rank's memory, stage by stage.

Each box is one rank; its five strips are the five states, as tall as their bytes per parameter.
A state kept whole fills its strip; a split state keeps only the rank's own 1/Nd slice, and the
rest of the strip (greyed) lives on the other ranks. Going from a stage to the next, the strips
shrink into their slices and the bar of one rank shrinks with them.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPen

from ...core.accounting import sharded
from ...core.lesson import LessonFigures
from ..base import i18n
from .figure import LessonFigure
from .one_rank import COMPONENTS, OneRankPanel

MAX_BOXES = 128  # beyond this the last box stands for the rest
BOX_ASPECT = 1.4  # a rank's box, width over height
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
BPP_TOTAL = sum(b for _, b, _ in COMPONENTS)


def grid_shape(n: int) -> tuple[int, int]:
    """Columns and rows for n boxes, from n alone, so the window, the handout's pages and the slides draw the same
    grid: the squarest grid, wider than tall, whose last row is more than half full (64 ranks are 8 × 8, never
    7 columns with one box alone on its row)."""
    cols = max(1, math.ceil(math.sqrt(n)))
    while 2 * (cols * math.ceil(n / cols) - n) >= cols:
        cols += 1
    return cols, math.ceil(n / cols)


class RankFigure(OneRankPanel, LessonFigure):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.figures: LessonFigures | None = None
        self.unit = "GB"
        self.stage = 0
        self.grid = (0, 0)  # columns and rows of the last drawn boxes
        self.setObjectName("lessonRankFigure")

    def show_figures(self, figures: LessonFigures, unit: str, stage: int, animate: bool, entering: bool) -> None:
        self.figures, self.unit, self.stage = figures, unit, stage
        state = {"comm": 1.0 if stage == 3 else 0.0}
        for key, _bpp, cls in COMPONENTS:
            state[f"split_{key}"] = 1.0 if sharded(cls, stage) else 0.0
            state[f"bytes_{key}"] = float(figures.stage_components[stage][key])
        start = None
        if entering and animate and stage > 0:  # come from the previous stage so the class sees what changed
            prev = stage - 1
            start = {"comm": 0.0}
            for key, _bpp, cls in COMPONENTS:
                start[f"split_{key}"] = 1.0 if sharded(cls, prev) else 0.0
                start[f"bytes_{key}"] = float(figures.stage_components[prev][key])
        self.animate_to(state, animate, start)

    def paintEvent(self, _event) -> None:
        p = self.begin_paint()
        if self.figures is None:
            return
        s = self.style_
        m = 14 * s.scale
        split_x = self.width() * 0.52
        self._grid(p, QRectF(m, m, split_x - 2 * m, self.height() - 2 * m))
        self._one_rank(p, QRectF(split_x + m, m, self.width() - split_x - 2 * m, self.height() - 2 * m))
        p.end()

    # -- the Nd boxes ------------------------------------------------------------------------------
    def _grid(self, p, area: QRectF) -> None:
        f, s = self.figures, self.style_
        head_h = 1.6 * self.line_height(11, True)
        if f.dp > MAX_BOXES:  # the noun agrees with Nd (Qt's numerus forms)
            head = self.tr("Nd = {nd} ranks; the last box stands for the rest", "", f.dp).format(nd=i18n.fmt_int(f.dp))
        else:
            head = self.tr("Nd = {nd} ranks, one box each", "", f.dp).format(nd=i18n.fmt_int(f.dp))
        head_pts, align = self._fit(head, 11, area.width(), True), ALIGN_LEFT
        if self.text_width(head, head_pts, True) > area.width():  # at presenter mode's floor: two lines
            head_h = self.text_height(head, head_pts, area.width(), True) + 0.3 * self.line_height(head_pts)
            align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        self.text(p, QRectF(area.left(), area.top(), area.width(), head_h), head, align, head_pts, True, wrap=True)
        legend_h = self._legend_height(area.width())
        grid = QRectF(area.left(), area.top() + head_h, area.width(), area.height() - head_h - legend_h)
        drawn = min(f.dp, MAX_BOXES)
        cols, rows = self.grid = grid_shape(drawn)
        # boxes of about 1.4 : 1, as large as the area allows; the legend follows right under them
        bw = min(grid.width() / cols, grid.height() / rows * BOX_ASPECT)
        grid = QRectF(grid.left(), grid.top(), bw * cols, bw / BOX_ASPECT * rows)
        gap = max(2.0, min(8 * s.scale, grid.width() / cols * 0.08))
        bw = (grid.width() - gap * (cols - 1)) / cols
        bh = (grid.height() - gap * (rows - 1)) / rows
        for i in range(drawn):
            r, c = divmod(i, cols)
            box = QRectF(grid.left() + c * (bw + gap), grid.top() + r * (bh + gap), bw, bh)
            if f.dp > MAX_BOXES and i == drawn - 1:
                more = f.dp - drawn + 1
                p.setPen(QPen(s.qcolor("frame"), s.line(1), Qt.PenStyle.DashLine))
                p.drawRect(box)
                text = self.tr("+{n} more").format(n=i18n.fmt_int(more))
                pts = self._fit(text, 8, bw - 2)
                if self.text_width(text, pts) <= bw - 2 and self.line_height(pts) <= bh:
                    self.text(p, box, text, ALIGN_CENTER, pts)
                else:  # no room for words: three dots, drawn
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(s.qcolor("frame"))
                    d = max(1.5, min(bw / 9, bh / 3))
                    for k in (-1, 0, 1):
                        p.drawEllipse(box.center() + QPointF(k * 2.2 * d, 0), d / 2, d / 2)
                continue
            self._box(p, box, i, f.dp)
        self._legend(p, QRectF(area.left(), grid.bottom() + 4 * s.scale, area.width(), legend_h - 4 * s.scale))

    def _box(self, p, box: QRectF, rank: int, nd: int) -> None:
        s = self.style_
        pad = max(1.0, min(4 * s.scale, box.width() * 0.06))
        inner = box.adjusted(pad, pad, -pad, -pad)
        label_pts = 8.5
        label = self.tr("rank {i}").format(i=rank)
        if inner.height() > 5 * self.line_height(label_pts) and inner.width() > self.text_width(label, label_pts) + 4:
            label_h = self.line_height(label_pts)
            self.text(p, QRectF(inner.left(), inner.top(), inner.width(), label_h), label, ALIGN_LEFT, label_pts, color="muted")
            inner.setTop(inner.top() + label_h)
        y = inner.bottom()
        for key, bpp, _cls in COMPONENTS:  # bottom-up: parameters at the bottom, as in the bar
            h = inner.height() * bpp / BPP_TOTAL
            strip = QRectF(inner.left(), y - h, inner.width(), h)
            split = self.value(f"split_{key}")
            lo = split * rank / nd
            hi = 1 - split * (1 - (rank + 1) / nd)
            p.fillRect(strip, s.qcolor("empty"))
            own = QRectF(strip.left() + lo * strip.width(), strip.top(), max(2.0, (hi - lo) * strip.width()), strip.height())
            p.fillRect(own, s.color(key))
            y -= h
        p.setPen(QPen(s.qcolor("frame"), s.line(1)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(box)

    def _legend(self, p, area: QRectF) -> None:
        """Swatches flow onto as many rows as the width needs; the grey note goes last."""
        s = self.style_
        pts = 9
        lh = self.line_height(pts) * 1.15
        sw = 0.6 * lh
        x, y = area.left(), area.top()
        for key, _bpp, _cls in COMPONENTS:
            label = i18n.component_label(key)
            w = sw + 4 * s.scale + self.text_width(label, pts) + 2
            if x + w > area.right() and x > area.left():
                x, y = area.left(), y + lh
            p.fillRect(QRectF(x, y + (lh - sw) / 2, sw, sw), s.color(key))
            self.text(p, QRectF(x + sw + 4 * s.scale, y, w - sw - 4 * s.scale, lh), label, ALIGN_LEFT, pts)
            x += w + 10 * s.scale
        y += lh
        p.fillRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw), s.qcolor("empty"))
        note_w = area.width() - sw - 6 * s.scale
        note = self.tr("grey: the part of a split state that the other ranks keep")
        self.text(p, QRectF(area.left() + sw + 6 * s.scale, y, note_w, self.text_height(note, pts, note_w)),
                  note, ALIGN_LEFT, pts, color="muted", wrap=True)

    def _legend_height(self, width: float) -> float:
        s, pts = self.style_, 9
        lh = self.line_height(pts) * 1.15
        rows, x = 1, 0.0
        for key, _bpp, _cls in COMPONENTS:
            w = 0.6 * lh + 4 * s.scale + self.text_width(i18n.component_label(key), pts) + 2
            if x + w > width and x > 0:
                rows, x = rows + 1, 0.0
            x += w + 10 * s.scale
        note = self.tr("grey: the part of a split state that the other ranks keep")
        note_h = max(lh, self.text_height(note, pts, width - 0.6 * lh - 6 * s.scale))
        return rows * lh + note_h + 4 * s.scale
