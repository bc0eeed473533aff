"""Hybrid sharding in the window (issue 24): the form's shard group and links, the table's communication by link,
the Nd chart's HSDP curves beside the flat ones, and the lesson's §7 in seconds. Real widgets, offscreen."""

from __future__ import annotations

import math

import pytest

from zerodesk.core.accounting import comm_by_link, compute
from zerodesk.core.lesson import lesson_figures, lesson_plan
from zerodesk.core.plan import Plan

GB = 10**9


def _plan(**cluster) -> Plan:
    return Plan.model_validate({"model": {"params": 8 * GB},
                                "cluster": {"nodes": 4, "gpus_per_node": 8, **cluster}})


def _type(form, key: str, text: str) -> None:
    field = form.field(key)
    field.setText(text)
    field.textEdited.emit(text)
    field.editingFinished.emit()


def _choose(form, key: str, data: str) -> None:
    combo = form.field(key)
    combo.setCurrentIndex(combo.findData(data))
    combo.activated.emit(combo.currentIndex())


def test_form_shard_group_reaches_the_plan_and_is_judged(form, model):
    model.load(_plan())
    _type(form, "cluster.shard_group", "8")
    assert model.plan.cluster.shard_group == 8 and model.plan.replicas == 4
    assert model.breakdown.stage(3).total_bytes == 16 * GB  # 16P/N
    assert form.hybrid.group_hint.text() == "4 groups of 8: sharded in the group, replicated across"
    _type(form, "cluster.shard_group", "3")
    assert form.error_text("cluster.shard_group") == "⚠ The shard group must divide Nd (32): for example 1, 2, 4, 8, 16, 32."
    assert model.plan.cluster.shard_group == 8  # the last valid plan stays
    _type(form, "cluster.shard_group", "")
    assert model.plan.cluster.shard_group is None and form.error_text("cluster.shard_group") == ""
    _choose(form, "hybrid", "hpz")
    _type(form, "cluster.shard_group", "8")
    assert model.breakdown.stage(3).total_bytes == 6 * GB  # 16P/Nd + 2P/N


def test_form_links_follow_the_presets_and_round_trip(form, model):
    model.load(_plan(shard_group=8, intra_node_gbps=150.0, inter_node_gbps=12.5))
    assert form.field("cluster.shard_group").text() == "8"
    assert (form.field("cluster.intra_node_gbps").text(), form.field("cluster.inter_node_gbps").text()) == ("150", "12.5")
    _choose(form, "cluster.gpu", "h100-80gb")  # the GPU preset brings its NVLink
    assert model.plan.cluster.intra_node_gbps == 450.0
    _choose(form, "cluster.network", "ib-hdr-200")
    assert (model.plan.cluster.inter_node_gbps, model.plan.cluster.network) == (25.0, "ib-hdr-200")
    _type(form, "cluster.inter_node_gbps", "40")  # typed: the user's own network
    assert (model.plan.cluster.inter_node_gbps, model.plan.cluster.network) == (40.0, None)
    _type(form, "cluster.inter_node_gbps", "0")
    assert "Between nodes, GB/s must be a number greater than" in form.error_text("cluster.inter_node_gbps")


def test_form_refuses_hpz_with_the_torch_profile(form, model):
    model.load(_plan(shard_group=8))
    _choose(form, "hybrid", "hpz")
    _choose(form, "profile", "torch")
    assert "hpZ is a paper-profile choice" in form.error_text("hybrid")


def test_table_shows_communication_by_link(table_tab, model):
    plan = _plan(shard_group=8)
    model.set_plan(plan)
    rows = {r[0]: r[1:] for r in table_tab.rows()}
    three = comm_by_link(plan)[3]
    assert rows["Inside a node per step (450 GB/s)"][3] == "42.00 GB · 93.3 ms"
    assert rows["Between nodes per step (50 GB/s)"][3] == "3.00 GB · 60.0 ms" and three.inter_node_bytes == 3 * GB
    assert rows["Communication time, at least"] == ["77.5 ms", "62.2 ms", "62.2 ms", "93.3 ms"]
    lines = rows["Collectives: in the node + between"][3].split("\n")
    assert lines == ["2 × all-gather, group of 8: 28.00 GB + 0.00 GB", "reduce-scatter, group of 8: 14.00 GB + 0.00 GB",
                     "all-reduce, 4 replicas: 0.00 GB + 3.00 GB"]
    text = table_tab.as_text()
    assert "compute is not modelled" in text and "lower bounds" in text
    assert "at least 93.3 ms against 62.2 ms a step" in text  # §7 in seconds for the plan at hand


def test_nd_chart_draws_the_hsdp_curve_beside_the_flat_ones(plan_tab, model):
    model.set_plan(_plan(shard_group=8))
    chart = plan_tab.release_nd_chart() if plan_tab.dp_chart is None else plan_tab.dp_chart
    chart.set_plan(model.plan, model.breakdown)
    hybrid = chart.hybrid
    assert hybrid.grid[:4] == [8, 16, 32, 64] and hybrid.grid[-1] >= 1024
    assert set(hybrid.sweep[3]) == {16 * GB}  # HSDP stops falling at N: only the replicas grow
    xs, ys = hybrid.curves[3].getData()
    assert list(xs[:2]) == [3.0, 4.0] and ys[0] == pytest.approx(math.log10(16))  # log axis, GB
    flat = dict(zip(chart.grid, chart.sweep()[3]))
    assert flat[8] == 16 * GB and flat[1024] == 16 * 8 * GB // 1024  # the flat curve keeps falling
    assert "HSDP, N = 8" in plan_tab.dp_caption.text()
    model.set_plan(_plan())
    chart.set_plan(model.plan, model.breakdown)
    assert chart.hybrid.grid == [] and "HSDP" not in plan_tab.dp_caption.text()


def test_lesson_counts_flat_and_gives_section_7_in_seconds():
    plan = _plan(shard_group=8)
    flat = lesson_plan(plan)
    assert flat.cluster.shard_group is None
    figures = lesson_figures(plan)
    assert figures.number("stage3").bytes == compute(flat).stage(3).total_bytes == 4 * GB  # the card's 16P/Nd
    links = comm_by_link(flat)
    assert figures.number("time3").seconds == links[3].lower_bound_seconds == pytest.approx(5.8125 / 50)
    assert figures.number("time2").seconds == pytest.approx(3.875 / 50)


def test_russian_labels(form, model):
    from zerodesk.gui.base import i18n

    i18n.set_language("ru")
    try:
        assert form.label("cluster.shard_group").text() == "Группа разделения N"
        assert form.hybrid.title() == "Гибридное разделение и каналы"
    finally:
        i18n.set_language("en")
