"""The window keeps a plan's knobs (issue 30): the form has no fields for them yet, so the plan it was shown lends them
to every plan its fields make; a choice per block that no longer fits the blocks typed is dropped, not an error."""

from __future__ import annotations

from PySide6.QtCore import Qt

from zerodesk.core.plan import Plan

ARCH = {"layers": 4, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 160, "vocab": 97}


def _type(qtbot, form, key: str, text: str) -> None:
    field = form.field(key)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_an_edit_keeps_the_knobs_of_the_plan_shown(qtbot, form, model):
    plan = Plan.model_validate({"model": {"architecture": ARCH}, "param_dtype": "fp32", "reduce_dtype": "bf16",
                                "wrap": "blocks", "wrap_blocks": 2, "prefetch": "off", "recompute": "full",
                                "recompute_every": 2, "recompute_blocks": ["full", "none", "none", "full"]})
    model.load(plan)
    assert model.plan == plan
    _type(qtbot, form, "seq_len", "64")
    assert model.plan.seq_len == 64
    assert model.plan.model_copy(update={"seq_len": plan.seq_len}) == plan  # every knob as it was
    _type(qtbot, form, "model.architecture.layers", "8")
    assert model.plan.model.architecture.layers == 8 and not model.errors
    assert model.plan.recompute_blocks is None  # made for 4 blocks: dropped
    assert (model.plan.param_dtype, model.plan.wrap, model.plan.recompute_every) == ("fp32", "blocks", 2)
