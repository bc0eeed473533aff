"""The stage chart by keyboard: a cursor on one segment that the arrow keys move and Enter opens.

Left and Right go from stage to stage, Up and Down from segment to segment within a stage (the predicted
peak's layer on top), Home and End to the first and last stage, Escape leaves. The segment under the cursor
is outlined; its bytes and formula show as a tooltip beside it, become the chart's accessible description
(a screen reader says them) and go out as segmentFocused (the window's status bar). Enter or Space opens
the claim it rests on, as a click does.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QToolTip

from ...core.accounting import STAGES
from .run_markers import BAR_WIDTH
from .stage_hits import PEAK_KEY
from .stage_texts import plain_text
from .tools import TIP_MS, widget_rect_of

MOVES = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Down: (0, -1), Qt.Key.Key_Up: (0, 1)}
OPEN = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)


class StageKeys:
    def __init__(self, chart) -> None:
        self.chart = chart
        self.cursor: tuple[int, str] | None = None  # (stage, component key or PEAK_KEY)
        self.outline = pg.PlotCurveItem([], [])
        self.outline.setZValue(12)
        chart.addItem(self.outline, ignoreBounds=True)
        self.apply_palette()

    def apply_palette(self) -> None:
        color = self.chart.palette().color(QPalette.ColorRole.Highlight)
        self.outline.setPen(pg.mkPen(color, width=3))

    # -- where the cursor may stand ---------------------------------------------------------------
    def keys_of(self, stage: int) -> list[str]:
        """The segments of a stage from the bottom up: the states drawn with some height, then the peak's layer."""
        hits = self.chart.hits
        keys = [key for key, (low, high) in hits.spans(stage).items() if high > low]
        if self.chart.peaks:
            low, high = hits.peak_span(stage)
            if high > low:
                keys.append(PEAK_KEY)
        return keys

    def span(self, stage: int, key: str) -> tuple[float, float]:
        hits = self.chart.hits
        return hits.peak_span(stage) if key == PEAK_KEY else hits.spans(stage)[key]

    # -- moving ----------------------------------------------------------------------------------
    def press(self, event) -> bool:
        """Handle a key on the chart; False when it is not ours (Tab and the rest go on as usual)."""
        if self.chart.breakdown is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key = event.key()
        if key == Qt.Key.Key_Escape and self.cursor is not None:
            self.clear()
            return True
        if key in OPEN and self.cursor is not None:
            self.chart.segmentClicked.emit(*self.cursor)
            return True
        if key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            stage = STAGES[0] if key == Qt.Key.Key_Home else STAGES[-1]
            self.move_to(stage, self.cursor[1] if self.cursor else None)
            return True
        if key not in MOVES:
            return False
        if self.cursor is None:
            self.move_to(STAGES[0], None)
            return True
        d_stage, d_key = MOVES[key]
        stage, current = self.cursor
        if d_stage:
            self.move_to(min(max(stage + d_stage, STAGES[0]), STAGES[-1]), current)
        else:
            keys = self.keys_of(stage)
            index = keys.index(current) if current in keys else 0
            self.move_to(stage, keys[min(max(index + d_key, 0), len(keys) - 1)])
        return True

    def move_to(self, stage: int, key: str | None) -> None:
        """Put the cursor on `key` of `stage` (the same component, or the nearest one, when it has none)."""
        keys = self.keys_of(stage)
        if not keys:
            return
        if key not in keys:
            old = self.keys_of(self.cursor[0]) if self.cursor else []
            index = old.index(key) if key in old else 0
            key = keys[min(index, len(keys) - 1)]
        self.cursor = (stage, key)
        self.show(announce=True)

    def clear(self) -> None:
        self.cursor = None
        self.outline.setData([], [])
        self.chart.setAccessibleDescription("")
        QToolTip.hideText()

    # -- showing -----------------------------------------------------------------------------------
    def show(self, announce: bool = False) -> None:
        """Outline the segment; when `announce`, its words as a tooltip, the accessible description and a signal."""
        stage, key = self.cursor
        low, high = self.span(stage, key)
        left, right = stage - BAR_WIDTH / 2, stage + BAR_WIDTH / 2
        self.outline.setData([left, right, right, left, left], [low, low, high, high, low])
        if not announce:
            return
        chart = self.chart
        text = chart.hits.segment_text(stage, key)
        chart.setAccessibleDescription(plain_text(text))
        rect = widget_rect_of(chart, left, low, right, high)
        chart.tip.text, chart.tip.rect = text, rect  # a resting mouse keeps it, as it keeps a hovered one
        QToolTip.showText(chart.viewport().mapToGlobal(QPoint(rect.right() + 4, rect.center().y())), text,
                          chart.viewport(), rect, TIP_MS)
        chart.segmentFocused.emit(stage, key)

    def refresh(self) -> None:
        """The chart was redrawn: follow the segment (or the nearest left), quietly."""
        if self.cursor is None:
            return
        stage, key = self.cursor
        keys = self.keys_of(stage)
        if not keys:
            self.clear()
            return
        if key not in keys:
            self.cursor = (stage, keys[-1] if key == PEAK_KEY else keys[0])
        if self.chart.hasFocus():
            self.show(announce=False)

    def focus_in(self, reason: Qt.FocusReason) -> None:
        """Tab onto the chart: the cursor where it was, or on stage 0's bottom segment (a click is the mouse's)."""
        if self.chart.breakdown is None or reason in (Qt.FocusReason.MouseFocusReason, Qt.FocusReason.PopupFocusReason,
                                                      Qt.FocusReason.ActiveWindowFocusReason):
            return
        if self.cursor is None:
            self.move_to(STAGES[0], None)
        else:
            self.show(announce=True)

    def focus_out(self) -> None:
        self.outline.setData([], [])
