"""The stage chart's words on the plot, laid out so that none covers another or anything drawn.

Each stage's labels (its states total in bold, the predicted peak above it in grey) stand in a block above
everything drawn in the block's width: the bars, the hatched peak, run markers and their "+0.0%" notes,
whichever stage they belong to. The value axis gets the head room those blocks need (in pixels, on a
linear or a log axis), and the GPU line's label goes to the first place along its line where it meets
nothing. Positions are computed here from the items' own sizes in pixels; the chart only draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont

from ..base.font_key import font_key
from ..base.style import PEAK_COLOR
from .run_markers import BAR_WIDTH

GAP_PX = 2  # between a block and what it stands on, and between its two labels
TOP_PX = 3  # kept free under the top of the view
ROOM_SHARE = 0.96  # of the pixels between two stages a block may take (neighbours never meet)
MIN_POINT_SIZE = 6.5
# where the GPU line's label may sit: (position along the visible line 0..1, anchor of its box); the first
# that meets nothing wins
GPU_LABEL_SPOTS = ((0.99, (1, 1)), (0.99, (1, 0)), (0.01, (0, 1)), (0.01, (0, 0)),
                   (0.5, (0.5, 1)), (0.5, (0.5, 0)), (0.25, (0.5, 1)), (0.75, (0.5, 1)))


@dataclass(frozen=True)
class Obstacle:
    """Something drawn that a label must stay above or beside: its x span (data), its top (drawn value) and
    how far it reaches above that top in pixels (a marker's radius, a rotated note's length)."""

    x0: float
    x1: float
    top: float
    above_px: float = 0.0


@dataclass(frozen=True)
class View:
    """The value box's mapping: data ranges and its size in pixels."""

    x0: float
    x1: float
    y0: float
    y1: float
    width: float
    height: float

    @property
    def px_x(self) -> float:
        return (self.x1 - self.x0) / max(self.width, 1.0)

    @property
    def px_y(self) -> float:
        return (self.y1 - self.y0) / max(self.height, 1.0)

    def pixels_per_stage(self) -> float:
        return self.width / max(self.x1 - self.x0, 1e-9)


MAX_SHARE = 0.6  # of the chart's height that words may take above the bars; past it the peaks' words go


def head_room(y0: float, height: float, wants: list[tuple[float, float]]) -> tuple[float, bool]:
    """The lowest top of the value axis at which every (value, pixels) has that many pixels above it, and
    whether every want fitted within MAX_SHARE of the height.

    On an axis from y0 to y1 drawn `height` pixels tall, a value v sits height·(y1 − v)/(y1 − y0) pixels under
    the top; solving for y1 gives the bound. A want of more than MAX_SHARE is capped there (a short chart
    sheds words rather than squash the bars to nothing)."""
    top, fits = y0, True
    for value, pixels in wants:
        share = pixels / max(height, 1.0)
        if share > MAX_SHARE:
            share, fits = MAX_SHARE, False
        top = max(top, (value - share * y0) / (1 - share))
    return top, fits


_WIDTHS: dict[tuple[str, str], float] = {}


def text_width(text: str, font: QFont) -> float:
    """The width a TextItem showing `text` in `font` takes (its QGraphicsTextItem's bounding box), measured once
    per text and font on an item of its own: no label in the scene is set to a trial text and back on an edit."""
    key = (text, font_key(font))
    width = _WIDTHS.get(key)
    if width is None:
        if len(_WIDTHS) > 4096:  # texts come and go with the figures: keep the recent ones
            _WIDTHS.clear()
        probe = _probe()
        probe.setFont(font)
        probe.setPlainText(text)
        width = _WIDTHS[key] = probe.boundingRect().width()
    return width


def _probe(item=[]):  # noqa: B006 - one off-scene item, made when first needed
    if not item:
        from PySide6.QtWidgets import QGraphicsTextItem

        item.append(QGraphicsTextItem())
    return item[0]


class StageLabels:
    """The per-stage total and peak labels and the GPU line's label of one StageChart."""

    def __init__(self, chart) -> None:
        self.chart = chart
        bold = QFont()
        bold.setBold(True)
        self.totals: list[pg.TextItem] = []
        self.peaks: list[pg.TextItem] = []
        for _ in range(4):
            total = pg.TextItem("", anchor=(0.5, 1.0))
            total.setFont(bold)
            total.setZValue(10)
            chart.addItem(total, ignoreBounds=True)
            self.totals.append(total)
            peak = pg.TextItem("", anchor=(0.5, 1.0), color=PEAK_COLOR)
            peak.setZValue(10)
            chart.addItem(peak, ignoreBounds=True)
            self.peaks.append(peak)

    # -- texts that fit the room -------------------------------------------------------------------
    def fit_texts(self, totals: list[str], peaks: list[list[str]], room: float) -> None:
        """Set each stage's texts: the totals in the largest bold type (down to 6.5 pt) that fits `room` pixels,
        else with the unit on a second line; each peak in the first of its variants that fits (or none)."""
        limit = room * ROOM_SHARE
        font = QFont()
        font.setBold(True)
        size = font.pointSizeF()

        def widest(texts: list[str]) -> float:
            return max((text_width(text, font) for text in texts), default=0.0)

        while size > MIN_POINT_SIZE and widest(totals) > limit:
            size -= 0.5
            font.setPointSizeF(size)
        wrap = widest(totals) > limit
        for label, text in zip(self.totals, totals):
            if label.textItem.font() != font:
                label.setFont(font)
            label.setText(text.replace(" ", "\n", 1) if wrap else text)
        for label, variants in zip(self.peaks, peaks):
            own = label.textItem.font()
            chosen = next((text for text in variants if text_width(text, own) <= limit), "")
            label.setText(chosen)
            label.setVisible(bool(chosen))

    def drop_peaks(self) -> bool:
        """Take the peaks' words off (a chart too short for them); False when there were none."""
        shown = [label for label in self.peaks if label.isVisible()]
        for label in shown:
            label.setVisible(False)
        return bool(shown)

    def block_size(self, stage: int) -> tuple[float, float]:
        """(width, height) in pixels of a stage's block of labels."""
        parts = [self.totals[stage]] + ([self.peaks[stage]] if self.peaks[stage].isVisible() else [])
        rects = [p.textItem.boundingRect() for p in parts if p.textItem.toPlainText()]
        if not rects:
            return 0.0, 0.0
        return max(r.width() for r in rects), sum(r.height() for r in rects) + GAP_PX * (len(rects) - 1)

    # -- where the blocks stand, and the head room they need ------------------------------------------
    def _span(self, stage: int, view: View) -> tuple[float, float]:
        width, _ = self.block_size(stage)
        half = max(width / 2 * view.px_x, BAR_WIDTH / 2)
        return stage - half, stage + half

    @staticmethod
    def _under(span: tuple[float, float], obstacles: list[Obstacle]) -> list[Obstacle]:
        return [o for o in obstacles if o.x1 >= span[0] and o.x0 <= span[1]]

    def wants(self, view: View, obstacles: list[Obstacle], stages: list[int],
              note: tuple[float, float, float] | None = None) -> list[tuple[float, float]]:
        """For head_room(): each block's height over every obstacle beneath it, and each obstacle's own reach;
        `note` (x0, x1, pixels): a note at the top of the view over that span, which whatever is under it stays below."""

        def extra(x0: float, x1: float) -> float:
            return note[2] if note is not None and x1 >= note[0] and x0 <= note[1] else 0.0

        out = [(o.top, o.above_px + TOP_PX + extra(o.x0, o.x1)) for o in obstacles]
        for stage in stages:
            _, height = self.block_size(stage)
            if height:
                span = self._span(stage, view)
                for o in self._under(span, obstacles):
                    out.append((o.top, o.above_px + GAP_PX + height + TOP_PX + extra(*span)))
        return out

    def place(self, view: View, obstacles: list[Obstacle], stages: list[int]) -> list[QRectF]:
        """Stand each block on the highest obstacle under it; returns the blocks' rectangles (data coordinates)."""
        blocks = []
        for stage in stages:
            width, height = self.block_size(stage)
            under = self._under(self._span(stage, view), obstacles)
            bottom = max((o.top + (o.above_px + GAP_PX) * view.px_y for o in under), default=view.y0)
            total, peak = self.totals[stage], self.peaks[stage]
            total.setPos(stage, bottom)
            if peak.isVisible():
                peak.setPos(stage, bottom + (total.textItem.boundingRect().height() + GAP_PX) * view.px_y)
            blocks.append(QRectF(stage - width / 2 * view.px_x, bottom, width * view.px_x, height * view.px_y))
        return blocks

    @staticmethod
    def place_line_label(line: pg.InfiniteLine, view: View, avoid: list[QRectF]) -> bool:
        """The GPU line's label at the first spot along the line that is inside the view and meets nothing;
        False when there is none (the chart then names the line at its top, in head room of its own)."""
        label = line.label
        rect = label.textItem.boundingRect()
        w, h = rect.width() * view.px_x, rect.height() * view.px_y
        y = line.value()
        for position, anchor in GPU_LABEL_SPOTS:
            x = view.x0 + position * (view.x1 - view.x0)
            box = QRectF(x - anchor[0] * w, y + (anchor[1] - 1) * h, w, h)  # data: y up, the box's bottom first
            inside = view.x0 <= box.left() and box.right() <= view.x1 and view.y0 <= box.top() and box.bottom() <= view.y1
            if inside and not any(box.intersects(other) for other in avoid):
                label.anchors = [anchor, anchor]
                label.setPosition(position)  # lays the label out along the line, at the anchor
                return True
        return False
