"""The fit's fast sums never change a figure: over random plans (models, profiles, schemes, GPUs, Nd, sequence,
micro-batch, units, prefetch, kernels, dtypes, optimizers) every moment's total summed as arrays (core.peak_totals) is
the total of the moment built component by component (core.peak.moments), label for label; a stage's totals at any
micro-batch and sequence (StageTotals) are moment_totals' of the plan set there; a step placed at one gradient scale
and scaled is the step placed at that scale; and the search's polynomial model over every moment at once
(fit_search._model_answer_arrays) answers as the model of each moment does."""

from __future__ import annotations

import random

import numpy as np
import pytest

from zerodesk.core import catalog
from zerodesk.core.accounting import STAGES, compute
from zerodesk.core.fit_search import _model_answer, _moment_answer
from zerodesk.core.peak import moment_totals, moments, shapes, traced_step
from zerodesk.core.peak_engine import engine
from zerodesk.core.peak_accumulated import stage_totals
from zerodesk.core.peak_totals import StageTotals, labels
from zerodesk.core.peak_traced import _kinds_of, _Placed, placed_form
from zerodesk.core.plan import Plan
from zerodesk.core.step_template import symbol_values

ARCHED = [m.name for m in catalog.model_presets() if m.architecture is not None]
GPUS = [g.name for g in catalog.gpu_presets()]
KNOBS = [{}, {"wrap": "blocks", "wrap_blocks": 2}, {"wrap": "blocks", "wrap_blocks": 3}, {"prefetch": "off"},
         {"wrap": "root"}, {"kernels": "cpu"}, {"param_dtype": "fp32"}, {"optimizer_impl": "fused"},
         {"optimizer_impl": "for-loop"}, {"scheme": "fp32-adam"}, {"scheme": "bf16-fp32grad-adam"},
         {"scheme": "mixed-adam-8bit"}, {"accum_steps": 2}, {"accum_steps": 3},
         {"accum_steps": 2, "accum_sync": "last"}, {"accum_steps": 4, "accum_sync": "last"}]
ACCUMULATING = [{"accum_steps": 2}, {"accum_steps": 3}, {"accum_steps": 2, "accum_sync": "last"},
                {"accum_steps": 4, "accum_sync": "last"}]


def random_plan(rng: random.Random) -> Plan:
    per_node = rng.choice([1, 2, 4, 8])
    cluster = {"nodes": rng.choice([1, 2, 8, 64]), "gpus_per_node": per_node, "gpu": rng.choice(GPUS),
               "shard_group": rng.choice([None, None, per_node])}
    return Plan.model_validate({
        "model": catalog.find_model(rng.choice(ARCHED)).to_model_spec().model_dump(), "cluster": cluster,
        "seq_len": rng.choice([128, 1000, 2048, 4096, 8192]), "micro_batch": rng.choice([1, 2, 3, 8]),
        "recompute": rng.choice(["none", "selective", "full"]), "profile": rng.choice(["paper", "torch"]),
        **rng.choice(KNOBS)})


PLANS = [random_plan(random.Random(seed)) for seed in range(24)]


def name(p: Plan) -> str:
    return f"{p.model.name}-{p.profile}-{p.scheme.value}-s{p.seq_len}-b{p.micro_batch}-{p.recompute}"


@pytest.mark.parametrize("p", PLANS, ids=name)
def test_every_moments_total_is_the_moment_built(p: Plan):
    states, sh = compute(p), shapes(p)
    for stage in STAGES:
        built = moments(p, stage, states, sh)
        assert moment_totals(p, stage, states, sh) == (labels(tuple((m.phase, m.name) for m in built)),
                                                        [m.total for m in built])


# plans with gradient accumulation (both ways of reducing, 2 steps and more): the fit's stage totals answer them too
ACCUMULATED = [random_plan(random.Random(seed)).model_copy(update=ACCUMULATING[seed % len(ACCUMULATING)])
               for seed in range(100, 112)]


@pytest.mark.parametrize("p", PLANS[:12] + ACCUMULATED, ids=name)
def test_a_stages_totals_anywhere_are_those_of_the_plan_set_there(p: Plan):
    rng = random.Random(p.seq_len * 31 + p.micro_batch)
    states, sh = compute(p), shapes(p)
    summed = 0
    for stage in STAGES:
        at = stage_totals(p, stage, states, sh)
        assert at is not None  # one recomputation on every block, a template: the fast path serves it
        assert (StageTotals.of(p, stage, states, sh) is None) == (p.accum_steps > 1)  # each class its own plans
        for batch, seq in ((1, p.seq_len), (2, p.seq_len), (rng.randint(1, 64), rng.randint(16, 40_000)),
                           (1, rng.randint(1, 9_000))):
            got = at(batch, seq)
            if got is not None:
                assert got == moment_totals(p.model_copy(update={"micro_batch": batch, "seq_len": seq}), stage,
                                            states, sh)
                summed += 1
    # nothing summed only where no step is traced at the plan's own point (a model without a template's step there)
    assert summed or all(traced_step(p, engine(p, stage).compute) is None for stage in STAGES)


def test_a_step_scaled_is_the_step_placed_at_that_scale():
    placed = 0
    for p in PLANS[:8]:
        sizes = tuple(sorted(symbol_values(p.model.architecture, 1, 1).items()))
        for stage in (0, 2):
            step = traced_step(p, engine(p, stage).compute)
            if step is None:  # no template traced for this compute mode: the closed form answers
                continue
            kinds = tuple(_kinds_of(p, step))
            for scale in (0.25, 0.5, 2.0):
                scaled = placed_form(step, kinds, stage >= 2, scale, sizes, False, 1)
                direct = _Placed(step, list(kinds), stage >= 2, scale, dict(sizes), False, 1)
                assert np.array_equal(scaled.poly, direct.poly) and scaled.names == direct.names
                placed += 1
    assert placed >= 24


def test_the_models_answer_over_every_moment_is_each_moments():
    rng = random.Random(7)
    for _ in range(3000):
        degree, n, x0 = rng.choice([1, 2]), rng.randint(1, 40), rng.randint(1, 5000)
        cap, limit = rng.choice([64, 4096, 131_072]), rng.randint(-10**12, 2 * 10**12)
        base = [rng.randint(-10**12, 10**12) for _ in range(n)]
        slope = [rng.choice([0, rng.randint(-10**9, 10**9), rng.randint(0, 10**11)]) for _ in range(n)]
        curve = [rng.choice([0, 0, rng.randint(-10**5, 10**7)]) for _ in range(n)]
        points = [(x0 + k, {f"m{i}": base[i] + k * slope[i] + k * (k - 1) // 2 * curve[i] for i in range(n)})
                  for k in range(degree + 1)]
        each = cap
        for i in range(n):
            ys = [t[f"m{i}"] for _, t in points]
            d2 = ys[2] - 2 * ys[1] + ys[0] if degree == 2 else 0
            each = min(each, _moment_answer(ys[0], ys[1] - ys[0], d2, x0, limit, cap))
        assert _model_answer(points, limit, cap) == max(each, 0)
