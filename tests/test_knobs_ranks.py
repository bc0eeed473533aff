"""The knobs on real gloo ranks (issue 30): the engines run the plan's policy, wrapping and recomputation per block.

Two real runs of 2 ranks: fp32 parameters with bf16 reduction, no autocast, FSDP2 units of 2 blocks without backward
prefetch and full recomputation on every 2nd block; then fp16 parameters with the root as the only unit and a choice
per block. Every rank's resting states equal the torch profile (what `zerodesk plan --profile torch` shows with the
same knobs) to the byte; the forward peak holds exactly the gathered set core.knobs predicts for the policy and the
units; the peak by module sums to the tracked peak and names the units the wrapping made. The simulation of the first
plan rests on the same bytes and peaks within 2% of the largest real rank.
"""

from __future__ import annotations

import os

import pytest

from zerodesk.core import knobs
from zerodesk.core.accounting import compute
from zerodesk.core.plan import Plan
from zerodesk.measure.protocol import Error, Result
from zerodesk.measure.runner import MeasureRun, measure_command, simulate_command

# A small vocabulary and wide blocks: the gathered parameters outweigh the logits, so stage 3's forward peak falls
# inside the blocks (root and one unit gathered) rather than at the loss (nothing gathered).
ARCH = {"layers": 4, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 160, "vocab": 97, "mlp": "gated",
        "norm": "rmsnorm", "positions": "rotary", "tied_embeddings": False}
BASE = {"model": {"architecture": ARCH}, "seq_len": 16, "micro_batch": 1, "cluster": {"nodes": 1, "gpus_per_node": 2}}
UNITS_OF_TWO = Plan.model_validate({**BASE, "param_dtype": "fp32", "reduce_dtype": "bf16", "autocast": "off",
                                    "wrap": "blocks", "wrap_blocks": 2, "prefetch": "off", "recompute": "full",
                                    "recompute_every": 2})
ROOT_ONLY = Plan.model_validate({**BASE, "param_dtype": "fp16", "wrap": "root",
                                 "recompute_blocks": ["selective", "none", "full", "none"]})
KEYS = ("params", "grads", "optimizer")


def _run(argv: list[str], server) -> dict[tuple[int, int], Result]:
    """Rank results of a job forked from the session's warm worker (conftest's job_server)."""
    env = {k: v for k, v in os.environ.items() if k != "ZERODESK_MEASURE_FAULT"}
    messages = list(MeasureRun(argv, timeout=600, env=env, server=server))
    errors = [m for m in messages if isinstance(m, Error)]
    assert not errors, errors[0].message
    return {(m.stage, m.rank): m for m in messages if isinstance(m, Result)}


@pytest.fixture(scope="module")
def runs(job_server):
    pytest.importorskip("torch")
    return {
        "units": _run(measure_command(UNITS_OF_TWO, [0, 1, 2, 3], 2, "cpu", samples=False, by_module=True), job_server),
        "root": _run(measure_command(ROOT_ONLY, [2, 3], 2, "cpu", samples=False, by_module=True), job_server),
        "simulated": _run(simulate_command(UNITS_OF_TWO, [0, 1, 2, 3], backend="gloo", by_module=True), job_server),
    }


PLANS = {"units": UNITS_OF_TWO, "root": ROOT_ONLY}


@pytest.mark.parametrize("name", PLANS)
def test_every_rank_rests_on_the_torch_profile_to_the_byte(runs, name):
    plan, results = PLANS[name], runs[name]
    shown = compute(plan.model_copy(update={"profile": "torch"}))  # the same knobs, as `zerodesk plan` shows them
    default = compute(Plan.model_validate({**BASE, "profile": "torch"}))
    for (stage, rank), res in results.items():
        assert res.states == res.predicted_states, (stage, rank)
        assert res.states.model_dump() == {k: shown.stage(stage).ranks[rank][k] for k in KEYS}, (stage, rank)
        assert shown.stage(stage).ranks[rank] == default.stage(stage).ranks[rank]  # the knobs change nothing at rest


@pytest.mark.parametrize("name", PLANS)
def test_the_forward_peak_holds_the_gathered_set_of_the_policy_and_units(runs, name):
    plan, results = PLANS[name], runs[name]
    for stage in (2, 3):
        gathered = knobs.gathered_params(plan, stage)
        for rank in (0, 1):
            assert results[stage, rank].phase_peaks["forward"]["unsharded_params"] == gathered, (stage, rank)
    default = Plan.model_validate(BASE)
    # fp32 parameters gather twice the bytes of bf16 ones; units of 2 blocks gather more at once than one block
    assert knobs.gathered_params(UNITS_OF_TWO, 2) == 2 * knobs.gathered_params(default, 2)
    assert knobs.gathered_params(UNITS_OF_TWO, 3) > 2 * knobs.gathered_params(default, 3)
    # the root only: everything gathered through forward, in fp16, at both stages
    assert runs["root"][3, 0].phase_peaks["forward"]["unsharded_params"] == knobs.gathered_params(default, 2)


@pytest.mark.parametrize("name", [*PLANS, "simulated"])
def test_the_peak_by_module_sums_to_the_peak_and_names_the_units(runs, name):
    results = runs[name]
    wanted = {"units": {"", "blocks.0..1", "blocks.2..3"}, "root": {""}, "simulated": {"", "blocks.0..1", "blocks.2..3"}}
    for (stage, rank), res in results.items():
        shares = res.by_module
        assert shares and sum(s.total for s in shares) == res.peak_bytes, (stage, rank)
        assert [s.total for s in shares] == sorted((s.total for s in shares), reverse=True)
        units = {s.unit for s in shares if not s.module.startswith("(")}
        assert units == ({None} if stage <= 1 else wanted[name]), (stage, rank, units)
        kinds = {s.kind for s in shares}
        assert {"embedding", "attention", "mlp", "head"} <= kinds, (stage, rank, kinds)
        modules = {s.module for s in shares}
        assert {"blocks.0.attn", "blocks.3.mlp", "embed", "head"} <= modules, (stage, rank)
        if stage <= 1:
            assert any(s.module == "(DDP gradient buckets)" for s in shares)


def test_the_simulation_of_the_knobs_matches_the_real_ranks(runs):
    real, sim = runs["units"], runs["simulated"]
    for stage in range(4):
        s = sim[stage, 0]
        assert s.states == real[stage, 0].states == s.predicted_states, stage
        largest = max(real[stage, r].peak_bytes for r in (0, 1))
        assert abs(s.peak_bytes / largest - 1) <= 0.02, (stage, s.peak_bytes, largest)


def test_recomputation_per_block_reaches_the_engine(job_server):
    """Forward keeps fewer activations as more blocks recompute: none > every 2nd block full > every block full, and a
    choice per block lands between its neighbours."""
    pytest.importorskip("torch")
    saved = {}
    for name, knob in {"none": {}, "every 2nd": {"recompute": "full", "recompute_every": 2},
                       "all": {"recompute": "full"}, "list": {"recompute_blocks": ["full", "full", "full", "none"]}}.items():
        plan = Plan.model_validate({**BASE, "seq_len": 64, **knob})
        (result,) = _run(simulate_command(plan, [2]), job_server).values()
        saved[name] = result.phase_peaks["forward"]["activations"]
    assert saved["none"] > saved["every 2nd"] > saved["list"] > saved["all"], saved
