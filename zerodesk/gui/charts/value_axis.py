"""The charts' memory axis: ticks in the UI language's decimal, plain figures on a log scale, and pyqtgraph's tick
drawing worked out at a fraction of its cost (an edit that moves the axis's range lays out its ticks anew).

ValueAxis.generateDrawSpecs is pyqtgraph's AxisItem.generateDrawSpecs for a left axis without grid or fixed ticks, with
the same arithmetic in the same order, less the work whose result it drops: the strings and boxes of ticks outside
the axis (pyqtgraph formats and measures every tick of a text level, then drops those out of range), the axis's
bounding rectangle asked once (it was asked per label), plain QPointF ends for the tick lines (pyqtgraph's Point, a
QPointF, is built in Python). Its tick values are pyqtgraph's, searched in plain Python floats (the same IEEE
operations as its numpy arrays, without numpy's per-call cost on a handful of values), and kept for the last few
ranges. tests/test_gui_value_axis.py holds both to pyqtgraph's own answers over many ranges, sizes and settings.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLocale, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen

_LEFT_TEXT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip


def _near(seen: list[float], v: float, atol: float) -> bool:
    """Whether a value of the sorted `seen` is within atol of v: |a - v| grows (or holds) away from v on either side,
    in floating point too (rounding is monotonic), so the neighbours of v's place answer for all."""
    i = bisect_left(seen, v)
    return (i < len(seen) and abs(seen[i] - v) <= atol) or (i > 0 and abs(seen[i - 1] - v) <= atol)


@lru_cache(maxsize=1024)
def _plain_number(value: float, point: str) -> str:
    """2 significant digits, no exponent for the memory range we draw, in the UI's decimal `point` (log ticks recur at
    the same decades from edit to edit: kept)."""
    if value == 0:
        return "0"
    digits = max(0, 1 - math.floor(math.log10(abs(value))))
    text = f"{round(value, digits):.{digits}f}".rstrip("0").rstrip(".") if digits else f"{round(value):.0f}"
    return text.replace(".", point)


class ValueAxis(pg.AxisItem):
    """The memory axis: ticks in the UI language's decimal; in log mode plain figures (0.1, 1, 10). Its tick values are
    kept for the last few ranges: the chart's grid lines ask for them and the axis's paint asks again for the same
    range and length (and a scheme or profile chosen again asks for a range seen before)."""

    TICKS_KEPT = 8

    def tickValues(self, minVal: float, maxVal: float, size: float):
        # what pyqtgraph's answer depends on besides the arguments (AxisItem.tickValues and tickSpacing)
        key = (minVal, maxVal, size, self.scale, self.logMode, repr(self._tickSpacing), self._tickDensity,
               self.style["maxTickLevel"])
        kept = self.__dict__.setdefault("_kept_ticks", {})
        levels = kept.pop(key, None)
        if levels is None:
            levels = self._tick_values(minVal, maxVal, size)
            if len(kept) >= self.TICKS_KEPT:
                del kept[next(iter(kept))]  # the oldest
        kept[key] = levels  # the newest last
        return [(spacing, list(values)) for spacing, values in levels]  # the caller's own lists

    def _tick_values(self, minVal: float, maxVal: float, size: float):
        """AxisItem.tickValues in Python floats: each level's ticks from its start, less those within a hundredth of its
        spacing of a tick of a level before (numpy's isclose with rtol 0: |a - v| <= atol)."""
        minVal, maxVal = sorted((minVal, maxVal))
        minVal *= self.scale
        maxVal *= self.scale
        ticks = []
        seen: list[float] = []  # sorted: the nearest seen tick on either side decides (rounding keeps the order)
        for spacing, offset in self.tickSpacing(minVal, maxVal, size):
            start = (math.ceil((minVal - offset) / spacing) * spacing) + offset
            num = int((maxVal - start) / spacing) + 1
            atol = spacing / self.scale * 0.01
            values = [v for v in ((i * spacing + start) / self.scale for i in range(num)) if not _near(seen, v, atol)]
            seen = sorted(seen + values)
            ticks.append((spacing / self.scale, values))
        if self.logMode:
            return self.logTickValues(minVal, maxVal, size, ticks)
        return ticks

    def tickStrings(self, values, scale, spacing):
        if self.logMode:
            return self.logTickStrings(values, scale, spacing)
        point = QLocale().decimalPoint()
        return [s.replace(".", point) for s in super().tickStrings(values, scale, spacing)]

    def logTickStrings(self, values, scale, spacing):
        point = QLocale().decimalPoint()
        return [_plain_number(10 ** v * scale, point) for v in values]

    def generateDrawSpecs(self, p):
        style = self.style
        if self.orientation != "left" or self._tickLevels is not None or self.grid is not False:
            return super().generateDrawSpecs(p)
        if style["tickFont"] is not None:
            p.setFont(style["tickFont"])
        bounds = self.mapRectFromParent(self.geometry())
        span = (bounds.topRight() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(-1.0, 1.0))
        tick_start = tick_stop = bounds.right()  # no grid: the ticks stand on the axis's own edge
        points = list(map(self.mapToDevice, span))
        if None in points:
            return None
        length_px = pg.Point(points[1] - points[0]).length()
        if length_px == 0:
            return None
        tick_levels = self.tickValues(self.range[0], self.range[1], length_px)
        dif = self.range[1] - self.range[0]
        if dif == 0:
            x_scale, offset = 1, 0
        else:
            x_scale = -bounds.height() / dif
            offset = self.range[0] * x_scale - bounds.height()
        x_range = [x * x_scale - offset for x in self.range]
        x_min, x_max = min(x_range), max(x_range)

        tick_positions: list[list[float | None]] = []
        tick_specs = []
        for i, (_spacing, ticks) in enumerate(tick_levels):
            positions: list[float | None] = []
            tick_positions.append(positions)
            tip = tick_stop + style["tickLength"] / ((i * 0.5) + 1.0) * -1
            tick_pen = self._level_pen(i)
            for v in ticks:
                x = (v * x_scale) - offset
                if x < x_min or x > x_max:  # pyqtgraph's last check: no tick out of bounds
                    positions.append(None)
                    continue
                positions.append(x)
                tick_specs.append((tick_pen, QPointF(tick_start, x), QPointF(tip, x)))

        if style["stopAxisAtTick"][0] is True:
            span[0].setY(max(span[0].y(), min(map(min, tick_positions))))
        if style["stopAxisAtTick"][1] is True:
            span[1].setY(min(span[1].y(), max(map(max, tick_positions))))
        axis_spec = (self.pen(), span[0], span[1])

        text_specs: list = []
        if not style["showValues"]:
            return axis_spec, tick_specs, text_specs
        text_rects: list[QRectF] = []
        text_size2 = last_text_size2 = 0
        gap = max(0, style["tickLength"]) + style["tickTextOffset"][0]
        box = self.boundingRect()
        scale = self.autoSIPrefixScale * self.scale
        for i in range(min(len(tick_levels), style["maxTextLevel"] + 1)):
            spacing, values = tick_levels[i]
            if not values:
                continue
            positions = tick_positions[i]
            shown = [j for j, x in enumerate(positions) if x is not None]
            # only the ticks in bounds are labelled: the others' strings would be dropped unmeasured
            strings = self.tickStrings([values[j] for j in shown], scale, spacing) if shown else []
            rects: dict[int, QRectF] = {}
            for j, s in zip(shown, strings):
                br = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, s)
                br.setHeight(br.height() * 0.8)  # pyqtgraph's: the box is usually a bit too large
                rects[j] = br
                text_rects.append(br)
            if text_rects:
                text_size = np.sum([r.height() for r in text_rects])
                text_size2 = np.max([r.width() for r in text_rects])
            else:
                text_size = text_size2 = 0
            if i > 0:  # the top level is always labelled; a crowded lower level ends the labels
                fill = float(text_size) / length_px
                if any(len(text_specs) >= n and fill >= limit for n, limit in style["textFillLimits"]):
                    break
            last_text_size2 = text_size2
            for j, s in zip(shown, strings):
                height, width = rects[j].height(), rects[j].width()
                rect = QRectF(tick_stop - gap - width, positions[j] - (height / 2), width, height)
                if box & rect != rect:
                    continue
                text_specs.append((rect, _LEFT_TEXT, s))
        self._updateMaxTextSize(last_text_size2)
        return axis_spec, tick_specs, text_specs

    def _level_pen(self, i: int) -> QPen:
        """The tick pen of level i, as pyqtgraph makes it (no grid): fainter per level, or the style's alpha."""
        alpha = self.style["tickAlpha"]
        if alpha is None:
            alpha = 255 / (i + 1)
        elif isinstance(alpha, float):
            alpha = min(255, max(0, int(round(alpha * 255))))
        elif isinstance(alpha, int):
            if alpha > 255 or alpha < 0:
                raise ValueError("lineAlpha should be [0..255]")
        else:
            raise TypeError("Line Alpha should be of type None, float or int")
        pen = self.tickPen()
        if pen.brush().style() == Qt.BrushStyle.SolidPattern:  # only a plain colour is made fainter
            pen = QPen(pen)
            color = QColor(pen.color())
            color.setAlpha(int(alpha))
            pen.setColor(color)
        return pen
