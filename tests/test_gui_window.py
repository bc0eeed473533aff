"""The window as a user meets it: tooltips, shortcuts in text fields, fitting axes, exports, keyboard."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
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
    rects = [t.sceneBoundingRect() for t in window.chart.labels.totals]
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


# -- the stage chart's labels: none covers another, a bar, the hatched peak or a run marker ----------------
def _scene_rects_of_labels(chart):
    """Every visible text on the plot (totals, peaks, the GPU line's label, the note at the top, the runs' %)."""
    import pyqtgraph as pg

    chart.grab()  # a paint: every text item takes its transform for the current view
    out = []
    for item in chart.scene().items():
        if isinstance(item, pg.TextItem) and item.isVisible() and item.textItem.toPlainText().strip():
            out.append((item.textItem.toPlainText(), item.mapRectToScene(item.textItem.mapRectToParent(
                item.textItem.boundingRect()))))
    return out


def _scene_rects_of_shapes(chart):
    """The bars' segments, the hatched peak layer and the run markers, in scene coordinates."""
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF

    vb = chart.getPlotItem().vb
    out = []
    for item in vb.addedItems:
        if isinstance(item, pg.BarGraphItem) and item.isVisible():
            o = item.opts
            for x, y0, h in zip(o["x"], o["y0"], o["height"]):
                if h > 0:
                    a, b = vb.mapViewToScene(QPointF(x - o["width"] / 2, y0)), vb.mapViewToScene(QPointF(x + o["width"] / 2, y0 + h))
                    out.append(("bar", QRectF(a, b).normalized()))
        elif isinstance(item, pg.ScatterPlotItem) and item.isVisible():
            for spot in item.points():
                c = vb.mapViewToScene(spot.pos())
                r = spot.size() / 2
                out.append(("marker", QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)))
    return out


def _overlap(a, b, tolerance=1.0) -> bool:
    inter = a.intersected(b)
    return inter.width() > tolerance and inter.height() > tolerance


def _assert_no_label_collides(chart, where: str) -> None:
    labels, shapes = _scene_rects_of_labels(chart), _scene_rects_of_shapes(chart)
    assert labels, where
    view = chart.getPlotItem().vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    for i, (text, rect) in enumerate(labels):
        assert view.contains(rect), (where, text, rect, view)  # nothing cut at the top (log scale) or a side
        for other, other_rect in labels[i + 1:]:
            assert not _overlap(rect, other_rect), (where, text, other, rect, other_rect)
        for kind, shape in shapes:
            assert not _overlap(rect, shape, 1.5), (where, text, kind, rect, shape)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_no_stage_chart_label_covers_another_or_a_bar_at_1024x700(window, qtbot, lang):
    """At 1024x700, in both languages, linear and log, with and without run markers, for a raw count, a model
    whose peak is drawn over a GPU line, and a tiny model: the label rectangles meet nothing."""
    from zerodesk.core import catalog
    from zerodesk.core.plan import Plan
    from zerodesk.gui.base import i18n
    from zerodesk.gui.form.fields import card_example, with_model_preset

    i18n.set_language(lang)
    window.resize(1024, 700)
    window.fit_docks()
    for _ in range(5):
        QApplication.processEvents()
    chart = window.chart
    h100 = catalog.find_gpu("h100-80gb").memory_bytes
    llama = with_model_preset(window.model.plan, "llama-2-7b")
    tiny = Plan.model_validate({**llama.model_dump(), "model": {"architecture": {
        "layers": 2, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 1000, "max_positions": 128}}, "seq_len": 64})
    plans = {
        "card example": card_example(window.model.plan),
        "llama-2-7b on an H100": llama.model_copy(update={"cluster": llama.cluster.model_copy(update={"gpu_memory_bytes": h100})}),
        "a tiny model on an H100": tiny.model_copy(update={"cluster": tiny.cluster.model_copy(update={"gpu_memory_bytes": h100})}),
    }
    for name, plan in plans.items():
        window.model.load(plan)
        for log in (False, True):
            window.plan_tab.log_toggle.setChecked(log)
            for runs in (False, True):
                chart.clear_measured()
                if runs:
                    b, peaks = window.model.breakdown, chart.peaks
                    for s in range(4):
                        top = peaks[s].total_bytes if peaks else b.stage(s).total_bytes
                        chart.overlay_measured(s, int(top * 1.03), b.stage(s).total_bytes, "simulated", "simulated",
                                               b.stage(s).total_bytes)
                        chart.overlay_measured(s, int(top * 0.97), int(b.stage(s).total_bytes * 1.01), "measured")
                QApplication.processEvents()
                _assert_no_label_collides(chart, f"{name}, {lang}, log={log}, runs={runs}")
    window.plan_tab.log_toggle.setChecked(False)
    chart.clear_measured()


# -- figures in a unit that fits them -----------------------------------------------------------------------
def test_a_small_model_steps_down_to_mib_on_the_axis_labels_hover_and_table(form, plan_tab, table_tab, qtbot):
    """A 164K-parameter model in GiB reads in MiB (or KiB) everywhere: never "0.00245 GiB"."""
    from zerodesk.core.plan import Plan
    from zerodesk.core.units import UNIT_BYTES

    tiny = Plan.model_validate({"model": {"architecture": {"layers": 1, "hidden": 64, "heads": 4, "ffn": 256,
                                                            "vocab": 800, "max_positions": 128}},
                                "cluster": {"nodes": 1, "gpus_per_node": 4}, "seq_len": 64, "units": "GiB"})
    form.model.load(tiny)
    assert 100_000 < form.model.plan.params < 200_000
    chart = plan_tab.chart
    assert chart.unit == "MiB"
    assert chart.getPlotItem().getAxis("left").labelText == "MiB per rank"
    stage0 = form.model.breakdown.stage(0).total_bytes
    assert chart.total_label_texts()[0] == f"{stage0 / UNIT_BYTES['MiB']:.2f} MiB"
    assert all(t.endswith(" MiB") for t in chart.total_label_texts() + [t for t in chart.peak_label_texts() if t])
    assert "GiB" not in chart.segment_text(0, "params") and " MiB" in chart.segment_text(0, "params")
    assert "figures in MiB (1 MiB = 2²⁰ B)" in plan_tab.caption.text()
    assert plan_tab.dp_chart.unit in ("MiB", "KiB") and "GiB" not in plan_tab.dp_chart.getPlotItem().getAxis("left").labelText
    rows = table_tab.rows()
    total = next(r for r in rows if r[0] == "Total model states")
    assert all(cell.endswith(" MiB") for cell in total[1:]), total
    form.toggle_units()  # the decimal family steps down the same way
    assert chart.unit == "MB" and table_tab.rows()[1][1].endswith(" MB")


def test_the_table_says_which_recompute_its_activations_assume(form, table_tab, qtbot):
    from zerodesk.gui.form.fields import with_model_preset

    form.model.load(with_model_preset(form.model.plan, "llama-2-7b"))
    table_tab.rows()
    assert "recompute: none" in table_tab.activations.text()
    for choice, words in (("selective", "recompute: selective (attention)"), ("full", "recompute: full (whole block)")):
        choose(form.field("recompute"), choice)
        table_tab.rows()
        assert words in table_tab.activations.text() and "no recomputation" not in table_tab.activations.text()


def test_a_raw_count_draws_no_peak_and_says_why(window):
    """The card example is a bare P: no activations, so no hatched "peak ≈ 40.00 GB" over its bars."""
    window.act_card.trigger()
    chart = window.chart
    assert chart.peaks == [] and chart.peak_label_texts() == ["", "", "", ""]
    assert chart.total_label_texts() == ["32.00 GB", "14.00 GB", "11.00 GB", "8.00 GB"]
    assert "No predicted peak is drawn" in window.plan_tab.warning.text()
    assert "predicted peak of the step" not in window.plan_tab.legend.text()
    rows = window.table_tab.rows()
    peak = next(r for r in rows if r[0] == "Predicted peak of the step (estimate)")
    assert all(cell.startswith("needs the architecture") for cell in peak[1:])
    window.form.apply_model_preset("llama-2-7b")  # an architecture: the peak is back, labelled
    assert len(chart.peaks) == 4 and all(t.startswith(("peak ≈", "≈")) for t in chart.peak_label_texts() if t)


# -- the mouse wheel ----------------------------------------------------------------------------------------
def _wheel(widget, steps: int = -1) -> None:
    """A wheel turned with the pointer over `widget`'s centre, as the platform delivers it: to its top-level window."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent

    centre = QPoint(widget.width() // 2, widget.height() // 2)
    top = widget.window()
    at = QPointF(widget.mapTo(top, centre))
    event = QWheelEvent(at, QPointF(widget.mapToGlobal(centre)), QPoint(0, 0), QPoint(0, 120 * steps),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(top.windowHandle(), event)


def test_the_wheel_scrolls_the_form_past_its_boxes_and_turns_a_box_only_with_focus(window, qtbot):
    """Scrolling the form over the Training scheme no longer makes it 8-bit Adam; a focused box still turns."""
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

    window.resize(1024, 700)
    QApplication.processEvents()
    scroll = window.form_dock.widget()
    scheme = window.form.field("scheme")
    window.form.field("model.params").setFocus()
    before, bar = scheme.currentIndex(), scroll.verticalScrollBar()
    assert bar.maximum() > 0  # the form scrolls at this size
    bar.setValue(0)
    _wheel(scheme, -1)
    assert scheme.currentIndex() == before and window.model.plan.scheme.value == "mixed-adam"
    assert bar.value() > 0  # the wheel went on to the scroll area
    assert scheme.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not hand it the focus either
    scheme.setFocus()
    qtbot.waitUntil(scheme.hasFocus)
    _wheel(scheme, -1)
    assert scheme.currentIndex() == before + 1  # focused: the wheel is the box's
    # every box of the window, built at start or later, is guarded the same way
    window.show_tab("measure")
    QApplication.processEvents()
    boxes = [w for w in window.measure_tab.findChildren(QComboBox) + window.measure_tab.findChildren(QAbstractSpinBox)
             if w.isVisible() and w.isEnabled() and not w.hasFocus()]
    assert boxes
    for box in boxes:
        state = box.currentIndex() if isinstance(box, QComboBox) else box.text()
        _wheel(box, -1)
        assert (box.currentIndex() if isinstance(box, QComboBox) else box.text()) == state and not box.hasFocus()


# -- flags for one run ---------------------------------------------------------------------------------------
RUN_AND_CLOSE = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QThread, QTimer
    from PySide6.QtWidgets import QApplication
    app = QApplication(sys.argv[:1])
    from zerodesk.gui.app import run_gui
    from zerodesk.gui.base import i18n
    resize = [int(v) for v in sys.argv[3].split("x")] if sys.argv[3] != "-" else None

    def close_soon():
        if QThread.currentThread().loopLevel() == 0:  # still starting (processEvents before exec): wait for the loop
            QTimer.singleShot(200, close_soon)
            return
        window = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow")
        if resize:  # the user resizes the window: that size is kept
            window.resize(*resize)
            QApplication.processEvents()
        print("RAN", i18n.current_language(), window.width(), window.height(), flush=True)
        window.close()

    QTimer.singleShot(1500, close_soon)
    lang = None if sys.argv[1] == "-" else sys.argv[1]
    size = None if sys.argv[2] == "-" else sys.argv[2]
    sys.exit(run_gui(None, None, None, lang, size))
""")


def test_lang_and_size_flags_are_for_one_run_and_an_ordinary_start_is_as_saved(tmp_path):
    """README: --lang and --size are for one run. After `zerodesk --lang ru --size 1024x700`, an ordinary start
    is in the saved language and at the saved size again."""
    import os

    screen = tmp_path / "screen.json"  # a full-HD screen: the offscreen one is 800 px, too small for these sizes
    screen.write_text('{"screens": [{"name": "hd", "x": 0, "y": 0, "width": 1920, "height": 1080, '
                      '"logicalDpiX": 96, "logicalDpiY": 96, "dpr": 1}]}', encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HOME": str(tmp_path), "LANGUAGE": "en", "LC_ALL": "C.UTF-8"}

    def run(lang: str, size: str, resize: str) -> list[str]:
        out = subprocess.run([sys.executable, "-c", RUN_AND_CLOSE, lang, size, resize], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr
        return next(line for line in out.stdout.splitlines() if line.startswith("RAN")).split()[1:]

    assert run("-", "-", "1300x850") == ["en", "1300", "850"]  # the user's own size, saved at close
    assert run("ru", "1024x700", "-") == ["ru", "1024", "700"]  # the flags, for this run
    assert run("-", "-", "-") == ["en", "1300", "850"]  # and back to what was saved


def test_the_process_ends_with_the_window_its_settings_saved_and_exit_handlers_run(tmp_path):
    """Ctrl+Q: the window closes, the process ends at once (no teardown of every object), yet what a normal exit
    does is done: a setting changed just before is on disk, the exit handlers ran, the exit code is kept."""
    import os

    code = textwrap.dedent("""
        import atexit, sys
        from PySide6.QtCore import QThread, QTimer
        from PySide6.QtWidgets import QApplication
        app = QApplication(sys.argv[:1])
        from zerodesk.gui.app import run_gui
        atexit.register(lambda: print("EXIT HOOK", flush=True))

        def quit_soon():
            if QThread.currentThread().loopLevel() == 0:
                QTimer.singleShot(200, quit_soon)
                return
            window = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow")
            window.set_language("ru")  # written to the settings' file only when they sync
            window.act_quit.trigger()

        QTimer.singleShot(500, quit_soon)
        print("RETURNED", run_gui(), flush=True)  # never printed: the process ends in run_gui
    """)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "EXIT HOOK" in out.stdout and "RETURNED" not in out.stdout
    ini = next((tmp_path / "config").rglob("*.conf"), None) or next((tmp_path / "config").rglob("*.ini"))
    assert "language=ru" in ini.read_text(encoding="utf-8")


def _ink_gaps(image: QImage, top: int, bottom: int, right: int) -> tuple[int, int]:
    """(the widest run of columns without dark ink between the first and the last inked column of a text line,
    the last inked column): the band is on the text when the ink runs across the line."""
    inked = [x for x in range(min(right, image.width())) if any(image.pixelColor(x, y).lightness() < 110 for y in range(top, bottom))]
    return max((b - a for a, b in zip(inked, inked[1:])), default=0), max(inked, default=0)


def test_exports_hold_the_charts_not_the_controls_and_render_alike_in_imagemagick_and_librsvg(form, plan_tab, tmp_path):
    """PNG and SVG hold the captions and charts, not the Log scale boxes or the splitter's handle; the SVG's
    text is in the font Qt used, at Qt's length, so ImageMagick's own renderer (MSVG) and librsvg draw the title's
    bold and plain runs side by side, and the predicted peak's hatch is drawn in both (not solid grey)."""
    choose(form.field("model.preset"), "llama-2-7b")
    png, svg = tmp_path / "chart.png", tmp_path / "chart.svg"
    assert plan_tab.export_png(png, scale=1.0) and plan_tab.export_svg(svg)
    image = QImage(str(png))
    box = plan_tab.log_toggle.geometry()
    colors = {image.pixelColor(x, y).name() for x in range(box.left(), box.right()) for y in range(box.top(), box.bottom())}
    assert len(colors) == 1, colors  # the background only: no box, no "Log scale"
    handle = plan_tab.splitter.handle(1)
    at = handle.mapTo(plan_tab, handle.rect().center())
    assert len({image.pixelColor(at.x() + dx, at.y()).name() for dx in range(-20, 20)}) == 1  # no handle's dots
    text = svg.read_text(encoding="utf-8")
    assert "Log scale" not in text and 'font-family="Sans Serif"' not in text
    assert all("textLength=" in run for run in re.findall(r"<text [^>]*>", text))
    tools = {"librsvg": shutil.which("rsvg-convert"), "imagemagick": shutil.which("convert")}
    if not all(tools.values()):
        pytest.skip("rsvg-convert (librsvg2-bin) and convert (imagemagick) are needed to render the SVG")
    renders = {"librsvg": tmp_path / "rsvg.png", "imagemagick": tmp_path / "msvg.png"}
    subprocess.run([tools["librsvg"], "-b", "white", str(svg), "-o", str(renders["librsvg"])], check=True, timeout=60)
    subprocess.run([tools["imagemagick"], f"MSVG:{svg}", str(renders["imagemagick"])], check=True, timeout=120)
    caption = QRect(plan_tab.caption.mapTo(plan_tab, QPoint(0, 0)), plan_tab.caption.size())  # in the file's coordinates
    line = plan_tab.caption.fontMetrics().height()
    chart = plan_tab.chart
    peak = chart.mapTo(plan_tab, chart.segment_widget_pos(0, "params"))  # x of stage 0
    low, high = chart.hits.peak_span(0)
    vb = chart.getPlotItem().vb
    top = chart.mapTo(plan_tab, chart.mapFromScene(vb.mapViewToScene(QPointF(0, high)))).y()
    bottom = chart.mapTo(plan_tab, chart.mapFromScene(vb.mapViewToScene(QPointF(0, low)))).y()
    for name, path in renders.items():
        render = QImage(str(path))
        gap, end = _ink_gaps(render, caption.top() + 2, caption.top() + line - 2, caption.right())
        assert gap < 16 and end > caption.width() // 2, (name, gap, end)  # on the first line: the bold run and the plain one
        column = [render.pixelColor(peak.x() + dx, y).lightness() for dx in (-8, 0, 8) for y in range(top + 4, bottom - 4)]
        assert min(column) < 200 and max(column) > 220, (name, min(column), max(column))  # stripes: dark and light


# -- keyboard only ---------------------------------------------------------------------------------------------
def _tab_to(qtbot, target, limit: int = 60) -> int:
    """Press Tab (as a user would, on whatever has the focus) until `target` has it; returns the presses."""
    for presses in range(1, limit + 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        if QApplication.focusWidget() is target:
            return presses
    raise AssertionError(f"Tab never reached {target.objectName()}: stopped at {QApplication.focusWidget().objectName()}")


def test_a_keyboard_alone_reaches_a_segments_formula_and_its_claim(window, qtbot):
    """Tab from the form to the stage chart, arrows to a segment: its bytes and formula are in a tooltip, the
    chart's accessible description and the status bar; Enter opens the glossary's claim it rests on."""
    from PySide6.QtWidgets import QToolTip

    form_field = window.form.field("model.params")
    form_field.setFocus()
    qtbot.waitUntil(form_field.hasFocus)
    chart = window.chart
    _tab_to(qtbot, chart)
    assert chart.keys.cursor == (0, "params")  # the first segment, at once
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    qtbot.keyClick(chart, Qt.Key.Key_Up)
    assert chart.keys.cursor == (1, "grads")
    description = chart.accessibleDescription()
    assert description.startswith("Stage 1 · Gradients") and "Formula: 2P with P = 2,000,000,000, Nd = 4" in description
    assert QToolTip.isVisible() and "Formula: 2P" in QToolTip.text()
    assert "Formula: 2P" in window.statusBar().currentMessage()
    qtbot.keyClick(chart, Qt.Key.Key_Return)
    assert window.glossary.selected_claim_id == "component-grads"
    # the order goes on: the Nd chart (its points by arrows too), then the glossary
    _tab_to(qtbot, window.dp_chart, limit=3)
    qtbot.keyClick(window.dp_chart, Qt.Key.Key_Right)
    assert window.dp_chart.accessibleDescription().startswith("Stage 0 · Nd = 8")
    _tab_to(qtbot, window.glossary.search, limit=2)


def test_tab_runs_form_charts_glossary_and_scroll_areas_take_no_focus(window, qtbot):
    from PySide6.QtWidgets import QAbstractScrollArea

    order = []
    first = window.form.model_section.preset  # the form's first field
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    for _ in range(60):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        widget = QApplication.focusWidget()
        if widget is first:
            break
        order.append(widget)
    names = [w.objectName() for w in order]
    places = [names.index(n) for n in ("cluster.host_memory_bytes", "stageLogScale", "stageChart", "dpLogScale", "dpChart",
                                       "glossarySearch")]
    assert places == sorted(places), names
    assert not [w for w in order if isinstance(w, QAbstractScrollArea) and w.objectName() == "planScroll"]
    for area in window.findChildren(QAbstractScrollArea):  # any that still takes focus shows a frame when it has it
        if area.focusPolicy() & Qt.FocusPolicy.TabFocus and area.isVisibleTo(window):
            assert area.frameShape() != area.Shape.NoFrame or area.objectName() in ("stageChart", "dpChart"), area.objectName()


# -- words ---------------------------------------------------------------------------------------------------
def test_after_a_simulation_the_measure_tab_reads_as_a_finished_run_not_an_error(measure_tab):
    """A simulation picks no attention kernel and sends no memory samples: no "attention kernel: ?." and no
    "No memory samples arrived before the run stopped." (which reads like a failure) after one."""
    from types import SimpleNamespace

    texts = measure_tab.texts
    lines = texts.how_it_ran(SimpleNamespace(optimizer_impl="foreach", attention=None), [], measure_tab._plan)
    assert lines == ["AdamW kernels: foreach."]
    lines = texts.how_it_ran(SimpleNamespace(optimizer_impl="fused", attention="flash"), [], measure_tab._plan)
    assert lines == ["AdamW kernels: fused; attention kernel: flash."]
    timeline = measure_tab.timeline
    timeline.clear_data()
    timeline.stop(simulated=True)
    assert timeline.empty.textItem.toPlainText().startswith("A simulation draws no timeline")
    timeline.clear_data()
    timeline.stop()
    assert timeline.empty.textItem.toPlainText() == "No memory samples arrived before the run stopped."


def test_a_json_file_that_is_not_a_plan_is_said_in_a_sentence(window, tmp_path):
    """Opening {"foo": 1} says what the file lacks in a sentence, not pydantic's "model: Field required"."""
    path = tmp_path / "foo.json"
    path.write_text('{"foo": 1}', encoding="utf-8")
    assert not window.open_plan_file(path, ask=False)
    message = window.statusBar().currentMessage()
    assert "is not a ZeroDesk plan: it names no model" in message, message
    assert "Field required" not in message and "model: " not in message


# -- 1024x700, dark, the default size ------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_at_1024x700_the_plan_tab_fits_with_room_for_the_stage_chart_and_the_whole_nd_chart(window, qtbot, lang):
    from PySide6.QtGui import QFontMetrics

    from zerodesk.gui.base import i18n

    i18n.set_language(lang)
    window.resize(1024, 700)
    window.fit_docks()
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(50)
    QApplication.processEvents()
    scroll = window.tabs.widget(0)
    assert scroll.verticalScrollBar().maximum() == 0  # nothing of the Plan tab below the fold
    assert window.chart.height() >= 200, window.chart.height()  # was ~130 px
    nd = window.dp_chart
    axis = nd.getPlotItem().getAxis("bottom")
    title = axis.label.mapRectToScene(axis.label.boundingRect())
    assert title.bottom() - axis.label.document().documentMargin() <= nd.height() + 1  # the x title whole (glyphs)
    (x0, x1), _ = nd.getPlotItem().vb.viewRange()
    half = QFontMetrics(nd.font()).horizontalAdvance("1024") / 2 * (x1 - x0) / nd.getPlotItem().vb.width()
    assert x1 - 10 >= half  # the 1024 tick's label fits inside the axis (pyqtgraph hides one that does not)
    # the glossary waits in a tab behind the form; the toolbar keeps Lesson on it, not in an overflow
    assert window.glossary in window.tabifiedDockWidgets(window.form_dock)
    lesson = window.toolbar.widgetForAction(window.act_lesson)
    assert lesson is not None and lesson.isVisible() and window.toolbar.rect().contains(lesson.geometry())


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_at_the_default_size_no_dropdown_cuts_its_choice(window, qtbot, lang):
    from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

    from zerodesk.gui.base import i18n

    i18n.set_language(lang)
    window.resize(1440, 900)  # the default size (layout.DEFAULT_SIZE)
    window.fit_docks()
    for _ in range(5):
        QApplication.processEvents()
    for combo in window.form.findChildren(QComboBox):
        if not combo.isVisibleTo(window.form) or combo.objectName().startswith("model.architecture"):
            continue
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                             QStyle.SubControl.SC_ComboBoxEditField, combo)
        assert combo.fontMetrics().horizontalAdvance(combo.currentText()) <= field.width() + 1, (combo.objectName(), combo.currentText())


def test_unchecked_boxes_stand_out_on_the_dark_palette(window, qtbot):
    """The Log scale boxes and the radio buttons, unchecked, in dark: their outline is clearly lighter than the panel."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    try:
        window.theme_actions["dark"].trigger()
        QApplication.processEvents()
        for box in (window.plan_tab.log_toggle, window.form.model_section.by_arch):
            assert not box.isChecked()
            image = box.grab().toImage()
            option = QStyleOptionButton()
            option.initFrom(box)
            element = (QStyle.SubElement.SE_RadioButtonIndicator if box is window.form.model_section.by_arch
                       else QStyle.SubElement.SE_CheckBoxIndicator)
            rect = box.style().subElementRect(element, option, box)
            panel = box.palette().color(box.backgroundRole()).lightness()
            lightest = max(image.pixelColor(x, y).lightness() for x in range(rect.left(), rect.right() + 1)
                           for y in range(rect.top(), rect.bottom() + 1))
            assert lightest - panel > 50, (box.objectName(), lightest, panel)
    finally:
        window.theme_actions["light"].trigger()


def test_an_export_from_another_tab_holds_the_plan_charts_and_leaves_that_tab_in_front(window, tmp_path):
    """Ctrl+E works from every tab: the Plan tab out of view rendered nothing (a blank PNG, an SVG of captions only),
    and its charts draw what waited only when seen."""
    from PySide6.QtGui import QImage

    from zerodesk.core.plan import Plan

    window.quiet = True
    window.show_tab("plan")
    plan_index = window.tabs.currentIndex()
    window.show_tab("measure")
    measure_index = window.tabs.currentIndex()
    window.load_plan(Plan.model_validate({"model": {"params": 3e9}, "cluster": {"nodes": 1, "gpus_per_node": 4}}))
    assert window.export_chart(tmp_path / "from_measure.png")
    assert window.tabs.currentIndex() == measure_index != plan_index
    image = QImage(str(tmp_path / "from_measure.png"))
    background = image.pixel(0, 0)
    ink = sum(image.pixel(x, y) != background for x in range(0, image.width(), 5) for y in range(0, image.height(), 5))
    assert ink > 2000, ink  # captions, bars, axes and the Nd curves
    assert window.export_chart(tmp_path / "from_measure.svg")
    assert (tmp_path / "from_measure.svg").read_text().count("<path") > 20  # the charts' shapes, not captions only
