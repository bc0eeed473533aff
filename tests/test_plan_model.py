"""The Qt-free plan model: one breakdown per plan, errors kept beside it, subscribers told what changed."""

from __future__ import annotations

from zerodesk.core.plan import Plan
from zerodesk.core.plan_model import PlanModel

CARD = Plan.model_validate({"model": {"params": 2_000_000_000}, "cluster": {"nodes": 1, "gpus_per_node": 4}})


def test_subscribers_get_the_plan_its_breakdown_and_the_errors():
    model, seen = PlanModel(), []
    unsubscribe = model.subscribe(lambda m, what: seen.append((what, m.plan, m.breakdown, dict(m.errors))))
    assert model.set_plan(CARD)
    what, plan, b, _ = seen[-1]
    assert what == "plan" and plan is CARD and [s.total_bytes for s in b.stages] == [32e9, 14e9, 11e9, 8e9]
    model.set_errors({"seq_len": "must be at least 1"})
    assert seen[-1][0] == "errors" and seen[-1][1] is CARD and seen[-1][3] == {"seq_len": "must be at least 1"}
    assert not model.set_plan(None) and len(seen) == 2  # no plan from an invalid form: nothing changes
    unsubscribe()
    model.set_plan(CARD.model_copy(update={"seq_len": 4096}))
    assert len(seen) == 2 and model.plan.seq_len == 4096

