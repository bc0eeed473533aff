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
