"""The memory-versus-Nd chart by keyboard: a cursor on one drawn point that the arrow keys move.

Left and Right go along Nd (1, 2, 4, ...), Up and Down from stage to stage, Home and End to the first
and last Nd, Escape leaves. The point is ringed; its figure shows as a tooltip beside it, becomes the
chart's accessible description and goes out as pointFocused; Enter or Space sends pointActivated (the
window opens the claim the stages rest on).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QToolTip

from ...core.accounting import STAGES
from ...core.units import UNIT_BYTES
from .stage_texts import plain_text
from .tools import TIP_MS

MOVES = {Qt.Key.Key_Left: (0, -1), Qt.Key.Key_Right: (0, 1), Qt.Key.Key_Down: (-1, 0), Qt.Key.Key_Up: (1, 0)}
OPEN = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
RING_PX = 17


class DpKeys:
    def __init__(self, chart) -> None:
        self.chart = chart
        self.cursor: tuple[int, int] | None = None  # (stage, index in the Nd grid)
        self.ring = pg.ScatterPlotItem(size=RING_PX, symbol="o", brush=None)
        self.ring.setZValue(12)
        chart.addItem(self.ring, ignoreBounds=True)
        self.apply_palette()

    def apply_palette(self) -> None:
        self.ring.setPen(pg.mkPen(self.chart.palette().color(QPalette.ColorRole.Highlight), width=3))

    def point(self) -> tuple[int, int, int]:
        """(stage, Nd, bytes) under the cursor."""
        stage, index = self.cursor
        chart = self.chart
        return stage, chart.grid[index], chart.sweep_values(stage)[index]

    def press(self, event) -> bool:
        if not self.chart.grid or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key, last = event.key(), len(self.chart.grid) - 1
        if key == Qt.Key.Key_Escape and self.cursor is not None:
            self.clear()
            return True
        if key in OPEN and self.cursor is not None:
            stage, nd, _ = self.point()
            self.chart.pointActivated.emit(stage, nd)
            return True
        if key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            stage = self.cursor[0] if self.cursor else STAGES[0]
            self.move_to(stage, 0 if key == Qt.Key.Key_Home else last)
            return True
        if key not in MOVES:
            return False
        if self.cursor is None:
            self.move_to(STAGES[0], self.current_index())
            return True
        d_stage, d_index = MOVES[key]
        stage, index = self.cursor
        self.move_to(min(max(stage + d_stage, STAGES[0]), STAGES[-1]), min(max(index + d_index, 0), last))
        return True

    def current_index(self) -> int:
        """The grid's point nearest the plan's Nd (where a first arrow lands)."""
        grid, nd = self.chart.grid, self.chart.plan.dp
        return min(range(len(grid)), key=lambda i: abs(math.log2(grid[i]) - math.log2(nd)))

    def move_to(self, stage: int, index: int) -> None:
        self.cursor = (stage, index)
        self.show(announce=True)

    def clear(self) -> None:
        self.cursor = None
        self.ring.setData([], [])
        self.chart.setAccessibleDescription("")
        QToolTip.hideText()

    def show(self, announce: bool = False) -> None:
        chart = self.chart
        stage, nd, nbytes = self.point()
        x, y = math.log2(nd), chart._ty(nbytes / UNIT_BYTES[chart.unit])
        self.ring.setData([x], [y])
        if not announce:
            return
        text = chart.point_text(stage, nd, nbytes)
        chart.setAccessibleDescription(plain_text(text))
        vb = chart.getPlotItem().vb
        at = chart.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
        rect = QRect(at.x() - RING_PX, at.y() - RING_PX, 2 * RING_PX, 2 * RING_PX)
        chart.hover_text = text
        QToolTip.showText(chart.viewport().mapToGlobal(at + rect.topRight() - rect.center()), text, chart.viewport(), rect, TIP_MS)
        chart.pointFocused.emit(stage, nd)

    def refresh(self) -> None:
        """The chart was redrawn (another plan, another grid): keep the cursor on the grid, quietly."""
        if self.cursor is None:
            return
        if not self.chart.grid:
            self.clear()
            return
        stage, index = self.cursor
        self.cursor = (stage, min(index, len(self.chart.grid) - 1))
        if self.chart.hasFocus():
            self.show(announce=False)

    def focus_in(self, reason: Qt.FocusReason) -> None:
        if not self.chart.grid or reason in (Qt.FocusReason.MouseFocusReason, Qt.FocusReason.PopupFocusReason,
                                             Qt.FocusReason.ActiveWindowFocusReason):
            return
        if self.cursor is None:
            self.move_to(STAGES[0], self.current_index())
        else:
            self.show(announce=True)

    def focus_out(self) -> None:
        self.ring.setData([], [])
