"""Closed-form checks of every accounting formula, the card's example, and properties under hypothesis."""

from math import ceil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodesk.core.accounting import SCHEMES, comm_seconds, compute, paper_formula, sweep_dp
from zerodesk.core.plan import Cluster, ModelSpec, Plan, Profile, Scheme

GB = 10**9


def plan_for(params: int, dp: int, scheme: Scheme = Scheme.MIXED_ADAM, **kw) -> Plan:
    return Plan(model=ModelSpec(params=params), scheme=scheme, cluster=Cluster(nodes=dp, gpus_per_node=1), **kw)


def test_card_example_is_exactly_32_14_11_8_gb():
    b = compute(plan_for(2 * 10**9, 4))
    assert [s.total_bytes for s in b.stages] == [32 * GB, 14 * GB, 11 * GB, 8 * GB]


def test_card_example_components_follow_section_3_1():
    s0 = compute(plan_for(2 * 10**9, 4)).stage(0).components
    assert s0 == {"params": 4 * GB, "grads": 4 * GB, "master": 8 * GB, "adam_m": 8 * GB, "adam_v": 8 * GB}


@pytest.mark.parametrize("params,dp", [(10**9, 1), (7 * 10**9, 8), (175 * 10**9, 64), (12_345_678_912, 16)])
def test_paper_mixed_adam_closed_form(params, dp):
    p, nd = params, dp
    assert params % dp == 0
    totals = [s.total_bytes for s in compute(plan_for(p, nd)).stages]
    assert totals == [16 * p, 4 * p + 12 * p // nd, 2 * p + 14 * p // nd, 16 * p // nd]


@pytest.mark.parametrize("scheme", list(Scheme))
def test_paper_general_in_k(scheme):
    p, nd = 6 * 10**9, 8
    spec = SCHEMES[scheme]
    k = spec.k
    pb = sum(c.bytes_per_param for c in spec.components if c.state_class == "param")
    gb = sum(c.bytes_per_param for c in spec.components if c.state_class == "grad")
    totals = [s.total_bytes for s in compute(plan_for(p, nd, scheme)).stages]
    assert totals == [
        (pb + gb + k) * p,
        (pb + gb) * p + k * p / nd,
        pb * p + (gb + k) * p / nd,
        (pb + gb + k) * p / nd,
    ]


def test_scheme_bytes_per_param():
    assert {s: SCHEMES[s].bytes_per_param for s in Scheme} == {
        Scheme.MIXED_ADAM: 16, Scheme.FP32_ADAM: 16, Scheme.BF16_FP32_GRADS_ADAM: 18,
        Scheme.MIXED_SGD_MOMENTUM: 12, Scheme.MIXED_ADAM_8BIT: 10,
    }
    assert SCHEMES[Scheme.MIXED_ADAM].k == 12


def test_schemes_outside_the_paper_say_so():
    assert compute(plan_for(10**9, 4)).notes == []
    for scheme in set(Scheme) - {Scheme.MIXED_ADAM}:
        assert any("outside" in n.text for n in compute(plan_for(10**9, 4, scheme)).notes)


def test_paper_formulas_read_like_section_5():
    spec = SCHEMES[Scheme.MIXED_ADAM]
    assert [paper_formula(spec, s) for s in range(4)] == ["16P", "4P + 12P/Nd", "2P + 14P/Nd", "16P/Nd"]


def test_uneven_division_rounds_each_shard_up():
    b = compute(plan_for(10, 4))
    assert b.stage(3).components["params"] == 2 * ceil(10 / 4)


def test_bf16_with_fp32_grads_matches_megatron_lm_table():
    """Megatron-LM's distributed-optimizer doc: bf16 params + fp32 grads = 18 B, 6 + 12/d sharded.

    The bf16 .grad is added into the fp32 main_grad and freed, so it is not a persistent state.
    """
    p, nd = 8 * 10**9, 8
    spec = SCHEMES[Scheme.BF16_FP32_GRADS_ADAM]
    assert {c.key for c in spec.components} == {"params", "grad_accum", "master", "adam_m", "adam_v"}
    totals = [s.total_bytes for s in compute(plan_for(p, nd, Scheme.BF16_FP32_GRADS_ADAM)).stages]
    assert totals[0] == 18 * p and totals[1] == 6 * p + 12 * p // nd


def test_bf16_parameters_are_gathered_at_2_bytes_and_fp32_gradients_reduced_at_4():
    p = 3 * 10**9
    b = compute(plan_for(p, 4, Scheme.BF16_FP32_GRADS_ADAM))
    # stage 0 all-reduces fp32 gradients (2P x 4 B); stages 1-2 reduce-scatter 4P + all-gather bf16 2P;
    # stage 3 gathers the bf16 parameters twice (4P + 2 x 2P); a ring moves (Nd-1)/Nd of that at Nd = 4.
    assert [s.comm_bytes for s in b.stages] == [8 * p * 3 // 4, 6 * p * 3 // 4, 6 * p * 3 // 4, 8 * p * 3 // 4]


@pytest.mark.parametrize("scheme", list(Scheme))
def test_communication_dtypes_are_those_of_the_schemes_own_states(scheme):
    spec = SCHEMES[scheme]
    grad_bytes = [c.bytes_per_param for c in spec.components if c.state_class == "grad"]
    param_bytes = [c.bytes_per_param for c in spec.components if c.state_class == "param"]
    assert grad_bytes == [spec.comm_bytes_per_element]  # one persistent gradient, reduced in its own dtype
    assert param_bytes == [spec.gather_bytes_per_element or spec.comm_bytes_per_element]


def test_communication_section_7():
    p = 2 * 10**9
    b = compute(plan_for(p, 4))
    ring = 3 / 4  # a ring moves (Nd-1)/Nd of the data per rank
    assert [s.comm_bytes for s in b.stages] == [2 * p * 2 * ring, 2 * p * 2 * ring, 2 * p * 2 * ring, 3 * p * 2 * ring]
    fp32 = compute(plan_for(p, 4, Scheme.FP32_ADAM))
    assert fp32.stage(3).comm_bytes == 3 * p * 4 * ring
    assert [s.comm_bytes for s in compute(plan_for(p, 1)).stages] == [0, 0, 0, 0]  # no peer, nothing moves
    assert comm_seconds(12 * GB, 100) == pytest.approx(0.12)


def test_dp_sweep_matches_compute():
    plan = plan_for(2 * 10**9, 4)
    sweep = sweep_dp(plan, [1, 4, 1024])
    assert [sweep[s][1] for s in range(4)] == [32 * GB, 14 * GB, 11 * GB, 8 * GB]
    assert sweep[3][0] == sweep[0][0] == 32 * GB


counts = st.integers(min_value=1, max_value=10**13)
dps = st.integers(min_value=1, max_value=4096)


@settings(max_examples=200, deadline=None)
@given(counts, dps, st.sampled_from(list(Scheme)))
def test_paper_never_rises_from_stage_to_stage_and_components_add_up(p, nd, scheme):
    b = compute(plan_for(p, nd, scheme))
    totals = [s.total_bytes for s in b.stages]
    assert totals == sorted(totals, reverse=True)
    for s in b.stages:
        assert sum(s.components.values()) == s.total_bytes
        assert all(v >= 0 for v in s.components.values())


@settings(max_examples=150, deadline=None)
@given(counts, dps, dps, st.sampled_from(list(Scheme)))
def test_no_stage_grows_with_nd(p, nd1, nd2, scheme):
    lo, hi = sorted((nd1, nd2))
    a, b = compute(plan_for(p, lo, scheme)), compute(plan_for(p, hi, scheme))
    for s in range(4):
        assert b.stage(s).total_bytes <= a.stage(s).total_bytes


def test_torch_profile_raw_count_closed_form():
    p, nd = 8 * 10**6, 4
    b = compute(plan_for(p, nd, profile=Profile.TORCH))
    states = lambda s: {k: v for k, v in b.stage(s).components.items() if k in ("params", "grads")}  # noqa: E731
    assert states(0) == {"params": 4 * p, "grads": 4 * p}
    assert states(3) == {"params": 4 * p // nd, "grads": 4 * p // nd}
    assert b.exact_shapes is False


@settings(max_examples=60, deadline=None)
@given(counts, dps, st.sampled_from(list(Scheme)), st.sampled_from(list(Profile)))
def test_stage_totals_are_compute_totals(p, nd, scheme, profile):
    """The sweeps' states-only totals are compute()'s, to the byte, in both profiles."""
    from zerodesk.core.accounting import _largest_totals as stage_totals

    plan = plan_for(p, nd, scheme).model_copy(update={"profile": profile})
    assert stage_totals(plan) == [s.total_bytes for s in compute(plan).stages]


def test_sweep_kept_by_its_inputs_and_handed_out_as_copies():
    """An edit that changes nothing the sweep depends on gets the kept sweep; a caller changing its copy changes
    nothing kept; another model gets its own."""
    plan = plan_for(2 * 10**9, 4)
    first = sweep_dp(plan, [1, 2, 4])
    first[0][0] = -1
    again = sweep_dp(plan.model_copy(update={"seq_len": plan.seq_len * 2}), [1, 2, 4])
    assert again[0][0] == 32 * GB
    other = sweep_dp(plan_for(10**9, 4), [1, 2, 4])
    assert other[0][0] == 16 * GB


def _random_sharded_plan(rng) -> Plan:
    """A plan of a real model (shapes known) or a raw count, on a random cluster with a random shard group."""
    from zerodesk.core import catalog

    presets = [m for m in catalog.model_presets() if m.architecture is not None]
    model = (rng.choice(presets).to_model_spec() if rng.random() < 0.8
             else ModelSpec(params=rng.randint(10**6, 10**11)))
    per_node, nodes = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 3, 8, 64, 512])
    world = per_node * nodes
    group = rng.choice([None, per_node, *(d for d in (1, 2, 4, 8, 16, 24) if world % d == 0)])
    return Plan(model=model, profile=Profile.TORCH, shard_placement=rng.choice(["dim0", "auto"]),
                cluster=Cluster(nodes=nodes, gpus_per_node=per_node, shard_group=group))


def test_largest_rank_alone_is_every_ranks_largest():
    """The peaks' and sweeps' largest-rank-only rows (no runs worked out over Nd) are the largest rank and formula
    of every rank's runs, to the byte, on random models, clusters, shard groups and shard placements."""
    import random

    from zerodesk.core.accounting import _stage_rows

    rng = random.Random(29)
    for _ in range(60):
        plan = _random_sharded_plan(rng)
        every = _stage_rows(plan, plan.params, plan.dp)
        alone = _stage_rows(plan, plan.params, plan.dp, every_rank=False)
        assert [(comps, formula) for comps, _, formula in alone] == [(comps, formula) for comps, _, formula in every]
        assert [list(comps) for comps, _, _ in alone] == [list(comps) for comps, _, _ in every]  # one column order
