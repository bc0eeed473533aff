"""The Measure tab's peak by module (issue 30): a real simulation's parts for the stage under the Plan chart's cursor,
largest first, each term a link to its glossary claim, in English and Russian; the window's runs ask for the parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zerodesk.core.plan import Plan
from zerodesk.gui.base import i18n
from zerodesk.gui.runs.controller import RunJob
from zerodesk.gui.runs.fmt import fmt_in
from zerodesk.gui.runs.module_breakdown import ModuleBreakdown
from zerodesk.measure.protocol import Result
from zerodesk.measure.rules import table_unit
from zerodesk.measure.runner import MeasureRun, simulate_command

ARCH = {"layers": 3, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 160, "vocab": 97}
PLAN = Plan.model_validate({"model": {"architecture": ARCH}, "seq_len": 16, "cluster": {"nodes": 1, "gpus_per_node": 2}})
GLOSSARY = {c["id"] for c in json.loads((Path(__file__).resolve().parents[1] / "resources/glossary/en.json")
                                        .read_text())["claims"]}


@pytest.fixture(scope="module")
def results(job_server) -> list[Result]:
    out = [m for m in MeasureRun(simulate_command(PLAN, (0, 3), by_module=True), timeout=600, server=job_server)
           if isinstance(m, Result)]
    assert sorted(r.stage for r in out) == [0, 3]
    return out


def _shown(view: ModuleBreakdown) -> list[list[str]]:
    t = view.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_the_largest_parts_of_the_stage_under_the_cursor(qtbot, gui_settings, results):
    view = ModuleBreakdown()
    qtbot.addWidget(view)
    assert view.table.rowCount() == 0 and "Simulate or measure" in view.title.text()
    view.set_results(results)
    assert view.stage == 3  # the last stage until the cursor says otherwise
    by_stage = {r.stage: r for r in results}
    for stage in (0, 3):
        view.set_stage(stage)
        shares = by_stage[stage].by_module
        rows = _shown(view)
        assert len(rows) == min(5, len(shares))
        heads = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
        total = heads.index("Total")
        unit = table_unit(by_stage[stage].peak_bytes, "GB")
        assert [r[0] for r in rows] == [view.part_label(s.module, s.kind) for s in shares[:5]]  # largest first
        assert [r[total] for r in rows] == [fmt_in(s.total, unit) for s in shares[:5]]
        assert ("FSDP2 unit" in heads) == (stage == 3)  # DDP has no units
        assert sum(s.total for s in shares) == by_stage[stage].peak_bytes
        assert i18n.stage_short(stage) in view.title.text()
    view.set_stage(1)  # a stage the run did not reach: the shown one stays
    assert view.stage == 3


def test_each_term_links_to_its_claim(qtbot, gui_settings, results):
    view = ModuleBreakdown()
    qtbot.addWidget(view)
    view.set_results(results)
    text = view.title.text()
    links = [part.split('"')[1] for part in text.split("<a href=")[1:]]
    assert "peak-by-module" in links and "component-gathered-params" in links and len(links) >= 3
    assert set(links) <= GLOSSARY  # every link opens a claim the glossary has
    with qtbot.waitSignal(view.claimRequested) as got:
        view.title.linkActivated.emit(links[1])
    assert got.args == [links[1]]


def test_russian_words_the_parts(qtbot, gui_settings, results):
    i18n.set_language("ru")
    view = ModuleBreakdown()
    qtbot.addWidget(view)
    view.set_results(results)
    view.set_stage(0)
    words = " ".join(c for row in _shown(view) for c in row) + view.title.text()
    assert "симуляция" in words and "пик" in words
    assert "(rest of the model)" not in words and "embedding" not in words and "Total" not in words


def test_the_window_follows_the_chart_and_opens_the_glossary(window, results):
    window.measure_tab.modules.set_results(results)
    window.chart.segmentHovered.emit(0, "params")
    assert window.measure_tab.modules.stage == 0
    window.measure_tab.modules.claimRequested.emit("component-activations")
    assert window.glossary.selected_claim_id == "component-activations"


def test_a_run_from_the_window_asks_for_the_parts():
    for kind in ("simulated", "measured"):
        assert "--by-module" in RunJob(kind, PLAN, (3,), 2).argv()
