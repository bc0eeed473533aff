"""The cheapest-recomputation search's cheap lower bound (core.peak_bound) never changes an answer: over random plans
(models, profiles, GPUs, Nd, sequence, micro-batch, units, prefetch, kernels, GPU memory near the line) the search
with it finds what the search without it finds, and the bound is never above the step's own largest moment."""

from __future__ import annotations

import random

import pytest

from zerodesk.core import catalog
from zerodesk.core.accounting import STAGES, compute
from zerodesk.core.fit_map import FitMapModel
from zerodesk.core.fit_recompute import cheapest_fitting, policies
from zerodesk.core.knobs import recompute_per_block
from zerodesk.core.peak import moments, predict, shapes
from zerodesk.core.peak_bound import SLACK, MixedBound
from zerodesk.core.plan import Plan

ARCHED = [m.name for m in catalog.model_presets() if m.architecture is not None]
GPUS = [g.name for g in catalog.gpu_presets()]


def random_plan(rng: random.Random) -> Plan:
    model = catalog.find_model(rng.choice(ARCHED)).to_model_spec().model_dump()
    per_node, gpu = rng.choice([1, 2, 4, 8]), catalog.find_gpu(rng.choice(GPUS))
    knobs = rng.choice([{}, {"wrap": "blocks", "wrap_blocks": rng.choice([2, 3, 4])}, {"prefetch": "off"},
                        {"wrap": "root"}, {"kernels": "cpu"}, {"param_dtype": "fp32"}, {"optimizer_impl": "fused"},
                        {"accum_steps": 2}, {"accum_steps": 3}, {"accum_steps": 3, "accum_sync": "last"},
                        {"accum_steps": 2, "accum_sync": "last"}])
    group = rng.choice([None, None, per_node])
    cluster = {"nodes": rng.choice([1, 2, 8, 64]), "gpus_per_node": per_node, "gpu": gpu.name,
               "gpu_memory_bytes": gpu.memory_bytes, "shard_group": group}
    p = Plan.model_validate({"model": model, "cluster": cluster, "seq_len": rng.choice([256, 1024, 2048, 4096, 8192]),
                             "micro_batch": rng.choice([1, 2, 4, 8]),
                             "profile": rng.choice(["paper", "torch"]), "cuda_allowance_bytes": 2**30, **knobs})
    # a GPU's memory between the peaks with full recompute and with none, at a random stage: the search has work
    stage = rng.choice(STAGES)
    full, none = (predict(p.model_copy(update={"recompute": m, "recompute_every": 1}))[stage].total_bytes
                  for m in ("full", "none"))
    memory = int(full + rng.random() * (none - full) * 1.2) if rng.random() < 0.8 else gpu.memory_bytes
    return p.model_copy(update={"cluster": p.cluster.model_copy(update={"gpu_memory_bytes": max(memory, 1)})})


PLANS = [random_plan(random.Random(seed)) for seed in range(40)]


def name(p: Plan) -> str:
    return f"{p.model.name}-{p.profile}-s{p.seq_len}-b{p.micro_batch}"


_UNBOUNDED: dict[str, object] = {}


def unbounded(p: Plan):
    """The search without the bound, the answer the two tests over PLANS check against: searched once per plan, not
    once per test (it is nearly all their CPU, 8 s over the 40 plans, 4.4 s for Llama 3 70B; the bound's: 0.7 s)."""
    key = p.model_dump_json()
    if key not in _UNBOUNDED:
        _UNBOUNDED[key] = cheapest_fitting(p, _bound=False)
    return _UNBOUNDED[key]


@pytest.mark.parametrize("p", PLANS, ids=name)
def test_the_bound_finds_what_the_search_without_it_finds(p: Plan):
    assert cheapest_fitting(p) == unbounded(p)


def test_the_bound_settles_most_policies_of_a_large_model():
    """Llama 2 70B at sequence 4096 on 80 GB (the Fit view's case): stage 3 needs full recompute on every block, so
    every cheaper policy is told apart, nearly all by the bound alone (its figures are floats, the moments' ints)."""
    gpu = catalog.find_gpu("h100-80gb")
    p = Plan.model_validate({"model": catalog.find_model("llama-2-70b").to_model_spec().model_dump(),
                             "cluster": {"nodes": 8, "gpus_per_node": 8, "gpu": gpu.name,
                                         "gpu_memory_bytes": gpu.memory_bytes},
                             "seq_len": 4096, "profile": "torch", "cuda_allowance_bytes": 2**30})
    peaks = {}
    fits = cheapest_fitting(p, peaks=peaks)
    assert fits == cheapest_fitting(p, _bound=False)
    assert fits[3].policy is not None and fits[3].policy.fields["recompute_every"] == 1
    by_bound = [key for key, (value, _) in peaks.items() if isinstance(value, float)]
    assert len(by_bound) > 0.9 * len(peaks) > 100


def test_a_shared_memo_of_peaks_gives_the_same_answers_across_gpu_memory():
    p, peaks = PLANS[0], {}
    for gib in (8, 40, 80, 141):
        q = p.model_copy(update={"cluster": p.cluster.model_copy(update={"gpu_memory_bytes": gib * 2**30})})
        assert cheapest_fitting(q, peaks=peaks) == cheapest_fitting(q, _bound=False)


@pytest.mark.parametrize("p", PLANS, ids=name)
def test_the_solves_memo_gives_what_the_moments_give(p: Plan):
    """The Fit view reads the policies of one mode on every block from the solve's memo of peaks (core.fit_peaks):
    the same answer as the search that builds their moments, the memo made for another plan of the same peaks (an
    edit of the GPU's memory and of Nd before) included."""
    model = FitMapModel()
    other = p.model_copy(update={"cluster": p.cluster.model_copy(update={"gpu_memory_bytes": 2**40})})
    model.update(other)  # the memo of the plan before the edit serves this one
    state = model.update(p)
    assert state.recompute == unbounded(p)
    assert FitMapModel().update(p).recompute == state.recompute


@pytest.mark.parametrize("p", PLANS[:12], ids=name)
def test_the_bound_is_never_above_the_steps_own_largest_moment(p: Plan):
    layers = p.model.architecture.layers
    states, sh, cache = compute(p), shapes(p), {}
    checked = 0
    for policy in policies(p.model.architecture, p.seq_len, p.micro_batch)[::7]:
        if not 0 < policy.blocks < layers:
            continue
        q = p.model_copy(update=policy.fields)
        for stage in STAGES:
            bound = MixedBound.of(q, stage, states, sh, {}, policy.recompute)
            if bound is None:
                continue
            ms = [m for m in moments(q, stage, states, sh, cache, _top=True, _collectives=False)
                  if not m.name.endswith((" end", " start"))]
            assert 0 < recompute_per_block(q, layers).count(policy.recompute) < layers
            low = bound.bound(policy.every)
            assert low <= max(m.total for m in ms)
            # and tight where the step's places peak (not the optimizer's step, nor the root's reduce-scatter); with
            # accumulation it bounds the step of one micro-batch, which the later micro-batches' moments add to
            placed = max(m.total for m in ms if m.name not in ("optimizer step", "root reduce-scatter"))
            assert placed - low <= 2 * SLACK or q.accum_steps > 1
            checked += 1
    assert checked or p.accum_steps > 1


@pytest.mark.parametrize("sync", ["every", "last"])
def test_with_accumulation_the_bound_still_settles_most_policies(sync: str):
    """Llama 2 13B accumulating 3 micro-batches, the GPU's memory between stage 2's peaks with full recompute and with
    none: the kept gradients are much of every policy's peak, and the bound counts them at each place (reduced on
    every micro-batch, or on the last only), so it settles nearly all policies without placing their moments."""
    gpu = catalog.find_gpu("h100-80gb")
    p = Plan.model_validate({"model": catalog.find_model("llama-2-13b").to_model_spec().model_dump(),
                             "cluster": {"nodes": 8, "gpus_per_node": 8, "gpu": gpu.name,
                                         "gpu_memory_bytes": gpu.memory_bytes},
                             "seq_len": 4096, "micro_batch": 4, "profile": "torch", "cuda_allowance_bytes": 2**30,
                             "accum_steps": 3, "accum_sync": sync})
    full, none = (predict(p.model_copy(update={"recompute": m}))[2].total_bytes for m in ("full", "none"))
    q = p.model_copy(update={"cluster": p.cluster.model_copy(update={"gpu_memory_bytes": (full + none) // 2})})
    peaks = {}
    fits = cheapest_fitting(q, peaks=peaks)
    assert fits == cheapest_fitting(q, _bound=False)
    assert fits[2].policy is not None
    by_bound = [key for key, (value, _) in peaks.items() if isinstance(value, float)]
    assert len(by_bound) > 0.9 * len(peaks) > 100


@pytest.mark.parametrize("p", PLANS[:16], ids=name)
def test_a_policys_peak_from_totals_is_the_moments_own(p: Plan):
    """The search reads a policy's peak from the moments' totals (with accumulation, core.accumulation's totals, no
    moment built): every moment's total, and so the largest, is the built moment's, with the collectives or without."""
    states, sh = compute(p), shapes(p)
    for policy in policies(p.model.architecture, p.seq_len, p.micro_batch)[::11]:
        q = p.model_copy(update=policy.fields)
        for stage in STAGES:
            for exact in (False, True):
                built = moments(q, stage, states, sh, {}, _top=True, _collectives=exact)
                names, totals = moments(q, stage, states, sh, {}, _top=True, _totals=True, _collectives=exact)
                assert list(names) == [(m.phase, m.name) for m in built]
                assert totals == [m.total for m in built]
