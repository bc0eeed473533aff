"""An edit draws each chart once and the event loop paints it once; a window's start draws no chart while hidden."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel

from conftest import choose_index, type_in


class PaintCounter(QObject):
    """Counts the paint events of some widgets (the charts' viewports: where a chart is painted)."""

    def __init__(self, widgets: dict) -> None:
        super().__init__()
        self.widgets = widgets
        self.counts = dict.fromkeys(widgets, 0)
        for w in widgets.values():
            w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            for name, w in self.widgets.items():
                if obj is w:
                    self.counts[name] += 1
        return False

    def take(self) -> dict:
        counts, self.counts = self.counts, dict.fromkeys(self.widgets, 0)
        return counts


@pytest.mark.parametrize("edit", ["P", "scheme", "Nd"])
def test_an_edit_draws_and_paints_each_chart_once(window, qtbot, edit):
    tab = window.plan_tab
    charts = {"stages": tab.chart, "nd": tab.dp_chart}
    form = window.form
    steps = {
        "P": [lambda text=text: type_in(form.field("model.params"), text) for text in ("3B", "30B", "7B")],
        "scheme": [lambda i=i: choose_index(form.field("scheme"), i % form.field("scheme").count()) for i in (1, 2, 0)],
        "Nd": [lambda text=text: type_in(form.field("cluster.gpus_per_node"), text) for text in ("2", "8", "16")],
    }[edit]
    counter = PaintCounter({name: chart.viewport() for name, chart in charts.items()})
    qtbot.wait(50)
    counter.take()
    for step in steps:
        draws = {name: chart.draw_count for name, chart in charts.items()}
        widths = {name: chart.getPlotItem().getAxis("left").width() for name, chart in charts.items()}
        figures = {name: (chart.bar_data() if name == "stages" else chart.sweep(), chart.unit) for name, chart in charts.items()}
        step()
        for _ in range(5):  # the edit's turn of the event loop, and a few more: nothing is left to paint later
            QApplication.processEvents()
        qtbot.wait(20)
        # once; twice where the value axis's labels changed its width (drawn again at the new size, before the paint)
        assert {name: chart.draw_count - draws[name] for name, chart in charts.items()} == {
            name: 1 + (chart.getPlotItem().getAxis("left").width() != widths[name]) for name, chart in charts.items()}
        assert counter.take() == {"stages": 1, "nd": 1}
        assert figures["stages"] != (tab.chart.bar_data(), tab.chart.unit)  # the edit did change what is drawn


def test_a_window_draws_its_charts_only_when_shown(gui_settings, qtbot):
    """Built hidden, the charts draw nothing (the layout sizes them several times then); shown, each draws once per
    size the window's layout settles it at (the first frame's, the scroll area's fit, the dock's; again where its axis labels widen), not once per resize."""
    from zerodesk.gui.window.main_window import MainWindow

    w = MainWindow(gui_settings)
    qtbot.addWidget(w)
    w.quiet = True
    w.resize(1440, 900)
    assert w.chart.draw_count == 0 and w.chart.redraw_pending
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(w.startup.is_done, timeout=3000)
    qtbot.wait(50)
    for chart in (w.chart, w.dp_chart):
        assert 1 <= chart.draw_count <= 4 and not chart.redraw_pending  # stages 5 and Nd 3 before (3 of them hidden)
        assert len(chart.bar_data() if chart is w.chart else chart.sweep()) > 0


def test_an_edit_paints_the_plan_tabs_captions_once(window, qtbot):
    """The scroll area around the Plan tab fits it to its captions before the frame is painted: fitting asks the
    rich-text captions their height at a width, which lays them out again and repaints them (twice per edit)."""
    tab = window.plan_tab
    window.resize(1024, 600)  # the tab's least height is over the room: the fit asks again at the scroll bar's width
    qtbot.wait(100)
    counter = PaintCounter({"caption": tab.caption, "legend": tab.legend})
    qtbot.wait(50)
    counter.take()
    field = window.form.field("model.params")
    for text in ("3B", "30B", "7B"):
        before = tab.caption.text()
        type_in(field, text)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)
        assert tab.caption.text() != before  # the caption says the new P
        counts = counter.take()
        assert counts["caption"] == 1 and counts["legend"] <= 1  # the legend, unchanged, where the layout moved it


def test_the_nd_charts_markers_are_rendered_once(window, qtbot):
    """The markers' pens and brushes are the same objects on every drawing: pyqtgraph keys its symbol atlas by them,
    and a new pen per drawing rendered every marker again and grew the atlas by each edit."""
    chart = window.dp_chart
    field = window.form.field("model.params")
    type_in(field, "3B")
    QApplication.processEvents()
    sizes = [len(c.scatter.fragmentAtlas) for c in chart._curves + chart.hybrid.curves]
    for text in ("30B", "7B", "70B", "1B"):
        type_in(field, text)
        QApplication.processEvents()
    assert [len(c.scatter.fragmentAtlas) for c in chart._curves + chart.hybrid.curves] == sizes
    assert chart.curve_data(0)[1]  # drawn


def test_an_edit_with_the_table_in_front_repaints_the_table_not_the_tabs(window, qtbot):
    """A new row or caption changes the Table tab's size hint; the tab widget answered each such change by repainting
    all of itself (its bar and every frame). The tab's content is sized by the tab, so the change stops there."""
    window.show_tab("table")
    table = window.table_tab
    profile = window.form.field("profile")
    for i in (1, 0):  # each profile shown once (a first showing may move the docks' and scroll bars' layout)
        choose_index(profile, i)
        for _ in range(5):
            QApplication.processEvents()
    qtbot.wait(100)
    counter = PaintCounter({"bar": window.tabs.tabBar(), "cells": table.table.viewport()})
    for i in (1, 0, 1):
        rows = table.rows()
        choose_index(profile, i)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)
        assert table.rows() != rows  # the profile's rows
        counts = counter.take()
        assert counts["bar"] == 0 and counts["cells"] >= 1


def test_a_caption_a_line_shorter_leaves_the_charts_in_place(window, qtbot):
    """A profile or scheme edit changes the captions' lengths by a line or so: each caption keeps the tallest height its
    texts needed at its width, so after each text is shown once the charts keep their geometry (they moved, and the
    whole tab was laid out and painted again, on every such edit), and every caption still has room for all its text."""
    from PySide6.QtWidgets import QLabel

    tab = window.plan_tab
    labels = {"caption": tab.caption, "legend": tab.legend, "warning": tab.warning, "dp caption": tab.dp_caption}
    charts = {"stages": tab.chart, "nd": tab.dp_chart}

    def settle() -> None:
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)

    profile, scheme = window.form.field("profile"), window.form.field("scheme")
    for i in (1, 0, 1, 0):  # each text shown once (twice: the first edit may also settle the docks' layout)
        choose_index(profile, i)
        settle()
    for i in (1, 2, 0):
        choose_index(scheme, i)
        settle()
    places = {name: chart.geometry() for name, chart in charts.items()}
    for combo, i in ((profile, 1), (profile, 0), (scheme, 1), (scheme, 2), (scheme, 0)):
        texts = {name: label.text() for name, label in labels.items()}
        choose_index(combo, i)
        settle()
        assert {name: label.text() for name, label in labels.items()} != texts  # the captions say the edit
        assert {name: chart.geometry() for name, chart in charts.items()} == places
        for label in labels.values():  # the text's own height (not the kept one) fits: nothing is clipped
            assert QLabel.heightForWidth(label, label.width()) <= label.height()


def test_an_offload_choice_draws_the_stage_chart_once(window, qtbot):
    """Offloading shows the offload chart beside the stage bars (and none hides it): the stage chart narrows or widens,
    its stage names wrap to more lines or fewer, and it is drawn once, at that height (drawn, then laid out at the
    names' new height and drawn again, it was two drawings on two choices of three)."""
    window.form.apply_model_preset("llama-2-7b")
    QApplication.processEvents()
    chart, combo = window.plan_tab.chart, window.form.field("offload")
    bottom, left = chart.getPlotItem().getAxis("bottom"), chart.getPlotItem().getAxis("left")
    heights = set()
    for i in (1, 2, 0, 1, 0):
        draws, width = chart.draw_count, left.width()
        choose_index(combo, i)
        for _ in range(3):
            QApplication.processEvents()
        heights.add(bottom.height())
        assert chart.draw_count - draws == 1 + (left.width() != width)
        assert not chart.redraw_pending and window.plan_tab.offload_chart.isVisible() == (i != 0)
    assert len(heights) == 2  # the names did wrap and unwrap: the case this is about


def test_an_edit_paints_the_offload_chart_once(window, qtbot):
    """With offload on, the offload chart is redrawn on an edit with the stage bars and painted with them, once: its
    scene's own queued call painted it again a turn after the window's paint (a profile toggled: its texts change
    height, the plot's axes and view box follow the new size)."""
    window.form.apply_model_preset("llama-2-7b")
    QApplication.processEvents()
    choose_index(window.form.field("offload"), 2)
    for _ in range(3):
        QApplication.processEvents()
    plot = window.plan_tab.offload_chart.plot
    counter = PaintCounter({"offload": plot.viewport()})
    qtbot.wait(50)
    counter.take()
    profile = window.form.field("profile")
    for i in (1, 0, 1, 0):
        texts = window.plan_tab.offload_chart.title.text()
        choose_index(profile, i)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)
        assert window.plan_tab.offload_chart.title.text() != texts  # the chart did change
        assert counter.take() == {"offload": 1}


def test_an_invalid_edit_draws_and_paints_each_chart_once(window, qtbot):
    """A field the plan cannot take shows the note above the charts (the last valid plan stays drawn): the charts move
    down, and each is drawn once at its new size and painted once (the window painted them stretched, then they were
    drawn a turn later and painted again)."""
    tab = window.plan_tab
    charts = {"stages": tab.chart, "nd": tab.dp_chart}
    counter = PaintCounter({name: chart.viewport() for name, chart in charts.items()})
    field = window.form.field("cluster.shard_group")
    for text in ("2", "3", "2", "3"):
        qtbot.wait(20)
        counter.take()
        draws = {name: chart.draw_count for name, chart in charts.items()}
        type_in(field, text)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)
        assert tab.stale.isVisible() == (text == "3")  # 3 does not divide Nd = 4
        assert {name: chart.draw_count - draws[name] for name, chart in charts.items()} == {"stages": 1, "nd": 1}
        assert counter.take() == {"stages": 1, "nd": 1}


def test_the_offload_chart_redrawn_keeps_its_axes_drawing_when_their_titles_stay(window, qtbot):
    """The offload chart drawn again with titles and ranges as they were keeps its axes' drawn ticks and titles (setting
    the same title again dropped the drawing and measured the axis again: on Llama 2 7B torch with offload, a sequence
    edit drew both axes anew, two of its five pictures per edit)."""
    window.form.apply_model_preset("llama-2-7b")
    QApplication.processEvents()
    choose_index(window.form.field("offload"), 2)
    for _ in range(3):
        QApplication.processEvents()
    chart = window.plan_tab.offload_chart
    axes = [chart.plot.getAxis(name) for name in ("left", "bottom")]
    pictures = [axis.picture for axis in axes]
    assert None not in pictures  # painted
    chart.set_plan(window.model.plan)
    assert [axis.picture for axis in axes] == pictures
    assert [axis.labelText for axis in axes] == ["memory, GB", "ZeRO stage"]


def test_a_shard_group_typed_again_repaints_no_other_form_field(window, qtbot):
    """The shard group's hint says "N = Nd: flat" in a line and "r groups of N: ..." in two: it keeps the taller height
    once it has needed it, so a shard group typed again lays nothing out anew (the section resized, the whole form was laid
    out and every field of it repainted, on every edit that changed the hint's line count)."""
    type_in(window.form.field("cluster.gpus_per_node"), "64")  # Nd 64: "16 groups of 4: ..." wraps
    field = window.form.field("cluster.shard_group")
    hint = window.form.findChild(QObject, "shardGroupHint")
    others = {"sequence": window.form.field("seq_len"), "params": window.form.field("model.params")}
    counter = PaintCounter(others)
    heights = set()
    for text in ("4", "", "4", ""):
        if text == "":
            counter.take()
        shown = hint.text()
        type_in(field, text)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)
        assert hint.text() != shown  # the hint did change
        alone = QLabel(hint.text())  # the height the text needs by itself
        alone.setWordWrap(True)
        alone.setFont(hint.font())
        heights.add(alone.heightForWidth(hint.width()))
    assert len(heights) == 2  # its texts need different heights
    assert counter.take() == {"sequence": 0, "params": 0}


def test_a_profile_chosen_again_lays_out_no_offload_text(window, qtbot):
    """The offload chart's title and verdict (rich text; a profile toggled changes both) keep their recent texts laid
    out: a profile chosen again measures and paints them from what they laid out before (QLabel laid its document out
    anew for each text, and again for every height the layout asked, a sixth of the edit on a heavy plan)."""
    window.form.apply_model_preset("llama-2-7b")
    QApplication.processEvents()
    choose_index(window.form.field("offload"), 2)
    chart = window.plan_tab.offload_chart
    profile = window.form.field("profile")

    def settle() -> None:
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)

    for i in (1, 0):  # each text shown, measured and painted once
        choose_index(profile, i)
        settle()
    changes = []
    for label in (chart.title, chart.verdict):
        for doc in label.findChildren(QTextDocument) + list(getattr(label, "_documents", {}).values()):
            doc.contentsChanged.connect(lambda: changes.append(1))
            doc.documentLayout().documentSizeChanged.connect(lambda _size: changes.append(1))
    for i in (1, 0, 1):
        texts = (chart.title.text(), chart.verdict.text())
        choose_index(profile, i)
        settle()
        assert (chart.title.text(), chart.verdict.text()) != texts  # the texts did change
    assert changes == []


def test_a_profile_chosen_again_draws_no_offload_axis_and_looks_the_same(window, qtbot):
    """A profile toggled moves the offload chart's value axis (the bars' heights): ticks drawn before at the same size
    and range take that drawing's picture, so a profile chosen again draws no axis (two pictures per edit on the heavy
    plans, a tenth of the edit), and the chart's pixels are those of the first time."""
    window.form.apply_model_preset("llama-2-7b")
    QApplication.processEvents()
    choose_index(window.form.field("offload"), 2)
    plot = window.plan_tab.offload_chart.plot
    axis = plot.getAxis("left")
    profile = window.form.field("profile")

    def settle() -> None:
        for _ in range(5):
            QApplication.processEvents()
        qtbot.wait(20)

    images, pictures = {}, {}
    for i in (1, 0):  # each profile's axis drawn once
        choose_index(profile, i)
        settle()
        images[i], pictures[i] = plot.grab().toImage(), axis.picture
    drawn = plot.axis_draw_count
    for i in (1, 0, 1):
        ticks = tuple(axis.range)
        choose_index(profile, i)
        settle()
        assert tuple(axis.range) != ticks  # the value axis did move
        assert axis.picture is pictures[i]
        assert plot.grab().toImage() == images[i]
    assert plot.axis_draw_count == drawn
