"""Steps 2-5, the right half: one rank's bar shrinking stage by stage, what it keeps by state (formula =
value), the four stage totals side by side (the paper's Figure 1 row) and, at stage 3, the communication (§7).

A mixin of RankFigure (zerodesk.gui.lesson.rank_figure): it paints with the figure's text and number helpers.
When the room is short (presenter mode keeps its type at the floor) it drops spacing, the 'Per rank:' line and
the ratio's own line, never type size.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QPen

from ...core.accounting import SCHEMES, sharded
from ...core.lesson import LESSON_SCHEME, STATE_CLASSES
from ..base import i18n
from . import numbers as fmt

translate = QCoreApplication.translate  # lupdate reads translate("RankFigure", "text"): the figure's context
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
COMPONENTS = [(c.key, c.bytes_per_param, c.state_class) for c in SCHEMES[LESSON_SCHEME].components]  # bottom-up


class OneRankPanel:
    def _one_rank(self, p, area: QRectF) -> None:
        f, s, stage = self.figures, self.style_, self.stage
        total = f.stage_totals[stage]
        head_h = 1.45 * self.line_height(11, True)
        self.text(p, QRectF(area.left(), area.top(), area.width(), head_h),
                  translate("RankFigure", "One rank at stage {n}").format(n=stage), ALIGN_LEFT, 11, True)
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
            state = translate("RankFigure", " (split)") if sharded(cls, stage) else translate("RankFigure", " (whole)")
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
            self.text(p, QRectF(area.left(), y, area.width(), lh), translate("RankFigure", "Per rank:"), ALIGN_LEFT, pts, color="muted")
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
                  translate("RankFigure", "Communication per rank per step (§7)"), ALIGN_LEFT, pts, True)
        label_w = max(self.text_width(translate("RankFigure", "stages 0–2"), pts), self.text_width(translate("RankFigure", "stage 3"), pts)) + 10 * s.scale
        grow = self.value("comm")
        ratio = f.numbers["comm_ratio"]
        times = "×" + fmt.fmt_ratio(ratio.ratio)
        widest = max(self.text_width(f"{fmt.formula(f.numbers[k])} = {fmt.fmt_short_bytes(f.numbers[k].bytes, self.unit)}",
                                     pts, True) for k in ("comm0", "comm3"))
        if inline:
            widest += self.text_width(times, pts, True) + 12 * s.scale
        max_bar = area.width() - label_w - widest - 16 * s.scale
        y = area.top() + lh * 1.3
        for label, key, frac in ((translate("RankFigure", "stages 0–2"), "comm0", 2 / 3), (translate("RankFigure", "stage 3"), "comm3", 2 / 3 + grow / 3)):
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
            self.number(p, QRectF(area.left(), y, area.width(), lh), translate("RankFigure", "×{r} the traffic of stages 0–2").format(
                r=fmt.fmt_ratio(ratio.ratio)), ratio, ALIGN_LEFT, pts)
