"""Hybrid sharding on real ranks (issue 24): 4 gloo ranks as 2 groups of 2, against the torch profile and simulate.

FSDP2 on a 2-D DeviceMesh (replicate, shard) for stages 2-3, ZeroRedundancyOptimizer in the shard group for stage 1,
DDP for stage 0. Every rank's resting states must equal the torch profile (core.torch_profile.hybrid_runs, which is
what `zerodesk plan --profile torch --shard-group 2` shows) to the byte; the simulation (gloo backend, a fake 2-D
mesh) must put rank 0's states at the same bytes and its peak within 2% of the largest real rank's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from math import prod
from pathlib import Path

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.plan import Plan
from zerodesk.core.torch_profile import rank_states
from zerodesk.measure.protocol import Error, Result, Started, decode
from zerodesk.measure.runner import MeasureRun, measure_command, simulate_command

ROOT = Path(__file__).resolve().parents[1]
# An odd vocabulary and odd widths: FSDP2 pads dim 0 to a multiple of the group (2), ZeRO-1's ranks are uneven.
ODD = {"layers": 2, "hidden": 48, "heads": 4, "kv_heads": 2, "ffn": 100, "vocab": 1003, "mlp": "gated",
       "norm": "rmsnorm", "positions": "rotary", "tied_embeddings": False}
PLAN = Plan.model_validate({"model": {"architecture": ODD}, "seq_len": 32, "micro_batch": 2,
                            "cluster": {"nodes": 2, "gpus_per_node": 2, "shard_group": 2}})
STAGES = [0, 1, 2, 3]
KEYS = ("params", "grads", "optimizer")


def _run(argv: list[str], server) -> list:
    """The messages of a job forked from the session's warm worker (conftest's job_server)."""
    env = {k: v for k, v in os.environ.items() if k != "ZERODESK_MEASURE_FAULT"}
    messages = list(MeasureRun(argv, timeout=600, env=env, server=server))
    errors = [m for m in messages if isinstance(m, Error)]
    assert not errors, errors[0].message
    return messages


@pytest.fixture(scope="module")
def runs(job_server):
    pytest.importorskip("torch")
    real = _run(measure_command(PLAN, STAGES, 4, "cpu", samples=False), job_server)
    sim = _run(simulate_command(PLAN, STAGES, backend="gloo"), job_server)
    return real, sim


def _results(messages) -> dict[tuple[int, int], Result]:
    return {(m.stage, m.rank): m for m in messages if isinstance(m, Result)}


def test_every_rank_rests_on_the_torch_profile_to_the_byte(runs):
    real, _ = runs
    started = next(m for m in real if isinstance(m, Started))
    assert (started.ranks, started.shard_group) == (4, 2)
    results = _results(real)
    assert sorted(results) == [(s, r) for s in STAGES for r in range(4)]
    breakdown = compute(PLAN.model_copy(update={"profile": "torch"}))  # what `zerodesk plan --profile torch` shows
    for (stage, rank), res in results.items():
        assert res.states == res.predicted_states, (stage, rank)
        got = res.states.model_dump()
        want = breakdown.stage(stage).ranks[rank]
        assert got == {k: want[k] for k in KEYS}, (stage, rank)
    for stage in STAGES:  # rank r holds what rank r mod 2 holds: the replicas are alike
        for rank in (2, 3):
            assert results[stage, rank].states == results[stage, rank - 2].states, (stage, rank)


def test_the_group_is_what_shards(runs):
    """Against the same 4 ranks sharded flat, the states follow N = 2: padding to 2 and a 2-way ZeRO-1 split."""
    real, _ = runs
    results = _results(real)
    shapes = [s for _, s in PLAN.model.named_shapes]
    p = sum(prod(s) for s in shapes)
    for stage in (2, 3):
        params = results[stage, 0].states.params
        assert params == rank_states(shapes, p, stage, 2)[0]["params"] != rank_states(shapes, p, stage, 4)[0]["params"]
    zero1 = [results[1, r].states.optimizer for r in range(4)]
    assert zero1[:2] == zero1[2:] and zero1[0] != zero1[1]  # uneven whole tensors, within each group of 2
    assert sum(zero1[:2]) == rank_states(shapes, p, 0, 4)[0]["optimizer"]  # each group holds all of AdamW's state


def test_simulated_hybrid_mesh_matches_the_real_run(runs):
    real, sim = runs
    results, simulated = _results(real), _results(sim)
    assert sorted(simulated) == [(s, 0) for s in STAGES]
    started = next(m for m in sim if isinstance(m, Started))
    assert (started.source, started.shard_group) == ("simulated", 2)
    for stage in STAGES:
        s = simulated[stage, 0]
        assert s.states == results[stage, 0].states == s.predicted_states, stage
        largest = max(results[stage, r].peak_bytes for r in range(4))
        assert abs(s.peak_bytes / largest - 1) <= 0.02, (stage, s.peak_bytes, largest)
    assert "shard group of 2" in simulated[3, 0].method and "HSDP" in simulated[3, 0].method


def test_a_group_that_does_not_divide_the_ranks_is_one_sentence():
    pytest.importorskip("torch")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("ZERODESK_MEASURE_FAULT", None)
    out = subprocess.run([sys.executable, "-m", "zerodesk.measure.worker.simulate", "--plan-json", PLAN.model_dump_json(),
                          "--stage", "3", "--shard-group", "3"], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env=env)
    *_, err = [decode(line) for line in out.stdout.splitlines() if line.strip()]
    assert isinstance(err, Error) and err.code == "bad_plan"
    assert err.message == "--shard-group (3) must divide the 4 ranks of this run"


def test_the_worker_takes_the_flag_under_torchrun():
    """`torchrun ... -m zerodesk.measure.worker --shard-group 2`: a flat plan's ranks run HSDP, exactly as predicted.
    Also the suite's check that the worker runs unchanged under torchrun (README): ranks from its environment."""
    pytest.importorskip("torch")
    torchrun = Path(sys.executable).with_name("torchrun")
    if not torchrun.exists():
        pytest.skip("torchrun not installed next to this Python")
    flat = PLAN.model_copy(update={"cluster": PLAN.cluster.model_copy(update={"shard_group": None})})
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    env.pop("ZERODESK_MEASURE_FAULT", None)
    out = subprocess.run([str(torchrun), "--standalone", "--nproc-per-node", "4", "-m", "zerodesk.measure.worker",
                          "--plan-json", flat.model_dump_json(), "--stage", "3", "--no-samples", "--shard-group", "2"],
                         capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    messages = [decode(line) for line in out.stdout.splitlines() if line.strip()]
    assert next(m for m in messages if isinstance(m, Started)).shard_group == 2
    results = _results(messages)
    assert sorted(results) == [(3, r) for r in range(4)]
    shapes = [s for _, s in PLAN.model.named_shapes]
    want = rank_states(shapes, sum(prod(s) for s in shapes), 3, 2)
    for r in range(4):
        assert results[3, r].states == results[3, r].predicted_states
        assert results[3, r].states.model_dump() == {k: want[r % 2][k] for k in KEYS}
