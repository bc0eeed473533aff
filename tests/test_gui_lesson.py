"""Lesson window, driven offscreen: every step in both languages, clicks, keys, presenter mode, handouts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QLabel

from zerodesk.core.accounting import compute
from zerodesk.core.glossary import load_glossary
from zerodesk.core.plan import Cluster, Plan

ROOT = Path(__file__).resolve().parents[1]


def figure1_params() -> int:
    """Figure 1's Ψ = 7.5B as the preset's stand-in shape counts it (7,500,009,472: 64 divides it)."""
    from zerodesk.core.catalog import find_model

    return find_model("paper-figure1").param_count


@pytest.fixture
def lesson(qtbot, gui_settings):
    from zerodesk.gui.lesson import LessonWindow

    w = LessonWindow()
    w.animate = False
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


def _labels_fit(window) -> list[str]:
    """Texts of visible labels that need more room than they have, or stick out of the window."""
    bad = []
    inside = window.rect()
    for label in window.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        need = label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        wide = not label.wordWrap() and label.sizeHint().width() > label.width() + 1
        box = label.geometry().translated(label.parentWidget().mapTo(window, QPoint(0, 0)))
        if need > label.height() + 1 or wide or not inside.contains(box):
            bad.append(label.text()[:60])
    return bad


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_walk_every_step(lesson, qapp, lang):
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.numbers import fmt_short_bytes
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language(lang)
    plan = lesson.plan
    b = compute(plan)
    images = []
    for n in range(1, lesson.count + 1):
        pixmap = render_step(lesson, n, (1280, 800))
        view = lesson.view
        step = lesson.lesson.steps[n - 1]
        assert view.title.text() == step.title and step.title  # the lesson's own text, by language
        assert view.boundary.text() == load_glossary(lang).claim(step.claim).boundary
        fig = view.current_figure()
        assert fig.clipped == [], (lang, n, fig.clipped)
        assert _labels_fit(lesson) == [], (lang, n)
        for number in fig.numbers_drawn():  # every drawn figure is the core's
            assert number == lesson.figures.numbers[number.key]
        if step.kind.startswith("stage"):
            s = int(step.kind[-1])
            drawn = {x.key: x for x in fig.numbers_drawn()}
            assert drawn[f"stage{s}"].bytes == b.stage(s).total_bytes
            assert fmt_short_bytes(b.stage(s).total_bytes, "GB").replace(" ", "&nbsp;") in view.text.text()
        images.append(pixmap.toImage())
    for i in range(len(images)):
        for j in range(i + 1, len(images)):
            assert images[i] != images[j], f"steps {i + 1} and {j + 1} look the same"
    assert "120" in lesson.view.text.text() or lesson.index == 6


def test_figure1_numbers_on_screen(lesson):
    from zerodesk.gui.lesson.render import render_step

    render_step(lesson, 5)
    chips = [n for n in lesson.view.rank_figure.numbers_drawn() if n.key in ("stage0", "stage1", "stage2", "stage3")]
    p = figure1_params()
    assert [n.bytes for n in chips[-4:]] == [16 * p, 4 * p + 12 * p // 64, 2 * p + 14 * p // 64, 16 * p // 64]
    assert [round(n.bytes / 1e9, 1) for n in chips[-4:]] == [120.0, 31.4, 16.6, 1.9]  # the paper's own figures
    assert "1.88&nbsp;GB" in lesson.view.text.text() and ">1.5<" in lesson.view.text.text()


def test_click_a_number_shows_its_formula(lesson, qtbot):
    from zerodesk.gui.lesson.render import render_step

    render_step(lesson, 3)
    fig = lesson.view.rank_figure
    rect = fig.hit_rect("stage1")
    assert rect is not None
    qtbot.mouseClick(fig, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    text = lesson.view.formula.text()
    p = figure1_params()
    assert "4P + 12P/Nd" in text and f"{4 * p + 12 * p // 64:,} B" in text and "Nd = 64" in text
    lesson.view.text.linkActivated.emit("num:stage0")  # numbers in the sentences are links
    assert "16P" in lesson.view.formula.text() and f"{16 * p:,} B" in lesson.view.formula.text()


def test_nd_and_model_changes_follow_everywhere(lesson, qtbot):
    from zerodesk.gui.lesson.render import render_step

    render_step(lesson, 5)
    lesson.dp_spin.setValue(8)
    assert lesson.plan.dp == 8 and lesson.figures.stage_totals[3].bytes == 2 * figure1_params()
    render_step(lesson, 5)
    assert "15.0&nbsp;GB" in lesson.view.text.text()
    assert lesson.view.rank_figure.hit_rect("stage3") is not None
    lesson.set_model("llama-2-7b")
    assert lesson.figures.params == lesson.plan.params and lesson.plan.dp == 8
    render_step(lesson, 6)
    keys = {n.key for n in lesson.view.peak_figure.numbers_drawn()}
    assert {"act_layers", "act_logits", "peak3"} <= keys  # the estimate on top, shapes known
    lesson.dp_spin.setValue(200)  # more ranks than boxes drawn: still no clipped text
    render_step(lesson, 2)
    assert lesson.view.rank_figure.clipped == []


def test_keys_clicker_presenter_and_escape(lesson, qtbot):
    lesson.go(0)
    lesson.view.setFocus()
    for key, want in ((Qt.Key.Key_PageDown, 1), (Qt.Key.Key_Right, 2), (Qt.Key.Key_Down, 3), (Qt.Key.Key_Space, 4),
                      (Qt.Key.Key_PageUp, 3), (Qt.Key.Key_Left, 2), (Qt.Key.Key_End, 6), (Qt.Key.Key_Home, 0)):
        qtbot.keyClick(lesson.view, key)
        assert lesson.index == want, key
    lesson.dp_spin.setFocus()
    qtbot.keyClick(lesson.dp_spin, Qt.Key.Key_PageDown)  # a clicker while the spin box has the focus
    assert lesson.index == 1 and lesson.plan.dp == 64
    lesson.set_presenter(True)
    assert lesson.presenting and lesson.view.style_.name == "presenter" and lesson.view.style_.scale >= 1.3
    assert not lesson.nav.isVisible()
    lesson.escape()
    assert not lesson.presenting and lesson.view.style_.name == "desk" and lesson.isVisible()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_presenter_mode_fits_at_projector_sizes(lesson, lang):
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language(lang)
    lesson.set_model("llama-2-7b")  # with the activation estimate, the fullest step 6
    lesson.set_presenter(True)
    for size in ((1280, 800), (1920, 1080)):
        for n in range(1, lesson.count + 1):
            render_step(lesson, n, size)
            lesson._apply_style()
            render_step(lesson, n, size)
            assert lesson.view.current_figure().clipped == [], (size, n)
            assert _labels_fit(lesson) == [], (size, n)


def test_language_switches_at_run_time(lesson):
    lesson.go(2)
    assert lesson.view.title.text().startswith("Stage 1")
    lesson.lang_combo.setCurrentIndex(lesson.lang_combo.findData("ru"))
    lesson.lang_combo.activated.emit(lesson.lang_combo.currentIndex())
    assert lesson.view.title.text() == "Стадия 1: разделение состояний оптимизатора"
    assert lesson.next_button.text() == "Далее ▶" and "31,4&nbsp;ГБ" in lesson.view.text.text()


def test_handouts_pdf_and_png(lesson, tmp_path):
    from zerodesk.gui.lesson import handouts

    pdf = handouts.export_pdf(lesson, tmp_path / "lesson.pdf")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", data)) == lesson.count
    slides = handouts.export_slides(lesson, tmp_path / "slides")
    assert [p.name for p in slides] == [f"lesson-0{i}.png" for i in range(1, 8)]
    assert len({p.read_bytes() for p in slides}) == lesson.count
    assert lesson.index == 0  # the lesson on screen stays where it was


def test_help_menu_and_toolbar_open_the_lesson(window):
    act = window.findChild(type(window.act_about), "actLesson")
    assert act in window.menu_help.actions() and act in window.toolbar.actions()
    act.trigger()
    assert window.lesson_window is not None and window.lesson_window.isVisible()
    window.set_language("ru")
    assert act.text().startswith("&Урок") and window.lesson_window.view.title.text().startswith("16 байт")
    window.lesson_window.close()


def test_cli_renders_a_step_offscreen(tmp_path):
    out = tmp_path / "step.png"
    run = subprocess.run([sys.executable, "-m", "zerodesk", "--lang", "ru", "--lesson", "3", "--screenshot", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "zerodesk", "--lesson", "12", "--screenshot", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert bad.returncode == 2 and "from 1 to 7" in bad.stderr and "Traceback" not in bad.stderr




def test_transitions_are_animated(lesson, qtbot):
    lesson.animate = True
    lesson.go(2, animate=False)  # stage 1: the optimizer states are split
    fig = lesson.view.rank_figure
    assert fig.value("split_master") == 1.0 and fig.value("split_grads") == 0.0
    lesson.next()  # stage 2: the gradient strips shrink into their slices
    assert fig.animating and fig.value("split_grads") < 0.5
    qtbot.waitUntil(lambda: 0.0 < fig.value("split_grads") < 1.0, timeout=2000)  # caught in between
    qtbot.waitUntil(lambda: not fig.animating, timeout=3000)
    assert fig.value("split_grads") == 1.0
    assert fig.value("bytes_grads") == lesson.figures.stage_components[2]["grads"]


def test_the_main_windows_plan_is_a_choice(window):
    window.form.apply_card_example()
    window.act_lesson.trigger()
    lesson = window.lesson_window
    assert lesson.model_combo.itemText(0).startswith("The plan in the window")
    lesson.model_combo.setCurrentIndex(0)
    lesson.model_combo.activated.emit(0)
    assert lesson.plan.params == 2_000_000_000 and lesson.plan.dp == 4
    assert lesson.figures.stage_totals[1].bytes == 14_000_000_000
    lesson.close()


def test_f11_and_escape_keys(lesson, qtbot):
    lesson.activateWindow()
    qtbot.keyClick(lesson.view, Qt.Key.Key_F11)
    assert lesson.presenting and lesson.presenter_button.isChecked()
    qtbot.keyClick(lesson.view, Qt.Key.Key_Escape)
    assert not lesson.presenting and lesson.isVisible()


def test_a_plan_from_flags_teaches_with_its_own_model(qtbot, gui_settings):
    from zerodesk.core.plan import ModelSpec
    from zerodesk.gui.lesson import LessonWindow

    plan = Plan(model=ModelSpec(params=3_000_000_000), cluster=Cluster(nodes=1, gpus_per_node=6))
    w = LessonWindow(plan)
    qtbot.addWidget(w)
    assert w.model_combo.currentIndex() == 0 and w.model_combo.currentText() == "P = 3,000,000,000"
    assert w.figures.stage_totals[3].bytes == 16 * 3_000_000_000 // 6
    w.set_model("gpt2")  # back and forth through the list keeps the plan's own entry
    w.model_combo.setCurrentIndex(0)
    w.model_combo.activated.emit(0)
    assert w.plan.params == 3_000_000_000 and w.plan.dp == 6


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_step_six_shows_a_predicted_peak_per_stage_on_the_default_preset(lesson, lang):
    """The card's main message (the states are not the peak) is never an empty chart on the default model."""
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language(lang)
    assert lesson.plan.model.name == "paper-figure1"
    render_step(lesson, 6)
    fig = lesson.view.peak_figure
    drawn = {n.key: n for n in fig.numbers_drawn()}
    assert {"peak0", "peak1", "peak2", "peak3", "act_layers", "act_logits"} <= set(drawn)
    for s in range(4):
        assert drawn[f"peak{s}"].bytes == lesson.figures.peak(s) > lesson.figures.stage_totals[s].bytes
    assert fig.clipped == [] and "{" not in lesson.view.text.text()


def test_russian_nouns_agree_with_the_figures_on_screen(lesson):
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language("ru")
    render_step(lesson, 2)
    assert re.search(r"у каждого из <a [^>]*><b>64</b></a>&nbsp;участников", lesson.view.text.text())
    render_step(lesson, 5)
    text = lesson.view.text.text()
    assert re.search(r"<b>64</b></a>&nbsp;раза меньше", text) and re.search(r"<b>1,5</b></a>&nbsp;раза больше", text)
    lesson.dp_spin.setValue(8)
    render_step(lesson, 5)
    assert re.search(r"<b>8</b></a>&nbsp;раз меньше", lesson.view.text.text())
    lesson.dp_spin.setValue(21)
    render_step(lesson, 2)
    assert re.search(r"<b>21</b></a>&nbsp;участника", lesson.view.text.text())


# -- presenter mode: legible from the back of a room ------------------------------------------------------------
def _widget_texts(window) -> list[tuple[str, QLabel]]:
    return [(w.text(), w) for w in window.findChildren(QLabel) if w.isVisible() and w.text()]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_presenter_mode_keeps_every_text_above_its_floor(lesson, lang):
    """No text in presenter mode, boundary box and figure labels included, is smaller than 1/40 of the screen
    height (27 px at 1080 lines): the figures drop detail to fit, never type size."""
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step
    from zerodesk.gui.lesson.style import FLOOR_SHARE

    i18n.set_language(lang)
    lesson.set_presenter(True)
    dpi = lesson.logicalDpiY()
    for model in ("paper-figure1", "llama-2-7b", "card-example"):
        lesson.set_model(model)
        for size in ((1280, 800), (1920, 1080)):
            floor_px = size[1] * FLOOR_SHARE - 0.5
            for n in range(1, lesson.count + 1):
                render_step(lesson, n, size)
                lesson._apply_style()
                render_step(lesson, n, size)
                fig = lesson.view.current_figure()
                assert fig.drawn_points and min(fig.drawn_points) * dpi / 72 >= floor_px, (model, size, n)
                assert fig.clipped == [], (model, size, n, fig.clipped)
                small = [t[:40] for t, w in _widget_texts(lesson) if QFontInfo(w.font()).pixelSize() < floor_px]
                assert small == [], (model, size, n)
                assert lesson.view.boundary.isVisible() and _labels_fit(lesson) == [], (model, size, n)
    lesson.set_presenter(False)
    assert lesson.view.style_.min_points == 0 and lesson.controls.pdf_button.isVisible()


def test_presenter_mode_hides_the_desk_hint_but_shows_a_clicked_formula(lesson, qtbot):
    from zerodesk.gui.lesson.render import render_step

    lesson.set_presenter(True)
    render_step(lesson, 3, (1920, 1080))
    assert not lesson.view.formula.isVisible()  # "click a number" is for the desk
    fig = lesson.view.rank_figure
    qtbot.mouseClick(fig, Qt.MouseButton.LeftButton, pos=fig.hit_rect("stage1").center().toPoint())
    assert lesson.view.formula.isVisible() and "4P + 12P/Nd" in lesson.view.formula.text()


# -- the handouts lay out as the screen does ----------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_handout_pages_and_slides_show_every_boundary_whole(lesson, lang):
    """Issue 25 item 5: a step view that is never shown kept its boundary label at a stale size, cutting the first
    line and the end. Every page and slide: the label lies inside its box, as tall as its text needs."""
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson import handouts
    from zerodesk.gui.lesson.style import DESK, presenter

    i18n.set_language(lang)
    for model in ("paper-figure1", "llama-2-7b"):
        lesson.set_model(model)
        for size, style in ((handouts.PAGE_VIEW, DESK), (handouts.SLIDE, DESK), (handouts.SLIDE, presenter(1920, 1080))):
            view = handouts._view(lesson, style, size)
            try:
                for i in handouts._steps(lesson, view):
                    box, label = view.boundary_box, view.boundary
                    assert box.contentsRect().contains(label.geometry()), (model, size, i)
                    assert label.height() >= label.heightForWidth(label.width()) - 1, (model, size, i)
                    assert view.text.height() >= view.text.heightForWidth(view.text.width()) - 1, (model, size, i)
                    assert view.current_figure().clipped == [], (model, size, i)
            finally:
                view.close()
                view.deleteLater()


def test_the_rank_grid_is_one_rule_on_screen_and_on_paper(lesson):
    """Issue 25 item 12: 64 ranks are 8 x 8 in the window, on every handout page and slide and in presenter mode,
    never 7 columns and one box alone; the grid follows Nd alone, and no grid leaves its last row half empty."""
    from zerodesk.gui.lesson import handouts
    from zerodesk.gui.lesson.rank_figure import grid_shape
    from zerodesk.gui.lesson.render import render_step
    from zerodesk.gui.lesson.style import DESK, presenter

    for n in range(2, 6):
        render_step(lesson, n)
        assert lesson.view.rank_figure.grid == (8, 8)
    for size, style in ((handouts.PAGE_VIEW, DESK), (handouts.SLIDE, presenter(1920, 1080))):
        view = handouts._view(lesson, style, size)
        try:
            grids = [view.rank_figure.grid for i in handouts._steps(lesson, view) if 1 <= i <= 4]
            assert grids == [(8, 8)] * 4, size
        finally:
            view.close()
            view.deleteLater()
    for n in range(1, 129):
        cols, rows = grid_shape(n)
        assert cols >= rows and cols * rows >= n and 2 * (cols * rows - n) < cols, (n, cols, rows)
        assert cols <= 2 * rows + 1, (n, cols, rows)  # about square


# -- step 6: the unknown is not an amount ---------------------------------------------------------------------
def test_fragmentation_is_drawn_as_an_unknown_not_an_amount(lesson):
    """The '?' on each bar has one size in pixels whatever the bars hold (it was 18% of the tallest bar, larger
    than the stage-3 bar), and the bars' scale leaves no room for an amount."""
    from zerodesk.gui.lesson.render import render_step

    heights = {}
    for model in ("paper-figure1", "card-example"):
        lesson.set_model(model)
        render_step(lesson, 6)
        fig = lesson.view.peak_figure
        marks = fig.unknown_marks
        assert len(marks) == 4 and len({round(m.height(), 3) for m in marks}) == 1
        assert len({round(m.width(), 3) for m in marks}) == 1
        heights[model] = marks[0].height()
        assert "?" in fig.drawn_texts
    assert heights["paper-figure1"] == pytest.approx(heights["card-example"])


# -- the lesson in the UI language -------------------------------------------------------------------------------
def test_presets_and_step_six_name_models_by_their_labels(lesson):
    from zerodesk.core.catalog import model_presets
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language("ru")
    presets = {p.name: p for p in model_presets()}
    items = {lesson.model_combo.itemData(i): lesson.model_combo.itemText(i) for i in range(lesson.model_combo.count())}
    for name, text in items.items():
        if name in presets:
            assert text == (presets[name].labels.get("ru") or presets[name].label) and text != name
    assert items["paper-figure1"].startswith("Рисунок 1 статьи ZeRO")
    render_step(lesson, 6)
    title = lesson.view.peak_figure.drawn_texts[0]
    assert "Рисунок 1 статьи ZeRO" in title and "paper-figure1" not in title
    lesson.set_model("card-example")
    render_step(lesson, 6)
    drawn = " ".join(lesson.view.peak_figure.drawn_texts)
    assert "Llama 2 7B" in drawn and "llama-2-7b" not in drawn  # the example model, by its label
    i18n.set_language("en")
    assert lesson.model_combo.itemText(lesson.model_combo.findData("paper-figure1")).startswith("ZeRO paper Figure 1")


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_formulas_are_written_in_the_ui_language(lesson, lang):
    """Every formula the lesson shows: in English the core's own words, in Russian Cyrillic units and words."""
    from test_gui_russian import english_words

    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson import numbers as fmt
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language(lang)
    lesson.set_model("llama-2-7b")
    figures = lesson.figures
    for number in figures.numbers.values():
        shown = fmt.formula(number)
        first, second = fmt.formula_lines(number, figures, "GB")
        if lang == "en":
            assert shown == number.formula, number.key  # the English here is the core's, word for word
        else:
            text = f"{first} {second}"
            assert not re.search(r"(?<![\w.])(B|GB|GiB)(?!\w)", text), (number.key, text)
            assert english_words(re.sub(r"log-softmax", "", text)) == [], (number.key, text)
    render_step(lesson, 5)
    drawn = " ".join(lesson.view.rank_figure.drawn_texts)
    assert ("2P × 2 Б" if lang == "ru" else "2P × 2 B") in drawn


def test_counts_pick_qt_numerus_forms_in_russian(lesson):
    from zerodesk.gui.base import i18n
    from zerodesk.gui.lesson.render import render_step

    i18n.set_language("ru")
    for nd, noun in ((1, "участник,"), (2, "участника,"), (5, "участников,"), (21, "участник,"), (64, "участника,"),
                     (111, "участников,"), (1000, "участников;")):
        lesson.set_dp(nd)
        render_step(lesson, 2)
        head = lesson.view.rank_figure.drawn_texts[0]
        assert head.startswith(f"Nd = {i18n.fmt_int(nd)} {noun}"), head
    i18n.set_language("en")
    lesson.set_dp(1)
    render_step(lesson, 2)
    assert lesson.view.rank_figure.drawn_texts[0] == "Nd = 1 rank, one box"


def test_a_step_renders_in_presenter_mode_offscreen(qapp, gui_settings, tmp_path):
    """lesson.render.screenshot(presenter=True): the way to look at a projector slide without a projector."""
    from PySide6.QtGui import QImage

    from zerodesk.gui.lesson import render

    out = tmp_path / "step5.png"
    assert render.screenshot(out, 5, size=(1280, 800), presenter=True) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    assert image.pixelColor(640, 790).lightness() < 40  # white on black
    assert render.screenshot(tmp_path / "desk.png", 5, size=(1280, 800)) == 0
    assert QImage(str(tmp_path / "desk.png")).pixelColor(640, 790).lightness() > 200
