"""The window as a user meets it: tooltips, shortcuts in text fields, fitting axes, exports, keyboard."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QToolTip

from zerodesk.core.accounting import compute
from zerodesk.core.residuals import activation_estimate

ROOT = Path(__file__).resolve().parents[1]


def choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def hover(qtbot, chart, pos: QPoint) -> None:
    qtbot.mouseMove(chart.viewport(), pos)
    chart.scene().sigMouseMoved.emit(chart.mapToScene(pos))


# -- tooltips and the status bar --------------------------------------------------------------------
def test_a_bar_tooltip_stays_while_the_mouse_rests(plan_tab, qtbot):
    chart = plan_tab.chart
    pos = chart.segment_widget_pos(0, "master")
    hover(qtbot, chart, pos)
    assert "FP32 master weights" in chart.hover_text
    # Qt's ToolTip event comes ~0.7 s after the mouse stops; pyqtgraph's scene used to hide every tip on it
    event = QHelpEvent(QEvent.Type.ToolTip, pos, chart.viewport().mapToGlobal(pos))
    QApplication.sendEvent(chart.viewport(), event)
    assert QToolTip.isVisible() and "FP32 master weights" in QToolTip.text()



def test_hovering_keeps_the_status_bar_explanation(window, qtbot):
    explanation = window.status_note.text()
    assert explanation.startswith("Computed: model states per rank")
    hover(qtbot, window.chart, window.chart.segment_widget_pos(1, "params"))
    assert "Stage 1 · Parameters" in window.statusBar().currentMessage()
    window.statusBar().clearMessage()  # what the 3 s timeout does
    assert window.status_note.text() == explanation and not window.status_note.isHidden()


def test_the_memory_versus_nd_chart_answers_hover(plan_tab, qtbot):
    dp = plan_tab.dp_chart
    vb = dp.getPlotItem().vb
    nd, nbytes = 16, dp.sweep()[3][dp.grid.index(16)]
    dp.scene().sigMouseMoved.emit(vb.mapViewToScene(QPointF(math.log2(nd), dp._ty(nbytes / 1e9))))
    assert dp.hover_text.startswith("<b>Stage 3 · Nd = 16</b>")
    assert f"{nbytes / 1e9:.2f} GB per rank" in dp.hover_text

def test_a_small_model_is_not_squashed_by_a_big_gpu(form, plan_tab, qtbot):
    choose(form.field("model.preset"), "pythia-70m")
    choose(form.field("cluster.gpu"), "a100-80gb")
    chart = plan_tab.chart
    top = max([s.total_bytes for s in form.model.breakdown.stages] + [p.total_bytes for p in chart.peaks]) / 1e9
    (_, _), (y0, y1) = chart.getPlotItem().vb.viewRange()
    assert y1 < 2 * top  # the bars and the predicted peak above them fill the chart
    assert not chart.gpu_line_shown()
    assert chart.gpu_above_text().startswith("↑ GPU memory 85.90 GB")
    assert not plan_tab.dp_chart.gpu_line_shown() or plan_tab.dp_chart.log_y
    # on a log axis the GPU line fits beside the bars again
    plan_tab.log_toggle.setChecked(True)
    assert chart.log_y and chart.gpu_line_shown() and chart.menu.log_action.isChecked()
    totals = [s.total_bytes / 1e9 for s in form.model.breakdown.stages]
    data = chart.bar_data()
    keys = list(data)
    tops = [data[keys[-1]]["y0"][i] + data[keys[-1]]["height"][i] for i in range(4)]
    assert tops == pytest.approx([math.log10(t) for t in totals])
    assert chart.segment_at(0, (data[keys[0]]["y0"][0] + tops[0]) / 2) is not None
    plan_tab.log_toggle.setChecked(False)
    assert not chart.log_y and not chart.gpu_line_shown()



def test_a_gpu_close_to_the_bars_stays_on_the_axis(form, plan_tab, qtbot):
    choose(form.field("cluster.gpu"), "a100-40gb")  # 40 GB beside the card's 32 / 14 / 11 / 8 GB
    assert plan_tab.chart.gpu_line_shown() and plan_tab.chart.gpu_above_text() == ""



def test_the_log_scale_is_in_each_charts_own_menu(plan_tab):
    from zerodesk.gui.base import i18n

    for plot in (plan_tab.chart, plan_tab.dp_chart):
        assert plot.scene().contextMenu == []  # pyqtgraph's untranslated "Export..." is gone
        menu = plot.menu.build()
        texts = [a.text() for a in menu.actions() if not a.isSeparator()]
        assert texts == ["Export Charts as PNG…", "Export Charts as SVG…", "Logarithmic Scale"]
    plan_tab.dp_chart.menu.log_action.setChecked(False)
    assert not plan_tab.dp_chart.log_y and not plan_tab.dp_log_toggle.isChecked()
    exported = []
    plan_tab.exportRequested.connect(exported.append)
    plan_tab.chart.menu.build().actions()[1].trigger()
    assert exported == [".svg"]  # the menu asks whoever holds the tab to export
    i18n.set_language("ru")
    texts = [a.text() for a in plan_tab.chart.menu.build().actions() if not a.isSeparator()]
    assert texts == ["Экспорт диаграмм в PNG…", "Экспорт диаграмм в SVG…", "Логарифмическая шкала"]



def test_totals_and_the_warning_never_overlap_at_1024x700(window, qtbot):
    window.resize(1024, 700)
    window.fit_docks()
    for _ in range(3):
        QApplication.processEvents()
    panel = window.plan_tab
    assert panel.chart.width() > 350  # not the 220 px of old
    rects = [t.sceneBoundingRect() for t in window.chart._total_labels]
    for a, b in zip(rects, rects[1:]):
        assert a.right() <= b.left() + 1, (a, b)
    chart_bottom = panel.chart.mapTo(panel, QPoint(0, panel.chart.height())).y()
    warning_top = panel.warning.mapTo(panel, QPoint(0, 0)).y()
    assert warning_top >= chart_bottom


# -- shortcuts in text fields --------------------------------------------------------------------------
def test_window_shortcuts_work_while_a_text_field_has_focus(window, qtbot):
    field = window.form.field("model.params")
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    qtbot.keyClick(field, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)
    assert window.model.plan.units == "GiB" and field.text() == "2B"  # units switched, nothing erased
    exported = []
    window.export_dialog = lambda suffix: exported.append(suffix) or True
    qtbot.keyClick(field, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert exported == [".png"]
    # the field keeps its own editing keys
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert field.selectedText() == "2B"


# -- exports ------------------------------------------------------------------------------------------
def test_svg_export_draws_the_bars_outside_qt_too(form, plan_tab, tmp_path):
    choose(form.field("cluster.gpu"), "a100-80gb")
    path = tmp_path / "chart.svg"
    assert plan_tab.export_svg(path)
    text = path.read_text(encoding="utf-8")
    assert "non-scaling-stroke" not in text
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed")
    png = tmp_path / "chart.png"
    subprocess.run([rsvg, "-w", str(plan_tab.width()), "-h", str(plan_tab.height()), str(path), "-o", str(png)],
                   check=True, timeout=60)
    image = QImage(str(png))
    for stage, key, color in ((0, "adam_v", "#d55e00"), (1, "grads", "#e69f00"), (0, "params", "#0072b2")):
        p = plan_tab.chart.mapTo(plan_tab, plan_tab.chart.segment_widget_pos(stage, key))
        got = image.pixelColor(p.x(), p.y())
        want = QColor(color)
        assert max(abs(got.red() - want.red()), abs(got.green() - want.green()), abs(got.blue() - want.blue())) < 40, (
            stage, key, got.name())

def test_table_captions_verdicts_and_headers(form, table_tab, plan_tab, qtbot):
    choose(form.field("model.preset"), "llama-2-7b")
    choose(form.field("cluster.gpu"), "a100-80gb")
    type_into = form.field("micro_batch")
    type_into.setText("16")
    type_into.textEdited.emit("16")
    rows = {r[0]: r[1:] for r in table_tab.rows()}
    act = activation_estimate(form.model.plan)
    assert act is not None
    both = rows["States + activations vs GPU memory"]
    b = compute(form.model.plan)
    need3 = b.stage(3).total_bytes + act.total_bytes
    gpu = form.model.plan.cluster.gpu_memory_bytes
    assert (both[3].startswith("over by ") and "needs" in both[3]) == (need3 > gpu)
    over0 = rows["States vs GPU memory"][0]
    assert over0.startswith("over by ") and f"needs {100 * b.stage(0).total_bytes / gpu:,.0f}% of 85.90 GB" in over0
    header = table_tab.table.horizontalHeader()
    metrics = header.fontMetrics()
    for c in range(table_tab.table.columnCount()):
        text = table_tab.table.horizontalHeaderItem(c).text()
        widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert header.sectionSize(c) >= widest, text
    assert "Mixed-precision" in plan_tab.caption.text()
    choose(form.field("profile"), "torch")
    caption = "\n".join(table_tab._caption_lines)
    assert "Mixed-precision" not in caption and "scheme:" not in caption and "AdamW" in caption
    assert "Mixed-precision" not in plan_tab.caption.text()

def test_glossary_search_scrolls_to_the_first_match(glossary, qtbot):
    g = glossary
    g.browser.verticalScrollBar().setValue(0)
    g.search.setText("fragment")
    assert g.visible_claim_ids() and g.browser.verticalScrollBar().value() > 0



def test_tab_leaves_the_glossary_card_without_walking_its_links(glossary, qtbot):
    g = glossary
    g.browser.setFocus()
    qtbot.waitUntil(g.browser.hasFocus)
    qtbot.keyClick(g.browser, Qt.Key.Key_Tab)
    assert not g.browser.hasFocus()

def test_view_menu_names_the_plan_tab(window):
    assert window.act_tab_plan.text() == "&Plan" and window.tabs.tabText(0) == "Plan"
    assert window.act_tab_plan.shortcut() == QKeySequence("Ctrl+1")


def test_dark_theme_is_a_choice_and_the_charts_follow(window):
    from PySide6.QtGui import QPalette

    try:
        window.theme_actions["dark"].trigger()
        QApplication.processEvents()
        assert QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 80
        assert window.chart.backgroundBrush().color().lightness() < 80
        assert window.settings.theme == "dark"
        window.theme_actions["light"].trigger()
        QApplication.processEvents()
        assert window.chart.backgroundBrush().color().lightness() > 200
    finally:
        window.theme_actions["system"].trigger()
        QApplication.processEvents()


def test_screenshot_mode_takes_lang_size_and_theme(tmp_path):
    shot = tmp_path / "ru.png"
    code = textwrap.dedent(f"""
        import sys, tempfile
        from PySide6.QtCore import QSettings
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
        from zerodesk.cli import main
        sys.exit(main(["--screenshot", {str(shot)!r}, "--lang", "ru", "--size", "1024x700", "--theme", "dark"]))
    """)
    env = {k: v for k, v in __import__("os").environ.items() if k != "QT_QPA_PLATFORM"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert out.returncode == 0, out.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1024, 700)
    assert image.pixelColor(5, 5).lightness() < 100  # dark
    bad = subprocess.run([sys.executable, "-m", "zerodesk", "--size", "huge", "--screenshot", str(tmp_path / "x.png")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert bad.returncode == 2 and "--size must be WIDTHxHEIGHT" in bad.stderr
