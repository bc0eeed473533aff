"""A model of many identical blocks simulated from 3, 4 and 5 of them (block_extrapolation): the same figures as
simulating every block, byte for byte, on several models, stages and knobs; never where the blocks differ."""

from __future__ import annotations

import pytest

from test_simulate import run
from zerodesk.core.catalog import find_model
from zerodesk.core.plan import Plan
from zerodesk.measure.protocol import Error, PhaseMsg, Result
from zerodesk.measure.runner import simulate_command
from zerodesk.measure.worker.block_extrapolation import _affine, eligible, expand, insertions


def plan_of(model: str | dict, layers: int, **knobs) -> Plan:
    spec = find_model(model).to_model_spec().model_dump() if isinstance(model, str) else {"architecture": model}
    spec["architecture"] = {**spec["architecture"], "layers": layers}
    return Plan.model_validate({"model": spec, "seq_len": 128, "micro_batch": 1, "cluster": {"dp": 8}, **knobs})


def simulated(plan: Plan, stages: list[int], *flags: str, server) -> tuple[dict[int, dict], dict[int, int]]:
    """Each stage's Result (timings aside) and how many models it built (1: every block; 3: from 3, 4 and 5); the
    simulation forked from the session's warm worker (server: conftest's job_server).

    A stage's progress goes through warm-up, forward, backward and optimizer once per model whose phases are shown:
    the short models before the last report theirs as setup, a third and two thirds of the way through."""
    messages = run(simulate_command(plan, stages) + list(flags), server, timeout=600)
    errors = [m for m in messages if isinstance(m, Error)]
    assert not errors, errors[0].message
    results = {m.stage: m.model_dump(exclude={"step_s"}) for m in messages if isinstance(m, Result)}
    builds = {}
    for s in stages:
        phases = [(m.phase, m.progress) for m in messages if isinstance(m, PhaseMsg) and m.stage == s]
        shown = sum(1 for p in phases if p == ("setup", 0.0))  # each model whose phases are shown starts at setup
        preparing = {p for p in phases if p[0] == "setup" and 0 < p[1] < 1}  # setup ends at 1.0
        assert preparing <= {("setup", 1 / 3), ("setup", 2 / 3)}, preparing
        warmups = sum(1 for a, b in zip(phases, phases[1:]) if a[0] != "warmup" and b[0] == "warmup")
        assert warmups == shown, phases  # no short model's warm-up shown beside the stage's own
        builds[s] = shown + len(preparing)
    return results, builds


CUSTOM = {"family": "custom", "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}

CASES = [  # (plan, stages, extrapolated: True, or None where the streams may not show it and the full one runs)
    (plan_of(CUSTOM, 16), [2, 3], True),
    (plan_of("llama-2-7b", 16), [2, 3], True),
    (plan_of("qwen3-0.6b", 16, accum_steps=2, accum_sync="last", cluster={"dp": 8, "shard_group": 4}), [2, 3], None),
    (plan_of("mistral-7b-v0.1", 16, recompute="selective", param_dtype="fp16", reduce_dtype="bf16"), [3], None),
    (plan_of("gpt2", 16, recompute="full"), [3], None),
]


@pytest.mark.parametrize("plan, stages, extrapolated", CASES,
                         ids=["custom", "llama", "qwen3-hsdp-accum", "mistral-selective-fp16", "gpt2-full-recompute"])
def test_extrapolated_figures_are_the_full_simulations_byte_for_byte(plan, stages, extrapolated, job_server):
    """Where the short runs' streams prove it (3 models built), the figures are the full simulation's; where they do
    not (3 short models, then the full one: 4), the full simulation's figures are what comes out all the same."""
    pytest.importorskip("torch")
    assert all(eligible(plan, s) for s in stages)
    fast, builds = simulated(plan, stages, server=job_server)
    full, full_builds = simulated(plan, stages, "--full-model", server=job_server)
    assert full_builds == {s: 1 for s in stages}
    assert all(builds[s] == 3 if extrapolated else builds[s] in (3, 4) for s in stages), builds
    assert fast == full


def test_blocks_that_differ_or_few_are_simulated_whole(job_server):
    """Gemma 2 alternates sliding and global attention; every 2nd block recomputed; units of 2 blocks; fewer blocks
    than pay for three short runs; the DDP stages: none is extrapolated."""
    pytest.importorskip("torch")
    assert not eligible(plan_of("gemma-2-2b", 16), 3)
    assert not eligible(plan_of("llama-2-7b", 16, recompute="full", recompute_every=2), 3)
    assert not eligible(plan_of("llama-2-7b", 16, wrap="blocks", wrap_blocks=2), 3)
    assert not eligible(plan_of("llama-2-7b", 15), 3)
    assert not eligible(plan_of("llama-2-7b", 16), 1)
    _, builds = simulated(plan_of("gemma-2-2b", 16), [3], server=job_server)
    assert builds == {3: 1}


def test_insertions_and_their_expansion():
    short = [("a",), ("b",), ("x",), ("c",)] * 3
    longer = short[:4] + [("n",), ("b",)] + short[4:] + [("z",)]
    found = insertions(short, longer)
    assert expand(short, found, 1) == longer
    assert expand(short, found, 3) == short[:4] + [("n",), ("b",)] * 3 + short[4:] + [("z",)] * 3
    assert insertions(short, short[:5] + [("q",)] + short[6:] + [("z",)]) is None  # a changed item: no insertion


def test_affine_fields_extrapolate_and_others_must_agree():
    assert _affine([{"a": 1, "b": "m"}, {"a": 3, "b": "m"}, {"a": 5, "b": "m"}], 10) == {"a": 21, "b": "m"}
    assert _affine([{"a": 1}, {"a": 3}, {"a": 6}], 10) is None  # uneven steps
    assert _affine([{"b": "m"}, {"b": "n"}, {"b": "n"}], 10) is None
    assert _affine([{"c": None}, {"c": None}, {"c": None}], 10) == {"c": None}
