"""Offload in the window: the form's fields reach the plan, the chart draws host/NVMe beside the GPU bars."""

from __future__ import annotations

from PySide6.QtCore import Qt

from zerodesk.core.offload import compute_offload
from zerodesk.core.plan import Offload, Plan
from zerodesk.gui.charts.offload_chart import OffloadChart
from zerodesk.gui.form.plan_form import PlanForm


def _card(**kw) -> Plan:
    data = {"model": {"params": 2_000_000_000}, "cluster": {"nodes": 1, "gpus_per_node": 4}}
    data.update(kw)
    return Plan.model_validate(data)


def test_form_round_trips_the_offload_fields(qtbot):
    plan = _card(offload="optimizer", offload_target="nvme", pcie_gbps=16.0,
                 cluster={"nodes": 1, "gpus_per_node": 4, "host_memory_bytes": 512 * 10**9})
    form = PlanForm(plan=plan)
    qtbot.addWidget(form)
    got = form.model.plan
    assert got.offload == Offload.OPTIMIZER and got.offload_target == "nvme" and got.pcie_gbps == 16.0
    assert got.cluster.host_memory_bytes == 512 * 10**9
    host = form.field("cluster.host_memory_bytes")
    assert host.text() == "512"
    # the user picks "+ parameters" and types a host size; the plan follows
    combo = form.field("offload")
    combo.setCurrentIndex(combo.findData("optimizer+params"))
    combo.activated.emit(combo.currentIndex())
    host.setText("256")
    host.textEdited.emit("256")
    assert form.model.plan.offload == Offload.OPTIMIZER_PARAMS
    assert form.model.plan.cluster.host_memory_bytes == 256 * 10**9


def test_form_marks_a_bad_link_bandwidth(qtbot):
    form = PlanForm(plan=_card())
    qtbot.addWidget(form)
    pcie = form.field("pcie_gbps")
    pcie.setText("-3")
    pcie.textEdited.emit("-3")
    assert "pcie_gbps" in form.model.errors
    assert form.error_label("pcie_gbps").isVisibleTo(form)


def test_chart_draws_beside_never_stacked(qtbot):
    chart = OffloadChart()
    qtbot.addWidget(chart)
    chart.set_plan(_card())
    assert chart.isHidden()  # nothing offloaded: nothing to draw
    plan = _card(offload="optimizer", cluster={"nodes": 1, "gpus_per_node": 4, "host_memory_bytes": 20 * 10**9,
                                                "gpu_memory_bytes": 80 * 10**9})
    chart.set_plan(plan)
    assert not chart.isHidden()
    b = compute_offload(plan)
    gpu, host = chart.bars["gpu"].opts, chart.bars["host"].opts
    assert list(gpu["x"]) != list(host["x"])  # side by side
    assert list(host["y0"]) == [0, 0]  # host bars start at zero: not stacked on the GPU bars
    assert list(host["height"]) == [b.stage(s).host_bytes_per_node / 1e9 for s in (2, 3)]
    assert chart.host_line.isVisible() and chart.host_line.value() == 20
    text = chart.verdict.text()
    assert "host memory per node runs out first" in text
    assert "Stage 0, 1" in text  # stages offload does not apply to are named, with why


def test_an_offload_no_stage_can_do_says_why_and_draws_no_empty_axes(qtbot):
    """torch profile + optimizer-only offload: FSDP2 has none, at any stage. No chart whose axis reads
    "memory, GiB (x1e-09)": the words say why; a plan that can offload gets its bars, in a unit that fits."""
    chart = OffloadChart()
    qtbot.addWidget(chart)
    chart.resize(400, 400)
    chart.show()
    chart.set_plan(_card(profile="torch", offload="optimizer", units="GiB"))
    assert chart.isVisible() and not chart.plot.isVisible()
    assert "FSDP2 has no optimizer-only offload" in chart.verdict.text()
    chart.set_plan(_card(profile="torch", offload="optimizer+params", units="GiB"))
    assert chart.plot.isVisible()
    label = chart.plot.getAxis("left").labelString()
    assert "memory, GiB" in label and "x1e" not in label
    tiny = _card(profile="torch", offload="optimizer+params", units="GiB", model={"params": 100_000})
    chart.set_plan(tiny)
    assert "memory, KiB" in chart.plot.getAxis("left").labelString() or "memory, MiB" in chart.plot.getAxis("left").labelString()


def test_an_unknown_working_set_is_unknown_not_zero(qtbot):
    """A raw P has no layer shapes: the GPU working set is not 0 but unknown, said in the legend and marked
    with a '?' on each GPU bar; with an architecture it is a bar again."""
    chart = OffloadChart()
    qtbot.addWidget(chart)
    plan = _card(offload="optimizer+params")
    chart.set_plan(plan)
    b = compute_offload(plan)
    unknown = [s.stage for s in b.stages if s.applicable and s.gpu_working_bytes is None]
    assert unknown == [3]
    assert "GPU working set: unknown (needs the architecture)" in chart.title.text()
    assert [(m.toPlainText(), m.pos().x()) for m in chart.unknown_marks] == [("?", 3 - 0.26)]
    assert list(chart.bars["working"].opts["height"]) == [0]  # no bar pretends to be an amount
    from zerodesk.core.catalog import find_model

    shaped = plan.model_copy(update={"model": find_model("llama-2-7b").to_model_spec()})
    chart.set_plan(shaped)
    assert chart.unknown_marks == [] and "unknown" not in chart.title.text()
    assert chart.bars["working"].opts["height"][0] > 0


def test_the_unknown_marks_are_kept_across_edits(qtbot):
    """A raw P's '?' marks are made once and moved: an edit adds no text item to the plot (one was made, added and
    transformed anew per stage on every edit), and a plan with shapes hides them."""
    chart = OffloadChart()
    qtbot.addWidget(chart)
    chart.set_plan(_card(offload="optimizer+params"))
    items = list(chart.plot.getPlotItem().items)
    marks = chart.unknown_marks
    for params in (3e9, 30e9, 2e9):
        plan = _card(offload="optimizer+params")
        chart.set_plan(plan.model_copy(update={"model": plan.model.model_copy(update={"params": int(params)})}))
        assert chart.plot.getPlotItem().items == items  # nothing added or removed
        assert chart.unknown_marks == marks and all(m.isVisible() for m in marks)
    from zerodesk.core.catalog import find_model

    chart.set_plan(plan.model_copy(update={"model": find_model("llama-2-7b").to_model_spec()}))
    assert chart.unknown_marks == [] and not any(m.isVisible() for m in marks)
