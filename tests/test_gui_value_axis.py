"""The value axis keeps its tick values for the last few ranges: every answer is pyqtgraph's own for that range."""

from __future__ import annotations

import pyqtgraph as pg

from zerodesk.gui.charts.tools import ValueAxis


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
