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


def test_the_glossary_card_reads_its_text_after_the_first_paint(window, qtbot):
    g = window.glossary
    qtbot.waitUntil(g.is_loaded, timeout=3000)  # nothing asked for it: the first paint brought it in
    assert load_glossary("en").definition[:40] in g.browser.toPlainText()
    assert g.widget() is g.card and g.search.placeholderText() == "Filter claims…"


def test_the_window_icon_arrives_after_the_first_paint(window, qtbot):
    qtbot.waitUntil(lambda: not window.windowIcon().isNull(), timeout=3000)


def test_a_glossary_hidden_at_start_reads_its_card_when_f1_shows_it(gui_settings, qtbot):
    from zerodesk.gui.main_window import MainWindow

    w = MainWindow(gui_settings)
    w.quiet = True
    w.ask_save_changes = discard
    qtbot.addWidget(w)
    w.glossary.hide()
    w.show()
    qtbot.waitExposed(w)
    choose(w.form.field("profile"), "torch")  # told before the card exists: the card starts with it
    w.set_language("ru")
    qtbot.wait(50)
    assert not w.glossary.is_loaded()
    w.act_toggle_glossary.trigger()  # F1
    qtbot.waitUntil(w.glossary.is_loaded, timeout=3000)
    text = w.glossary.browser.toPlainText()
    card = load_glossary("ru")
    assert card.definition[:40] in text and "Граница применимости" in text
    assert card.claim("profile-torch").boundary[:50] in text.split(card.claim("stages").text[:30])[0]
    w.set_language("en")


def test_the_offload_chart_is_built_for_the_first_plan_that_offloads(window, qtbot):
    panel = window.chart_panel
    assert panel.offload_chart is None  # the default plan offloads nothing
    choose(window.form.field("offload"), "optimizer")
    assert panel.offload_chart is not None and panel.offload_chart.isVisible()
    assert panel.offload_chart.breakdown() is not None
    choose(window.form.field("offload"), "none")
    assert not panel.offload_chart.isVisible()
