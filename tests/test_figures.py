"""Every figure is a finite number >= 0, and every shape a plan carries is within bounds (issue 27, item 7).

The invariant is checked where the figures are made (core.figures.check_figures in the dataclasses that carry
them); these tests sweep plans across profiles, schemes, stages, Nd, offload and shapes, and feed the command
line plan files with hostile tensor lists.
"""

from __future__ import annotations

import json
import random

import pytest

from hostile_inputs import run_cli
from zerodesk.core import peak
from zerodesk.core.accounting import STAGES, StageResult, compute
from zerodesk.core.figures import FigureError
from zerodesk.core.offload import compute_offload, deepspeed_for_plan
from zerodesk.core.options import KERNELS, OFFLOAD, OPTIMIZER_IMPL, RECOMPUTE, SCHEME, SHARD_PLACEMENT
from zerodesk.core.plan import Plan


def sweep_plans(count: int = 216, seed: int = 27) -> list[Plan]:
    """Plans across the space: small and wide architectures (seq 1 included), raw counts, tensor lists, every choice
    (shard groups, shard placement and kernels included)."""
    rng = random.Random(seed)
    plans = []
    for i in range(count):
        heads = rng.choice([1, 2, 4, 8, 16, 32, 64])
        kind = i % 4
        if kind == 3:
            model = {"params": rng.choice([1, 7, 10**6, 2 * 10**9, 7 * 10**9, 10**12])}
        elif kind == 2:
            model = {"tensors": [[f"t{j}", [rng.randint(1, 5000), rng.randint(1, 5000)]] for j in range(rng.randint(1, 9))]
                     + [["scalar", []], ["vector", [rng.randint(1, 70_000)]]]}
        else:
            model = {"architecture": {
                "layers": rng.choice([1, 2, 3, 32]), "hidden": heads * rng.choice([1, 8, 64, 128]), "heads": heads,
                "ffn": rng.choice([1, 4, 1000, 16384]), "vocab": rng.choice([1, 2, 100, 32000, 256000]),
                "mlp": rng.choice(["gated", "plain"]), "tied_embeddings": rng.random() < 0.5}}
        nodes = rng.choice([1, 1, 2, 4])
        gpus = rng.choice([1, 2, 8])
        group = rng.choice([None, None, gpus, 1])  # None: flat; a node's GPUs: hybrid sharding; 1: every rank whole
        plans.append(Plan.model_validate({
            "model": model, "cluster": {"nodes": nodes, "gpus_per_node": gpus, "shard_group": group},
            "shard_placement": rng.choice(SHARD_PLACEMENT.values), "kernels": rng.choice(KERNELS.values),
            "profile": rng.choice(["paper", "torch"]), "scheme": rng.choice(SCHEME.values),
            "seq_len": rng.choice([1, 2, 128, 4096]), "micro_batch": rng.choice([1, 2, 16]),
            "recompute": rng.choice(RECOMPUTE.values), "optimizer_impl": rng.choice(OPTIMIZER_IMPL.values),
            "offload": rng.choice(OFFLOAD.values), "cuda_allowance_bytes": rng.choice([0, 2**30])}))
    return plans


PLANS = sweep_plans()


def test_the_states_and_offload_figures_of_every_plan_are_finite_and_not_negative():
    for plan in PLANS:  # the dataclasses check themselves; a failure raises FigureError here
        b = compute(plan)
        assert all(v >= 0 for s in b.stages for _, r in s.runs for v in r.values())
        offload = compute_offload(plan)
        if offload is not None:
            assert all(v >= 0 for st in offload.stages for v in (*st.gpu.values(), *st.host_per_rank.values()))
        assert all(all(v is None or v >= 0 for v in (row.gpu_bytes, row.host_bytes_per_node))  # None: needs the shapes
                   for row in deepspeed_for_plan(plan))


def test_a_negative_figure_is_refused_where_it_is_made():
    with pytest.raises(FigureError, match=r"StageResult.components.grads is -5"):
        StageResult(2, {"params": 10, "grads": -5}, [(1, {"params": 10, "grads": 0})], 0, "")
    with pytest.raises(FigureError, match=r"runs\[0\]\[1\].params is nan"):
        StageResult(2, {"params": 10}, [(1, {"params": float("nan")})], 0, "")


def test_every_component_of_every_predicted_moment_is_not_negative():
    bad = []
    for plan in PLANS:
        b = compute(plan)
        for stage in STAGES:
            for moment in peak.moments(plan, stage, b):
                negative = {k: v for k, v in moment.components.items() if v < 0}
                if negative:
                    bad.append((plan.model_dump(exclude_none=True)["model"], stage, moment.name, negative))
        for sp in peak.predict(plan, b):
            assert all(v >= 0 for v in sp.components.values())
    assert not bad, f"{len(bad)} negative moments, the first: {bad[0]}"


@pytest.mark.parametrize("profile", ["paper", "torch"])
def test_the_issues_negative_gradient_example(profile):
    """An embedding far larger than its one block, at seq 1: while the root reduce-scatters, the blocks' gradient
    shards are a share of the resting gradients (the paper's fp16 ones once had an fp32 root shard taken off)."""
    answer = run_cli(["plan", "--layers", "1", "--hidden", "4096", "--heads", "64", "--ffn", "16384", "--vocab", "256000",
                      "--seq", "1", "--dp", "8", "--profile", profile, "--json"])
    assert answer.outcome == "ok", (answer.outcome, answer.stderr)
    stages = json.loads(answer.stdout)["stages"]
    plan = Plan.model_validate({"model": {"architecture": {"layers": 1, "hidden": 4096, "heads": 64, "ffn": 16384,
                                                           "vocab": 256000}},
                                "seq_len": 1, "cluster": {"dp": 8}, "profile": profile})
    for stage in (2, 3):
        root = next(m for m in peak.moments(plan, stage) if m.name == "root reduce-scatter")
        resting = compute(plan).stage(stage).components
        grads = sum(v for k, v in resting.items() if k in peak._grad_keys(plan, compute(plan)))
        assert 0 < root.components["grads"] < grads / 3  # the one block is ~1/3 of the embedding and head
        assert all(v >= 0 for v in stages[stage]["peak_components"].values())


# --- tensor lists and architectures in plan files: bounded, refused in one sentence naming the file and tensor ---

def _plan_file(tmp_path, model: dict) -> str:
    path = tmp_path / "hostile.zerodesk.json"
    path.write_text(json.dumps({"schema_version": 1, "model": model}))
    return str(path)


@pytest.mark.parametrize("shape, words", [
    ([-5, 3], "has the dimension -5"), ([0, 8], "has the dimension 0"), ([10**38, 10**38], "has the dimension 1"),
    ([2] * 9, "has 9 dimensions; at most 8"), ([10**8, 10**8], "brings the parameter count past 1,000,000,000,000,000"),
])
def test_a_hostile_tensor_list_is_refused_naming_the_file_and_the_tensor(tmp_path, shape, words):
    path = _plan_file(tmp_path, {"tensors": [["embed", [10, 4]], ["layers.0.mlp.w", shape]]})
    answer = run_cli(["plan", "--plan", path, "--profile", "torch", "--json"])
    assert answer.outcome == "refused", (answer.outcome, answer.stderr)
    assert path in answer.stderr and "tensor 1 ('layers.0.mlp.w')" in answer.stderr and words in answer.stderr
    assert len(answer.stderr) < 400


def test_an_architecture_past_the_parameter_bound_is_refused(tmp_path):
    path = _plan_file(tmp_path, {"architecture": {"layers": 1024, "hidden": 1_000_000, "heads": 1,
                                                  "ffn": 10_000_000, "vocab": 100}})
    answer = run_cli(["plan", "--plan", path])
    assert answer.outcome == "refused" and "a plan may hold at most 1,000,000,000,000,000" in answer.stderr


def test_the_largest_plans_allowed_make_finite_figures():
    for model in ({"params": 10**15}, {"tensors": [["w", [10**15]]]}, {"tensors": [["w", [10**5, 10**5]]] * 1000}):
        for profile in ("paper", "torch"):
            plan = Plan.model_validate({"model": model, "profile": profile, "cluster": {"nodes": 8192, "gpus_per_node": 8}})
            answer = compute(plan)
            assert all(s.total_bytes >= 0 for s in answer.stages)
