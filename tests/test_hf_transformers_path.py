"""The optional transformers path: any model type becomes an exact tensor list stored in the plan."""

from __future__ import annotations

import copy
import json
import stat
import sys
from pathlib import Path

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.plan import Plan, PlanError, Profile, load_plan, save_plan
from zerodesk.measure.hf_tensors import model_from_hf_config, size_problem
from zerodesk.measure.protocol import Error, Result
from zerodesk.measure.runner import MeasureRun, simulate_command

# GPT-Neo has no ZeroDesk layout: separate q/k/v without biases, an out_proj with one, local attention.
GPT_NEO = {"model_type": "gpt_neo", "_name_or_path": "EleutherAI/gpt-neo-tiny", "hidden_size": 24, "num_layers": 2,
           "num_heads": 4, "vocab_size": 37, "max_position_embeddings": 16, "intermediate_size": 40,
           "attention_types": [[["global", "local"], 1]], "window_size": 8}


def write(tmp_path: Path, config: dict) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture(scope="module")
def neo_read(tmp_path_factory, job_server):
    """GPT-Neo's config read once for the module (by transformers, forked from the session's warm worker: the one-shot
    child's path is test_unknown_to_transformers_is_one_sentence's); each test gets a copy."""
    pytest.importorskip("transformers")
    return model_from_hf_config(write(tmp_path_factory.mktemp("neo"), GPT_NEO), server=job_server)


@pytest.fixture
def neo(neo_read):
    return copy.deepcopy(neo_read)


def test_unknown_type_becomes_an_exact_tensor_list(tmp_path, neo):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    model, hints = neo
    assert model["name"] == "EleutherAI/gpt-neo-tiny" and hints == {"model_type": "gpt_neo", "seq_len": 16}
    cfg = {k: v for k, v in GPT_NEO.items() if k != "model_type"}
    with torch.device("meta"):
        real = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model("gpt_neo", **cfg))
    assert model["tensors"] == [(n, tuple(p.shape)) for n, p in real.named_parameters()]

    plan = Plan.model_validate({"model": model, "seq_len": 8, "profile": "torch", "cluster": {"dp": 2}})
    assert plan.params == sum(p.numel() for p in real.parameters())
    saved = tmp_path / "neo.zerodesk.json"
    save_plan(plan, saved)
    again = load_plan(saved)
    assert again == plan and again.model.named_shapes == model["tensors"]
    breakdown = compute(again)
    assert breakdown.profile == Profile.TORCH and breakdown.exact_shapes
    # AdamW keeps one 4-byte step per tensor: stage 0's optimizer is 8P + 4 x tensors
    assert breakdown.stage(0).ranks[0]["optimizer"] == 8 * plan.params + 4 * len(model["tensors"])


def test_unknown_type_simulates_exactly(neo, job_server):
    model, _ = neo
    plan = Plan.model_validate({"model": model, "seq_len": 8, "cluster": {"dp": 4}})
    messages = list(MeasureRun(simulate_command(plan, [2, 3]), timeout=300, server=job_server))
    assert not [m for m in messages if isinstance(m, Error)], [m.message for m in messages if isinstance(m, Error)]
    results = [m for m in messages if isinstance(m, Result)]
    assert sorted(r.stage for r in results) == [2, 3]
    assert all(r.states == r.predicted_states for r in results)


def test_without_transformers_one_sentence(tmp_path):
    # A Python in which `import transformers` fails, as on a machine without the package, started as ours is:
    # `-I -u -c BOOT ROOT MODULE -` (child.py)
    fake = tmp_path / "python-without-transformers"
    fake.write_text(f"#!/bin/sh\nshift 3\nexec {sys.executable} -I -u -c \"import sys; "
                    f"sys.modules['transformers'] = None; exec(sys.argv.pop(1))\" \"$@\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(PlanError) as err:
        model_from_hf_config(write(tmp_path, GPT_NEO), python=str(fake))
    message = str(err.value)
    assert "model_type 'gpt_neo'" in message and "pip install transformers" in message
    assert "\n" not in message and "Traceback" not in message


def test_unknown_to_transformers_is_one_sentence(tmp_path):
    pytest.importorskip("transformers")
    with pytest.raises(PlanError, match="does not know model_type 'no-such-model'") as err:
        model_from_hf_config(write(tmp_path, {"model_type": "no-such-model"}))
    assert len(str(err.value)) < 300


def test_known_type_needs_no_subprocess(tmp_path):
    model, hints = model_from_hf_config(write(tmp_path, {"model_type": "gpt2"}), python="/nonexistent/python")
    assert model["architecture"]["family"] == "gpt2" and hints["seq_len"] == 1024 and model["name"] == "gpt2"


# Granite has no ZeroDesk layout either; its step template is fitted from its own module (only s and b are symbols).
GRANITE = {"model_type": "granite", "hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
           "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 101, "max_position_embeddings": 512,
           "pad_token_id": None, "bos_token_id": None, "eos_token_id": None, "tie_word_embeddings": False}


def test_a_type_never_seen_gets_its_activations_from_its_own_module(tmp_path, job_server):
    """The predicted peak of a model type ZeroDesk has no layout for, from the template fitted at import: every
    stage and recompute choice within 0.1% of its simulated step. Its tensor list and template come from the session's
    warm worker (the one-shot children's path: `plan --config` in test_lifeline.py)."""
    pytest.importorskip("transformers")
    from zerodesk.core.peak import predict

    model, hints = model_from_hf_config(write(tmp_path, GRANITE), fit_template=True, server=job_server)
    assert model["step_template"]["key"].startswith("config:") and "step_template" not in hints
    for recompute in ("none", "full"):
        plan = Plan.model_validate({"model": model, "seq_len": 256, "micro_batch": 2, "profile": "torch",
                                    "recompute": recompute, "kernels": "cpu", "cluster": {"dp": 2}})
        sims = {m.stage: m for m in MeasureRun(simulate_command(plan, [0, 1, 2, 3]), timeout=600, server=job_server)
                if isinstance(m, Result)}
        for p in predict(plan):
            assert p.complete and abs(p.total_bytes / sims[p.stage].peak_bytes - 1) < 0.001, (recompute, p.stage)


def test_absurd_sizes_are_named_and_every_transformers_default_passes():
    """The size check knows fields by their names' words; no config class of transformers trips it by default."""
    transformers = pytest.importorskip("transformers")
    absurd = {"num_hidden_layers": 1e9, "n_layer": 5000, "text_config": {"num_local_experts": 10**6},
              "attention_window": [512, 10**9], "vocab_size": 10**12, "max_position_embeddings": 10**12,
              "num_attention_heads": 10**5, "num_codebooks": 10**7}
    said = {field: size_problem({"model_type": "x", field: value}, "config.json") for field, value in absurd.items()}
    assert said["num_hidden_layers"] == ("config.json: num_hidden_layers is 1,000,000,000, above the 1,024 ZeroDesk "
                                         "allows for a model's layers")
    assert "text_config.num_local_experts is 1,000,000, above the 65,536" in said["text_config"]
    assert "attention_window[1] is 1,000,000,000" in said["attention_window"]
    assert all(said.values()) and all("\n" not in m for m in said.values())
    refused = []
    for model_type, config_class in transformers.CONFIG_MAPPING.items():
        try:
            config = config_class().to_dict()
        except Exception:  # noqa: BLE001 - a class that needs arguments has no defaults to check
            continue
        if size_problem(config, model_type):
            refused.append(size_problem(config, model_type))
    assert refused == []
    for path in Path(__file__).with_name("hf_configs").glob("*.json"):
        assert size_problem(json.loads(path.read_text()), path.name) is None
