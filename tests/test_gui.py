"""The form, the charts, the table, the glossary and the main window, driven through their real widgets
(pytest-qt, offscreen). A test of one widget builds that widget alone; the window's own flows build the window."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QMessageBox

from zerodesk.core import catalog
from zerodesk.core.accounting import compute, sweep_dp
from zerodesk.core.glossary import load_glossary
from zerodesk.core.plan import Plan, field_errors, load_plan, plan_to_json, save_plan
from zerodesk.core.units import UNIT_BYTES
from zerodesk.gui.form.fields import count_text

ROOT = Path(__file__).resolve().parents[1]


def discard():
    return QMessageBox.StandardButton.Discard


# -- helpers ----------------------------------------------------------------------------------
def type_into(qtbot, widget, text: str) -> None:
    """Replace a line edit's text by typing, as a user would (one validation per key)."""
    widget.setFocus()
    widget.selectAll()
    if text:
        qtbot.keyClicks(widget, text)
    else:
        qtbot.keyClick(widget, Qt.Key.Key_Backspace)


def choose(qtbot, combo, data) -> None:
    """Pick a combo entry by its data, as a user would (activated is what the form listens to)."""
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def expected_bars(plan: Plan) -> dict[str, dict[str, list[float]]]:
    b = compute(plan)
    scale = UNIT_BYTES[plan.units]
    out, bottoms = {}, [0.0] * 4
    for key in b.stages[0].components:
        heights = [s.components[key] / scale for s in b.stages]
        out[key] = {"y0": list(bottoms), "height": heights}
        bottoms = [y + h for y, h in zip(bottoms, heights)]
    return out


def assert_bars(chart, plan: Plan) -> None:
    got, want = chart.bar_data(), expected_bars(plan)
    assert list(got) == list(want)
    for key in want:
        assert got[key]["height"] == pytest.approx(want[key]["height"], rel=1e-12)
        assert got[key]["y0"] == pytest.approx(want[key]["y0"], rel=1e-12)


# -- the process ----------------------------------------------------------------------------------
def test_gui_process_never_imports_torch():
    code = textwrap.dedent("""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QSettings
        import tempfile
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
        import zerodesk.gui.app, zerodesk.gui.window.main_window
        from zerodesk.gui.app import create_window
        w = create_window(headless=True)
        w.form.apply_model_preset("llama-2-7b")
        w.tabs.setCurrentIndex(1)
        assert "torch" not in sys.modules, sorted(m for m in sys.modules if m.startswith("torch"))
        print("no torch")
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert "no torch" in out.stdout


# -- the card example -------------------------------------------------------------------------------
def test_card_example_is_one_click_away_and_shows_32_14_11_8_gb(window, qtbot):
    type_into(qtbot, window.form.field("model.params"), "7B")  # move away from the default first
    qtbot.mouseClick(window.form.card_button, Qt.MouseButton.LeftButton)
    assert window.chart.total_label_texts() == ["32.00 GB", "14.00 GB", "11.00 GB", "8.00 GB"]
    assert [s.total_bytes for s in window.model.breakdown.stages] == [32 * 10**9, 14 * 10**9, 11 * 10**9, 8 * 10**9]
    assert window.glossary.selected_claim_id is None or window.glossary.selected_claim_id == "card-example"
    type_into(qtbot, window.form.field("model.params"), "1B")
    window.act_card.trigger()  # the toolbar/menu action (Ctrl+K) does the same
    assert window.chart.total_label_texts() == ["32.00 GB", "14.00 GB", "11.00 GB", "8.00 GB"]
    assert window.glossary.selected_claim_id == "card-example"


def test_new_window_starts_on_the_card_example(window):
    plan = window.model.plan
    assert plan.params == 2 * 10**9 and plan.dp == 4 and plan.units == "GB"
    assert window.chart.total_label_texts() == ["32.00 GB", "14.00 GB", "11.00 GB", "8.00 GB"]


# -- form -> core -> chart ---------------------------------------------------------------------------
def test_editing_fields_redraws_the_chart_with_the_cores_numbers(form, plan_tab, qtbot):
    type_into(qtbot, form.field("model.params"), "7B")
    type_into(qtbot, form.field("cluster.nodes"), "2")
    type_into(qtbot, form.field("cluster.gpus_per_node"), "8")
    type_into(qtbot, form.field("cluster.dp"), "8")
    choose(qtbot, form.field("scheme"), "bf16-fp32grad-adam")
    want = Plan(model={"params": "7B"}, scheme="bf16-fp32grad-adam", cluster={"nodes": 2, "gpus_per_node": 8, "dp": 8})
    assert form.model.breakdown.dp == 8 and form.model.breakdown.params == 7 * 10**9
    assert_bars(plan_tab.chart, want)
    assert plan_tab.chart.total_label_texts() == [f"{s.total_bytes / 1e9:,.2f} GB" for s in compute(want).stages]
    # the Nd view: the core's sweep, 1 ... 1024 on a log2 axis, the current Nd marked
    dp = plan_tab.dp_chart
    assert dp.grid[0] == 1 and dp.grid[-1] == 1024
    assert dp.sweep() == sweep_dp(want, dp.grid)
    xs, ys = dp.curve_data(3)
    assert xs == pytest.approx([math.log2(n) for n in dp.grid])
    assert dp.log_y  # memory falls as 1/Nd: log-log by default
    assert ys == pytest.approx([math.log10(v / 1e9) for v in sweep_dp(want, dp.grid)[3]])
    dp.set_log_y(False)
    assert dp.curve_data(3)[1] == pytest.approx([v / 1e9 for v in sweep_dp(want, dp.grid)[3]])
    assert dp.nd_line_x() == pytest.approx(3.0)


def test_units_switch_to_gib(window, qtbot):
    choose(qtbot, window.form.field("units"), "GiB")
    plan = window.model.plan
    assert plan.units == "GiB"
    assert_bars(window.chart, plan)
    assert window.chart.total_label_texts()[0] == f"{32e9 / 2**30:,.2f} GiB"
    assert "GiB" in window.chart.getPlotItem().getAxis("left").labelText
    assert window.settings.units == "GiB"


def test_a_unit_switch_keeps_the_bytes_typed_in_every_memory_field(form, qtbot):
    type_into(qtbot, form.field("cluster.gpu_memory_bytes"), "80")
    type_into(qtbot, form.field("cuda_allowance_bytes"), "2.5")
    type_into(qtbot, form.field("cluster.host_memory_bytes"), "512")
    choose(qtbot, form.field("units"), "GiB")
    plan = form.model.plan
    assert plan.units == "GiB"
    assert (plan.cluster.gpu_memory_bytes, plan.cuda_allowance_bytes, plan.cluster.host_memory_bytes) == (
        80_000_000_000, 2_500_000_000, 512_000_000_000)  # the same bytes, not 80 GiB
    assert form.field("cluster.gpu_memory_bytes").text() == "74.5058"  # shown in the new unit
    assert form.label("cuda_allowance_bytes").text() == "CUDA allowance, GiB"
    choose(qtbot, form.field("units"), "GB")
    assert form.field("cluster.gpu_memory_bytes").text() == "80"
    assert form.model.plan.cluster.gpu_memory_bytes == 80_000_000_000



def test_architecture_fields_give_the_exact_count(form, plan_tab, qtbot):
    qtbot.mouseClick(form.model_section.by_arch, Qt.MouseButton.LeftButton)
    assert form.model_section.arch_box.isVisible()
    for name, value in (("layers", "24"), ("hidden", "2048"), ("heads", "16"), ("kv_heads", "4"), ("ffn", "5632"),
                        ("vocab", "32000")):
        type_into(qtbot, form.field(f"model.architecture.{name}"), value)
    plan = form.model.plan
    arch = plan.model.architecture
    assert (arch.layers, arch.hidden, arch.heads, arch.kv_heads, arch.ffn, arch.vocab) == (24, 2048, 16, 4, 5632, 32000)
    assert form.model.breakdown.params == plan.model.param_count
    assert_bars(plan_tab.chart, plan)
    assert f"{plan.params:,}" in form.model_section.params_hint.text()
    assert form.field("model.params").text() == count_text(plan.params)  # the read-only count follows the edits



def test_model_and_gpu_presets(form, plan_tab, qtbot):
    choose(qtbot, form.field("model.preset"), "llama-2-7b")
    preset = catalog.find_model("llama-2-7b")
    assert form.model.breakdown.params == preset.param_count
    assert form.model.plan.model.name == "llama-2-7b"
    choose(qtbot, form.field("cluster.gpu"), "a100-80gb")
    gpu = catalog.find_gpu("a100-80gb")
    assert form.model.plan.cluster.gpu_memory_bytes == gpu.memory_bytes  # exact, though shown as 85.8993 GB
    assert plan_tab.chart.gpu_line_shown()
    assert plan_tab.chart._gpu_line.value() == pytest.approx(gpu.memory_bytes / 1e9)
    choose(qtbot, form.field("units"), "GiB")
    assert form.field("cluster.gpu_memory_bytes").text() == "80"
    assert form.model.plan.cluster.gpu_memory_bytes == gpu.memory_bytes
    # editing a model field leaves the preset: the combo says Custom and the name is dropped
    type_into(qtbot, form.field("model.architecture.layers"), "16")
    assert form.field("model.preset").currentData() == ""
    assert form.model.plan.model.name is None

def core_errors(data: dict) -> dict[str, str]:
    with pytest.raises(ValidationError) as info:
        Plan.model_validate(data)
    return field_errors(info.value)


def test_invalid_input_is_marked_with_a_sentence_and_the_chart_keeps_the_last_plan(window, qtbot):
    form = window.form
    before = window.chart.bar_data()
    labels = window.chart.total_label_texts()
    nodes = form.field("cluster.nodes")
    type_into(qtbot, nodes, "two")
    assert "cluster.nodes" in core_errors({"model": {"params": 2 * 10**9}, "cluster": {"nodes": "two"}})
    assert form.error_text("cluster.nodes") == "⚠ Nodes must be a whole number from 1 to 100,000."
    assert form.error_label("cluster.nodes").isVisible()
    assert nodes.text() == "two"  # nothing typed is lost
    assert window.chart.bar_data() == before and window.chart.total_label_texts() == labels
    assert window.plan_tab.stale.isVisible()
    assert window.is_modified()
    # a second error elsewhere, then fix both
    type_into(qtbot, form.field("model.params"), "lots")
    assert form.error_text("model.params").startswith("⚠ Parameters P must be a count such as 2e9, 7B")
    type_into(qtbot, nodes, "1")
    type_into(qtbot, form.field("model.params"), "3B")
    assert form.model.errors == {}
    assert not form.error_label("cluster.nodes").isVisible()
    assert not window.plan_tab.stale.isVisible()
    assert window.model.breakdown.params == 3 * 10**9


def test_nd_that_does_not_divide_the_cluster_is_marked_on_the_nd_field(form, qtbot):
    type_into(qtbot, form.field("cluster.dp"), "3")
    errors = core_errors({"model": {"params": 1}, "cluster": {"nodes": 1, "gpus_per_node": 4, "dp": 3}})
    assert "cluster.dp" in errors or "cluster" in errors  # field- or model-level, the form shows it on Nd
    assert form.error_text("cluster.dp") == "⚠ Nd must divide nodes × GPUs per node (4): for example 1, 2, 4."
    assert form.model.breakdown.dp == 4
    type_into(qtbot, form.field("cluster.dp"), "2")
    assert form.model.errors == {} and form.model.breakdown.dp == 2



def test_architecture_errors_and_empty_fields_do_not_crash(form, qtbot):
    qtbot.mouseClick(form.model_section.by_arch, Qt.MouseButton.LeftButton)
    type_into(qtbot, form.field("model.architecture.heads"), "5")  # 768 is not a multiple of 5
    assert form.error_text("model.architecture.heads") == (
        "⚠ Hidden (768) must be a multiple of heads (5), unless the head dim is given.")
    for key in ("model.architecture.layers", "seq_len", "micro_batch", "bandwidth_gbps", "cluster.gpus_per_node"):
        type_into(qtbot, form.field(key), "")
        assert form.error_text(key), key
    assert form.error_text("seq_len") == "⚠ Sequence length must be a whole number from 1 to 10,000,000."
    for text in ("-3", "abc"):
        type_into(qtbot, form.field("cluster.gpu_memory_bytes"), text)
        assert form.error_text("cluster.gpu_memory_bytes").startswith("⚠ GPU memory must be a number of GB greater than 0")
    assert form.model.breakdown is not None



TEXT_FIELDS = ("model.params", "cluster.nodes", "cluster.gpus_per_node", "cluster.dp", "cluster.gpu_memory_bytes",
               "seq_len", "micro_batch", "bandwidth_gbps")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(TEXT_FIELDS),
       text=st.one_of(st.text(max_size=12),
                      st.from_regex(r"\A-?[0-9]{0,400}(\.[0-9]*)?([eE][+-]?[0-9]{1,4})?[KMBGTkmbgt]?\Z")))
def test_whatever_is_typed_nothing_crashes_and_nothing_is_lost(form, plan_tab, key, text):
    field = form.field(key)
    field.setText(text)
    field.textEdited.emit(text)
    assert field.text() == text
    assert form.model.breakdown is not None
    if form.model.errors:
        assert plan_tab.stale.isVisible()
    else:
        assert form.model.breakdown.params == form.model.plan.params and not plan_tab.stale.isVisible()
    field.setText("1" if key != "model.params" else "2B")
    field.textEdited.emit(field.text())



def test_an_overflowing_count_is_reported_not_raised(form, plan_tab, qtbot):
    before = plan_tab.chart.bar_data()
    field = form.field("model.params")
    field.setText("1e400")  # pasted: one edit
    field.textEdited.emit(field.text())
    assert form.model.errors and plan_tab.chart.bar_data() == before
    assert field.text() == "1e400"
    type_into(qtbot, field, "2B")
    assert form.model.errors == {}
    type_into(qtbot, form.field("cluster.gpu_memory_bytes"), "1e400")
    assert form.error_text("cluster.gpu_memory_bytes")

def test_hovering_a_segment_shows_its_bytes_and_formula(plan_tab, qtbot):
    chart = plan_tab.chart
    pos = chart.segment_widget_pos(2, "adam_m")
    qtbot.mouseMove(chart.viewport(), pos)
    qtbot.waitUntil(lambda: chart.hovered == (2, "adam_m"))
    assert "2.00 GB" in chart.hover_text and "2,000,000,000 B" in chart.hover_text
    assert "4P/Nd" in chart.hover_text and "paper profile" in chart.hover_text
    qtbot.wait(20)  # as a hand moves: pyqtgraph drops a move within 10 ms of the last (its mouseRateLimit)
    qtbot.mouseMove(chart.viewport(), chart.segment_widget_pos(0, "params"))
    qtbot.waitUntil(lambda: chart.hovered == (0, "params"))
    assert "2P" in chart.hover_text and "/Nd" not in chart.hover_text.split("Stage total")[0]



@pytest.mark.parametrize("stage,key,claim", [(2, "adam_m", "component-adam-m"), (3, "params", "component-params"),
                                             (1, "master", "component-master")])
def test_clicking_a_segment_selects_its_glossary_claim(window, qtbot, stage, key, claim):
    chart = window.chart
    with qtbot.waitSignal(window.glossary.claimSelected, timeout=2000) as sig:
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.segment_widget_pos(stage, key))
    assert sig.args == [claim]
    assert window.glossary.selected_claim_id == claim
    assert window.glossary.isVisible()
    assert load_glossary("en").claim(claim).text[:40] in window.glossary.browser.toPlainText()


def test_clicking_outside_the_bars_selects_nothing(plan_tab, qtbot):
    chart = plan_tab.chart
    vb = chart.getPlotItem().vb
    empty = chart.mapFromScene(vb.mapViewToScene(chart.segment_center(3, "params").__class__(3.0, 30.0)))
    with qtbot.assertNotEmitted(chart.segmentClicked):
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=empty)
    with qtbot.waitSignal(chart.segmentClicked, timeout=2000) as sig:  # and a bar, for contrast, does
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.segment_widget_pos(3, "params"))
    assert sig.args == [3, "params"]



def test_measured_overlay_draws_markers_and_the_difference(plan_tab):
    chart = plan_tab.chart
    chart.overlay_measured(1, peak_bytes=20 * 10**9, states_bytes=14_280_000_000, label="measured")
    chart.overlay_measured(3, peak_bytes=9 * 10**9, states_bytes=None, label="measured")
    chart.overlay_measured(1, peak_bytes=19 * 10**9, states_bytes=14 * 10**9, label="simulated")
    assert len(chart.measured()) == 3
    m = next(m for m in chart.measured() if m.label == "measured" and m.stage == 1)
    assert chart.measured_difference(m) == pytest.approx(2.0)
    assert "+2.0%" in chart.measured_text(m)
    assert "measured" in plan_tab.legend.text() and "simulated" in plan_tab.legend.text()
    assert chart.viewRange()[1][1] >= 20  # the peak is inside the view
    chart.overlay_measured(1, peak_bytes=21 * 10**9, states_bytes=None, label="measured")  # replaces
    assert len(chart.measured()) == 3
    chart.clear_measured("simulated")
    assert {m.label for m in chart.measured()} == {"measured"}
    chart.clear_measured()
    assert chart.measured() == [] and "measured" not in plan_tab.legend.text()

def test_table_shows_totals_components_comm_fit_and_the_peak_warning(form, table_tab, qtbot):
    choose(qtbot, form.field("cluster.gpu"), "v100-16gb")
    rows = table_tab.rows()
    by_name = {r[0]: r[1:] for r in rows[1:]}
    assert by_name["Total model states"] == ["32.00 GB", "14.00 GB", "11.00 GB", "8.00 GB"]
    assert by_name["Parameters (fp16)"] == ["4.00 GB", "4.00 GB", "4.00 GB", "1.00 GB"]
    assert by_name["Formula (bytes)"] == ["16P", "4P + 12P/Nd", "2P + 14P/Nd", "16P/Nd"]
    # §7: 2P, 2P, 2P, 3P, times the ring factor (Nd-1)/Nd = 3/4
    assert by_name["Communication per step"] == ["6.00 GB", "6.00 GB", "6.00 GB", "9.00 GB"]
    assert by_name["Communication time at 100 GB/s"] == ["60.0 ms", "60.0 ms", "60.0 ms", "90.0 ms"]
    fit = by_name["States vs GPU memory"]
    assert fit[0].startswith("over by") and fit[3].startswith("fits")
    assert "not the peak" in table_tab.note.text() and "§3.2" in table_tab.note.text()
    assert "computed" in table_tab.caption.text().lower() and "paper profile" in table_tab.caption.text()
    qtbot.mouseClick(table_tab.copy_button, Qt.MouseButton.LeftButton)
    text = QGuiApplication.clipboard().text()
    assert text == table_tab.as_text()
    assert "32.00 GB" in text and "not the peak" in text and "1 GB = 10⁹ B" in text

def test_glossary_shows_the_card_and_filters_claims(glossary, qtbot):
    g = glossary
    card = load_glossary("en")
    html = g.browser.toPlainText()
    for text in (card.definition[:60], "Boundary:", "What is confirmed", "Primary sources", "§3.1", "§3.2", "§5", "§7",
                 "Related concepts", card.related[0].title):
        assert text in html, text
    state = [t for t, _ in g.checklist_state()]
    assert [t.endswith(item.text) for t, item in zip(state, card.checklist)] == [True] * len(card.checklist)
    item = g.checklist.item(0)
    item.setCheckState(Qt.CheckState.Checked)
    assert g.checklist_state()[0][1] is True
    type_into(qtbot, g.search, "fragmentation")
    assert set(g.visible_claim_ids()) == {c.id for c in card.search("fragmentation")}
    assert 0 < len(g.visible_claim_ids()) < len(card.claims)
    type_into(qtbot, g.search, "no such words at all")
    assert g.visible_claim_ids() == [] and "No claim matches" in g.browser.toPlainText()
    assert g.select_claim("stages")  # selecting a filtered-out claim clears the filter
    assert g.search.text() == "" and "stages" in g.visible_claim_ids()



def test_glossary_shows_the_boundary_of_the_profile_and_scheme_in_use(form, glossary, qtbot):
    g = glossary
    card = load_glossary("en")
    in_use = g.browser.toPlainText().split("What is confirmed")[0]
    assert card.claim("profile-paper").boundary[:50] in in_use
    assert card.claim("mixed-adam-16p").boundary[:50] in in_use
    choose(qtbot, form.field("profile"), "torch")
    choose(qtbot, form.field("scheme"), "fp32-adam")
    torch_boundary = card.claim("profile-torch").boundary[:50]  # claim ids are not shown, their texts are
    qtbot.waitUntil(lambda: torch_boundary in g.browser.toPlainText().split("What is confirmed")[0])
    in_use = g.browser.toPlainText().split("What is confirmed")[0]
    assert card.claim("profile-torch").boundary[:50] in in_use
    assert card.claim("scheme-fp32-adam").boundary[:50] in in_use
    page = g.browser.document()
    choose(qtbot, form.field("profile"), "paper")  # and back: the section is rewritten in the page laid out
    qtbot.waitUntil(lambda: card.claim("profile-paper").boundary[:50] in g.browser.toPlainText().split("What is confirmed")[0])
    choose(qtbot, form.field("profile"), "torch")
    qtbot.waitUntil(lambda: torch_boundary in g.browser.toPlainText().split("What is confirmed")[0])
    assert g.browser.document() is page
    assert g.browser.toPlainText().count(torch_boundary) == 2  # in use, and among the claims: nothing left over



def test_glossary_tags_every_claim_with_its_origin_and_keeps_the_cards_claims_apart(glossary, qtbot):
    g = glossary
    card = load_glossary("en")
    text = g.browser.toPlainText()
    confirmed = text.split("What is confirmed")[1].split("Added by ZeroDesk")[0]
    added = text.split("Added by ZeroDesk")[1].split("Primary sources")[0]
    for claim in card.claims:
        assert (claim.text[:50] in confirmed) == claim.from_card, claim.id
        assert (claim.text[:50] in added) != claim.from_card, claim.id
    # the tags a trainer reads: the card's words, the paper with its section, PyTorch with its API, ZeroDesk's own
    assert confirmed.count("Card") >= len(card.card_claims())
    for tag in ("ZeRO paper §7", "PyTorch: DDP", "ZeroDesk's modelling"):
        assert tag in added, tag
    assert "ZeroDesk's advice: " in g.checklist_state()[-1][0]
    # the stage-to-engine table is rendered as a table, its cells searchable
    assert "FSDP2 fully_shard(reshard_after_forward=False)" in text
    type_into(qtbot, g.search, "reshard_after_forward=True")
    assert "stages-torch-engines" in g.visible_claim_ids()
    g.search.clear()
    # internal ids never reach the reader
    for claim in card.claims:
        if "-" in claim.id:
            assert claim.id not in g.browser.toPlainText(), claim.id


# -- files ----------------------------------------------------------------------------------------------------
def test_save_and_open_round_trip(window, qtbot, tmp_path):
    form = window.form
    choose(qtbot, form.field("model.preset"), "gpt2")
    choose(qtbot, form.field("cluster.gpu"), "l4")
    type_into(qtbot, form.field("cluster.nodes"), "3")
    type_into(qtbot, form.field("micro_batch"), "4")
    choose(qtbot, form.field("profile"), "torch")
    saved = form.model.plan
    assert window.is_modified() and window.isWindowModified()
    path = tmp_path / "run.zerodesk.json"
    assert window.save_to(path)
    assert path.read_text(encoding="utf-8") == plan_to_json(saved)
    assert load_plan(path) == saved
    assert not window.is_modified() and window.windowTitle().startswith("run.zerodesk.json")
    assert window.settings.recent_files[0] == str(path.resolve())
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic write left no temporary file

    window.new_plan()
    assert form.model.plan.params == 2 * 10**9
    assert window.open_plan_file(path)
    assert form.model.plan == saved
    assert form.field("cluster.nodes").text() == "3" and form.field("micro_batch").text() == "4"
    assert form.field("profile").currentData() == "torch"
    assert window.model.breakdown.profile.value == "torch"
    recent = [a.data() for a in window.menu_recent.actions() if a.data()]
    assert recent == [str(path.resolve())]


def test_open_reports_a_broken_file_and_keeps_the_plan(window, tmp_path):
    bad = tmp_path / "bad.zerodesk.json"
    bad.write_text("{ not json", encoding="utf-8")
    before = window.model.plan
    assert not window.open_plan_file(bad, ask=False)
    assert "not valid JSON" in window.statusBar().currentMessage()
    assert window.model.plan == before


def test_unsaved_changes_prompt_before_dropping_the_plan(window, qtbot, tmp_path):
    answers = []
    window.ask_save_changes = lambda: answers.pop(0)
    type_into(qtbot, window.form.field("model.params"), "5B")
    answers.append(QMessageBox.StandardButton.Cancel)
    assert not window.new_plan()
    assert window.model.plan.params == 5 * 10**9
    answers.append(QMessageBox.StandardButton.Discard)
    assert window.new_plan()
    assert window.model.plan.params == 2 * 10**9 and not window.is_modified()
    type_into(qtbot, window.form.field("model.params"), "6B")
    answers.append(QMessageBox.StandardButton.Save)
    target = tmp_path / "kept.zerodesk.json"
    window.save_as = lambda: window.save_to(target)
    assert window.new_plan()
    assert load_plan(target).params == 6 * 10**9
    # closing asks too
    type_into(qtbot, window.form.field("model.params"), "8B")
    answers.append(QMessageBox.StandardButton.Cancel)
    assert not window.close() and window.isVisible()
    window.ask_save_changes = discard


def test_plan_file_and_flags_given_at_start(gui_settings, qtbot, tmp_path):
    from zerodesk.gui.app import create_window

    path = tmp_path / "start.zerodesk.json"
    save_plan(Plan(model={"params": "13B"}, cluster={"nodes": 2, "gpus_per_node": 8}), path)
    w = create_window(None, path)
    w.ask_save_changes = discard
    qtbot.addWidget(w)
    assert w.model.plan.params == 13 * 10**9 and w.document.path == path.resolve() and not w.is_modified()
    flags = Plan(model={"params": "13B"}, cluster={"nodes": 4, "gpus_per_node": 8})
    w2 = create_window(flags, path)
    w2.ask_save_changes = discard
    qtbot.addWidget(w2)
    assert w2.form.model.plan.dp == 32 and w2.is_modified()  # the flags win, as an unsaved change of the file


def test_export_chart_png_and_svg(plan_tab, tmp_path):
    png, svg = tmp_path / "chart.png", tmp_path / "chart.svg"
    assert plan_tab.export_png(png)
    image = QImage(str(png))
    assert image.width() >= plan_tab.width() and image.height() >= plan_tab.height()
    assert plan_tab.export_svg(svg)
    text = svg.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "<image" not in text  # vector throughout: symbols as paths, no cached bitmaps

def test_settings_round_trip(gui_settings, tmp_path):
    s = gui_settings
    assert s.units == "GB" and s.language is None and s.recent_files == []
    s.units = "GiB"
    s.language = "ru"
    for i in range(12):
        s.add_recent(tmp_path / f"p{i}.zerodesk.json")
    s.add_recent(tmp_path / "p3.zerodesk.json")
    assert s.recent_files[0].endswith("p3.zerodesk.json") and len(s.recent_files) == 8
    s.sync()
    from zerodesk.gui.base.settings import Settings

    again = Settings()
    assert again.units == "GiB" and again.language == "ru" and again.recent_files == s.recent_files
    with pytest.raises(ValueError):
        s.units = "MB"


def test_window_geometry_and_dock_layout_persist(gui_settings, qtbot):
    from zerodesk.gui.window.main_window import MainWindow

    w = MainWindow(gui_settings)
    w.ask_save_changes = discard
    qtbot.addWidget(w)
    w.resize(780, 620)  # inside the offscreen screen (800 x 800), which clamps the default 1440 x 900
    w.show()
    w.glossary.hide()
    w.save_layout()
    w2 = MainWindow(gui_settings)
    w2.ask_save_changes = discard
    qtbot.addWidget(w2)
    w2.show()
    assert gui_settings.geometry is not None and gui_settings.window_state is not None
    assert w2.size().height() == w.size().height() == 620  # not the default (clamped to 800)
    assert not w2.glossary.isVisible()


def test_language_switches_at_run_time(window, qtbot):
    assert window.menu_file.title() == "&File" and window.tabs.tabText(0) == "Plan"
    window.set_language("ru")
    assert window.menu_file.title() == "&Файл"
    assert window.tabs.tabText(0) == "План" and window.tabs.tabText(1) == "Таблица"
    assert window.form_dock.windowTitle() == "Модель и кластер"
    assert window.chart.total_label_texts() == ["32,00 ГБ", "14,00 ГБ", "11,00 ГБ", "8,00 ГБ"]
    assert "ГБ" in window.chart.getPlotItem().getAxis("left").labelText
    assert "Граница применимости" in window.glossary.browser.toPlainText()
    assert load_glossary("ru").definition[:40] in window.glossary.browser.toPlainText()
    assert window.settings.language == "ru"
    window.tabs.setCurrentIndex(1)
    assert window.table_tab.rows()[1][0].startswith("Параметры")
    window.act_next_lang.trigger()
    assert window.menu_file.title() == "&File" and window.settings.language == "en"
    window.tabs.setCurrentIndex(0)  # a chart out of view draws in the new language when it is seen again
    assert window.chart.total_label_texts()[0] == "32.00 GB"


def test_keyboard_shortcuts(window):
    shortcuts = {a.objectName(): a.shortcut().toString() for a in window.actions() if not a.shortcut().isEmpty()}
    for name in ("actNew", "actOpen", "actSave", "actSaveAs", "actQuit", "actCopyTable", "actCardExample",
                 "actExportPng", "actExportSvg", "actFindClaim", "actToggleUnits", "actTabPlan", "actTabTable"):
        assert name in shortcuts, name
    assert len(set(shortcuts.values())) == len(shortcuts)  # no clashes
    window.act_tab_table.trigger()
    assert window.tabs.currentIndex() == 1
    window.act_units.trigger()
    assert window.model.plan.units == "GiB"


def test_form_fields_have_accessible_names(form):
    for key in form.field_keys():
        assert form.field(key).accessibleName(), key
    assert len(form.field_keys()) > 30
    assert form.field("cluster.dp").accessibleName() == "Data-parallel Nd"



def test_charts_and_the_glossary_follow_a_dark_palette(plan_tab, glossary):
    from PySide6.QtGui import QColor, QPalette

    dark = QPalette(plan_tab.palette())
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e6e6e6"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#2b2b2b"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e6e6e6"))
    plan_tab.setPalette(dark)
    for chart in (plan_tab.chart, plan_tab.dp_chart):
        assert chart.backgroundBrush().color().name() == "#1e1e1e"
        assert chart.getPlotItem().getAxis("left").textPen().color().name() == "#e6e6e6"
    assert plan_tab.chart.labels.totals[0].color.name() == "#e6e6e6"
    glossary.flush()
    assert "#e6e6e6" not in glossary.browser.toHtml().lower()
    glossary.setPalette(dark)
    glossary.flush()
    assert "#e6e6e6" in glossary.browser.toHtml().lower()



def test_recent_file_that_vanished_leaves_the_list(window, tmp_path):
    path = tmp_path / "gone.zerodesk.json"
    save_plan(Plan(model={"params": "1B"}), path)
    assert window.open_plan_file(path, ask=False)
    path.unlink()
    assert not window.open_plan_file(path, ask=False)
    assert window.settings.recent_files == []
    assert [a.text() for a in window.menu_recent.actions()] == ["No recent plans"]


def test_gui_script_entry_takes_an_optional_plan_path(monkeypatch):
    from zerodesk.gui import app

    calls = []
    monkeypatch.setattr(app, "run_gui", lambda *a: calls.append(a) or 0)
    assert app.main([]) == 0 and app.main(["p.zerodesk.json"]) == 0
    assert app.main(["--lang", "ru", "--size", "1024x700", "--theme", "dark", "--tab", "fit"]) == 0
    assert calls == [(None, None, None, None, None, None, None),
                     (None, Path("p.zerodesk.json"), None, None, None, None, None),
                     (None, None, None, "ru", "1024x700", "dark", "fit")]
    assert app.parse_size("1920x1080") == (1920, 1080)
    with pytest.raises(ValueError, match="--size must be WIDTHxHEIGHT"):
        app.parse_size("big")


def test_add_tab_leaves_room_for_more_views(window):
    from PySide6.QtWidgets import QLabel

    index = window.add_tab(QLabel("more"), "More")
    assert index == 4 and window.tabs.tabText(4) == "More"  # after Plan, Table, Measure and Fit


# -- screenshot mode ----------------------------------------------------------------------------------------
def test_screenshot_mode_writes_a_png(tmp_path):
    plan = tmp_path / "p.zerodesk.json"
    save_plan(Plan(model={"params": "70B"}, cluster={"nodes": 8, "gpus_per_node": 8}), plan)
    shot = tmp_path / "shot.png"
    code = textwrap.dedent(f"""
        import sys, tempfile
        from pathlib import Path
        from PySide6.QtCore import QSettings
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
        from zerodesk.gui.app import run_gui
        sys.exit(run_gui(None, Path({str(plan)!r}), Path({str(shot)!r})))
    """)
    env = {k: v for k, v in __import__("os").environ.items() if k != "QT_QPA_PLATFORM"}  # it must go offscreen itself
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert out.returncode == 0, out.stderr
    image = QImage(str(shot))
    assert image.width() >= 1280 and image.height() >= 800


def test_screenshot_mode_reports_a_bad_plan_file(tmp_path):
    bad = tmp_path / "bad.zerodesk.json"
    bad.write_text(json.dumps({"model": {"params": 0}}), encoding="utf-8")
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from zerodesk.gui.app import run_gui
        sys.exit(run_gui(None, Path({str(bad)!r}), Path({str(tmp_path / "x.png")!r})))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2
    assert "model.params" in out.stderr and not (tmp_path / "x.png").exists()


def test_small_figures_keep_their_digits(qapp):
    from zerodesk.gui.base.i18n import fmt_bytes

    assert fmt_bytes(1_840_000, "GB") == "0.00184 GB"  # a tiny model's states, not "0.00 GB"
    assert fmt_bytes(14 * 10**9, "GB") == "14.00 GB" and fmt_bytes(0, "GiB") == "0.00 GiB"


# -- what the user meant --------------------------------------------------------------------------------
def test_a_typo_keeps_the_last_valid_plan_on_the_chart_as_its_banner_says(form, plan_tab, qtbot):
    """7B typed without Enter is on the chart; a typo after it leaves 7B there (not the card example behind it)."""
    params = form.field("model.params")
    type_into(qtbot, params, "7B")  # no Enter, no focus change
    assert form.model.plan.params == 7 * 10**9
    shown = (plan_tab.chart.total_label_texts(), plan_tab.caption.text(), form.model_section.params_hint.text())
    type_into(qtbot, params, "x")
    assert form.error_text("model.params") and plan_tab.stale.isVisible()
    assert "the chart shows the last valid plan" in plan_tab.stale.text()
    assert form.model.plan.params == 7 * 10**9 and form.model.breakdown.params == 7 * 10**9
    assert (plan_tab.chart.total_label_texts(), plan_tab.caption.text(), form.model_section.params_hint.text()) == shown
    # the same for a value refused on the way: 1e3 is valid, 1e30 is not; the chart keeps 1e3, the last valid plan
    type_into(qtbot, params, "1e30")
    assert form.error_text("model.params") and form.model.plan.params == 1000


def test_a_memory_field_says_its_bounds_in_its_own_unit_and_takes_decimals(form, qtbot):
    cuda = form.field("cuda_allowance_bytes")
    type_into(qtbot, cuda, "1.5")
    assert form.model.errors == {} and form.model.plan.cuda_allowance_bytes == 1_500_000_000
    type_into(qtbot, cuda, "lots")
    assert form.error_text("cuda_allowance_bytes") == (
        "⚠ CUDA allowance must be a number of GB from 0 to 10,000, such as 2 or 1.5; leave it empty for 0.")
    form.toggle_units()  # GiB: the same bound, in GiB
    type_into(qtbot, cuda, "1e6")
    assert form.error_text("cuda_allowance_bytes") == (
        "⚠ CUDA allowance must be a number of GiB from 0 to 9,313.23, such as 2 or 1.5; leave it empty for 0.")
    host = form.field("cluster.host_memory_bytes")
    type_into(qtbot, host, "-2")
    assert form.error_text("cluster.host_memory_bytes").startswith(
        "⚠ Host memory per node must be a number of GiB greater than 0, at most ")


def test_numbers_are_read_in_the_ui_languages_own_format(form, qtbot):
    """Russian writes 7,5 and groups digits with spaces; the form reads what the window itself prints."""
    from zerodesk.gui.base import i18n

    i18n.set_language("ru")
    type_into(qtbot, form.field("model.params"), "7,5B")
    assert form.model.errors == {} and form.model.plan.params == 7_500_000_000
    type_into(qtbot, form.field("seq_len"), "4 096")
    type_into(qtbot, form.field("bandwidth_gbps"), "12,5")
    assert form.model.errors == {} and form.model.plan.seq_len == 4096 and form.model.plan.bandwidth_gbps == 12.5
    form.model.load(Plan.model_validate({**form.model.plan.model_dump(), "model": {"params": 6_500_000_000}}))
    assert form.field("model.params").text() == "6,5B"  # shown as it is read
    i18n.set_language("en")
    type_into(qtbot, form.field("model.params"), "7,5B")  # English groups with commas: 7,5 is not a number there
    assert form.error_text("model.params")
    type_into(qtbot, form.field("model.params"), "7,500,000,000")
    assert form.model.errors == {} and form.model.plan.params == 7_500_000_000


def test_gpu_memory_label_follows_the_units_after_new_and_the_card_example(window, qtbot):
    form = window.form
    choose(qtbot, form.field("cluster.gpu"), "a100-80gb")
    window.act_units.trigger()
    assert form.label("cluster.gpu_memory_bytes").text() == "GPU memory, GiB"
    window.act_card.trigger()  # back to GB
    assert form.model.plan.units == "GB"
    assert form.label("cluster.gpu_memory_bytes").text() == "GPU memory, GB"
    window.act_units.trigger()
    window.new_plan()
    assert form.label("cluster.gpu_memory_bytes").text() == f"GPU memory, {form.model.plan.units}"


def test_an_empty_ffn_takes_the_usual_default_shown_as_placeholder(form, qtbot):
    from zerodesk.core.plan import default_ffn

    qtbot.mouseClick(form.model_section.by_arch, Qt.MouseButton.LeftButton)
    ffn = form.field("model.architecture.ffn")
    type_into(qtbot, form.field("model.architecture.hidden"), "1200")
    type_into(qtbot, ffn, "")
    assert form.model.errors == {}
    choose(qtbot, form.field("model.architecture.mlp"), "gated")
    assert ffn.placeholderText() == f"auto: {default_ffn(1200, 'gated')}" == "auto: 3328"  # 3200 up to 13 x 256
    assert form.model.plan.model.architecture.ffn == 3328
    choose(qtbot, form.field("model.architecture.mlp"), "plain")
    assert ffn.placeholderText() == "auto: 4800" and form.model.plan.model.architecture.ffn == 4800



def test_the_position_table_size_is_idle_for_rotary_models(form, qtbot):
    choose(qtbot, form.field("model.preset"), "llama-2-7b")
    assert not form.field("model.architecture.max_positions").isEnabled()
    choose(qtbot, form.field("model.preset"), "gpt2")
    assert form.field("model.architecture.max_positions").isEnabled()



def test_share_width_keeps_every_column_in_view_and_wraps_the_long_ones():
    from zerodesk.gui.table.table_tab import MIN_COLUMN, share_width

    assert share_width([100, 200], 400) == [150, 250]  # all fit: the spare shared evenly
    widths = share_width([150, 600, 500, 400], 1000)  # too wide: the narrow one keeps its width, the rest share
    assert widths[0] == 150 and sum(widths) <= 1000 and widths[1] == widths[2] == widths[3]
    assert share_width([500] * 4, 100) == [MIN_COLUMN] * 4  # no room at all: a floor, and the scroll bar

