"""The predicted peak in the window: the hatched layer above the states, its hover and claim, recompute and the CUDA allowance."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt

from zerodesk.core.accounting import compute
from zerodesk.core.catalog import find_model
from zerodesk.core.peak import predict
from zerodesk.core.plan import Plan
from zerodesk.core.units import UNIT_BYTES
from zerodesk.gui.charts.stage_chart import PEAK_KEY


def llama_plan(**kw) -> Plan:
    # CPU kernels: the simulator's, which the figures below were simulated with (a GPU plan defaults to CUDA's)
    data = {"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096, "profile": "torch",
            "kernels": "cpu", "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu_memory_bytes": 80 * 10**9}}
    data.update(kw)
    return Plan.model_validate(data)


def choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


@pytest.fixture
def llama_window(window):
    window.model.load(llama_plan())
    return window


@pytest.fixture
def llama(model):
    """The plan model on Llama 2 7B, torch profile, Nd = 8, 80 GB GPUs (before any view or form is built)."""
    model.set_plan(llama_plan())
    return model


def test_the_peak_layer_sits_above_the_states_with_the_cores_figures(llama, plan_tab):
    chart = plan_tab.chart
    plan = chart.plan
    want = predict(plan)
    assert [p.total_bytes for p in chart.peaks] == [p.total_bytes for p in want]
    scale = UNIT_BYTES[plan.units]
    states = [s.total_bytes for s in compute(plan).stages]
    opts = chart._peak_bar.opts
    assert list(opts["y0"]) == pytest.approx([s / scale for s in states])
    assert list(opts["height"]) == pytest.approx([(p.total_bytes - s) / scale for p, s in zip(want, states)])
    texts = chart.peak_label_texts()
    assert all(t.startswith("peak ≈") for t in texts)
    # Llama 2 7B at Nd = 8 on 80 GB: DDP stages are over, FSDP2 stages fit (stage 2: 49.7 GB, as simulated)
    assert ["(over)" in t for t in texts] == [True, True, False, False]
    assert "49.7" in texts[2]



def test_hovering_and_clicking_the_peak_layer(llama_window, qtbot):
    chart = llama_window.chart
    p, s = chart.peaks[2], chart.breakdown.stage(2).total_bytes
    middle = QPointF(2, (p.total_bytes + s) / 2 / UNIT_BYTES[chart.unit])
    pos = chart.mapFromScene(chart.getPlotItem().vb.mapViewToScene(middle))
    qtbot.mouseMove(chart.viewport(), pos)
    # pyqtgraph drops a move within 10 ms of the last (its mouseRateLimit): hand the scene the move as well
    chart.scene().sigMouseMoved.emit(chart.mapToScene(pos))
    qtbot.waitUntil(lambda: chart.hovered == (2, PEAK_KEY))
    assert "Predicted peak" in chart.hover_text and "backward" in chart.hover_text
    assert "Gathered" in chart.hover_text or "gathered_params" in chart.hover_text
    with qtbot.waitSignal(llama_window.glossary.claimSelected, timeout=2000) as sig:
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert sig.args == ["component-predicted-peak"]


def test_recompute_and_cuda_allowance_from_the_form(llama, form, plan_tab, qtbot):
    form.model.load(llama_plan())  # the form shows the plan and sets what its fields read back
    chart = plan_tab.chart
    before = [p.total_bytes for p in chart.peaks]
    forward = [p.phase_totals["forward"] for p in chart.peaks]
    choose(form.field("recompute"), "full")
    assert form.model.plan.recompute == "full"
    after = [p.total_bytes for p in chart.peaks]
    # recompute lowers every forward; a stage whose peak is AdamW foreach's step keeps that peak
    assert all(p.phase_totals["forward"] < f for p, f in zip(chart.peaks, forward))
    assert all(a <= b for a, b in zip(after, before)) and any(a < b for a, b in zip(after, before))
    form.field("cuda_allowance_bytes").setFocus()
    qtbot.keyClicks(form.field("cuda_allowance_bytes"), "2")
    assert form.model.plan.cuda_allowance_bytes == 2 * 10**9
    assert all(p.components["cuda_allowance"] == 2 * 10**9 for p in chart.peaks)
    choose(form.field("units"), "GiB")  # the same bytes, shown in the new unit
    assert form.model.plan.cuda_allowance_bytes == 2 * 10**9



def test_table_gives_the_fit_verdict_on_the_predicted_peak(llama, table_tab):
    rows = {r[0]: r[1:] for r in table_tab.rows()}
    verdict = rows["Predicted peak vs GPU memory"]
    assert verdict[0].startswith("over by") and verdict[3].startswith("fits")
    assert rows["Predicted peak of the step (estimate)"][2].startswith("≈ 49.7")

