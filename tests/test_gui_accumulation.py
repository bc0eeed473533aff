"""The form's accumulation fields (micro-batches per step, when gradients are reduced), the global batch under
them and in the Table's notes, driven as a user would (real widgets, offscreen)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


def type_into(qtbot, widget, text: str) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)


def digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit() or c == " ")


def test_accumulation_fields_set_the_plan_and_show_the_global_batch(form, table_tab, qtbot):
    model = form.model
    type_into(qtbot, form.field("micro_batch"), "3")
    type_into(qtbot, form.field("accum_steps"), "8")
    plan = model.plan
    assert (plan.micro_batch, plan.accum_steps, plan.global_batch) == (3, 8, 3 * 8 * plan.dp) and not model.errors
    hint = form.findChild(QLabel, "globalBatchHint").text()
    assert hint.startswith("Global batch ") and digits(hint).split() == [str(plan.global_batch), "3", "8", str(plan.dp)]
    combo = form.field("accum_sync")
    combo.setCurrentIndex(combo.findData("last"))
    combo.activated.emit(combo.currentIndex())
    assert model.plan.accum_sync == "last"
    notes = table_tab.activations.text()
    assert f"Global batch {plan.global_batch}" in notes and "whole model's gradients" in notes
    type_into(qtbot, form.field("accum_steps"), "0")
    assert "accum_steps" in model.errors and model.plan.accum_steps == 8  # the last valid plan stays


def test_table_counts_communication_per_step_of_k_micro_batches(table_tab, model):
    """Four micro-batches reduced on the last only: DDP's all-reduce once, stage 3's gathers four times each; the
    rows and the note say the step is four micro-batches (English, then Russian)."""
    from zerodesk.core.accounting import comm_by_link
    from zerodesk.core.plan import Plan
    from zerodesk.gui.base import i18n

    plan = Plan.model_validate({"model": {"params": 2 * 10**9}, "cluster": {"dp": 4}, "accum_steps": 4,
                                "accum_sync": "last"})
    model.set_plan(plan)
    rows = {r[0]: r[1:] for r in table_tab.rows()}
    comms = comm_by_link(plan)
    assert rows["Communication per step of 4 micro-batches"] == [i18n.fmt_bytes(c.total_bytes, "GB") for c in comms]
    assert rows["Communication per step of 4 micro-batches"] == ["6.00 GB", "6.00 GB", "6.00 GB", "27.00 GB"]
    assert rows["Collectives: in the node + between"][3].split("\n") == [
        "8 × all-gather, group of 4: 24.00 GB + 0.00 GB", "reduce-scatter, group of 4: 3.00 GB + 0.00 GB"]
    assert ("A step here is 4 micro-batches: gradients are reduced on the last micro-batch only"
            in table_tab.as_text())
    try:
        i18n.set_language("ru")
        model.set_plan(plan.model_copy(update={"accum_steps": 5}))
        labels = [r[0] for r in table_tab.rows()]
        assert "Обмены за шаг из 5 микробатчей" in labels
        assert "Шаг здесь — микробатчей: 5; градиенты сводятся только в последнем микробатче" in table_tab.as_text()
    finally:
        i18n.set_language("en")
