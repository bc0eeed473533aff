"""Step 6: the states of every stage with what comes on top of them at the step's peak.

Each stage's bar rises to its predicted peak (zerodesk.core.peak, as the Plan chart shows it); the
legend lists the activation estimate, the largest part of what is on top. Fragmentation is drawn as
an open, dashed box: not predicted, measure it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen

from ...core.lesson import STATE_CLASSES
from ..base import i18n
from . import numbers as fmt
from .figure import GrowingFigure

ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
CLASS_COLOR_KEY = {"param": "params", "grad": "grads", "optimizer": "master"}
UNKNOWN_SHARE = 0.18  # height of the "not computed" boxes, as a share of the tallest column


class PeakFigure(GrowingFigure):
    def __init__(self, parent=None) -> None:
        super().__init__("lessonPeakFigure", parent)

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
        plot = QRectF(m, m + 2.4 * lh, self.width() - legend_w - 2 * m, self.height() - 2 * m - 7.6 * lh)
        scale_top = top / (1 - UNKNOWN_SHARE)  # leave room for the open box of buffers and fragmentation
        grow = self.value("grow", 1.0)
        col_w = plot.width() / 4 * 0.5
        base = plot.bottom()
        p.setPen(QPen(s.qcolor("frame"), s.line(1.5)))
        p.drawLine(int(plot.left()), int(base), int(plot.right()), int(base))
        cell = plot.width() / 4
        labels = [self.tr("states {v}").format(v=fmt.fmt_short_bytes(f.stage_totals[st].bytes, self.unit)) for st in range(4)]
        if on_top:
            labels += [self.tr("predicted peak")]
            labels += ["≈ " + fmt.fmt_short_bytes(f.numbers[f"peak{st}"].bytes, self.unit) for st in range(4)]
        pts = min(self._fit(t, pts, cell * 0.94) for t in labels)
        for st in range(4):
            cx = plot.left() + (st + 0.5) * plot.width() / 4
            x = cx - col_w / 2
            y = base
            for cls in STATE_CLASSES:
                h = plot.height() * f.stage_classes[st][cls] / scale_top * grow
                p.fillRect(QRectF(x, y - h, col_w, h), s.color(CLASS_COLOR_KEY[cls]))
                y -= h
            if on_top:
                h = plot.height() * extra[st] / scale_top * grow
                p.fillRect(QRectF(x, y - h, col_w, h), QBrush(QColor(s.on_top), Qt.BrushStyle.BDiagPattern))
                p.setPen(QPen(QColor(s.on_top), s.line(1.5)))
                p.drawRect(QRectF(x, y - h, col_w, h))
                y -= h
            unknown_h = plot.height() * UNKNOWN_SHARE * 0.8 * grow
            p.setPen(QPen(s.qcolor("muted"), s.line(1.5), Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(x, y - unknown_h, col_w, unknown_h))
            self.text(p, QRectF(x, y - unknown_h, col_w, unknown_h), "?", ALIGN_CENTER, 12, True, color="muted")
            # labels under the axis: stage, states, and the predicted peak when the shapes are known
            lx = cx - cell / 2
            self.text(p, QRectF(lx, base + 0.3 * lh, cell, lh * 1.2), i18n.stage_short(st), ALIGN_CENTER, pts, True)
            states = f.stage_totals[st]
            self.number(p, QRectF(lx, base + 1.5 * lh, cell, lh * 1.2), labels[st], states, ALIGN_CENTER, pts)
            if on_top:
                peak = f.numbers[f"peak{st}"]
                self.text(p, QRectF(lx, base + 2.7 * lh, cell, lh * 1.2), labels[4], ALIGN_CENTER, pts, color="muted")
                self.number(p, QRectF(lx, base + 3.9 * lh, cell, lh * 1.2), labels[5 + st], peak, ALIGN_CENTER, pts)
        self.text(p, QRectF(m, m, plot.width(), 2 * lh), self.tr("Per rank, {model}, Nd = {nd}").format(
            model=f.model_name or fmt.fmt_power(f.params), nd=i18n.fmt_int(f.dp)), ALIGN_LEFT, 11, True)
        self._legend(p, QRectF(self.width() - legend_w, m, legend_w - m, self.height() - 2 * m))
        p.end()

    def _legend(self, p, area: QRectF) -> None:
        f, s = self.figures, self.style_
        pts = 10
        lh = 1.3 * self.line_height(pts)
        y = area.top()
        sw = 0.6 * lh
        for cls in reversed(STATE_CLASSES):
            p.fillRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw), s.color(CLASS_COLOR_KEY[cls]))
            self.text(p, QRectF(area.left() + sw + 8 * s.scale, y, area.width() - sw - 8 * s.scale, lh), fmt.class_name(cls),
                      ALIGN_LEFT, pts)
            y += lh
        y += 0.4 * lh
        tx = area.left() + sw + 8 * s.scale
        tw = area.right() - tx
        p.fillRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw), QBrush(QColor(s.on_top), Qt.BrushStyle.BDiagPattern))
        self.text(p, QRectF(tx, y, tw, lh), self.tr("On top at the peak (predicted)"), ALIGN_LEFT, pts, True)
        y += lh
        if f.on_top.numbers:
            for n in f.on_top.numbers:
                row = QRectF(tx, y, tw, 2 * lh)
                self.text(p, QRectF(tx, y, tw, lh), fmt.name(n), ALIGN_LEFT, pts - 1, color="muted")
                self.number(p, QRectF(tx, y + lh, tw, lh), fmt.fmt_short_bytes(n.bytes, self.unit), n, ALIGN_LEFT, pts)
                y = row.bottom() + 0.2 * lh
            note = self.tr("{seq} tokens × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the "
                           "gathered 16-bit parameters and the communication buffers.").format(
                seq=i18n.fmt_int(f.seq_len), batch=i18n.fmt_int(f.micro_batch))
        else:
            note = self.tr("Not estimated: a raw parameter count has no shapes. Choose a model with an architecture "
                           "(e.g. llama-2-7b) to see the activations.")
        h = self.text_height(note, pts - 1, tw)
        self.text(p, QRectF(tx, y, tw, h), note, ALIGN_LEFT, pts - 1, color="muted", wrap=True)
        y += h + 0.6 * lh
        p.setPen(QPen(s.qcolor("muted"), s.line(1.5), Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(area.left(), y + (lh - sw) / 2, sw, sw))
        self.text(p, QRectF(tx, y, tw, lh), self.tr("Fragmentation"), ALIGN_LEFT, pts, True)
        y += lh
        note = self.tr("Not predicted: measure the peak of a full step.")
        h = self.text_height(note, pts - 1, tw)
        self.text(p, QRectF(tx, y, tw, h), note, ALIGN_LEFT, pts - 1, color="muted", wrap=True)
