"""The Nd chart's markers and curves take shortcuts pyqtgraph does not (points moved in place, data bounds kept across
view changes): each shortcut must leave them as pyqtgraph's own items would be, drawn to the same pixels."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget

from zerodesk.gui.charts.markers import KeptBoundsCurve, KeptBoundsScatter


def _plots(qtbot, n: int = 2) -> list[pg.PlotWidget]:
    """n plots side by side in one window (so they share its active or inactive palette), same size and range."""
    window = QWidget()
    qtbot.addWidget(window)
    row = QHBoxLayout(window)
    plots = []
    for _ in range(n):
        plot = pg.PlotWidget()
        plot.setFixedSize(400, 300)
        plot.getPlotItem().vb.disableAutoRange()
        plot.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
        row.addWidget(plot)
        plots.append(plot)
    window.show()
    qtbot.waitExposed(window)
    plots[0].window_ = window  # held while the plots are (qtbot holds its widgets weakly)
    return plots


def _same_pixels(a: pg.PlotWidget, b: pg.PlotWidget) -> bool:
    """Both plots settled (their pending layout and paints done), then grabbed."""
    for _ in range(3):
        QApplication.processEvents()
    return bytes(a.grab().toImage().constBits()) == bytes(b.grab().toImage().constBits())


def test_moved_markers_are_pyqtgraphs_own(qtbot):
    ours_plot, theirs_plot = _plots(qtbot)
    pen, brush = pg.mkPen("k", width=1.5), [pg.mkBrush(c) for c in ("r", "g", "b", "y")]
    ours, theirs = KeptBoundsScatter(size=11, symbol="o"), pg.ScatterPlotItem(size=11, symbol="o")
    ours_plot.addItem(ours)
    theirs_plot.addItem(theirs)
    rng = np.random.default_rng(29)
    moved_in_place = 0
    for k in range(12):
        xs, ys = list(rng.uniform(0, 10, 4)), list(rng.uniform(0, 10, 4))
        if k == 6:  # restyled between two moves: the next move is pyqtgraph's own again
            for item in (ours, theirs):
                item.setPen(pen)
        before = ours.data
        for item in (ours, theirs):
            item.setData(x=xs, y=ys, brush=brush)
        moved_in_place += ours.data is before
        for field in ("x", "y", "size", "sourceRect", "visible"):
            assert np.array_equal(ours.data[field], theirs.data[field]), field
        assert list(ours.data["brush"]) == list(theirs.data["brush"]) and ours.opts["pen"] == theirs.opts["pen"]
        assert ours.boundingRect() == theirs.boundingRect()
        assert _same_pixels(ours_plot, theirs_plot)
    assert moved_in_place == 10  # all but the first and the one after the restyle
    ours.setData(x=[1.0, 2.0], y=[3.0, 4.0], brush=brush[:2])  # fewer points: pyqtgraph's own way
    theirs.setData(x=[1.0, 2.0], y=[3.0, 4.0], brush=brush[:2])
    assert len(ours.data) == 2 and _same_pixels(ours_plot, theirs_plot)


def test_a_curve_keeps_its_data_bounds_across_view_changes_and_drops_them_with_new_data(qtbot):
    ours_plot, theirs_plot = _plots(qtbot)
    ours, theirs = KeptBoundsCurve(pen=pg.mkPen("b", width=2)), pg.PlotCurveItem(pen=pg.mkPen("b", width=2))
    ours_plot.addItem(ours)
    theirs_plot.addItem(theirs)
    for top, xs, ys in ((10, [1, 2, 3], [2, 8, 5]), (20, [1, 2, 3], [2, 8, 5]), (5, [0, 4, 9], [1, 3, 12])):
        for item in (ours, theirs):
            item.setData(x=np.array(xs, float), y=np.array(ys, float))
        for plot in (ours_plot, theirs_plot):
            plot.setRange(yRange=(0, top), padding=0)
        assert ours.dataBounds(1) == theirs.dataBounds(1) == (float(min(ys)), float(max(ys)))
        assert ours.boundingRect() == theirs.boundingRect()
        assert _same_pixels(ours_plot, theirs_plot)
