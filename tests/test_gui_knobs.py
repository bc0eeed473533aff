"""The form's knobs (issue 30): a plan's policy, units and recomputation per block are shown in their own group and
read back; a choice per block is typed compactly (full*2,none*2); a list that does not fit the blocks is one sentence
on its field; a model preset drops a list made for another model's blocks."""

from __future__ import annotations

from PySide6.QtCore import Qt

from zerodesk.core.plan import Plan

ARCH = {"layers": 4, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 160, "vocab": 97}


def _type(qtbot, form, key: str, text: str) -> None:
    field = form.field(key)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def _choose(form, key: str, value: str) -> None:
    combo = form.field(key)
    combo.setCurrentIndex(combo.findData(value))
    combo.activated.emit(combo.currentIndex())


def test_a_plans_knobs_are_shown_and_survive_an_edit(qtbot, form, model):
    plan = Plan.model_validate({"model": {"architecture": ARCH}, "param_dtype": "fp32", "reduce_dtype": "bf16",
                                "wrap": "blocks", "wrap_blocks": 2, "prefetch": "off", "recompute": "full",
                                "recompute_every": 2, "recompute_blocks": ["full", "none", "none", "full"]})
    model.load(plan)
    assert model.plan == plan
    assert form.field("param_dtype").currentData() == "fp32" and form.field("wrap").currentData() == "blocks"
    assert form.field("recompute_blocks").text() == "full,none*2,full"
    assert form.field("wrap_blocks").isEnabled()
    _type(qtbot, form, "seq_len", "64")
    assert model.plan.seq_len == 64
    assert model.plan.model_copy(update={"seq_len": plan.seq_len}) == plan  # every knob as it was


def test_each_knob_field_sets_the_plan(qtbot, form, model):
    model.load(Plan.model_validate({"model": {"architecture": ARCH}}))
    _choose(form, "reduce_dtype", "bf16")
    _choose(form, "wrap", "root")
    assert (model.plan.reduce_dtype, model.plan.wrap) == ("bf16", "root")
    assert not form.field("wrap_blocks").isEnabled()  # N means nothing with the root only
    _type(qtbot, form, "recompute_every", "2")
    assert model.plan.recompute_every == 2
    _type(qtbot, form, "recompute_blocks", "selective*3,full")
    assert model.plan.recompute_blocks == ["selective"] * 3 + ["full"] and not model.errors


def test_a_list_that_does_not_fit_is_one_sentence_on_its_field(qtbot, form, model):
    model.load(Plan.model_validate({"model": {"architecture": ARCH}}))
    _type(qtbot, form, "recompute_blocks", "full*3")
    assert "3 given, the model has 4 blocks" in form.error_text("recompute_blocks")
    _type(qtbot, form, "recompute_blocks", "fill*4")
    assert "'fill*4' is not a block's recomputation" in form.error_text("recompute_blocks")
    _type(qtbot, form, "recompute_blocks", "full*4")
    assert not form.error_text("recompute_blocks") and model.plan.recompute_blocks == ["full"] * 4


def test_a_preset_drops_a_list_made_for_other_blocks(form, model):
    model.load(Plan.model_validate({"model": {"architecture": ARCH}, "recompute_blocks": "full*4"}))
    form.apply_model_preset("gpt2")
    assert model.plan.model.architecture.layers == 12 and model.plan.recompute_blocks is None
    assert form.field("recompute_blocks").text() == ""
