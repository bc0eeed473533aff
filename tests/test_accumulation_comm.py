"""Communication per step with gradient accumulation (core.comm_links.times_per_step), closed forms per stage and
mode, what fit recommends from it, and how the CLI and the Table say it.

A step of k micro-batches: gradients are reduced k times (accum_sync=every) or once (last); stage 3 gathers the
parameters for every micro-batch's forward and backward (FSDP2 also stage 2's forward, as it reshards after every
backward); what follows the optimizer step (ZeroRedundancyOptimizer's broadcast, the paper's stage 1-2 gather of
the updated parameters) runs once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from zerodesk.core.accounting import comm_by_link, compute
from zerodesk.core.comm_report import comm_json, comm_table
from zerodesk.core.fit import global_batch_fit, solve
from zerodesk.core.plan import Plan

P, ND = 2 * 10**9, 4
RING = Fraction(ND - 1, ND)
ARCH = {"layers": 4, "hidden": 512, "heads": 8, "ffn": 1536, "vocab": 8000, "mlp": "gated", "norm": "rmsnorm",
        "positions": "rotary", "tied_embeddings": False}


def card(**update) -> Plan:
    return Plan.model_validate({"model": {"params": P}, "cluster": {"dp": ND}, **update})


def totals(plan: Plan) -> list[int]:
    return [c.total_bytes for c in comm_by_link(plan)]


def closed_form(profile: str, k: int, sync: str) -> list[int]:
    """Bytes one rank sends per step, per stage, from the ring's (Nd-1)/Nd and the counts in the module docstring."""
    red = k if sync == "every" else 1  # gradient reductions per step
    if profile == "paper":  # 16-bit gradients and parameters
        ar, rs, ag = 2 * 2 * P * RING, 2 * P * RING, 2 * P * RING
        return [int(red * ar), int(ag + red * rs), int(ag + red * rs), int(2 * k * ag + red * rs)]
    # torch: DDP all-reduces fp32 gradients, ZeroRedundancyOptimizer broadcasts fp32 parameters, FSDP2 gathers
    # bf16 parameters and reduce-scatters fp32 gradients
    ar, bc, rs, ag = 2 * 4 * P * RING, 4 * P * RING, 4 * P * RING, 2 * P * RING
    return [int(red * ar), int(red * ar + bc), int(k * ag + red * rs), int(2 * k * ag + red * rs)]


@pytest.mark.parametrize("profile", ["paper", "torch"])
@pytest.mark.parametrize("sync", ["every", "last"])
@pytest.mark.parametrize("k", [1, 2, 4, 7])
def test_bytes_per_step_closed_form(profile, sync, k):
    assert totals(card(profile=profile, accum_steps=k, accum_sync=sync)) == closed_form(profile, k, sync)


@pytest.mark.parametrize("profile", ["paper", "torch"])
def test_one_micro_batch_unchanged_and_states_still_the_card(profile):
    """k = 1 moves exactly what the plan without accumulation fields moves, in either mode, collective by
    collective; accumulation never changes the states: 32 / 14 / 11 / 8 GB."""
    base = card(profile=profile)
    for sync in ("every", "last"):
        assert comm_by_link(card(profile=profile, accum_sync=sync)) == comm_by_link(base)
        assert comm_table(card(profile=profile, accum_sync=sync), comm_by_link(base)) == comm_table(base, comm_by_link(base))
    assert all(c.times == 1 for s in comm_by_link(base) for c in s.collectives)
    states = [s.total_bytes / 1e9 for s in compute(card(accum_steps=8, accum_sync="last")).stages]
    assert states == [32, 14, 11, 8]


def test_which_collectives_repeat():
    """Per collective: gradient reductions k or 1 times; stage 3's gathers k times in both modes; the paper's
    stage 1-2 gather and ZeroRedundancyOptimizer's broadcast once."""
    k = 5
    for profile in ("paper", "torch"):
        for sync in ("every", "last"):
            for s in comm_by_link(card(profile=profile, accum_steps=k, accum_sync=sync)):
                for c in s.collectives:
                    if c.what == "gradients":
                        want = k if sync == "every" else 1
                    elif c.phase == "step":
                        want = 1
                    else:
                        want = k if s.stage == 3 or (s.stage == 2 and profile == "torch") else 1
                    assert c.times == want, (profile, sync, s.stage, c)
                    one = next(o for o in comm_by_link(card(profile=profile))[s.stage].collectives
                               if (o.op, o.phase, o.group) == (c.op, c.phase, c.group))
                    assert (c.payload_bytes, c.intra_node_bytes) == (one.payload_bytes, want * one.intra_node_bytes)


def test_hybrid_groups_repeat_by_link():
    """HSDP over 2 nodes x 4 GPUs (shard group = the node): the replicas' all-reduce of a shard is a gradient
    reduction (k or 1 times, between nodes); hpZ's backward gather from the secondary shard repeats k times."""
    k = 3
    layout = {"nodes": 2, "gpus_per_node": 4, "dp": 8, "shard_group": 4}
    for sync in ("every", "last"):
        plan = Plan.model_validate({"model": {"params": P}, "cluster": layout, "profile": "torch", "accum_steps": k,
                                    "accum_sync": sync})
        one = Plan.model_validate({"model": {"params": P}, "cluster": layout, "profile": "torch"})
        for many, single in zip(comm_by_link(plan)[2:], comm_by_link(one)[2:]):
            replicas = next(c for c in many.collectives if c.group == "replicate")
            assert replicas.times == (k if sync == "every" else 1) and replicas.intra_node_bytes == 0
            assert many.inter_node_bytes == replicas.times * single.inter_node_bytes
        hpz = Plan.model_validate({"model": {"params": P}, "cluster": layout, "hybrid": "hpz", "accum_steps": k,
                                   "accum_sync": sync})
        secondary = next(c for c in comm_by_link(hpz)[3].collectives if c.group == "secondary")
        assert secondary.times == k and secondary.inter_node_bytes == 0


def test_seconds_follow_the_bytes():
    """Over 2 nodes, DDP's k all-reduces take k times as long on each link; the lower bound follows."""
    layout = {"nodes": 2, "gpus_per_node": 4, "dp": 8}
    one = comm_by_link(Plan.model_validate({"model": {"params": P}, "cluster": layout}))[0]
    plan = Plan.model_validate({"model": {"params": P}, "cluster": layout, "accum_steps": 4})
    four = comm_by_link(plan)[0]
    assert four.inter_node_bytes == 4 * one.inter_node_bytes > 0
    assert four.inter_node_seconds == four.inter_node_bytes / (plan.cluster.inter_node_gbps * 1e9)
    assert four.lower_bound_seconds == pytest.approx(4 * one.lower_bound_seconds)


def test_json_names_the_calls_per_step():
    plan = card(profile="torch", accum_steps=4, accum_sync="last")
    three = comm_json(plan, comm_by_link(plan)[3])
    assert sorted(c["times"] for c in three["collectives"]) == [1, 4, 4]
    assert sum(c["intra_node_bytes"] + c["inter_node_bytes"] for c in three["collectives"]) == three["total_bytes"]


def arch_plan(**update) -> Plan:
    return Plan.model_validate({"model": {"architecture": ARCH}, "cluster": {"dp": ND, "gpu_memory_bytes": 80 * 10**9},
                                "seq_len": 256, "micro_batch": 2, "profile": "torch", **update})


def test_fit_recommends_by_communication_per_step_of_k_micro_batches():
    """Everything fits on 80 GB. One micro-batch: FSDP2's stage 2 moves least (6P x ring); four reduced on the last
    only: DDP's 8P once beats stage 2's 4P + 4 x 2P, so stage 0 is recommended; four reduced on every one: stage 2's
    4 x 6P beats DDP's 4 x 8P."""
    for k, sync, stage in ((1, "every", 2), (4, "last", 0), (4, "every", 2)):
        plan = arch_plan(accum_steps=k, accum_sync=sync)
        answer = solve(plan)
        assert all(c.max_micro_batch >= 2 for c in answer.configs)
        assert [answer.config(s, "none").comm_bytes for s in range(4)] == totals(plan)
        rec = answer.recommendation
        assert (rec.stage, rec.recompute, rec.comm_bytes) == (stage, "none", min(totals(plan))), (k, sync)


def test_global_batch_counts_communication_at_each_configurations_steps():
    plan = arch_plan(cluster={"dp": ND, "gpu_memory_bytes": 2 * 10**9}, accum_sync="last")
    g = global_batch_fit(plan, 256 * ND)
    assert any(c.accum_steps and c.accum_steps > 1 for c in g.configs)
    for c in g.configs:
        if c.accum_steps is None:
            assert c.comm_bytes is None
        else:
            assert c.comm_bytes == totals(plan.model_copy(update={"accum_steps": c.accum_steps}))[c.stage]
    best = g.recommended
    tied = [c for c in g.configs if c.accum_steps == best.accum_steps]
    assert best.comm_bytes == min(c.comm_bytes for c in tied)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zerodesk", *args], capture_output=True, text=True, timeout=120)


def test_cli_says_per_step_of_k_micro_batches():
    text = _cli("plan", "--preset", "card-example", "--accum-steps", "4", "--accum-sync", "last").stdout
    assert ("Communication per rank per step of 4 micro-batches (gradients reduced on the last micro-batch only), "
            "by link") in text
    assert "all-gather of parameters (backward), shard group of 4, 4 per node, 4 times a step" in text
    data = json.loads(_cli("plan", "--preset", "card-example", "--accum-steps", "4", "--json").stdout)
    assert [s["comm_bytes"] for s in data["stages"]] == closed_form("paper", 4, "every")


def test_fit_map_model_answers_the_global_batch_and_keeps_its_peaks_across_edits():
    """The window's Qt-free model: the same answer as global_batch_fit; an edit the peaks do not read (the GPU's
    memory) finds every stage peak already known."""
    from zerodesk.core.fit import FitError
    from zerodesk.core.fit_map import FitMapModel

    fits = FitMapModel()
    plan = arch_plan(cluster={"dp": ND, "gpu_memory_bytes": 2 * 10**9})
    fits.update(plan)
    assert fits.global_batch(256 * ND) == global_batch_fit(plan, 256 * ND)
    memos = dict(fits._global_memos)
    bigger = plan.model_copy(update={"cluster": plan.cluster.model_copy(update={"gpu_memory_bytes": 3 * 10**9})})
    fits.update(bigger)
    assert fits.global_batch(256 * ND) == global_batch_fit(bigger, 256 * ND)  # answered for the edited plan
    assert all(fits._global_memos[name] is memos[name] for name in memos)  # by the same memos
    with pytest.raises(FitError, match="multiple of Nd"):
        fits.global_batch(ND + 1)
