"""Every family against transformers itself: the tensor list ZeroDesk reads from a public config.json
equals the model transformers builds on the meta device (names, shapes, order), and its count
equals the published one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zerodesk.core.architecture_tensors import param_count, tensor_shapes
from zerodesk.core.hf_config import (
    SUPPORTED, architecture_from_config_dict, architecture_from_hf_config, hf_config_from_architecture,
)

CONFIGS = Path(__file__).parent / "hf_configs"
PUBLISHED = json.loads((CONFIGS / "published.json").read_text())["models"]
FILES = sorted(p for p in CONFIGS.glob("*.json") if p.name != "published.json")


def hf_named_shapes(config: dict) -> list[tuple[str, tuple[int, ...]]]:
    """transformers' own model on the meta device: its unique named parameters, tied weights once. Built once per
    config in a test process: a public config's architecture and the preset of the same model give the same config."""
    key = json.dumps(config, sort_keys=True)
    if key not in _BUILT:
        _BUILT[key] = _hf_named_shapes(config)
    return list(_BUILT[key])


_BUILT: dict[str, list[tuple[str, tuple[int, ...]]]] = {}


def _hf_named_shapes(config: dict) -> list[tuple[str, tuple[int, ...]]]:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    cfg = dict(config)
    conf = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(conf)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def test_every_family_has_a_public_config():
    families = {json.loads(p.read_text())["model_type"] for p in FILES}
    assert families == set(SUPPORTED)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_config_tensors_equal_transformers(path):
    config = json.loads(path.read_text())
    arch, _ = architecture_from_hf_config(path)
    assert arch.family == config["model_type"]
    ours = tensor_shapes(arch)
    theirs = hf_named_shapes(config)
    assert len(ours) == len(theirs)
    assert ours == theirs
    if path.stem in PUBLISHED:
        assert param_count(arch) == PUBLISHED[path.stem]["params"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_architecture_back_to_config_builds_the_same_model(path):
    """The worker builds transformers' model from hf_config_from_architecture: it must be the same model."""
    arch, _ = architecture_from_hf_config(path)
    config = hf_config_from_architecture(arch)
    assert architecture_from_config_dict(config, path) == arch
    assert hf_named_shapes(config) == tensor_shapes(arch)


def test_every_preset_equals_transformers():
    from zerodesk.core.catalog import model_presets

    presets = [p for p in model_presets() if p.architecture is not None and p.architecture.family != "custom"]
    assert {p.architecture.family for p in presets} == set(SUPPORTED)
    for preset in presets:
        theirs = hf_named_shapes(hf_config_from_architecture(preset.architecture))
        assert theirs == tensor_shapes(preset.architecture), preset.name
        counted = sum(_numel(s) for _, s in theirs)
        # published exactly, except a stand-in shape (paper-figure1) that meets a rounded figure within its tolerance
        assert abs(counted - preset.published_params) <= preset.tolerance * preset.published_params, preset.name
        if preset.family != "paper":
            assert counted == preset.published_params, preset.name


def _numel(shape):
    out = 1
    for d in shape:
        out *= d
    return out


# Variants no public config above exercises: every knob a family's transformers config reads.
TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=40, vocab_size=50,
            max_position_embeddings=20, pad_token_id=None, bos_token_id=None, eos_token_id=None)
VARIANTS = {
    "llama-head-dim-biases": dict(TINY, model_type="llama", head_dim=16, num_key_value_heads=2, attention_bias=True),
    "llama-mlp-bias-tied": dict(TINY, model_type="llama", mlp_bias=True, tie_word_embeddings=True),
    "mistral-head-dim": dict(TINY, model_type="mistral", head_dim=12, num_key_value_heads=1),
    "qwen2-untied-no-kv": dict(TINY, model_type="qwen2", num_key_value_heads=4),
    "qwen3-attention-bias-tied": dict(TINY, model_type="qwen3", head_dim=8, num_key_value_heads=2, attention_bias=True,
                                      tie_word_embeddings=True),
    "mixtral-top1-tied": dict(TINY, model_type="mixtral", num_local_experts=5, num_experts_per_tok=1,
                              num_key_value_heads=2, tie_word_embeddings=True),
    "gemma-attention-bias-untied": dict(TINY, model_type="gemma", head_dim=16, num_key_value_heads=4,
                                        attention_bias=True, tie_word_embeddings=False),
    "gemma2-attention-bias": dict(TINY, model_type="gemma2", head_dim=8, num_key_value_heads=2, attention_bias=True),
    "olmo-attention-bias-clip": dict(TINY, model_type="olmo", attention_bias=True, clip_qkv=8.0),
    "phi-qk-norm-gqa-tied": dict(TINY, model_type="phi", qk_layernorm=True, num_key_value_heads=2,
                                 tie_word_embeddings=True),
    "phi3-gqa-tied": dict(TINY, model_type="phi3", num_key_value_heads=2, tie_word_embeddings=True),
    "stablelm-qk-norm-parallel": dict(TINY, model_type="stablelm", num_key_value_heads=2, qk_layernorm=True,
                                      use_parallel_residual=True, use_qkv_bias=True),
    "falcon-rw-alibi-sequential": dict(TINY, model_type="falcon", alibi=True, multi_query=False, parallel_attn=False,
                                       bias=True, new_decoder_architecture=False),
    "falcon-11b-one-norm": dict(TINY, model_type="falcon", new_decoder_architecture=True, num_kv_heads=2,
                                num_ln_in_parallel_attn=1, ffn_hidden_size=48, tie_word_embeddings=False),
    "falcon-n-embed-alias": {"model_type": "falcon", "n_embed": 32, "hidden_size": 64, "num_attention_heads": 4,
                             "num_hidden_layers": 2, "vocab_size": 50,
                             "bos_token_id": None, "eos_token_id": None},
    "bloom-untied-n-embed": {"model_type": "bloom", "n_embed": 32, "n_head": 4, "n_layer": 2, "vocab_size": 50,
                             "tie_word_embeddings": False, "bos_token_id": None, "eos_token_id": None,
                             "pad_token_id": None},
    "opt-pre-norm-removed-final": dict(TINY, model_type="opt", ffn_dim=40, _remove_final_layer_norm=True,
                                       word_embed_proj_dim=16, enable_bias=False),
    "opt-no-affine-untied": dict(TINY, model_type="opt", ffn_dim=40, layer_norm_elementwise_affine=False,
                                 tie_word_embeddings=False),
    "gptj-tied-inner": {"model_type": "gptj", "n_embd": 32, "n_layer": 2, "n_head": 4, "n_inner": 48, "rotary_dim": 4,
                        "vocab_size": 50, "n_positions": 20, "tie_word_embeddings": True,
                        "bos_token_id": None, "eos_token_id": None},
    "gpt2-untied-inner": {"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "n_inner": 48,
                          "vocab_size": 50, "tie_word_embeddings": False, "bos_token_id": None, "eos_token_id": None},
    "gpt-neox-sequential-no-attention-bias-tied": dict(TINY, model_type="gpt_neox", use_parallel_residual=False,
                                                       attention_bias=False, tie_word_embeddings=True, rotary_pct=0.5),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variants_equal_transformers(tmp_path, name):
    config = VARIANTS[name]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    arch, _ = architecture_from_hf_config(path)
    assert tensor_shapes(arch) == hf_named_shapes(config)
    assert hf_named_shapes(hf_config_from_architecture(arch)) == tensor_shapes(arch)


@pytest.mark.parametrize("name", ["mistral-7b-v0.1", "phi-3-mini-4k-instruct", "gemma-2-2b", "mixtral-8x7b-v0.1",
                                  "gpt2", "qwen2.5-0.5b"])
def test_window_softcap_and_activation_reach_transformers_as_the_config_says(name):
    """The worker's model (built from hf_config_from_architecture) has the public config's window (null: none),
    Gemma-2's alternation and softcaps, and the activation the public config names."""
    transformers = pytest.importorskip("transformers")
    public = json.loads((CONFIGS / f"{name}.json").read_text())
    arch, _ = architecture_from_hf_config(CONFIGS / f"{name}.json")
    ours = hf_config_from_architecture(arch)

    def built(cfg):
        cfg = dict(cfg)
        return transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)

    from zerodesk.core.hf_config_writer import _ACT_KEY

    theirs, mine = built(public), built(ours)
    for key in ("sliding_window", "layer_types", "attn_logit_softcapping", "final_logit_softcapping",
                _ACT_KEY.get(arch.family, "hidden_act")):
        assert getattr(mine, key, None) == getattr(theirs, key, None), (name, key)


@pytest.mark.parametrize("family, extra", [("gpt_neox", {"mlp": "plain", "norm": "layernorm", "bias": "all"}),
                                           ("phi", {"mlp": "plain", "norm": "layernorm", "bias": "all",
                                                    "head_bias": True, "parallel": True}),
                                           ("stablelm", {"norm": "layernorm"})])
def test_partial_rotary_reaches_transformers(family, extra):
    """The worker's model rotates the lanes the architecture says (GPTNeoXConfig reads rotary_pct, not
    partial_rotary_factor: a 0.5 model once ran with 0.25)."""
    transformers = pytest.importorskip("transformers")
    from zerodesk.core.architecture import Architecture

    arch = Architecture(family=family, layers=1, hidden=64, heads=4, ffn=128, vocab=50, rotary_dim=8, **extra)
    cfg = dict(hf_config_from_architecture(arch))
    conf = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    assert int(16 * conf.rope_parameters["partial_rotary_factor"]) == 8


def test_the_worker_builds_the_window_and_activation_the_config_names():
    """A null window is no window (not transformers' default 4096); gelu_new runs NewGELUActivation."""
    pytest.importorskip("transformers")
    from zerodesk.core.architecture import Architecture
    from zerodesk.measure.worker.model import build_model

    mistral = Architecture(family="mistral", layers=1, hidden=64, heads=4, kv_heads=2, ffn=96, vocab=50)
    assert build_model(mistral, "meta").config.sliding_window is None
    assert build_model(mistral.model_copy(update={"sliding_window": 2047}), "meta").config.sliding_window == 2047
    gptj = Architecture(family="gptj", layers=1, hidden=64, heads=4, ffn=256, vocab=50, mlp="plain",
                        norm="layernorm", bias="mlp", head_bias=True, parallel=True, rotary_dim=8,
                        activation="gelu_new")
    model = build_model(gptj, "meta")
    assert any(type(m).__name__ == "NewGELUActivation" for m in model.modules())
