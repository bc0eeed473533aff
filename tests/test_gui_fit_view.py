"""The Fit view (zerodesk.gui.fit), a real widget offscreen: cells drawn in the colour of the solver's answers, hover
text with predict()'s peaks and headroom, a click or Enter that sets the plan through the model, the keyboard,
the export, both languages and both themes, and a window that builds the tab only when it is opened."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QKeySequence
from PySide6.QtWidgets import QApplication

from zerodesk.core.catalog import find_model
from zerodesk.core.fit import batch_boundary, solve
from zerodesk.core.fit_map import cluster_for
from zerodesk.core.peak import predict
from zerodesk.core.plan import Plan
from zerodesk.gui.base import i18n
from zerodesk.gui.base.style import STAGE_COLORS

from conftest import shown

GB = 10**9


def llama_plan(**kw) -> Plan:
    data = {"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
            "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu_memory_bytes": 80 * GB},
            "cuda_allowance_bytes": GB}
    data.update(kw)
    return Plan.model_validate(data)


@pytest.fixture
def fit_tab(qtbot, gui_settings, model):
    """The Fit tab alone, following `model` (Llama 2 7B, 80 GB GPUs, Nd = 8, a 1 GB allowance)."""
    from zerodesk.gui.fit.fit_tab import FitTab

    model.set_plan(llama_plan())
    tab = shown(qtbot, FitTab(model), (900, 900))
    qtbot.waitUntil(lambda: tab.state is not None)
    return tab


def near(a: QColor, b: QColor, tol: int = 6) -> bool:
    return max(abs(a.red() - b.red()), abs(a.green() - b.green()), abs(a.blue() - b.blue())) <= tol


def cell_pixel(chart, image: QImage, dp: int, mb: int) -> QColor:
    """The colour drawn inside a cell, beside its number (a quarter of the way in from its corner)."""
    centre = chart.cell_center(dp, mb)
    col, row = chart.index_of(dp, mb)
    from zerodesk.gui.charts.tools import widget_rect_of

    rect = widget_rect_of(chart, col - 0.5, row - 0.5, col + 0.5, row + 0.5)
    p = QPoint((rect.left() + centre.x()) // 2, (rect.top() + centre.y()) // 2)
    return image.pixelColor(p)


def hover(qtbot, chart, pos: QPoint) -> None:
    qtbot.mouseMove(chart.viewport(), pos)
    chart.scene().sigMouseMoved.emit(chart.mapToScene(pos))


# -- the map ------------------------------------------------------------------------------------------
def test_cells_are_drawn_in_the_colour_of_the_lowest_stage_the_solver_fits(fit_tab):
    plan, chart = fit_tab.state.plan, fit_tab.chart
    fmap = chart.map
    image = chart.viewport().grab().toImage()
    seen = set()
    for dp in (1, 2, 8, 64, 1024):
        at = plan.model_copy(update={"cluster": cluster_for(plan.cluster, dp)})
        limits = [batch_boundary(at, s, plan.recompute)[0] for s in range(4)]  # the solver, asked afresh
        for mb in fmap.batches:
            stage = next((s for s in range(4) if mb <= limits[s]), None)
            want = QColor(STAGE_COLORS[stage]) if stage is not None else chart.none_color()
            got = cell_pixel(chart, image, dp, mb)
            assert near(got, want), (dp, mb, stage, got.name(), want.name())
            seen.add(stage)
    assert None in seen and len(seen) >= 3  # this plan's map has two stages or more, and cells where none fits
    answer = solve(plan)
    assert [fmap.limits[s, plan.dp] for s in range(4)] == [answer.config(s, plan.recompute).max_micro_batch
                                                            for s in range(4)]


def test_hover_names_each_stages_predicted_peak_and_headroom(fit_tab, qtbot):
    plan, chart = fit_tab.state.plan, fit_tab.chart
    hover(qtbot, chart, chart.cell_center(64, 2))
    text = chart.tip.text
    assert "Nd = 64 · micro-batch 2" in text and "paper profile" in text and "Predicted peak" in text
    at = Plan.model_validate({**plan.model_dump(), "micro_batch": 2,
                              "cluster": cluster_for(plan.cluster, 64).model_dump()})
    usable = 80 * GB - GB
    for p in predict(at):
        peak = p.total_bytes - GB
        figure = i18n.fmt_bytes(peak, "GB")
        assert f"Stage {p.stage}: {figure}" in text
        room = usable - peak
        assert (f"headroom {i18n.fmt_bytes(room, 'GB')}" if room >= 0 else f"over by {i18n.fmt_bytes(-room, 'GB')}") in text
    assert fit_tab.details.text().startswith("Nd = 64 · micro-batch 2: ")
    hover(qtbot, chart, QPoint(2, 2))  # off the cells: the tip goes
    assert chart.tip.text == "" and fit_tab.details.text().startswith("Hover a cell")


def test_a_click_sets_the_plan_to_the_cell_through_the_model(fit_tab, model, qtbot):
    chart = fit_tab.chart
    with qtbot.waitSignal(model.events.plan):
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.cell_center(64, 2))
    assert (model.plan.dp, model.plan.micro_batch) == (64, 2)
    assert model.plan.cluster.world_size == 64 and model.plan.seq_len == 4096  # the rest as it was
    # the view follows the model: the plan's own cell moves there, and the recommendation is for micro-batch 2
    assert (chart.map.plan_dp, chart.map.plan_micro_batch) == (64, 2)
    assert "micro-batch 2" in fit_tab.recommendation.text()
    with qtbot.waitSignal(model.events.plan):
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.cell_center(4, 1))
    assert (model.plan.dp, model.plan.micro_batch, model.plan.cluster.world_size) == (4, 1, 64)  # 4 of 64 GPUs


def test_the_keyboard_walks_the_cells_and_enter_sets_the_plan(fit_tab, model, qtbot):
    chart = fit_tab.chart
    chart.setFocus()
    qtbot.waitUntil(chart.hasFocus)
    assert chart.cursor == chart.index_of(8, 1)  # it starts on the plan's own cell
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    qtbot.keyClick(chart, Qt.Key.Key_Up)
    assert chart.cell_at_index(*chart.cursor) == (16, 2)
    assert fit_tab.details.text().startswith("Nd = 16 · micro-batch 2: ")
    with qtbot.waitSignal(model.events.plan):
        qtbot.keyClick(chart, Qt.Key.Key_Return)
    assert (model.plan.dp, model.plan.micro_batch) == (16, 2)
    qtbot.keyClick(chart, Qt.Key.Key_End)
    qtbot.keyClick(chart, Qt.Key.Key_PageDown)
    assert chart.cell_at_index(*chart.cursor) == (chart.map.dps[-1], 1)
    qtbot.keyClick(chart, Qt.Key.Key_Home)
    qtbot.keyClick(chart, Qt.Key.Key_Left)  # stays on the first column
    assert chart.cursor == (0, 0)
    assert chart.focusPolicy() == Qt.FocusPolicy.StrongFocus  # Tab reaches it


def test_the_recommendation_and_the_table_say_the_solvers_answer_with_units(fit_tab):
    plan = fit_tab.state.plan
    answer = solve(plan)
    rec = answer.recommendation
    assert fit_tab.recommendation.text().startswith(
        f"<b>Recommended: stage {rec.stage} without recompute, micro-batch 1.</b> Stage {rec.stage}")
    assert "least communication per step" in fit_tab.recommendation.text()
    table = fit_tab.table
    assert table.rowCount() == 12
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert "Peak there\n(GB)" in headers and "Communication\nper step (GB)" in headers
    for r, c in enumerate(answer.configs):
        assert table.item(r, 2).text() == i18n.fmt_int(c.max_micro_batch)
        if c.peak_at_max_bytes is not None:
            assert table.item(r, 3).text() == i18n.fmt_bytes(c.peak_at_max_bytes, "GB")
        assert table.item(r, 0).font().bold() == ((c.stage, c.recompute) == (rec.stage, rec.recompute))
    caption = fit_tab.caption.text()
    assert "predicted (closed-form peak), paper profile" in caption and "Usable: 79.00 GB per GPU" in caption
    assert "1 GB = 10⁹ B" in caption


def test_the_table_edited_in_place_is_the_table_built_afresh(fit_tab, model, qtbot):
    """Cells set and columns measured only where they changed, widths remembered by contents: after every edit of a
    walk that comes back to values seen before (and a column the user dragged wider), each cell's text and font and
    each column's width are those of a table built for that plan alone (resizeColumnsToContents)."""
    from zerodesk.gui.fit.config_table import ConfigTable

    fresh = shown(qtbot, ConfigTable(), (900, 400))
    walk = [{"seq_len": 2048}, {"seq_len": 8192, "micro_batch": 2}, {"seq_len": 4096},
            {"cluster": {"nodes": 1, "gpus_per_node": 2, "gpu_memory_bytes": 40 * GB}}, {"seq_len": 2048},
            {"seq_len": 8192, "micro_batch": 2}, {"accum_steps": 3}, {}, {"cuda_allowance_bytes": 2 * GB}]
    for k, edit in enumerate(walk):
        if k in (4, 8):  # a column dragged wider by the user: fitted again at the next answer, as before
            fit_tab.table.setColumnWidth(0, fit_tab.table.columnWidth(0) + 40)
        model.set_plan(llama_plan(**edit))
        plan, answer = fit_tab.state.plan, fit_tab.state.answer
        fresh.setRowCount(0)
        fresh.setColumnCount(0)
        fresh.show_answer(plan, answer)
        table = fit_tab.table
        assert (table.rowCount(), table.columnCount()) == (fresh.rowCount(), fresh.columnCount())
        for r in range(table.rowCount()):
            for c in range(table.columnCount()):
                assert table.item(r, c).text() == fresh.item(r, c).text()
                assert table.item(r, c).font().bold() == fresh.item(r, c).font().bold()
        fresh.resizeColumnsToContents()
        assert [table.columnWidth(c) for c in range(table.columnCount())] == \
               [fresh.columnWidth(c) for c in range(fresh.columnCount())]


def test_no_gpu_memory_is_one_sentence_and_an_empty_map(fit_tab, model):
    model.set_plan(Plan.model_validate({"model": {"params": "2e9"}}))
    assert "needs the memory of one GPU" in fit_tab.recommendation.text()
    assert fit_tab.chart.map is None and fit_tab.table.rowCount() == 0
    model.set_errors({"seq_len": "bad"})
    assert fit_tab.stale.isVisible() and "1 field(s)" in fit_tab.stale.text()


def test_russian_words_the_reasons_and_the_cells(fit_tab, qtbot):
    i18n.set_language("ru")
    rec, caption = fit_tab.recommendation.text(), fit_tab.caption.text()
    stage = solve(fit_tab.state.plan).recommendation.stage  # the solver's answer, worded in Russian
    assert f"Рекомендуется: стадия {stage}" in rec and "микробатч 1" in rec and "без пересчёта активаций" in rec
    assert "прогноз" in caption and "ГБ" in caption
    assert not any(word in rec for word in ("fits", "Stage", "without", "communication"))
    hover(qtbot, fit_tab.chart, fit_tab.chart.cell_center(64, 2))
    assert "Стадия 3" in fit_tab.chart.tip.text and "ГБ" in fit_tab.chart.tip.text
    headers = [fit_tab.table.horizontalHeaderItem(c).text() for c in range(fit_tab.table.columnCount())]
    assert any("ГБ" in h for h in headers) and not any("Peak" in h for h in headers)


def test_dark_theme_paints_the_map_dark_and_keeps_the_stage_colours(fit_tab):
    from zerodesk.gui.base import theme

    try:
        theme.apply_theme("dark")
        QApplication.processEvents()
        chart = fit_tab.chart
        assert chart.backgroundBrush().color().lightness() < 80
        assert chart.none_color().lightness() < 100  # "nothing fits" follows the palette
        image = chart.viewport().grab().toImage()
        assert near(cell_pixel(chart, image, 8, 1), QColor(STAGE_COLORS[chart.map.stage_at(8, 1)]))
    finally:
        theme.apply_theme("light")
        QApplication.processEvents()
    assert fit_tab.chart.none_color().lightness() > 180


def test_export_png_and_svg_draw_the_map(fit_tab, tmp_path, qtbot):
    png, svg = tmp_path / "fit.png", tmp_path / "fit.svg"
    fit_tab.chart.setFocus()
    qtbot.waitUntil(fit_tab.chart.hasFocus)
    assert len(fit_tab.chart._cursor_box.getData()[0]) == 5  # the keyboard's cell, on screen
    with fit_tab._printing():
        assert fit_tab.chart._cursor_box.getData()[0] is None or len(fit_tab.chart._cursor_box.getData()[0]) == 0
    assert fit_tab.export_png(png, scale=1.0)
    image = QImage(str(png))
    assert (image.width(), image.height()) == (fit_tab.width(), fit_tab.height())
    chart = fit_tab.chart
    p = chart.viewport().mapTo(fit_tab, chart.cell_center(8, 1)) + QPoint(-chart.width() // (3 * len(chart.map.dps)), 0)
    assert near(image.pixelColor(p), QColor(STAGE_COLORS[chart.map.stage_at(8, 1)]), tol=30)
    assert fit_tab.export_svg(svg)
    text = svg.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    fills = {el.get("fill", "").lower() for el in root.iter() if el.get("fill")}
    assert {STAGE_COLORS[1].lower(), STAGE_COLORS[2].lower()} <= fills
    assert "non-scaling-stroke" not in text and "What fits on one GPU" in text


# -- in the window --------------------------------------------------------------------------------------
def test_the_window_builds_the_fit_tab_on_ctrl_4_and_a_cell_reaches_the_form(window, qtbot):
    assert window.pages.built(window._fit_slot) is None  # not at start: the first frame does not wait for it
    assert window.act_tab_fit.shortcut() == QKeySequence("Ctrl+4")
    window.model.load(llama_plan())
    window.act_tab_fit.trigger()
    tab = window.fit_tab
    assert window.tabs.currentWidget().widget() is tab and window.tabs.tabText(window.tabs.currentIndex()) == "Fit"
    qtbot.waitUntil(lambda: tab.state is not None and tab.chart.map is not None)
    with qtbot.waitSignal(window.model.events.plan):
        qtbot.mouseClick(tab.chart.viewport(), Qt.MouseButton.LeftButton, pos=tab.chart.cell_center(16, 2))
    assert window.form.field("micro_batch").text() == "2"
    assert (window.model.plan.dp, window.model.plan.cluster.world_size) == (16, 16)
    assert window.is_modified()  # a click is an edit of the plan


def test_the_maps_menu_exports_the_view_where_the_user_says(window, qtbot, tmp_path, monkeypatch):
    from zerodesk.gui.window import document

    target = tmp_path / "fit.svg"
    monkeypatch.setattr(document, "ask_export_path", lambda parent, settings, suffix: target)
    window.model.load(llama_plan())
    window.show_tab("fit")
    tab = window.fit_tab
    qtbot.waitUntil(lambda: tab.chart.map is not None)
    assert [a.text() for a in tab.chart.menu.build().actions() if a.text()] == [
        "Export Fit View as PNG…", "Export Fit View as SVG…"]  # and no log scale: a map has no value axis
    tab.chart.menu.actions[1].trigger()
    assert target.is_file() and "Exported" in window.statusBar().currentMessage()


def test_the_first_window_loads_neither_the_fit_view_nor_the_solver(tmp_path):
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys, tempfile
        from PySide6.QtCore import QSettings
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
        from zerodesk.gui.app import create_window
        from PySide6.QtWidgets import QApplication
        w = create_window(headless=True)
        w.show(); QApplication.processEvents(); w.startup.flush(); QApplication.processEvents()
        print(sorted(m for m in ("zerodesk.gui.fit.fit_tab", "zerodesk.core.fit_map", "zerodesk.core.fit")
                     if m in sys.modules))
        w.show_tab("fit"); QApplication.processEvents()
        print(type(w.fit_tab).__name__, w.tabs.currentWidget().objectName())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "FitTab fitScroll"]


def test_screenshot_opens_on_the_tab_asked_for(tmp_path):
    import subprocess
    import sys

    shots = {}
    for tab in ("plan", "fit"):
        shots[tab] = tmp_path / f"{tab}.png"
        out = subprocess.run([sys.executable, "-m", "zerodesk", "--screenshot", str(shots[tab]), "--tab", tab,
                              "--size", "1024x700", "--preset", "llama-2-7b", "--gpu", "h100-80gb"],
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr
    plan, fit = QImage(str(shots["plan"])), QImage(str(shots["fit"]))
    assert (fit.width(), fit.height()) == (1024, 700) and plan != fit
    bad = subprocess.run([sys.executable, "-m", "zerodesk", "--tab", "nowhere", "--screenshot", str(tmp_path / "x.png")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode == 2 and "--tab" in bad.stderr


def test_the_cheapest_recompute_that_fits_each_stage_is_said_and_follows_the_plan(fit_tab, model):
    """Under the recommendation: per stage the recomputation with the least forward work rerun whose predicted peak
    fits (core.fit_recompute, as `zerodesk fit` prints it), checked here against predict() itself, in both languages."""
    from PySide6.QtWidgets import QLabel

    from zerodesk.core.fit import usable_memory

    label = fit_tab.findChild(QLabel, "fitCheapestRecompute")
    assert label.isVisible() and "no recompute needed" in label.text()  # 80 GB at 4,096 tokens: none is needed
    plan = llama_plan(seq_len=8192, cluster={"nodes": 1, "gpus_per_node": 8, "gpu_memory_bytes": 64 * GB})
    model.set_plan(plan)
    lines = label.text().split("<br>")
    assert lines[0] == "<b>Cheapest recompute that fits micro-batch 1 at sequence 8,192 (the least forward work " \
                       "rerun):</b>"

    def peak(stage: int, **policy) -> int:
        return predict(plan.model_copy(update=dict(policy, recompute_blocks=None)))[stage].total_bytes

    usable, allowance = usable_memory(plan), plan.cuda_allowance_bytes
    # stage 0: not even full recompute on every block fits
    assert peak(0, recompute="full", recompute_every=1) - allowance > usable
    assert lines[1] == f"{i18n.stage_short(0)}: nothing fits, not even full recompute on every block"
    # stages 1 and 2: full recompute on every 3rd block fits, on every 4th (less work) does not, nor selective anywhere
    for stage, line in ((1, lines[2]), (2, lines[3])):
        fits = peak(stage, recompute="full", recompute_every=3)
        assert fits - allowance <= usable < peak(stage, recompute="full", recompute_every=4) - allowance
        assert peak(stage, recompute="selective", recompute_every=1) - allowance > usable
        assert line == (f"{i18n.stage_short(stage)}: full recompute on one block in 3 (10 of 32 blocks; predicted peak "
                        f"{i18n.fmt_bytes(fits, 'GB')})")
    # stage 3 fits without any
    assert peak(3, recompute="none") - allowance <= usable
    assert lines[4] == f"{i18n.stage_short(3)}: no recompute needed (predicted peak {i18n.fmt_bytes(peak(3), 'GB')})"
    i18n.set_language("ru")
    text = label.text()
    assert "Самый дешёвый пересчёт активаций, при котором помещается микробатч 1 при последовательности 8" in text
    assert "полный пересчёт активаций в одном блоке из каждых 3 (блоков: 10 из 32; прогноз пика" in text
    assert "ничего не помещается" in text and "пересчёт активаций не нужен" in text and "ГБ" in text
    assert not any(word in text for word in ("recompute", "block", "predicted", "GB"))
    model.set_plan(Plan.model_validate({"model": {"params": "2e9"}}))  # no answer: nothing said
    assert label.text() == "" and not label.isVisible()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_small_window_scrolls_the_panels_and_never_squeezes_them(window, qtbot, lang):
    """The Plan and Fit panels get at least their layout's least height for the width they have once the scroll bar
    takes its room (the texts wrap narrower there): fitted at the wider width, the Fit view's map lay 14 px under
    the hint below it at 1024x700."""
    window.set_language(lang)
    window.model.load(llama_plan())
    for size in ((1024, 700), (1024, 560), (1440, 900)):
        window.resize(*size)
        for name, panel in (("plan", window.plan_tab), ("fit", None)):
            window.show_tab(name)
            panel = panel or window.fit_tab
            scroll = panel.parentWidget().parentWidget()
            qtbot.waitUntil(lambda: panel.width() == scroll.viewport().width())
            QApplication.processEvents()
            least = panel.layout().minimumHeightForWidth(panel.width())
            assert panel.height() >= least, (lang, size, name, panel.height(), least)
            assert panel.height() >= scroll.viewport().height()  # and fills it when there is more room
