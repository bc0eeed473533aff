"""Offload, apart from the stages: closed forms per profile, DeepSpeed's estimator by its published figures."""

from __future__ import annotations

import json
from math import ceil

import pytest

from zerodesk.cli import main as cli_main
from zerodesk.core import torch_profile
from zerodesk.core.architecture_tensors import tensor_shapes
from zerodesk.core.catalog import find_model
from zerodesk.core.offload import (
    compute_offload,
    deepspeed_estimate,
    deepspeed_for_plan,
    largest_layer_params,
    pressures,
    traffic_seconds,
)
from zerodesk.core.plan import Offload, Plan

P = 2_000_000_000  # the card's example


def _plan(**kw) -> Plan:
    data = {"model": {"params": P}, "cluster": {"nodes": 1, "gpus_per_node": 4}}
    data.update(kw)
    return Plan.model_validate(data)


def test_no_offload_means_no_answer():
    assert compute_offload(_plan()) is None


def test_zero_offload_paper_closed_form():
    """ZeRO-Offload: 16-bit params stay (2P, or 2P/Nd at stage 3); 2P/Nd grads + 12P/Nd optimizer go to host."""
    b = compute_offload(_plan(offload="optimizer"))
    assert [s.applicable for s in b.stages] == [False, False, True, True]
    s2, s3 = b.stage(2), b.stage(3)
    assert s2.gpu == {"params": 2 * P}
    assert s3.gpu == {"params": 2 * P // 4}
    for s in (s2, s3):
        assert sum(s.host_per_rank.values()) == 14 * P // 4
        assert s.host_bytes_per_node == 4 * 14 * P // 4  # all four ranks of the node counted
        assert s.nvme_bytes_per_node == 0
        assert s.traffic_bytes == 4 * P // 4  # 2P/Nd grads out + 2P/Nd params in (ZeRO-Offload §4: 4M per step)
    assert traffic_seconds(s2.traffic_bytes, 25.0) == pytest.approx(2e9 / 25e9)


def test_zero_infinity_paper_closed_form_on_nvme():
    plan = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(),
                                "cluster": {"nodes": 2, "gpus_per_node": 8},
                                "offload": "optimizer+params", "offload_target": "nvme"})
    b = compute_offload(plan)
    assert [s.applicable for s in b.stages] == [False, False, False, True]
    s3 = b.stage(3)
    p, shard = plan.params, ceil(plan.params / 16)
    assert s3.gpu == {}
    assert s3.gpu_working_bytes == 4 * largest_layer_params(plan)
    assert s3.host_bytes_per_node == 0
    assert s3.nvme_bytes_per_node == 8 * 16 * shard
    assert s3.traffic_bytes == 6 * shard  # params in for forward and backward, grads out
    assert p == 6_738_415_616


def test_largest_layer_is_deepspeeds_module_rule():
    plan = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump()})
    assert largest_layer_params(plan) == 32000 * 4096  # the embedding (own params of one module)


@pytest.mark.parametrize("nodes,gpn", [(1, 2), (2, 4), (1, 3)])
def test_torch_offload_is_the_resting_fsdp2_states_on_the_host(nodes, gpn):
    arch = {"layers": 2, "hidden": 48, "heads": 4, "kv_heads": 2, "ffn": 100, "vocab": 1003}
    plan = Plan.model_validate({"model": {"architecture": arch}, "profile": "torch", "offload": "optimizer+params",
                                "cluster": {"nodes": nodes, "gpus_per_node": gpn}})
    b = compute_offload(plan)
    assert [s.applicable for s in b.stages] == [False, False, True, True]
    shapes = [s for _, s in tensor_shapes(plan.model.architecture)]
    for stage in (2, 3):
        ranks = torch_profile.rank_states(shapes, plan.params, stage, plan.dp)
        per_node = [sum(r["params"] + r["grads"] + r["optimizer"] for r in ranks[i:i + gpn])
                    for i in range(0, plan.dp, gpn)]
        s = b.stage(stage)
        assert s.gpu_bytes == 0
        assert s.host_bytes_per_node == max(per_node)
        gathers = 1 if stage == 2 else 2
        assert s.traffic_bytes == gathers * s.host_per_rank["params"] + s.host_per_rank["grads"]


def test_torch_refuses_what_fsdp2_cannot_do():
    for kw in ({"offload": "optimizer"}, {"offload": "optimizer+params", "offload_target": "nvme"}):
        b = compute_offload(_plan(profile="torch", **kw))
        assert not any(s.applicable for s in b.stages)
        assert all(s.reason for s in b.stages)


# DeepSpeed's docs (docs/code-docs/source/memory.rst): t5-3b, 2851M params, 32M largest layer, 1 node x 8 GPUs,
# estimate_*_all_cold. Figures are GiB that DeepSpeed prints as "GB": per CPU, per GPU.
DEEPSPEED_PUBLISHED_ZERO3 = [
    # offload_params, offload_optimizer, zero_init, per CPU, per GPU
    (True, True, True, 71.69, 0.12),
    (True, True, False, 127.45, 0.12),
    (False, True, True, 63.72, 0.78),
    (False, True, False, 127.45, 0.78),
    (False, False, True, 1.43, 6.09),
    (False, False, False, 127.45, 6.09),
]


@pytest.mark.parametrize("params_off,opt_off,zero_init,cpu,gpu", DEEPSPEED_PUBLISHED_ZERO3)
def test_deepspeed_zero3_reproduces_its_published_table(params_off, opt_off, zero_init, cpu, gpu):
    d = deepspeed_estimate(3, 2851_000_000, 32_000_000, 8, 1, opt_off, params_off, zero_init)
    assert round(d.host_bytes_per_node / 2**30, 2) == cpu
    assert round(d.gpu_bytes / 2**30, 2) == gpu


def test_deepspeed_zero2_offload_reproduces_its_published_row():
    d = deepspeed_estimate(2, 2851_000_000, 0, 8, 1, True)
    assert (round(d.host_bytes_per_node / 2**30, 2), round(d.gpu_bytes / 2**30, 2)) == (127.45, 5.31)


@pytest.mark.parametrize("preset,nodes,gpn", [("gpt2", 1, 8), ("llama-2-7b", 2, 8), ("llama-2-70b", 8, 8),
                                              ("card-example", 1, 4), ("llama-3-8b", 4, 2)])
def test_deepspeed_formulas_on_models_and_clusters(preset, nodes, gpn):
    """The formulas as DeepSpeed's code states them (stage_1_and_2.py, stage3.py), written out here."""
    spec = find_model(preset).to_model_spec()
    plan = Plan.model_validate({"model": spec.model_dump(), "cluster": {"nodes": nodes, "gpus_per_node": gpn}})
    p, n, L = plan.params, nodes * gpn, largest_layer_params(plan)
    if spec.architecture is None:  # a raw count has no layers: the 4L figures are unknown, never 4 x 0
        assert L is None
        assert [deepspeed_estimate(3, p, L, gpn, nodes, *o).gpu_bytes for o in ((False,), (True,), (True, True))] == \
            [None, None, None]
        assert compute_offload(plan.model_copy(update={"offload": Offload.OPTIMIZER})).stage(3).gpu_working_bytes is None
        L = 0  # the remaining formulas, written out, as DeepSpeed's code evaluates them at L = 0
    else:
        a = spec.architecture
        assert L == max(a.vocab * a.hidden, a.ffn * a.hidden) or L == a.vocab * a.hidden
        assert compute_offload(plan.model_copy(update={"offload": Offload.OPTIMIZER})).stage(3).gpu_working_bytes == 4 * L
    assert deepspeed_estimate(2, p, L, gpn, nodes, False).gpu_bytes == 2 * p + int(18 * p / n)
    assert deepspeed_estimate(2, p, L, gpn, nodes, False).host_bytes_per_node == int(p * 4 * gpn * 1.5)
    assert deepspeed_estimate(2, p, L, gpn, nodes, True).host_bytes_per_node == int(p * max(4 * n, 16) * 1.5)
    assert deepspeed_estimate(3, p, L, gpn, nodes, False).gpu_bytes == 4 * L + int(18 * p / n)
    assert deepspeed_estimate(3, p, L, gpn, nodes, True).gpu_bytes == 4 * L + int(2 * p / n)
    assert deepspeed_estimate(3, p, L, gpn, nodes, True, True).gpu_bytes == 4 * L
    assert deepspeed_estimate(3, p, L, gpn, nodes, True, True).host_bytes_per_node == int(p * 18 / nodes * 1.5)
    # and ZeroDesk's own paper figures differ by exactly the terms the glossary names
    ours = compute_offload(plan.model_copy(update={"offload": Offload.OPTIMIZER})).stage(2)
    theirs = deepspeed_estimate(2, p, L, gpn, nodes, True)
    assert ours.gpu_bytes == theirs.gpu_bytes == 2 * p  # both keep the 16-bit parameters on the GPU


def test_deepspeed_row_follows_the_plan_choice():
    plan = _plan(offload="optimizer+params")
    rows = deepspeed_for_plan(plan)
    assert [(r.stage, r.offload_optimizer, r.offload_params) for r in rows] == [(3, True, True)]


def test_pressures_name_what_runs_out_first():
    plan = _plan(offload="optimizer", cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 80 * 10**9,
                                               "host_memory_bytes": 20 * 10**9})
    s2 = compute_offload(plan).stage(2)
    tight = pressures(s2, plan.cluster.gpu_memory_bytes, plan.cluster.host_memory_bytes)
    assert tight[0].memory == "host" and tight[0].used == 28 * 10**9
    assert tight[0].fraction == pytest.approx(1.4)


def test_cli_prints_offload_apart_and_in_json(capsys):
    argv = ["plan", "--params", "2e9", "--nodes", "1", "--gpus-per-node", "4", "--offload", "optimizer",
            "--host-memory", "20GB", "--gpu-memory", "80GB", "--pcie", "16"]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "Offload optimizer to host" in text and "host memory per node runs out first" in text
    assert cli_main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    off = data["offload"]
    assert off["pcie_gbps"] == 16 and off["host_memory_bytes"] == 20 * 10**9
    s2 = off["stages"][2]
    assert s2["host_bytes_per_node"] == 28 * 10**9 and s2["traffic_bytes"] == 2 * 10**9
    assert s2["traffic_seconds"] == pytest.approx(2e9 / 16e9)
    assert [s["total_bytes"] for s in data["stages"]] == [32 * 10**9, 14 * 10**9, 11 * 10**9, 8 * 10**9]  # the card


def test_cli_without_offload_keeps_the_key_null(capsys):
    assert cli_main(["plan", "--preset", "card-example", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["offload"] is None


def test_gpu_working_is_said_what_it_holds_and_unknown_without_shapes(capsys):
    """The column's line says what it holds: stage 3's gathered layer (optimizer-only offload too), 0 at stage 2;
    a raw P has no layer to size it by: "unknown" in the table and its line, null in --json."""
    llama = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(),
                                 "cluster": {"nodes": 1, "gpus_per_node": 8}, "offload": "optimizer"})
    b = compute_offload(llama)
    assert b.stage(2).gpu_working_bytes == 0
    assert b.stage(3).gpu_working_bytes == 4 * largest_layer_params(llama) > 0
    assert cli_main(["plan", "--preset", "llama-2-7b", "--dp", "8", "--offload", "optimizer"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("GPU working:"))
    assert "at stage 3 the layer's gathered 16-bit parameters" in line and "0 at stage 2" in line
    assert compute_offload(_plan(offload="optimizer+params")).stage(3).gpu_working_bytes is None
    argv = ["plan", "--params", "7B", "--dp", "16", "--offload", "optimizer+params"]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    offload_rows = text[text.index("Offload optimizer+params"):].splitlines()
    row = next(x for x in offload_rows if x.startswith("3 "))
    assert row.split()[2] == "unknown", row
    assert "unknown for a raw parameter count" in next(x for x in offload_rows if x.startswith("GPU working:"))
    assert cli_main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["offload"]["stages"][3]["gpu_working_bytes"] is None


def test_deepspeed_above_the_host_memory_says_what_it_means(capsys):
    argv = ["plan", "--preset", "llama-2-7b", "--nodes", "2", "--gpus-per-node", "8", "--offload", "optimizer"]
    assert cli_main([*argv, "--host-memory", "512GiB"]) == 0
    text = capsys.readouterr().out
    said = [line for line in text.splitlines() if "DeepSpeed sizes the host" in line]
    assert len(said) == 1 and said[0].strip().startswith("ZeRO-2:"), said  # 646.89 GB > 549.76 GB; ZeRO-3 fits
    assert "short of host memory" in said[0] and "each of the job's 16 GPUs" in said[0]
    assert cli_main([*argv, "--host-memory", "1024GiB"]) == 0
    assert "DeepSpeed sizes the host" not in capsys.readouterr().out
