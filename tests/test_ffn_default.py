"""An architecture without an MLP width takes the usual one instead of being refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zerodesk.core.architecture_tensors import param_count
from zerodesk.core.plan import Architecture, Plan, default_ffn

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("hidden", "mlp", "ffn"), [
    (4096, "gated", 11008),  # Llama 2 7B's published width
    (5120, "gated", 13824),  # Llama 2 13B
    (64, "gated", 256),  # 170.7 rounded up to a multiple of 256
    (768, "plain", 3072),  # GPT-2
    (1, "plain", 4),
])
def test_default_ffn(hidden, mlp, ffn):
    assert default_ffn(hidden, mlp) == ffn


def test_an_architecture_without_ffn_takes_the_default_and_an_explicit_one_wins():
    arch = Architecture(layers=2, hidden=64, heads=4, vocab=256, mlp="plain")
    assert arch.ffn == 256
    assert Architecture(layers=2, hidden="64", heads=4, vocab=256, ffn="").ffn == 256  # empty form field
    assert Architecture(layers=2, hidden=64, heads=4, vocab=256, ffn=100).ffn == 100
    plan = Plan.model_validate({"model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "vocab": 256}}})
    assert plan.model.architecture.ffn == 256 and plan.params == param_count(plan.model.architecture)
    assert '"ffn":256' in plan.model_dump_json()  # saved plans say what was assumed


def test_the_cli_plans_without_an_ffn_flag():
    out = subprocess.run([sys.executable, "-m", "zerodesk", "plan", "--layers", "2", "--hidden", "64", "--heads", "4",
                          "--vocab", "256", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    arch = Architecture(layers=2, hidden=64, heads=4, vocab=256)
    assert data["params"] == param_count(arch)
