"""An edit updates each chart's items once, and what the charts keep between edits (bounds, the value axis's pictures)
is what they would make again: the window looks the same."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from conftest import type_in


def _settle(qtbot) -> None:
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(20)


def _kept_bounds_check(items, measure):
    """A check that each item's kept bounds are measured once, not once per question, and are what pyqtgraph's own
    `measure` gives now."""
    def fresh_and_kept():
        for item in items:
            kept = item.boundingRect()
            assert kept is item.boundingRect()
            assert kept == measure(item)
    return fresh_and_kept


def _edit_and_resize(window, qtbot, check) -> None:
    """`check` at rest, after two P edits that move the value axis, and after a smaller window."""
    check()
    for text in ("3B", "70B"):
        type_in(window.form.field("model.params"), text)
        _settle(qtbot)
        check()
    window.resize(window.width() - 200, window.height() - 100)
    _settle(qtbot)
    check()


def test_a_p_edit_sets_each_nd_curve_once(window, qtbot):
    """pyqtgraph's dynamic range limit set every curve's data again on each change of the value axis (a P edit moves
    it): twice the curves' work per edit."""
    chart = window.dp_chart
    changes = [0] * len(chart._curves)
    for i, c in enumerate(chart._curves):
        c.curve.sigPlotChanged.connect(lambda _item, i=i: changes.__setitem__(i, changes[i] + 1))
    field = window.form.field("model.params")
    for text in ("3B", "30B", "7B"):
        ranges = chart.getPlotItem().vb.viewRange()[1]
        changes[:] = [0] * len(changes)
        type_in(field, text)
        _settle(qtbot)
        assert chart.getPlotItem().vb.viewRange()[1] != ranges  # the value axis moved
        assert changes == [1] * len(changes)


def test_the_stage_bars_bounds_follow_their_data_and_the_view(window, qtbot):
    """Kept between Qt's questions, the bars' bounds are still what pyqtgraph measures after new data, a new value
    axis and a new size."""
    chart = window.chart
    bars = [*chart._bars.values(), chart._peak_bar]
    fresh_and_kept = _kept_bounds_check(bars, pg.BarGraphItem.boundingRect)
    _edit_and_resize(window, qtbot, fresh_and_kept)
    chart.set_log_y(True)
    _settle(qtbot)
    fresh_and_kept()


def test_a_value_typed_again_reuses_the_value_axis_picture_and_looks_the_same(window, qtbot):
    """The value axis's tick labels for a range drawn before are that drawing's picture: no text is measured again,
    and the window's pixels are those of the first time."""
    field = window.form.field("model.params")
    for text in ("30B", "3B"):  # each drawn once: the axes have taken the width their labels need
        type_in(field, text)
        _settle(qtbot)
    axes = [chart.getPlotItem().getAxis("left") for chart in (window.chart, window.dp_chart)]
    first = [axis.picture for axis in axes]
    image = window.grab().toImage()
    type_in(field, "30B")
    _settle(qtbot)
    assert all(axis.picture is not picture for axis, picture in zip(axes, first))  # another range, another picture
    type_in(field, "3B")
    _settle(qtbot)
    assert all(axis.picture is picture for axis, picture in zip(axes, first))
    assert window.grab().toImage() == image


def test_an_edit_the_nd_chart_does_not_show_leaves_it_undrawn_and_unpainted(window, qtbot):
    """The sequence length changes the predicted peak (the stage chart), not the model states against Nd: the Nd
    chart is neither drawn nor painted again, and looks as it did; an Nd edit draws it."""
    stages, nd = window.chart, window.dp_chart
    field = window.form.field("seq_len")
    _settle(qtbot)  # the window at rest: what its start left to paint is painted
    image = nd.grab().toImage()
    _settle(qtbot)
    for text in ("1024", "4096", "2048"):
        counts = (stages.draw_count, nd.draw_count, nd.paint_count)
        type_in(field, text)
        _settle(qtbot)
        assert stages.draw_count > counts[0]  # the peak moved
        assert (nd.draw_count, nd.paint_count) == counts[1:]
    assert nd.grab().toImage() == image
    type_in(window.form.field("cluster.gpus_per_node"), "2")
    _settle(qtbot)
    assert nd.draw_count > counts[1] and nd.paint_count > counts[2]


def test_a_scheme_edit_tells_the_table_headers_once(table_tab, model, qtbot):
    """The row labels change with the scheme (each state's precision): the headers are told once per edit, not once
    per label (each told the row header to measure every row again), and they say the rows' names."""
    from zerodesk.core.options import Scheme
    from zerodesk.gui.table.table_tab import balanced_lines

    told = []
    table = table_tab.table
    table.model().headerDataChanged.connect(lambda orientation, first, last: told.append((orientation, first, last)))
    for scheme in (Scheme.FP32_ADAM, Scheme.MIXED_ADAM, Scheme.FP32_ADAM):
        heads = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
        told.clear()
        model.set_plan(model.plan.model_copy(update={"scheme": scheme}))
        _settle(qtbot)
        rows = table_tab.rows()
        assert [table.verticalHeaderItem(r).text() for r in range(table.rowCount())] == [
            balanced_lines(row[0], 32) for row in rows[1:]] != heads
        assert len(told) <= 2


def test_an_edit_resizes_each_table_column_once(table_tab, model, qtbot):
    """The columns go to their share of the width in one step: resized to their contents first, then to their share,
    each had the wrapped rows measured again (a scheme edit with the Table in front took three times as long)."""
    from zerodesk.core.options import Scheme

    header = table_tab.table.horizontalHeader()
    resized = []
    header.sectionResized.connect(lambda column, old, new: resized.append(column))
    for scheme in (Scheme.FP32_ADAM, Scheme.MIXED_ADAM, Scheme.MIXED_ADAM_8BIT):
        resized.clear()
        model.set_plan(model.plan.model_copy(update={"scheme": scheme}))
        _settle(qtbot)
        assert len(resized) == len(set(resized))  # once at most
        table = table_tab.table
        assert sum(table.columnWidth(c) for c in range(table.columnCount())) <= table.viewport().width()


def test_the_nd_charts_marker_bounds_follow_their_data_and_the_view(window, qtbot):
    """Kept between Qt's questions, the Nd chart's marker bounds are still what pyqtgraph measures after new data, a
    new value axis and a new size."""
    chart = window.dp_chart
    type_in(window.form.field("cluster.shard_group"), "2")  # the hybrid curves too
    _settle(qtbot)
    scatters = [c.scatter for c in chart._curves + chart.hybrid.curves]
    assert len(scatters) == 8
    _edit_and_resize(window, qtbot, _kept_bounds_check(scatters, pg.ScatterPlotItem.boundingRect))


def _crosses_one_by_one(xs, ys, left, right, bottom, top) -> bool:
    """The Nd chart's label check, a segment at a time (as it was): does the polyline pass through the box?"""
    for (xa, ya), (xb, yb) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if xb < left or xa > right:
            continue
        lo, hi = max(xa, left), min(xb, right)

        def y_at(x: float) -> float:
            return ya if xb == xa else ya + (yb - ya) * (x - xa) / (xb - xa)
        y_lo, y_hi = sorted((y_at(lo), y_at(hi)))
        if y_hi >= bottom and y_lo <= top:
            return True
    return False


def test_the_nd_charts_label_check_answers_as_one_segment_at_a_time():
    """The labels' places are checked against all the curves' segments at once: the answer is the walk's, box by box
    (curves with steps, flat runs and a vertical jump; boxes around, across and beside them)."""
    import random

    import numpy as np

    from zerodesk.gui.charts.dp_line_labels import CurveSegments

    rng = random.Random(7)
    curves = [(np.array([0.0, 1.0, 2.0, 2.0, 3.0, 5.0]), np.array([3.0, 2.5, 2.5, 1.0, 0.5, 0.25])),
              (np.array([0.0, 1.0, 2.0, 3.0, 4.0, 10.0]), np.array([5.0, 4.0, 3.0, 3.0, 2.0, -1.0])),
              (np.array([0.5]), np.array([1.0])), (None, None)]
    segments = CurveSegments(curves)
    for _ in range(3000):
        left, bottom = rng.uniform(-1, 11), rng.uniform(-2, 6)
        right, top = left + rng.choice([0.0, 0.01, 0.3, 1.5, 4]), bottom + rng.choice([0.0, 0.01, 0.2, 1, 3])
        want = any(_crosses_one_by_one(list(xs), list(ys), left, right, bottom, top) for xs, ys in curves if xs is not None)
        assert segments.cross(left, right, bottom, top) == want, (left, right, bottom, top)
    assert not CurveSegments([(None, None)]).cross(0, 1, 0, 1)


def test_a_profile_chosen_again_places_the_nd_labels_without_a_search_and_looks_the_same(window, qtbot):
    """The Nd chart's line labels (current Nd, GPU memory) go where they went for the same curves, view and text: a
    profile chosen again searches no place along the lines (each search measured every spot against every curve
    segment), and the chart's pixels are those of the first time."""
    from conftest import choose_index

    window.form.apply_model_preset("llama-2-7b")
    _settle(qtbot)
    chart, profile = window.dp_chart, window.form.field("profile")
    labels = [chart._nd_line.label, chart._gpu_line.label]
    seen = {}
    for i in (1, 0):  # each profile's places searched once
        choose_index(profile, i)
        _settle(qtbot)
        seen[i] = (chart.grab().toImage(), [(label.orthoPos, list(label.anchors)) for label in labels])
    searches = chart.line_labels.searches
    for i in (1, 0, 1):
        curve = chart.curve_data(0)
        choose_index(profile, i)
        _settle(qtbot)
        assert chart.curve_data(0) != curve  # the curves did move
        assert [(label.orthoPos, list(label.anchors)) for label in labels] == seen[i][1]
        assert chart.grab().toImage() == seen[i][0]
    assert chart.line_labels.searches == searches
