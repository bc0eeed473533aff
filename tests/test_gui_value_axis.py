"""The value axis keeps its tick values for the last few ranges, and works them and its drawing out faster than
pyqtgraph: every answer is pyqtgraph's own for that range."""

from __future__ import annotations

import random

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPicture
from PySide6.QtWidgets import QApplication

from zerodesk.gui.charts.value_axis import ValueAxis


def fresh(axis: ValueAxis, *args) -> list:
    return pg.AxisItem.tickValues(axis, *args)


def test_kept_ticks_are_pyqtgraphs_for_the_same_range_and_settings(qtbot):
    axis = ValueAxis("left")
    ranges = [(-0.72, 158.7, 293.0), (-1.0, 2.64, 205.0), (0.0, 80.0, 293.0), (-0.72, 158.7, 295.0)]
    for args in ranges * 3:  # asked again: kept, and still the same answer
        assert axis.tickValues(*args) == fresh(axis, *args)
    axis.tickValues(*ranges[0])[0][1].append(1e9)  # a caller's change to its answer is its own
    assert axis.tickValues(*ranges[0]) == fresh(axis, *ranges[0])
    axis.setTickDensity(3.0)  # a setting the answer depends on: not served from before
    assert axis.tickValues(*ranges[0]) == fresh(axis, *ranges[0])
    axis.setLogMode(False, True)
    assert axis.tickValues(-1.0, 2.64, 205.0) == fresh(axis, -1.0, 2.64, 205.0)
    axis.setLogMode(False, False)
    axis.setTickSpacing(10, 5)
    assert axis.tickValues(*ranges[2]) == fresh(axis, *ranges[2])


def test_only_the_last_few_ranges_are_kept(qtbot):
    axis = ValueAxis("left")
    for top in range(1, 40):
        axis.tickValues(0.0, float(top), 300.0)
    assert len(axis._kept_ticks) == ValueAxis.TICKS_KEPT
    assert (0.0, 39.0, 300.0) == next(reversed(axis._kept_ticks))[:3]


def test_tick_values_are_pyqtgraphs_over_many_ranges(qtbot):
    """The Python-float search gives pyqtgraph's numpy answer, value for value, linear and log, at any scale."""
    rng = random.Random(29)
    axis = ValueAxis("left")
    for log in (False, True):
        axis.setLogMode(False, log)
        for _ in range(400):
            low = rng.choice([0.0, -0.01, rng.uniform(-3, 3), -rng.uniform(0, 1e3)])
            high = low + 10 ** rng.uniform(-6, 6)
            size = rng.uniform(20, 2000)
            axis.setScale(rng.choice([1.0, 1.0, 1e-3, 2.5]))
            axis.setTickDensity(rng.choice([1.0, 1.0, 0.5, 3.0]))
            assert axis._tick_values(low, high, size) == fresh(axis, low, high, size)


def _specs(specs) -> tuple:
    if specs is None:
        return None
    (pen, a, b), ticks, texts = specs
    point = lambda p: (p.x(), p.y())  # noqa: E731
    return ((pen.color().rgba(), pen.widthF(), point(a), point(b)),
            [(pen.color().rgba(), pen.widthF(), point(a), point(b)) for pen, a, b in ticks],
            [(rect.getRect(), int(flags), text) for rect, flags, text in texts])


@pytest.mark.parametrize("log", [False, True])
def test_draw_specs_are_pyqtgraphs_over_many_ranges(qtbot, log):
    """What the axis draws (its line, every tick with its pen, every label with its box) is pyqtgraph's own answer
    for the same axis, over ranges from a sliver to many decades, at several heights."""
    plot = pg.PlotWidget(axisItems={"left": ValueAxis("left")})
    qtbot.addWidget(plot)
    plot.resize(500, 400)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getPlotItem().getAxis("left")
    axis.setLogMode(False, log)
    rng = random.Random(7 if log else 3)
    for k in range(150):
        if k % 25 == 0:
            plot.resize(500, rng.choice([150, 260, 400, 700]))
            QApplication.processEvents()
        low = rng.choice([0.0, -0.16, rng.uniform(-3, 3)])
        plot.setYRange(low, low + 10 ** rng.uniform(-3, 5), padding=0)
        QApplication.processEvents()
        picture = QPicture()
        painter = QPainter(picture)
        try:
            for _ in range(3):  # each answer may set the text's room: asked until it holds
                theirs = _specs(pg.AxisItem.generateDrawSpecs(axis, painter))
                ours = _specs(axis.generateDrawSpecs(painter))
                if _specs(pg.AxisItem.generateDrawSpecs(axis, painter)) == theirs:
                    break
            assert ours == theirs
        finally:
            painter.end()
