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

from ...core.accounting import SCHEMES, sharded
from ...core.lesson import LESSON_SCHEME, STATE_CLASSES, LessonFigures
from ..base import i18n
from . import numbers as fmt
from .figure import LessonFigure

MAX_BOXES = 128  # beyond this the last box stands for the rest
BOX_ASPECT = 1.4  # a rank's box, width over height
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
COMPONENTS = [(c.key, c.bytes_per_param, c.state_class) for c in SCHEMES[LESSON_SCHEME].components]
BPP_TOTAL = sum(b for _, b, _ in COMPONENTS)


def grid_shape(n: int) -> tuple[int, int]:
    """Columns and rows for n boxes, from n alone, so the window, the handout's pages and the slides draw the same
    grid: the squarest grid, wider than tall, whose last row is more than half full (64 ranks are 8 × 8, never
    7 columns with one box alone on its row)."""
    cols = max(1, math.ceil(math.sqrt(n)))
    while 2 * (cols * math.ceil(n / cols) - n) >= cols:
        cols += 1
    return cols, math.ceil(n / cols)


class RankFigure(LessonFigure):
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

    # -- one rank --------------------------------------------------------------------------------------
    def _one_rank(self, p, area: QRectF) -> None:
        f, s, stage = self.figures, self.style_, self.stage
        total = f.stage_totals[stage]
        head_h = 1.45 * self.line_height(11, True)
        self.text(p, QRectF(area.left(), area.top(), area.width(), head_h),
                  self.tr("One rank at stage {n}").format(n=stage), ALIGN_LEFT, 11, True)
        chips_h = 2.3 * self.line_height(9.5) + 10 * s.scale
        bar_w = min(90 * s.scale, (area.width()) * 0.2)
        table_x = area.left() + bar_w + 14 * s.scale
        # stage 3's communication takes four lines, or three with its ratio beside the stage 3 bar when the
        # table would not fit above it
        for comm_lines in ((4.2, 3.1) if stage == 3 else (0,)):
            comm_h = comm_lines * self.line_height(9.5)
            body = QRectF(area.left(), area.top() + head_h, area.width(), area.height() - head_h - chips_h - comm_h)
            if self._table_layout(QRectF(table_x, body.top(), area.right() - table_x, body.height())) is not None:
                break
        bar = QRectF(body.left(), body.top() + 0.3 * head_h, bar_w, body.height() - 0.6 * head_h)
        full = float(f.stage_totals[0].bytes)
        p.setPen(QPen(s.qcolor("muted"), s.line(1.5), Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(bar)  # stage 0: everything, the outline the bar shrinks inside
        y = bar.bottom()
        for key, _bpp, _cls in COMPONENTS:
            h = bar.height() * self.value(f"bytes_{key}") / full
            p.fillRect(QRectF(bar.left(), y - h, bar.width(), h), s.color(key))
            y -= h
        # the table beside the bar: what one rank keeps, by state
        self._rank_table(p, QRectF(table_x, body.top(), area.right() - table_x, body.height()))
        self._chips(p, QRectF(area.left(), body.bottom(), area.width(), chips_h))
        if stage == 3:
            self._comm(p, QRectF(area.left(), body.bottom() + chips_h, area.width(), comm_h), inline=comm_lines < 4)

    def _table_rows(self) -> tuple[str, list[tuple[str, str, object]]]:
        f, stage = self.figures, self.stage
        total = f.stage_totals[stage]
        rows = []
        for cls in reversed(STATE_CLASSES):  # optimizer states on top, as in the bar
            number = f.numbers[f"stage{stage}_{cls}"]
            state = self.tr(" (split)") if sharded(cls, stage) else self.tr(" (whole)")
            rows.append((fmt.class_name(cls) + state, f"{fmt.formula(number)} = {fmt.fmt_short_bytes(number.bytes, self.unit)}", number))
        return f"{fmt.formula(total)} = {fmt.fmt_short_bytes(total.bytes, self.unit)}", rows

    TABLE_LAYOUTS = ((1.3, True, 1.25), (1.1, False, 1.25), (1.0, False, 1.0))  # spacing, 'Per rank:', total's size

    def _table_layout(self, area: QRectF) -> tuple[float, float, bool, float] | None:
        """(type size, line spacing, with the 'Per rank:' line, the total's emphasis) of the table in `area`: the
        type shrinks first, then the spacing, that line and the larger total go (presenter mode keeps its type at
        the floor); None if nothing fits."""
        total_text, rows = self._table_rows()

        def fits(pts: float, spacing: float, head: bool, emphasis: float) -> bool:
            lh = spacing * self.line_height(pts)
            big = emphasis * pts
            height = (lh if head else 0) + 1.3 * self.line_height(big, True) + 0.3 * lh + len(rows) * 2 * lh
            wide = max([self.text_width(total_text, big, True)] + [self.text_width(t, pts, b) for r in rows
                                                                    for t, b in ((r[0], False), (r[1], True))])
            return height <= area.height() and wide <= area.width()

        sizes = [10.5 - 0.5 * i for i in range(10)]
        return next(((pts, *layout) for layout in self.TABLE_LAYOUTS for pts in sizes if fits(pts, *layout)), None)

    def _rank_table(self, p, area: QRectF) -> None:
        """Total, then each class: name (split or whole) and formula = value."""
        total = self.figures.stage_totals[self.stage]
        total_text, rows = self._table_rows()
        pts, spacing, head, emphasis = self._table_layout(area) or (6.0, 1.0, False, 1.0)
        lh = spacing * self.line_height(pts)
        big = emphasis * pts
        y = area.top()
        if head:
            self.text(p, QRectF(area.left(), y, area.width(), lh), self.tr("Per rank:"), ALIGN_LEFT, pts, color="muted")
            y += lh
        self.number(p, QRectF(area.left(), y, area.width(), 1.3 * self.line_height(big, True)), total_text, total, ALIGN_LEFT, big)
        y += 1.3 * self.line_height(big, True) + 0.3 * lh
        for name, text, number in rows:
            self.text(p, QRectF(area.left(), y, area.width(), lh), name, ALIGN_LEFT, pts)
            self.number(p, QRectF(area.left(), y + lh, area.width(), lh), text, number, ALIGN_LEFT, pts)
            y += 2 * lh
        if y > area.bottom() + 1:
            self.clipped.append(total_text)

    def _chips(self, p, area: QRectF) -> None:
        """The four stage totals side by side: the paper's Figure 1 row; the current one framed."""
        f, s = self.figures, self.style_
        gap = 6 * s.scale
        w = (area.width() - 3 * gap) / 4
        pts = 9.5
        for st in range(4):
            chip = QRectF(area.left() + st * (w + gap), area.top() + gap, w, area.height() - 2 * gap)
            current = st == self.stage
            p.setPen(QPen(s.qcolor("highlight" if current else "muted"), s.line(3 if current else 1)))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(chip)
            half = chip.height() / 2
            self.text(p, QRectF(chip.left(), chip.top(), w, half), i18n.stage_short(st), ALIGN_CENTER, pts,
                      color="text" if st <= self.stage else "muted")
            number = f.stage_totals[st]
            value = fmt.fmt_short_bytes(number.bytes, self.unit)
            if st <= self.stage:
                self.number(p, QRectF(chip.left(), chip.top() + half, w, half), value, number, ALIGN_CENTER, pts)
            else:
                self.text(p, QRectF(chip.left(), chip.top() + half, w, half), "?", ALIGN_CENTER, pts, color="muted")

    def _comm(self, p, area: QRectF, inline: bool = False) -> None:
        """§7: stages 0-2 move 2P elements per rank per step, stage 3 moves 3P; the ratio on its own line, or
        (`inline`) beside the stage 3 bar."""
        f, s = self.figures, self.style_
        pts = 9.5
        lh = area.height() / (3.1 if inline else 4.2)
        self.text(p, QRectF(area.left(), area.top(), area.width(), lh * 1.2),
                  self.tr("Communication per rank per step (§7)"), ALIGN_LEFT, pts, True)
        label_w = max(self.text_width(self.tr("stages 0–2"), pts), self.text_width(self.tr("stage 3"), pts)) + 10 * s.scale
        grow = self.value("comm")
        ratio = f.numbers["comm_ratio"]
        times = "×" + fmt.fmt_ratio(ratio.ratio)
        widest = max(self.text_width(f"{fmt.formula(f.numbers[k])} = {fmt.fmt_short_bytes(f.numbers[k].bytes, self.unit)}",
                                     pts, True) for k in ("comm0", "comm3"))
        if inline:
            widest += self.text_width(times, pts, True) + 12 * s.scale
        max_bar = area.width() - label_w - widest - 16 * s.scale
        y = area.top() + lh * 1.3
        for label, key, frac in ((self.tr("stages 0–2"), "comm0", 2 / 3), (self.tr("stage 3"), "comm3", 2 / 3 + grow / 3)):
            number = f.numbers[key]
            self.text(p, QRectF(area.left(), y, label_w, lh), label, ALIGN_LEFT, pts)
            bw = max_bar * frac
            p.fillRect(QRectF(area.left() + label_w, y + lh * 0.15, bw, lh * 0.7), s.qcolor("highlight" if key == "comm3" else "muted"))
            text = f"{fmt.formula(number)} = {fmt.fmt_short_bytes(number.bytes, self.unit)}"
            x = area.left() + label_w + bw + 8 * s.scale
            box = self.number(p, QRectF(x, y, area.right() - x, lh), text, number, ALIGN_LEFT, pts)
            if inline and key == "comm3" and grow > 0.99:
                x = box.right() + 12 * s.scale
                self.number(p, QRectF(x, y, area.right() - x, lh), times, ratio, ALIGN_LEFT, pts)
            y += lh * 1.25
        if grow > 0.99 and not inline:
            self.number(p, QRectF(area.left(), y, area.width(), lh), self.tr("×{r} the traffic of stages 0–2").format(
                r=fmt.fmt_ratio(ratio.ratio)), ratio, ALIGN_LEFT, pts)
