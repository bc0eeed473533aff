"""Measured resting states equal the torch profile to the byte, for one small model of every family.

Two real gloo ranks build each family's layout (transformers' own model for Hugging Face
families), train one step per stage 0-3 through the worker's measure_stage (no warm-up step: only
the resting states are compared), and count the live parameters, gradients and AdamW state.
Tiny, uneven shapes make ZeRO-1 ranks uneven and FSDP2 pad.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from zerodesk.core import catalog
from zerodesk.core.architecture import FAMILIES, Architecture
from zerodesk.core.architecture_tensors import tensor_shapes
from zerodesk.core.hf_config import hf_config_from_architecture
from zerodesk.core.plan import Plan
from zerodesk.measure.protocol import Error, Result, Scale, scale_plan
from zerodesk.measure.runner import MeasureRun, simulate_command

ROOT = Path(__file__).resolve().parents[1]
BASE = dict(layers=2, hidden=24, heads=4, ffn=40, vocab=37, max_positions=16)
GATED = dict(mlp="gated", norm="rmsnorm")
SMALL: dict[str, dict] = {
    "custom": dict(mlp="plain", norm="layernorm", bias="qkv", positions="learned", kv_heads=2),
    "llama": dict(GATED, bias="all", kv_heads=2),
    "mistral": dict(GATED, kv_heads=2),
    "qwen2": dict(GATED, bias="qkv", kv_heads=2, tied_embeddings=True),
    "qwen3": dict(GATED, qk_norm=True, head_dim=8, kv_heads=2),
    "mixtral": dict(GATED, experts=3, top_k=2, kv_heads=2),
    "gemma": dict(GATED, head_dim=8, kv_heads=1, tied_embeddings=True),
    "gemma2": dict(GATED, head_dim=8, kv_heads=2, tied_embeddings=True),
    "olmo": dict(GATED, norm="nonparametric"),
    "phi": dict(mlp="plain", norm="layernorm", bias="all", head_bias=True, parallel=True, qk_norm=True, rotary_dim=4),
    "phi3": dict(GATED, kv_heads=2),
    "stablelm": dict(mlp="gated", norm="layernorm", bias="qkv", qk_norm=True, parallel=True, kv_heads=2, rotary_dim=2),
    "falcon": dict(mlp="plain", norm="layernorm", kv_heads=2, parallel=True, parallel_norms=2),
    "bloom": dict(mlp="plain", norm="layernorm", bias="all", positions="alibi", embed_norm=True, ffn=96,
                  tied_embeddings=True),
    "opt": dict(mlp="plain", norm="layernorm", bias="all", positions="learned", position_offset=2, embed_dim=16,
                final_norm=False, tied_embeddings=True),
    "gptj": dict(mlp="plain", norm="layernorm", bias="mlp", head_bias=True, parallel=True, rotary_dim=4),
    "gpt2": dict(mlp="plain", norm="layernorm", bias="all", positions="learned", tied_embeddings=True),
    "gpt_neox": dict(mlp="plain", norm="layernorm", bias="mlp", parallel=True, rotary_dim=2),
}


def small_arch(family: str) -> Architecture:
    return Architecture(family=family, **{**BASE, **SMALL[family]})


def test_every_family_has_a_small_model():
    assert set(SMALL) == set(FAMILIES)
    for family in FAMILIES:
        arch = small_arch(family)
        if family != "custom":
            assert hf_config_from_architecture(arch)["model_type"] == family


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Two gloo ranks of tests/family_ranks.py, forked from one Python once torch and transformers are imported (as the
# launcher forks its CPU ranks): each rank would otherwise import them itself, seconds of CPU apiece.
FORKED_RANKS = """
import os, sys
sys.path[:0] = [sys.argv[2], sys.argv[3]]  # the tests' folder (family_ranks.py) and the project
import torch, transformers.modeling_utils  # noqa: F401
import family_ranks
sys.argv = [family_ranks.__file__, sys.argv[1]]
ranks = []
for rank in (0, 1):
    pid = os.fork()
    if pid == 0:
        os.environ["RANK"] = os.environ["LOCAL_RANK"] = str(rank)
        family_ranks.main()  # leaves with os._exit
    ranks.append(pid)
sys.exit(max(abs(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])) for pid in ranks))
"""


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    plans = {f: {"model": {"name": f, "architecture": small_arch(f).model_dump()}, "seq_len": 8, "micro_batch": 1}
             for f in FAMILIES}
    path = tmp_path_factory.mktemp("families") / "plans.json"
    path.write_text(json.dumps(plans))
    env = {**os.environ, "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()),
           "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    ranks = subprocess.run([sys.executable, "-c", FORKED_RANKS, str(path), str(ROOT / "tests"), str(ROOT)], env=env,
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert ranks.returncode == 0 and ranks.stdout.strip(), ranks.stderr[-3000:]
    return json.loads(ranks.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("family", FAMILIES)
def test_measured_states_equal_the_torch_profile(measured, family):
    stages = measured[family]
    assert sorted(stages) == ["0", "1", "2", "3"]
    for stage, ranks in stages.items():
        assert len(ranks) == 2
        for rank, (got, predicted) in enumerate(ranks):
            assert got == predicted, (family, stage, rank)
    # FSDP2 shards: each rank holds about half of DDP's full copy (plus dim-0 padding)
    assert stages["3"][0][0]["params"] < stages["0"][0][0]["params"]


@pytest.mark.parametrize("preset", [p for p in catalog.model_presets() if p.architecture is not None
                                    and p.architecture.family != "custom"], ids=lambda p: p.name)
def test_scaled_down_presets_stay_buildable(preset):
    """Measure scales big models down: every family's scaled shape must still be transformers' model."""
    from tests.test_hf_families import hf_named_shapes

    plan = Plan.model_validate({"model": preset.to_model_spec().model_dump(), "seq_len": 64})
    small = scale_plan(plan, Scale(layers=0.05, hidden=0.05, vocab=0.001, seq=0.5)).model.architecture
    assert small.family == preset.architecture.family and small.layers <= 4
    assert hf_named_shapes(hf_config_from_architecture(small)) == tensor_shapes(small)


def test_simulated_moe_states_equal_the_profile(job_server):
    """Mixtral under fake tensors at Nd = 4: the simulated rank's states equal the torch profile too."""
    pytest.importorskip("transformers")
    plan = Plan.model_validate({"model": {"architecture": small_arch("mixtral").model_dump()}, "seq_len": 8,
                                "cluster": {"dp": 4}})
    messages = list(MeasureRun(simulate_command(plan, [2, 3]), timeout=300, server=job_server))
    assert not [m for m in messages if isinstance(m, Error)]
    results = [m for m in messages if isinstance(m, Result)]
    assert sorted(r.stage for r in results) == [2, 3]
    assert all(r.states == r.predicted_states and r.source == "simulated" for r in results)
