"""The Qt-free plan model: one breakdown per plan, errors kept beside it, each kind of change its own event."""

from __future__ import annotations

from zerodesk.core.plan import Plan
from zerodesk.core.plan_model import PlanModel

CARD = Plan.model_validate({"model": {"params": 2_000_000_000}, "cluster": {"nodes": 1, "gpus_per_node": 4}})


def test_views_observe_the_plan_its_breakdown_and_the_errors_as_separate_events():
    model, seen = PlanModel(), []
    on_plan = model.events.plan.connect(lambda plan, b: seen.append(("plan", plan, b)))
    model.events.errors.connect(lambda errors: seen.append(("errors", errors, model.plan)))
    assert model.set_plan(CARD)
    what, plan, b = seen[-1]
    assert what == "plan" and plan is CARD and model.breakdown is b
    assert [s.total_bytes for s in b.stages] == [32e9, 14e9, 11e9, 8e9]
    model.set_errors({"seq_len": "must be at least 1"})
    assert seen[-1] == ("errors", {"seq_len": "must be at least 1"}, CARD) and not model.is_valid  # the plan stays
    model.events.plan.disconnect(on_plan)
    model.set_plan(CARD.model_copy(update={"seq_len": 4096}))
    assert len(seen) == 2 and model.plan.seq_len == 4096


def test_a_plan_that_cannot_be_computed_leaves_the_last_one_and_says_why():
    model, said = PlanModel(), []
    model.events.compute_error.connect(said.append)
    model.set_plan(CARD)
    no_ranks = CARD.cluster.model_copy(update={"gpus_per_node": 0})  # model_copy does not validate: Nd = 0
    broken = CARD.model_copy(update={"cluster": no_ranks})
    assert not model.set_plan(broken)
    assert model.plan is CARD and said and said[-1] == model.compute_error != ""


def test_a_loaded_plan_goes_to_the_form_when_one_listens_else_it_is_set_as_given():
    model = PlanModel()
    model.load(CARD)
    assert model.plan is CARD  # no form: set as given
    shown = []
    model.events.loaded.connect(shown.append)
    other = CARD.model_copy(update={"seq_len": 512})
    model.load(other)
    assert shown == [other] and model.plan is CARD  # the form decides what it reads back


def test_a_plan_equal_to_a_recent_one_gets_its_very_breakdown():
    """A choice made again (a profile toggled back) is not computed again: the views get the breakdown object they had
    for it, so their own caches by identity hold too; a plan that differs is computed afresh."""
    model = PlanModel()
    torch_plan = Plan.model_validate({**CARD.model_dump(), "profile": "torch"})
    model.set_plan(CARD)
    first = model.breakdown
    model.set_plan(torch_plan)
    assert model.breakdown is not first and model.breakdown.profile == "torch"
    again = Plan.model_validate(CARD.model_dump())  # equal, not the same object
    assert again is not CARD and again == CARD
    model.set_plan(again)
    assert model.breakdown is first and model.plan is again  # the plan given is the plan shown
    model.set_plan(Plan.model_validate({**CARD.model_dump(), "cluster": {"nodes": 1, "gpus_per_node": 8}}))
    assert [s.total_bytes for s in model.breakdown.stages] != [s.total_bytes for s in first.stages]
