"""Where the Nd chart's lines (the current Nd, the GPU's memory) put their labels: at the first of a few spots along
the line where no stage curve or current marker runs through the label."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics

from ...core.accounting import STAGES
from ..base.font_key import font_key

# where a line's label may sit: (position along the line, anchor); the first clear of the curves wins
ND_LABEL_SPOTS = ((0.6, (0, 0.5)), (0.85, (0, 0.5)), (0.35, (0, 0.5)), (0.12, (0, 0.5)),
                  (0.6, (1, 0.5)), (0.85, (1, 0.5)), (0.35, (1, 0.5)), (0.12, (1, 0.5)))
PLACES_KEPT = 4  # per line: the places found for its last curves and views (a choice toggled finds nothing anew)
GPU_LABEL_SPOTS = ((0.99, (1, 1)), (0.99, (1, 0)), (0.55, (0.5, 1)), (0.55, (0.5, 0)), (0.01, (0, 1)), (0.01, (0, 0)))


class LineLabels:
    """Places the labels of `chart`'s lines (a DpChart: its stage curves `_curves`, current markers `_current`, font and
    log mode), and keeps what each place was found for."""

    def __init__(self, chart) -> None:
        self._chart = chart
        self._placed: dict[int, tuple] = {}  # a line's label: what its place was found for
        self._found: dict[int, list[tuple]] = {}  # a line's label: its last places found, (what for, position, anchor)
        self.searches = 0  # places searched (not taken from those found before)

    def place(self, line: pg.InfiniteLine, text: str, spots, look: tuple) -> None:
        """Put a line's label at the first spot where no stage curve or current marker runs through it.

        spots: (position along the visible line 0..1, anchor of the label box at that point)."""
        chart = self._chart
        vb = chart.getPlotItem().vb
        (x0, x1), (y0, y1) = vb.viewRange()
        # where it went depends on these only: an edit that moved the other line (or nothing here) leaves it in place
        placed = (line.value(), text, x0, x1, y0, y1, vb.width(), vb.height(), font_key(chart.font()), chart._log, look)
        if self._placed.get(id(line)) == placed:
            return
        found = self._found.setdefault(id(line), [])
        for i, (seen, position, anchor) in enumerate(found):
            if seen == placed:  # found before for the same curves, view and text (a profile chosen again)
                found.append(found.pop(i))
                break
        else:
            px, py = vb.viewPixelSize()
            if px <= 0 or py <= 0:
                return
            position, anchor = self._search(line, text, spots, px, py)
            if len(found) >= PLACES_KEPT:
                del found[0]  # the oldest
            found.append((placed, position, anchor))
        self._placed[id(line)] = placed
        label = line.label
        label.anchors = [anchor, anchor]
        label.setPosition(position)  # lays the label out along the line, at the anchor

    def _search(self, line: pg.InfiniteLine, text: str, spots, px: float, py: float) -> tuple:
        """The first spot along the line whose label box no curve or marker runs through (the first spot if none)."""
        self.searches += 1
        chart = self._chart
        (x0, x1), (y0, y1) = chart.getPlotItem().vb.viewRange()
        metrics = QFontMetrics(chart.font())
        w, h = (metrics.horizontalAdvance(text) + 8) * px, (metrics.height() + 4) * py
        segments = CurveSegments([chart._curves[s].getData() for s in STAGES])
        marks = [(x, y) for x, y in zip(*chart._current.getData())] if chart._current.getData()[0] is not None else []
        horizontal = line.angle % 180 == 0
        for position, anchor in spots:
            if horizontal:
                x_at, y_at = x0 + position * (x1 - x0), line.value()
            else:
                x_at, y_at = line.value(), y0 + position * (y1 - y0)
            left, bottom = x_at - anchor[0] * w, y_at - (1 - anchor[1]) * h
            inside = y0 <= bottom and bottom + h <= y1 and x0 <= left and left + w <= x1
            hits_mark = any(left - 6 * px <= mx <= left + w + 6 * px and bottom - 6 * py <= my <= bottom + h + 6 * py
                            for mx, my in marks)
            if inside and not hits_mark and not segments.cross(left, left + w, bottom, bottom + h):
                return position, anchor
        return spots[0]  # crowded everywhere: the usual place


class CurveSegments:
    """The stage curves' line segments, asked whether any passes through a box (each candidate place of a label): the
    arithmetic of a segment-by-segment walk, on all of them at once."""

    def __init__(self, curves) -> None:
        parts = [(xs[:-1], xs[1:], ys[:-1], ys[1:]) for xs, ys in curves if xs is not None and len(xs) > 1]
        self.xa, self.xb, self.ya, self.yb = (np.concatenate([p[i] for p in parts]) if parts else np.empty(0)
                                              for i in range(4))
        self.flat = self.xb == self.xa  # a vertical step: its height at x is its first end's

    def cross(self, left: float, right: float, bottom: float, top: float) -> bool:
        xa, xb, ya, yb = self.xa, self.xb, self.ya, self.yb
        near = ~((xb < left) | (xa > right))
        if not near.any():
            return False
        lo, hi = np.maximum(xa, left), np.minimum(xb, right)
        span = np.where(self.flat, 1.0, xb - xa)
        at_lo = np.where(self.flat, ya, ya + (yb - ya) * (lo - xa) / span)
        at_hi = np.where(self.flat, ya, ya + (yb - ya) * (hi - xa) / span)
        low, high = np.minimum(at_lo, at_hi), np.maximum(at_lo, at_hi)
        return bool((near & (high >= bottom) & (low <= top)).any())
