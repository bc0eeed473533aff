"""Step 6: the states of every stage with what comes on top of them at the step's peak.

Each stage's bar rises to its predicted peak (zerodesk.core.peak, as the Plan chart shows it); the
legend lists the activation estimate, the largest part of what is on top. Fragmentation is drawn as a
dashed arrow open upwards with a '?', the same size on every bar: an unknown, not an amount (measure it).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen

from ...core.lesson import STATE_CLASSES
from ..base import i18n
from . import numbers as fmt
from .figure import GrowingFigure

ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
CLASS_COLOR_KEY = {"param": "params", "grad": "grads", "optimizer": "master"}
EXAMPLE_MODEL = "llama-2-7b"  # a preset with an architecture, named by its label where the activations are missing


class PeakFigure(GrowingFigure):
    def __init__(self, parent=None) -> None:
        super().__init__("lessonPeakFigure", parent)
        self.unknown_marks: list[QRectF] = []  # where the last paint drew each stage's fragmentation '?'

    def paintEvent(self, _event) -> None:
        p = self.begin_paint()
        f = self.figures
        if f is None:
            return
        s = self.style_
        m = 14 * s.scale
        pts = 9.5
        lh = self.line_height(pts)
        on_top = f.on_top.numbers
        # what comes on top differs per stage: activations, and gathered parameters and buffers (core.peak)
        extra = [max(0, (f.peak(st) or 0) - f.stage_totals[st].bytes) for st in range(4)]
        top = max(f.stage_totals[st].bytes + extra[st] for st in range(4))
        legend_w = self.width() * 0.34
        title = self.tr("Per rank, {model}, Nd = {nd}").format(
            model=i18n.model_label(f.model_name) or fmt.fmt_power(f.params), nd=i18n.fmt_int(f.dp))
        title_w = self.width() - legend_w - 2 * m
        title_pts = self._fit(title, 11, title_w, True, smallest=9)
        title_h = self.text_height(title, title_pts, title_w, True)
        self.text(p, QRectF(m, m, title_w, title_h), title, ALIGN_LEFT, title_pts, True, wrap=True)
        plot_top = m + title_h + 0.6 * lh
        cell = title_w / 4
        # under each bar: the stage, its states and (shapes known) its predicted peak; a label too wide for its
        # column at the smallest type splits in two lines (the word, then the figure)
        states = [fmt.fmt_short_bytes(f.stage_totals[st].bytes, self.unit) for st in range(4)]
        peaks = ["≈ " + fmt.fmt_short_bytes(f.numbers[f"peak{st}"].bytes, self.unit) for st in range(4)] if on_top else []
        joined = [self.tr("states {v}").format(v=v) for v in states]
        pts = min(self._fit(t, pts, cell * 0.94) for t in [*joined, self.tr("predicted peak"), *peaks])
        split = any(self.text_width(t, pts, True) > cell * 0.94 for t in joined)
        lh = self.line_height(pts)
        rows = 1 + (2 if split else 1) + (2 if on_top else 0)
        plot = QRectF(m, plot_top, title_w, self.height() - m - (1.15 * rows + 0.7) * lh - plot_top)
        # the unknown on top of each bar has the same size in pixels whatever the bytes: it is not an amount
        mark_h = max(2.6 * lh, 2.2 * self.line_height(12, True))
        bars_h = max(1.0, plot.height() - mark_h)
        grow = self.value("grow", 1.0)
        col_w = plot.width() / 4 * 0.5
        base = plot.bottom()
        p.setPen(QPen(s.qcolor("frame"), s.line(1.5)))
        p.drawLine(int(plot.left()), int(base), int(plot.right()), int(base))
        self.unknown_marks = []
        for st in range(4):
            cx = plot.left() + (st + 0.5) * plot.width() / 4
            x = cx - col_w / 2
            y = base
            for cls in STATE_CLASSES:
                h = bars_h * f.stage_classes[st][cls] / top * grow
                p.fillRect(QRectF(x, y - h, col_w, h), s.color(CLASS_COLOR_KEY[cls]))
                y -= h
            if on_top:
                h = bars_h * extra[st] / top * grow
                p.fillRect(QRectF(x, y - h, col_w, h), QBrush(QColor(s.on_top), Qt.BrushStyle.BDiagPattern))
                p.setPen(QPen(QColor(s.on_top), s.line(1.5)))
                p.drawRect(QRectF(x, y - h, col_w, h))
                y -= h
            self.unknown_marks.append(self._unknown(p, QRectF(x, y - mark_h * grow, col_w, mark_h * grow)))
            column = [(i18n.stage_short(st), "bold", None)]
            column += ([(self.tr("states"), "muted", None), (states[st], "number", f.stage_totals[st])] if split
                       else [(joined[st], "number", f.stage_totals[st])])
            if on_top:
                column += [(self.tr("predicted peak"), "muted", None), (peaks[st], "number", f.numbers[f"peak{st}"])]
            y = base + 0.2 * lh
            for text, kind, number in column:
                row = QRectF(cx - cell / 2, y, cell, lh * 1.15)
                if number is not None:
                    self.number(p, row, text, number, ALIGN_CENTER, pts)
                else:
                    self.text(p, row, text, ALIGN_CENTER, pts, kind == "bold", color="muted" if kind == "muted" else "text")
                y += 1.15 * lh
        self._legend(p, QRectF(self.width() - legend_w, m, legend_w - m, self.height() - 2 * m))
        p.end()

    def _unknown(self, p, box: QRectF, points: float = 12) -> QRectF:
        """Fragmentation on top of a bar: a dashed arrow open upwards and a '?', the same size on every bar
        (the bar ends where the prediction does; how far past it the measured peak lands is not known)."""
        s = self.style_
        if box.height() < 2:
            return box
        p.setPen(QPen(s.qcolor("muted"), s.line(1.5), Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        cx = box.center().x()
        q_h = min(box.height() * 0.45, self.line_height(points, True))
        tip = box.top() + q_h
        p.drawLine(QPointF(cx, box.bottom()), QPointF(cx, tip))
        head = min(box.width() * 0.18, 0.35 * q_h + 2)
        p.setPen(QPen(s.qcolor("muted"), s.line(1.5)))
        p.drawLine(QPointF(cx - head, tip + head), QPointF(cx, tip))
        p.drawLine(QPointF(cx + head, tip + head), QPointF(cx, tip))
        self.text(p, QRectF(box.left(), box.top(), box.width(), q_h), "?", ALIGN_CENTER, points, True, color="muted")
        return box

    def _legend(self, p, area: QRectF) -> None:
        """The legend; the muted notes go when they cannot fit (presenter mode keeps the type at its floor)."""
        for notes in (("tokens", "fragmentation"), ("fragmentation",), ()):
            if self._legend_rows(None, area, notes) <= area.height() or not notes:
                self._legend_rows(p, area, notes)
                return

    def _legend_rows(self, p, area: QRectF, notes: tuple[str, ...]) -> float:
        """Draw the legend with the given notes (measure only when `p` is None); its height."""
        f, s = self.figures, self.style_
        pts = 10
        lh = 1.3 * self.line_height(pts)
        y = area.top()
        sw = 0.6 * lh
        tx = area.left() + sw + 8 * s.scale
        tw = area.right() - tx

        def row(text: str, points: float, bold: bool = False, color: str = "text") -> float:
            h = max(lh, self.text_height(text, points, tw, bold))
            if p is not None:
                self.text(p, QRectF(tx, y, tw, h), text, ALIGN_LEFT, points, bold, color=color, wrap=True)
            return h

        for cls in reversed(STATE_CLASSES):
            if p is not None:
                p.fillRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw), s.color(CLASS_COLOR_KEY[cls]))
            y += row(fmt.class_name(cls), pts)
        y += 0.4 * lh
        if p is not None:
            p.fillRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw), QBrush(QColor(s.on_top), Qt.BrushStyle.BDiagPattern))
        y += row(self.tr("On top at the peak (predicted)"), pts, True)
        if f.on_top.numbers:
            for n in f.on_top.numbers:
                y += row(fmt.name(n), pts - 1, color="muted")
                if p is not None:
                    self.number(p, QRectF(tx, y, tw, lh), fmt.fmt_short_bytes(n.bytes, self.unit), n, ALIGN_LEFT, pts)
                y += 1.2 * lh
            note = self.tr("{seq} tokens × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the "
                           "gathered 16-bit parameters and the communication buffers.", "", f.seq_len).format(
                seq=i18n.fmt_int(f.seq_len), batch=i18n.fmt_int(f.micro_batch))
            if "tokens" in notes:
                y += row(note, pts - 1, color="muted")
        else:  # what the bars lack is said whatever the room
            y += row(self.tr("Not estimated: a raw parameter count has no shapes. Choose a model with an architecture "
                             "(such as {example}) to see the activations.").format(example=i18n.model_label(EXAMPLE_MODEL)),
                     pts - 1, color="muted")
        y += 0.6 * lh
        if p is not None:
            self._unknown(p, QRectF(area.left() - 0.4 * sw, y, 1.8 * sw, 2.2 * lh), pts)
        mark_bottom = y + 2.2 * lh
        y += row(self.tr("Fragmentation"), pts, True)
        if "fragmentation" in notes:
            y += row(self.tr("Not predicted, so drawn the same on every bar: measure the peak of a full step."), pts - 1,
                     color="muted")
        return max(y, mark_bottom) - area.top()
