"""The Fit map: Nd (columns) by micro-batch (rows), each cell in the colour of the lowest ZeRO stage that fits there.

Cells are drawn by one BarGraphItem per stage (and one for "nothing fits"), each stage's number inside its cells
as a vector symbol; the plan's own cell is outlined, the keyboard's cell outlined dashed while the map has focus.
Columns and rows sit at whole coordinates (column i is x = i), so a point's cell is its rounded coordinates.
Hover a cell for its peaks (StickyTip), click it or press Enter on it to set the plan there (cellChosen); the arrow
keys, Home/End and Page Up/Down move over the cells (cellFocused), and the cell under the mouse or the keyboard is
told to the tab (cellFocused) for its details line.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainterPath, QPalette, QTransform

from ...core.accounting import STAGES
from ...core.fit_map import FitMap
from ..base.style import STAGE_COLORS
from ..charts.grid import apply_axis_palette, blend
from ..charts.tools import ChartMenu, StickyTip, settle_axes, widget_rect_of

GAP = 0.08  # share of a cell left free around it
TICK_GAP_PX = 8  # room between two tick labels
MIN_DIGIT_PX = 11  # a cell this tall or more shows its stage's number
MAX_DIGIT_PX = 15


def _digit_symbol(text: str) -> QPainterPath:
    """A character as a scatter symbol: centred on the origin, one unit tall (pyqtgraph scales it by `size`)."""
    font = QFont()
    font.setBold(True)
    path = QPainterPath()
    path.addText(0, 0, font, text)
    box = path.boundingRect()
    scale = 1.0 / max(box.height(), 1e-9)
    return QTransform().scale(scale, scale).translate(-box.center().x(), -box.center().y()).map(path)


def _ink_on(color: str) -> QColor:
    """Black or white, whichever reads better on a cell of this colour."""
    c = QColor(color)
    return QColor("#000000") if 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() > 140 else QColor("#FFFFFF")


class FitMapChart(pg.PlotWidget):
    cellChosen = Signal(int, int)  # Nd, micro-batch: set the plan there
    cellFocused = Signal(int, int)  # Nd, micro-batch under the mouse or the keyboard (-1, -1: none)
    paletteApplied = Signal()  # the cells took the new palette's colours ("nothing fits" follows it)

    def __init__(self, parent=None) -> None:
        super().__init__(parent, enableMenu=False)
        self.setObjectName("fitMap")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.map: FitMap | None = None
        self.cursor: tuple[int, int] | None = None  # (column, row) the keyboard is on
        self.hovered: tuple[int, int] | None = None
        self.printing = False  # drawn for a file: no keyboard cursor
        self.text_for = None  # (Nd, micro-batch) -> hover text, set by the tab
        self._ticks_key: tuple | None = None
        self._drawn: tuple | None = None  # (Nd values, micro-batches, each cell's stage) as the cells show them
        self._groups: dict = {}  # the cells' corners by stage
        self._digits_at: dict = {}  # each stage's digits as placed: (x, y, size)
        self._plan_at: tuple | None = None  # the plan's outline
        self._size: tuple[int, int] | None = None  # columns and rows the axes' ranges span
        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        pi.vb.setDefaultPadding(0.0)
        settle_axes(pi)
        self._cells = {key: pg.BarGraphItem(x0=[], y0=[], width=[], height=[]) for key in (*STAGES, None)}
        for item in self._cells.values():
            self.addItem(item)
        self._digits = {s: pg.ScatterPlotItem(symbol=_digit_symbol(str(s)), pen=None, pxMode=True) for s in STAGES}
        for s, item in self._digits.items():
            item.setBrush(pg.mkBrush(_ink_on(STAGE_COLORS[s])))
            item.setZValue(2)
            self.addItem(item)
        self._plan_box = pg.PlotCurveItem([], [])
        self._plan_box.setZValue(4)
        self.addItem(self._plan_box)
        self._cursor_box = pg.PlotCurveItem([], [])
        self._cursor_box.setZValue(5)
        self.addItem(self._cursor_box)
        self.tip = StickyTip(self)
        self.menu = ChartMenu(self)
        self.menu.log_action.setVisible(False)  # a map has no value axis
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        pi.vb.sigResized.connect(lambda *_: self._update_ticks())
        self._apply_palette()
        self._ready = True

    # -- data ------------------------------------------------------------------------------------
    def set_map(self, fmap: FitMap | None) -> None:
        """Draw a map (None: an empty chart). The keyboard's cell stays on the same Nd and micro-batch if it can."""
        old = self.cell_at_index(*self.cursor) if self.cursor and self.map else None
        self.map = fmap
        self.hovered = None
        if fmap is None:
            for item in self._cells.values():
                item.setOpts(x0=[], y0=[], width=[], height=[])
            for item in self._digits.values():
                item.setData([], [])
            self._plan_box.setData([], [])
            self._drawn, self._groups, self._digits_at, self._plan_at, self._size = None, {}, {}, None, None
            self.cursor = None
            self._draw_cursor()
            return
        # what an edit did not change is left as drawn: a changed item repaints, and a changed range or tick lays
        # the axes out again (most edits move only the plan's cell, or nothing on the map)
        cells = (fmap.dps, fmap.batches, fmap.stages())
        if cells != self._drawn:
            self._drawn = cells
            groups: dict = {key: ([], []) for key in self._cells}
            for row, stages in enumerate(cells[2]):
                for col, stage in enumerate(stages):
                    groups[stage][0].append(col - 0.5 + GAP / 2)
                    groups[stage][1].append(row - 0.5 + GAP / 2)
            for key, (xs, ys) in groups.items():
                if (xs, ys) != self._groups.get(key):
                    n = len(xs)
                    self._cells[key].setOpts(x0=xs, y0=ys, width=[1 - GAP] * n, height=[1 - GAP] * n)
            self._groups = groups
            if (len(fmap.dps), len(fmap.batches)) != self._size:
                self._size = (len(fmap.dps), len(fmap.batches))
                self.setXRange(-0.5, len(fmap.dps) - 0.5, padding=0)
                self.setYRange(-0.5, len(fmap.batches) - 0.5, padding=0)
            self._update_ticks()
        box = self._box(fmap.dps.index(fmap.plan_dp), fmap.batches.index(fmap.plan_micro_batch), 0.5)
        if box != self._plan_at:
            self._plan_at = box
            self._plan_box.setData(*box)
        self.cursor = self.index_of(*old) if old else None
        if self.cursor is None:
            self.cursor = (fmap.dps.index(fmap.plan_dp), fmap.batches.index(fmap.plan_micro_batch))
        self._draw_cursor()

    def index_of(self, dp: int, micro_batch: int) -> tuple[int, int] | None:
        fmap = self.map
        if fmap is None or dp not in fmap.dps or micro_batch not in fmap.batches:
            return None
        return fmap.dps.index(dp), fmap.batches.index(micro_batch)

    def cell_at_index(self, col: int, row: int) -> tuple[int, int]:
        return self.map.dps[col], self.map.batches[row]

    def cell_center(self, dp: int, micro_batch: int) -> QPoint:
        """A cell's centre in the viewport's coordinates (tests click and hover there)."""
        col, row = self.index_of(dp, micro_batch)
        rect = widget_rect_of(self, col - 0.5, row - 0.5, col + 0.5, row + 0.5)
        return rect.center()

    def fill_color(self, dp: int, micro_batch: int) -> QColor:
        """The colour a cell is drawn in (its stage's, or the 'nothing fits' colour)."""
        stage = self.map.stage_at(dp, micro_batch)
        return self._cells[stage].opts["brush"].color()

    # -- drawing -----------------------------------------------------------------------------------
    def _box(self, col: int, row: int, half: float) -> tuple[list[float], list[float]]:
        xs = [col - half, col + half, col + half, col - half, col - half]
        ys = [row - half, row - half, row + half, row + half, row - half]
        return xs, ys

    def _draw_cursor(self) -> None:
        if self.cursor is None or self.map is None or not self.hasFocus() or self.printing:
            self._cursor_box.setData([], [])
        else:
            self._cursor_box.setData(*self._box(*self.cursor, 0.5 - GAP / 2))

    def _place_digits(self) -> None:
        """Each stage's number in its cells, when the cells are tall and wide enough to hold it."""
        vb = self.getPlotItem().vb
        px, py = vb.viewPixelSize() if vb.width() > 0 and vb.height() > 0 else (1.0, 1.0)
        cell_px = min((1 - GAP) / px, (1 - GAP) / py) if px > 0 and py > 0 else 0
        size = min(MAX_DIGIT_PX, 0.5 * cell_px) if cell_px >= MIN_DIGIT_PX else 0
        groups = self._groups
        for s, item in self._digits.items():
            xs, ys = groups.get(s, ([], [])) if size else ([], [])
            placed = ([x + (1 - GAP) / 2 for x in xs], [y + (1 - GAP) / 2 for y in ys], size)
            if placed != self._digits_at.get(s):  # unchanged digits are not set again (a set repaints the chart)
                self._digits_at[s] = placed
                item.setData(placed[0], placed[1], size=size)

    def _update_ticks(self) -> None:
        """Tick labels every column (row) where they fit, else every 2nd, 4th...: labels never overlap."""
        fmap = self.map
        vb = self.getPlotItem().vb
        if fmap is None or vb.width() <= 0 or vb.height() <= 0:
            return
        metrics = QFontMetrics(self.font())  # the axes draw their labels in the widget's font
        col_px, row_px = vb.width() / len(fmap.dps), vb.height() / len(fmap.batches)
        widest = max(metrics.horizontalAdvance(str(n)) for n in fmap.dps) + TICK_GAP_PX
        every_x = 1 << max(0, math.ceil(math.log2(max(widest / max(col_px, 1e-9), 1))))
        every_y = 1 << max(0, math.ceil(math.log2(max((metrics.height() + 2) / max(row_px, 1e-9), 1))))
        key = (fmap.dps, fmap.batches, every_x, every_y)
        if key != self._ticks_key:
            self._ticks_key = key
            pi = self.getPlotItem()
            pi.getAxis("bottom").setTicks([[(i, str(n) if i % every_x == 0 else "") for i, n in enumerate(fmap.dps)]])
            pi.getAxis("left").setTicks([[(i, str(b) if i % every_y == 0 else "") for i, b in enumerate(fmap.batches)]])
        self._place_digits()

    def set_printing(self, on: bool) -> None:
        self.printing = on
        self._draw_cursor()

    def set_axis_titles(self, bottom: str, left: str) -> None:
        pi = self.getPlotItem()
        pi.setLabel("bottom", bottom)
        pi.setLabel("left", left)

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        for s in STAGES:
            self._cells[s].setOpts(brush=pg.mkBrush(STAGE_COLORS[s]), pen=pg.mkPen(None))
        self._cells[None].setOpts(brush=pg.mkBrush(blend(base, text, 0.10)), pen=pg.mkPen(blend(base, text, 0.25)))
        self._plan_box.setPen(pg.mkPen(text, width=3))
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        self._cursor_box.setPen(pg.mkPen(highlight if highlight != text else text, width=2,
                                         style=Qt.PenStyle.DashLine))
        self.paletteApplied.emit()

    def none_color(self) -> QColor:
        return self._cells[None].opts["brush"].color()

    # -- mouse and keys ------------------------------------------------------------------------------
    def index_at(self, scene_pos) -> tuple[int, int] | None:
        """(column, row) of the cell under a scene point, or None off the cells."""
        vb = self.getPlotItem().vb
        if self.map is None or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        col, row = round(p.x()), round(p.y())
        if 0 <= col < len(self.map.dps) and 0 <= row < len(self.map.batches):
            return col, row
        return None

    def _on_mouse_moved(self, scene_pos) -> None:
        hit = self.index_at(scene_pos)
        if hit == self.hovered:
            return
        self.hovered = hit
        if hit is None:
            self.tip.show("")
            self.cellFocused.emit(-1, -1)
            return
        dp, mb = self.cell_at_index(*hit)
        self.cellFocused.emit(dp, mb)
        self.tip.show(self.text_for(dp, mb) if self.text_for else "",
                      widget_rect_of(self, hit[0] - 0.5, hit[1] - 0.5, hit[0] + 0.5, hit[1] + 0.5))

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self.index_at(event.scenePos())
        if hit is not None:
            event.accept()
            self.cursor = hit
            self._draw_cursor()
            self.cellChosen.emit(*self.cell_at_index(*hit))

    def keyPressEvent(self, event) -> None:
        if self.map is None or self.cursor is None:
            return super().keyPressEvent(event)
        col, row = self.cursor
        last_col, last_row = len(self.map.dps) - 1, len(self.map.batches) - 1
        moves = {Qt.Key.Key_Left: (col - 1, row), Qt.Key.Key_Right: (col + 1, row), Qt.Key.Key_Up: (col, row + 1),
                 Qt.Key.Key_Down: (col, row - 1), Qt.Key.Key_Home: (0, row), Qt.Key.Key_End: (last_col, row),
                 Qt.Key.Key_PageUp: (col, last_row), Qt.Key.Key_PageDown: (col, 0)}
        key = event.key()
        if key in moves:
            col, row = moves[key]
            self.cursor = (min(max(col, 0), last_col), min(max(row, 0), last_row))
            self._draw_cursor()
            dp, mb = self.cell_at_index(*self.cursor)
            self.cellFocused.emit(dp, mb)
            event.accept()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.cellChosen.emit(*self.cell_at_index(*self.cursor))
            event.accept()
        else:
            super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self._draw_cursor()
        if self.cursor is not None and self.map is not None:
            self.cellFocused.emit(*self.cell_at_index(*self.cursor))

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self._draw_cursor()

    def changeEvent(self, event) -> None:
        if getattr(self, "_ready", False) and event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if getattr(self, "_ready", False):
            self._update_ticks()
