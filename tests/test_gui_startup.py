"""The window paints first: what waits for the first frame or for first use, and what brings it in.

Every lazy part is reached the way a user reaches it (the window shown, F1, a form choice), never by
calling a private builder.
"""

from __future__ import annotations

from zerodesk.core.glossary import load_glossary

from conftest import discard


def choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def unshown_window(settings, qtbot):
    """The main window before its first paint (the `window` fixture waits for that)."""
    from zerodesk.gui.window.main_window import MainWindow

    w = MainWindow(settings)
    w.quiet = True
    w.ask_save_changes = discard
    qtbot.addWidget(w)
    return w


def test_the_glossary_card_reads_its_text_after_the_first_paint(window, qtbot):
    g = window.glossary
    qtbot.waitUntil(g.is_loaded, timeout=3000)  # nothing asked for it: the first paint brought it in
    assert load_glossary("en").definition[:40] in g.browser.toPlainText()
    assert g.widget() is g.card and g.search.placeholderText() == "Filter claims…"


def test_the_window_icon_arrives_after_the_first_paint(window, qtbot):
    qtbot.waitUntil(lambda: not window.windowIcon().isNull(), timeout=3000)


def test_a_glossary_hidden_at_start_reads_its_card_when_f1_shows_it(gui_settings, qtbot):
    w = unshown_window(gui_settings, qtbot)
    w.glossary.hide()
    w.show()
    qtbot.waitExposed(w)
    choose(w.form.field("profile"), "torch")  # told before the card exists: the card starts with it
    w.set_language("ru")
    qtbot.wait(50)
    assert not w.glossary.is_loaded()
    w.act_toggle_glossary.trigger()  # F1
    qtbot.waitUntil(w.glossary.is_loaded, timeout=3000)  # read because it is painted: in front, even when tabbed
    assert not w.glossary.visibleRegion().isEmpty()
    text = w.glossary.browser.toPlainText()
    card = load_glossary("ru")
    assert card.definition[:40] in text and "Граница применимости" in text
    assert card.claim("profile-torch").boundary[:50] in text.split(card.claim("stages").text[:30])[0]
    w.set_language("en")


def test_the_offload_chart_is_built_for_the_first_plan_that_offloads(window, qtbot):
    panel = window.plan_tab
    assert panel.offload_chart is None  # the default plan offloads nothing
    choose(window.form.field("offload"), "optimizer")
    assert panel.offload_chart is not None and panel.offload_chart.isVisible()
    assert panel.offload_chart.breakdown() is not None
    choose(window.form.field("offload"), "none")
    assert not panel.offload_chart.isVisible()


def test_the_first_frame_has_the_plan_and_its_stage_bars_and_the_nd_chart_follows_it(gui_settings, qtbot):
    from zerodesk.core.accounting import compute, sweep_dp

    w = unshown_window(gui_settings, qtbot)
    plan = w.model.plan
    # before any paint: the form holds the plan and the stage chart the core's states for it, drawn when it is shown
    assert w.chart.unit == "GB" and w.chart.redraw_pending and w.chart.draw_count == 0  # not drawn while hidden
    assert w.plan_tab.dp_chart is None and not w.startup.is_done()
    assert "Per-rank model states versus Nd" in w.plan_tab.dp_caption.text()  # its caption is in place
    w.resize(1440, 900)
    w.show()  # shown, not yet painted: the stage bars are drawn for the first frame
    assert w.chart.total_label_texts() == [f"{s.total_bytes / 1e9:,.2f} GB" for s in compute(plan).stages]
    assert not w.startup.is_done()
    qtbot.waitUntil(w.startup.is_done, timeout=3000)  # the first paint brought the rest, nothing asked for it
    dp = w.plan_tab.dp_chart
    assert dp is not None and dp.isVisible() and dp.log_y == w.plan_tab.dp_log_toggle.isChecked()
    assert dp.sweep() == {s: list(v) for s, v in sweep_dp(plan, dp.grid).items()}
    assert not w.windowIcon().isNull() and w.shortcuts_first is not None


def test_the_first_show_lays_the_window_out_at_its_fitted_docks_and_draws_each_chart_at_its_final_size(gui_settings, qtbot):
    from PySide6.QtWidgets import QApplication

    w = unshown_window(gui_settings, qtbot)
    w.resize(1440, 900)
    w.show()  # the docks fitted inside show(): the first layout is the last, the stage bars drawn at their final size
    laid_out = (w.form_dock.width(), w.glossary.width(), w.chart.size())
    stage_draws = w.chart.draw_count
    assert 1 <= stage_draws <= 2  # drawn, and again at most once for its own axis's new width, before any paint
    qtbot.waitUntil(w.startup.is_done, timeout=3000)
    dp = w.plan_tab.dp_chart
    assert dp.isVisible() and 1 <= dp.draw_count <= 2  # the Nd chart: shown, laid out and drawn in the same turn
    dp_draws = dp.draw_count
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(50)
    w.fit_docks()  # fitting again changes nothing: the show fitted them already
    QApplication.processEvents()
    assert (w.form_dock.width(), w.glossary.width(), w.chart.size()) == laid_out
    assert w.chart.draw_count == stage_draws and dp.draw_count == dp_draws  # nothing drawn again after the start
    assert w.form_dock.width() >= w.form_width_needed()


def test_a_narrow_window_shows_the_glossary_tabbed_behind_the_form_from_its_first_frame(gui_settings, qtbot):
    from PySide6.QtWidgets import QTabBar

    w = unshown_window(gui_settings, qtbot)
    w.resize(1024, 700)
    w.show()
    assert w.glossary in w.tabifiedDockWidgets(w.form_dock)
    bars = [bar for bar in w.findChildren(QTabBar) if bar.parent() is w and bar.count() == 2]
    assert len(bars) == 1 and bars[0].isVisible()  # the docks' tab bar is there at once, not a turn later


def test_the_nd_chart_follows_an_edit_made_before_it_is_built(gui_settings, qtbot):
    from zerodesk.core.accounting import sweep_dp

    w = unshown_window(gui_settings, qtbot)
    w.form.apply_card_example()
    field = w.form.field("model.params")
    field.setText("7B")
    field.textEdited.emit("7B")
    assert w.plan_tab.dp_chart is None
    dp = w.dp_chart  # asked for before the first paint: built now, for the plan shown
    assert dp.sweep()[0][0] == sweep_dp(w.model.plan, dp.grid)[0][0] and w.model.plan.model.params == 7_000_000_000
    assert w.plan_tab.dp_chart is dp


def test_the_table_tab_is_built_when_first_shown_with_the_plan_in_view(window, qtbot):
    from zerodesk.core.accounting import compute

    assert window.pages.built(window._table_slot) is None  # not needed for the first frame
    window.tabs.setCurrentIndex(1)
    table = window.tabs.currentWidget()
    assert window.pages.built(window._table_slot) is table is window.table_tab and window.tabs.tabText(1) == "Table"
    by_name = {r[0]: r[1:] for r in table.rows()[1:]}
    assert by_name["Total model states"] == [f"{s.total_bytes / 1e9:,.2f} GB" for s in compute(window.model.plan).stages]
