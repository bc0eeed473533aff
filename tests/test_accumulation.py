"""Gradient accumulation in the plan, the predicted peak (core.accumulation), fit's global batch and the CLI.

Closed forms: the gradients kept between micro-batches are the stage's own gradient state when every micro-batch
reduces, the whole model's (FSDP2: 4 B per parameter) when only the last does; real ranks: test_accumulation_ranks.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.accumulation import KEPT, kept_bytes
from zerodesk.core.fit import FitError, global_batch_fit, solve
from zerodesk.core.peak import moments, predict
from zerodesk.core.plan import Plan, PlanError, plan_from_json, plan_to_json

P, ND = 2 * 10**9, 4
ARCH = {"layers": 4, "hidden": 512, "heads": 8, "ffn": 1536, "vocab": 8000, "mlp": "gated", "norm": "rmsnorm",
        "positions": "rotary", "tied_embeddings": False}


def card(**update) -> Plan:
    return Plan.model_validate({"model": {"params": P}, "cluster": {"dp": ND}, **update})


def arch_plan(**update) -> Plan:
    return Plan.model_validate({"model": {"architecture": ARCH}, "cluster": {"dp": ND}, "seq_len": 256,
                                "micro_batch": 2, "profile": "torch", **update})


def test_defaults_global_batch_and_file_round_trip():
    plan = card()
    assert (plan.accum_steps, plan.accum_sync, plan.global_batch) == (1, "every", ND)
    plan = card(micro_batch=3, accum_steps=5, accum_sync="last")
    assert plan.global_batch == 3 * 5 * ND
    again = plan_from_json(plan_to_json(plan))
    assert (again.accum_steps, again.accum_sync) == (5, "last")
    with pytest.raises(PlanError, match="accum_steps"):
        plan_from_json(plan_to_json(plan).replace('"accum_steps": 5', '"accum_steps": 0'))
    with pytest.raises(PlanError, match="accum_sync"):
        plan_from_json(plan_to_json(plan).replace('"accum_sync": "last"', '"accum_sync": "never"'))


@pytest.mark.parametrize("profile", ["paper", "torch"])
def test_kept_gradients_closed_form(profile):
    """every: the stage's gradient state (paper 2P, 2P, 2P/Nd, 2P/Nd; torch 4P, 4P, then FSDP2's padded shards);
    last: the same at stages 0-1, the whole model's from stage 2 (paper 2P, torch fp32 4P)."""
    for sync in ("every", "last"):
        plan = card(profile=profile, accum_steps=2, accum_sync=sync)
        b = compute(plan)
        whole = 2 * P if profile == "paper" else 4 * P
        shard = whole // ND
        want = [whole, whole] + ([shard, shard] if sync == "every" else [whole, whole])
        assert [kept_bytes(plan, s, b) for s in range(4)] == want, (profile, sync)
        assert [kept_bytes(card(profile=profile, accum_sync=sync), s, b) for s in range(4)] == [0] * 4


def test_one_micro_batch_changes_nothing_and_more_than_two_change_nothing_more():
    base = [p.total_bytes for p in predict(arch_plan())]
    assert [p.total_bytes for p in predict(arch_plan(accum_sync="last"))] == base
    for sync in ("every", "last"):
        two = [p.total_bytes for p in predict(arch_plan(accum_steps=2, accum_sync=sync))]
        assert all(t >= b for t, b in zip(two, base))
        assert [p.total_bytes for p in predict(arch_plan(accum_steps=7, accum_sync=sync))] == two


def test_later_forward_holds_the_kept_gradients_on_top():
    """The forward moments of a later micro-batch: the one-micro-batch moment plus exactly the kept gradients."""
    for sync in ("every", "last"):
        plan = arch_plan(accum_steps=2, accum_sync=sync)
        b = compute(plan)
        ms = moments(plan, 3, b)
        first = {m.name: m.total for m in ms if m.phase == "forward" and "micro-batch" not in m.name}
        later = {m.name.split(",")[0]: m.total for m in ms if m.phase == "forward" and "micro-batch" in m.name}
        assert first and first.keys() == later.keys()
        for name, total in first.items():
            assert later[name] - total == kept_bytes(plan, 3, b), (sync, name)


def test_last_only_keeps_fp32_gradients_of_every_parameter_and_frees_them_as_groups_reduce():
    plan = arch_plan(accum_steps=3, accum_sync="last")
    b = compute(plan)
    assert kept_bytes(plan, 2, b) == 4 * plan.params
    ms = moments(plan, 2, b)
    last_loss = next(m for m in ms if m.name == "loss backward, last micro-batch")
    assert last_loss.components[KEPT] == 4 * plan.params  # nothing reduced yet
    root = next(m for m in ms if m.name == "root reduce-scatter, last micro-batch")
    assert 0 < root.components[KEPT] < 4 * plan.params // 2  # only the root's are left
    middle = [m for m in ms if m.name.endswith("middle micro-batch")]
    assert middle and all("reduce_scatter" not in m.components and m.components[KEPT] == 4 * plan.params
                          for m in middle)
    peaks = predict(plan)
    every = predict(arch_plan(accum_steps=3))
    assert peaks[2].total_bytes > every[2].total_bytes and peaks[3].total_bytes > every[3].total_bytes
    assert [p.total_bytes for p in peaks[:2]] == [p.total_bytes for p in every[:2]]  # DDP keeps whole ones anyway


@pytest.mark.parametrize("sync", ["every", "last"])
def test_predicted_peak_is_the_largest_moment_of_every_micro_batch(sync):
    """predict()'s shortcut (the top moment of each place) loses nothing: accumulation adds each place its own."""
    for steps in (2, 4):
        plan = arch_plan(accum_steps=steps, accum_sync=sync)
        b = compute(plan)
        for p in predict(plan)[2:]:
            assert p.total_bytes == max(m.total for m in moments(plan, p.stage, b)), (steps, p.stage)


def test_a_units_reduce_scatter_in_a_later_micro_batch_holds_the_kept_shards():
    """Reducing every micro-batch from stage 2, a later micro-batch's unit reduce-scatter copies the unit's gradients
    into its input beside all the kept gradient shards (the first micro-batch has only the shards reduced so far);
    the unit is resharded and of its backward's temporaries only the residual stream's gradient is left."""
    plan = arch_plan(accum_steps=2)
    b = compute(plan)
    for stage in (2, 3):
        ms = {m.name: m for m in moments(plan, stage, b)}
        end, rs = ms["last block backward end"], ms["last block backward, its reduce-scatter, later micro-batch"]
        unit = end.components["gathered_params"] - rs.components["gathered_params"]
        assert unit > 0 and rs.components["reduce_scatter"] == 2 * unit  # fp32 input, bf16 parameters
        assert rs.components["grads"] == kept_bytes(plan, stage, b)  # bf16 gradients outweigh the fp32 shard
        assert rs.components["unsharded_grads"] == end.components["unsharded_grads"]
        assert rs.components["temporaries"] == 2 * 256 * 2 * ARCH["hidden"] < end.components["temporaries"]
        assert "reduce_scatter" not in end.components  # the last block is the first to reduce
        first = ms["first block reduce-scatter, later micro-batch"]  # its output is new beside the kept shards
        assert first.components["grads"] == kept_bytes(plan, stage, b) + first.components["reduce_scatter"] // ND
    # stage 3 gathers the root again for the head's backward: its all-gather output beside its parameters
    ms = {m.name: m for m in moments(plan, 3, b)}
    regather, head = ms["root gathered for the head's backward, later micro-batch"], ms["head backward start"]
    assert regather.components["all_gather"] == regather.components["gathered_params"] > head.components["all_gather"]
    assert "unsharded_grads" not in regather.components and regather.components["grads"] == kept_bytes(plan, 3, b)


def test_card_example_states_unchanged_and_peaks_named():
    """Accumulation changes the peak, never the states: 32 / 14 / 11 / 8 GB still."""
    plan = card(accum_steps=4, accum_sync="last")
    assert [s.total_bytes / 1e9 for s in compute(plan).stages] == [32, 14, 11, 8]
    peaks = predict(plan)
    # a later forward holds 2P of whole 16-bit gradients on top of the first one's (the paper's own step peaks at
    # its optimizer step without accumulation, so the phases are compared)
    assert peaks[2].phase_totals["forward"] - predict(card())[2].phase_totals["forward"] == 4 * 10**9
    assert "micro-batch" in peaks[2].moment


def test_global_batch_fewest_accumulation_steps():
    plan = arch_plan(cluster={"dp": ND, "gpu_memory_bytes": 2 * 10**9})
    answer = solve(plan)
    with_accum = solve(plan.model_copy(update={"accum_steps": 2}))
    for wanted in (ND, 64 * ND, 4096 * ND):
        g = global_batch_fit(plan, wanted)
        per_rank = wanted // ND
        for c, alone, acc in zip(g.configs, answer.configs, with_accum.configs):
            if per_rank <= alone.max_micro_batch:
                assert (c.accum_steps, c.micro_batch) == (1, per_rank)
            elif c.accum_steps is None:
                assert not any(per_rank % k == 0 and per_rank // k <= acc.max_micro_batch
                               for k in range(2, per_rank + 1))
            else:
                assert c.micro_batch * c.accum_steps == per_rank and c.micro_batch <= acc.max_micro_batch
                assert not any(per_rank % k == 0 and per_rank // k <= acc.max_micro_batch
                               for k in range(2, c.accum_steps))  # none fewer
        reached = [c for c in g.configs if c.accum_steps]
        if reached:  # the recommendation takes the fewest steps any configuration needs
            assert g.recommended.accum_steps == min(c.accum_steps for c in reached)
        else:
            assert g.recommended is None
    big = global_batch_fit(plan, 4096 * ND)
    assert big.recommended is not None and big.recommended.accum_steps > 1
    with pytest.raises(FitError, match="multiple of Nd"):
        global_batch_fit(plan, ND + 1)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zerodesk", *args], capture_output=True, text=True, timeout=120)


def test_cli_plan_and_fit():
    out = _cli("plan", "--preset", "card-example", "--batch", "2", "--accum-steps", "8", "--json")
    data = json.loads(out.stdout)
    assert (data["accum_steps"], data["accum_sync"], data["global_batch"]) == (8, "every", 2 * 8 * 4)
    text = _cli("plan", "--preset", "card-example", "--accum-steps", "8", "--accum-sync", "last").stdout
    assert "Global batch: 32 sequences per optimizer step = micro-batch 1 x 8 accumulation steps x Nd 4" in text
    bad = _cli("plan", "--preset", "card-example", "--accum-steps", "0")
    assert bad.returncode == 2 and "--accum-steps" in bad.stderr and "Traceback" not in bad.stderr
    fit = _cli("fit", "--preset", "llama-2-7b", "--profile", "torch", "--dp", "8", "--gpu", "h100-80gb",
               "--global-batch", "512", "--json")
    g = json.loads(fit.stdout)["global_batch"]
    assert (g["global_batch"], g["dp"], g["per_rank"]) == (512, 8, 64) and len(g["configs"]) == 12
    rec = g["recommended"]
    assert rec["micro_batch"] * rec["accum_steps"] == 64
    odd = _cli("fit", "--preset", "llama-2-7b", "--dp", "8", "--gpu", "h100-80gb", "--global-batch", "100")
    assert odd.returncode == 2 and "multiple of Nd (8)" in odd.stderr and "Traceback" not in odd.stderr


@pytest.mark.parametrize("seed", range(12))
def test_accumulations_totals_are_its_moments_built(seed):
    """The fit's totals with accumulation (the template's moments and those accumulation adds summed as arrays,
    core.peak_accumulated_pairs; the rest by core.accumulation.accumulated_totals) are the moments
    accumulate() builds, label for label and byte for byte: random models, profiles, knobs, steps and syncs."""
    import random

    from test_peak_totals import random_plan

    from zerodesk.core.accounting import STAGES
    from zerodesk.core.peak import moment_totals, shapes
    from zerodesk.core.peak_totals import labels

    rng = random.Random(1000 + seed)
    plan = random_plan(rng).model_copy(update={"accum_steps": rng.choice([2, 3, 5]),
                                               "accum_sync": rng.choice(["every", "last"])})
    states, sh = compute(plan), shapes(plan)
    for stage in STAGES:
        built = moments(plan, stage, states, sh)
        assert moment_totals(plan, stage, states, sh) == (labels(tuple((m.phase, m.name) for m in built)),
                                                          [m.total for m in built]), stage
