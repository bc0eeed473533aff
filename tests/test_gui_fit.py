"""Nothing is cut off in a narrow window, in either language: the form's field grid stacks its labels
above the fields when they no longer fit beside them, and the stage chart's names never run together."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from zerodesk.core.accounting import STAGES
from zerodesk.gui.base import i18n
from zerodesk.gui.form.field_grid import HYSTERESIS, FieldGrid
from zerodesk.gui.charts.stage_texts import stage_tick_labels


def _grid(qtbot, labels: list[str]) -> FieldGrid:
    holder = QWidget()  # a child is sized as told (a top-level window would keep its layout's minimum)
    holder.resize(800, 300)
    grid = FieldGrid(holder)
    for i, text in enumerate(labels):
        field = QLineEdit()
        field.setMinimumWidth(60)
        grid.add_cell(i // 2, i % 2, QLabel(text), field, QLabel())
    grid.add_footer(QLabel("footer"))
    grid.arrange()
    qtbot.addWidget(holder)
    holder.show()
    grid.holder = holder  # keeps the parent alive as long as the test holds the grid
    return grid


def test_the_grid_stacks_below_the_width_it_needs_and_comes_back_with_room(qtbot):
    grid = _grid(qtbot, ["Размер головы", "Нормализация", "Слои", "Ширина"])
    need = grid.side_by_side_width()
    widest = max(QLabel(t).sizeHint().width() for t in ("Размер головы",)) + 60
    assert need >= widest  # a label and its field side by side, twice
    grid.resize(need - 1, 200)
    qtbot.waitUntil(lambda: grid.stacked)
    label, field = grid._cells[0][2], grid._cells[0][3]
    qtbot.waitUntil(lambda: label.geometry().bottom() < field.geometry().top())  # the label above its field
    assert grid.minimumSizeHint().width() < need  # a narrow dock no longer clips it
    grid.resize(need + HYSTERESIS // 2, 200)  # inside the hysteresis: no flip-flop
    qtbot.wait(20)
    assert grid.stacked
    grid.resize(need + HYSTERESIS + 10, 200)
    qtbot.waitUntil(lambda: not grid.stacked)
    label, field = grid._cells[0][2], grid._cells[0][3]
    qtbot.waitUntil(lambda: label.geometry().right() < field.geometry().left())  # beside it again
    assert all(w.geometry().right() <= grid.width() for c in grid._cells for w in c[2:4])  # nothing past the edge


def test_the_russian_form_fits_a_1024_window_and_nothing_is_clipped(qtbot, gui_settings):
    from zerodesk.gui.window.main_window import MainWindow

    from conftest import discard

    window = MainWindow(gui_settings)
    window.quiet = True
    window.ask_save_changes = discard  # closed with unsaved changes at teardown: no prompt
    qtbot.addWidget(window)
    window.set_language("ru")
    window.form.apply_model_preset("llama-2-7b")
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    grid = window.form.model_section.arch_box
    assert grid.isVisible()
    for _, _, label, field, _ in grid._cells:
        if field.isVisible():
            assert field.geometry().right() <= grid.width(), label.text()
            assert label.geometry().right() <= grid.width(), label.text()
    assert window.form.width() <= window.form.parentWidget().width()  # the scroll area shows the whole width


def _words(text: str) -> str:
    return " ".join(text.split())


def test_stage_names_never_overlap_whatever_the_room(qapp, gui_settings):
    font = QFont()
    for lang in ("en", "ru"):
        i18n.set_language(lang)
        for room in (40.0, 60.0, 77.0, 100.0, 160.0, 400.0):
            used, labels = stage_tick_labels(font, room)
            metrics = QFontMetrics(used)
            assert set(labels) == set(STAGES)
            widest = max(metrics.horizontalAdvance(line) for t in labels.values() for line in t.split("\n"))
            full = all(_words(labels[s]) == _words(i18n.stage_label(s)) for s in STAGES)
            assert widest <= room or not full, (lang, room, labels)  # full names only when they fit
            if not full:  # a word wider than the room: the stage numbers alone
                assert labels == {s: i18n.stage_short(s) for s in STAGES}
        i18n.set_language(lang)
        _, wide = stage_tick_labels(font, 400.0)
        assert [_words(wide[s]) for s in STAGES] == [_words(i18n.stage_label(s)) for s in STAGES]
    i18n.set_language("ru")
    _, narrow = stage_tick_labels(font, 60.0)
    assert narrow == {s: i18n.stage_short(s) for s in STAGES}  # "оптимизатора" alone is wider than 60 px


def test_the_plan_panel_fills_its_scroll_area_whether_it_scrolls_or_not(window, qtbot):
    scroll = window.plan_tab.parentWidget().parentWidget()  # viewport, then the FitScrollArea
    bar = scroll.verticalScrollBar()
    for size in ((1440, 900), (1024, 560)):  # the second is below the panel's minimum: it scrolls
        window.resize(*size)
        qtbot.waitUntil(lambda: window.plan_tab.width() == scroll.viewport().width())  # no empty strip
        assert bar.isVisible() == (window.plan_tab.height() > scroll.viewport().height())
