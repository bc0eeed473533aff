"""The Fit view's global-batch question, a real widget offscreen: the field typed into as a user would, the core's
answer (fit.global_batch_fit) in words and in the stages × recompute grid, bad input as one sentence, a plan edit
followed, and Russian."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from zerodesk.core.accounting import comm_by_link
from zerodesk.core.catalog import find_model
from zerodesk.core.fit import RECOMPUTE, global_batch_fit
from zerodesk.core.plan import Plan
from zerodesk.gui.base import i18n

from conftest import shown

GB = 10**9


def llama_plan(**kw) -> Plan:
    data = {"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
            "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu_memory_bytes": 80 * GB}, "cuda_allowance_bytes": GB}
    data.update(kw)
    return Plan.model_validate(data)


@pytest.fixture
def fit_tab(qtbot, gui_settings, model):
    from zerodesk.gui.fit.fit_tab import FitTab

    model.set_plan(llama_plan())
    tab = shown(qtbot, FitTab(model), (900, 1100))
    qtbot.waitUntil(lambda: tab.state is not None)
    return tab


def type_global_batch(qtbot, panel, text: str) -> None:
    panel.field.setFocus()
    panel.field.selectAll()
    qtbot.keyClick(panel.field, Qt.Key.Key_Delete)
    qtbot.keyClicks(panel.field, text)


def grid_texts(panel) -> dict[tuple[int, str], str]:
    return {(s, r): panel.grid.item(s, c).text() for s in range(4) for c, r in enumerate(RECOMPUTE)}


def test_global_batch_answers_with_the_fewest_steps_per_stage_and_recompute(fit_tab, qtbot):
    panel = fit_tab.global_batch
    assert not panel.grid.isVisible() and not panel.words.isVisible()  # no question yet
    type_global_batch(qtbot, panel, "512")
    want = global_batch_fit(fit_tab.state.plan, 512)
    assert panel.answer == want
    best = want.recommended
    assert best is not None and best.accum_steps > 1 and best.micro_batch * best.accum_steps == 512 // 8
    words = panel.words.text()
    assert "Global batch 512 at Nd = 8: 64 sequences per rank per step." in words
    assert (f"Fewest accumulation steps: stage {best.stage} with full recompute, {best.accum_steps} steps of "
            f"micro-batch {best.micro_batch}, moving {i18n.fmt_bytes(best.comm_bytes, 'GB')} per step (gradients "
            f"reduced on every micro-batch).") in words
    cells = grid_texts(panel)
    for c in want.configs:
        cell = panel.grid.item(c.stage, RECOMPUTE.index(c.recompute))
        if c.accum_steps is None:
            assert cells[c.stage, c.recompute] == "—"
        else:
            assert cells[c.stage, c.recompute] == f"{c.accum_steps} × {c.micro_batch}"
            assert i18n.fmt_bytes(c.comm_bytes, "GB") in cell.toolTip()
        assert cell.font().bold() == (c == best)
    assert panel.grid.isVisible()


def test_communication_follows_when_gradients_are_reduced(fit_tab, model, qtbot):
    """Reduced on the last micro-batch only: the same steps, less traffic per step (one reduce-scatter, not k)."""
    panel = fit_tab.global_batch
    type_global_batch(qtbot, panel, "512")
    every = panel.answer
    model.set_plan(fit_tab.state.plan.model_copy(update={"accum_sync": "last"}))
    last = panel.answer
    assert last is not None and last != every and last.accum_sync == "last"
    for c in last.configs:
        if c.accum_steps:
            k_plan = fit_tab.state.plan.model_copy(update={"accum_steps": c.accum_steps})
            assert c.comm_bytes == comm_by_link(k_plan)[c.stage].total_bytes
    assert "reduced on the last micro-batch only" in panel.words.text()
    model.set_plan(fit_tab.state.plan.model_copy(update={"accum_steps": 4}))  # the plan's own k: the table says it
    table = fit_tab.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[-1] == "Communication per step\nof 4 micro-batches (GB)"
    assert table.item(0, 7).text() == i18n.fmt_bytes(comm_by_link(fit_tab.state.plan)[0].total_bytes, "GB")


def test_bad_global_batch_is_one_sentence_and_no_grid(fit_tab, qtbot):
    panel = fit_tab.global_batch
    type_global_batch(qtbot, panel, "100")
    assert "Global batch: 100 is not a multiple of Nd (8)" in panel.words.text() and not panel.grid.isVisible()
    assert panel.answer is None
    type_global_batch(qtbot, panel, "12x")
    assert "type a whole number of sequences from 1 to" in panel.words.text() and not panel.grid.isVisible()
    type_global_batch(qtbot, panel, "4,096")  # grouped digits as English writes them
    assert panel.answer is not None and panel.answer.global_batch == 4096
    type_global_batch(qtbot, panel, "")
    assert not panel.words.isVisible() and not panel.grid.isVisible()


def test_russian_words_the_answer(fit_tab, qtbot):
    panel = fit_tab.global_batch
    type_global_batch(qtbot, panel, "512")
    try:
        i18n.set_language("ru")
        words = panel.words.text()
        assert "Глобальный батч 512 при Nd = 8: 64 последовательности на участника за шаг." in words
        best = panel.answer.recommended
        assert f"{best.accum_steps} шага с микробатчем {best.micro_batch}" in words and "ГБ" in words
        assert panel.label.text() == "Глобальный батч:"
        assert panel.grid.horizontalHeaderItem(0).text() != "none"
    finally:
        i18n.set_language("en")
