"""Hugging Face config.json files → Architecture, with exact counts for real shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zerodesk.core.architecture_tensors import param_count, tensor_shapes
from zerodesk.core.hf_config import architecture_from_hf_config
from zerodesk.core.plan import PlanError

LLAMA_2_7B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 32000,
    "max_position_embeddings": 4096, "tie_word_embeddings": False, "rms_norm_eps": 1e-05, "hidden_act": "silu",
    "torch_dtype": "float16",
}
LLAMA_3_8B = {**LLAMA_2_7B, "intermediate_size": 14336, "num_key_value_heads": 8, "vocab_size": 128256,
              "max_position_embeddings": 8192, "rope_theta": 500000.0}
MISTRAL_7B = {"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
              "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
              "max_position_embeddings": 32768, "sliding_window": 4096, "tie_word_embeddings": False}
QWEN25_7B = {"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
             "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
             "max_position_embeddings": 131072, "tie_word_embeddings": False}
QWEN25_05B = {"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_attention_heads": 14,
              "num_hidden_layers": 24, "num_key_value_heads": 2, "vocab_size": 151936,
              "max_position_embeddings": 32768, "tie_word_embeddings": True}
GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_inner": None, "vocab_size": 50257,
        "n_positions": 1024, "n_ctx": 1024, "activation_function": "gelu_new"}
PYTHIA_160M = {"model_type": "gpt_neox", "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12,
               "num_hidden_layers": 12, "vocab_size": 50304, "max_position_embeddings": 2048, "rotary_pct": 0.25,
               "use_parallel_residual": True, "tie_word_embeddings": False}


def write(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "config, count, seq_len",
    [
        (LLAMA_2_7B, 6_738_415_616, 4096),
        (LLAMA_3_8B, 8_030_261_248, 8192),
        (MISTRAL_7B, 7_241_732_096, 32768),
        (QWEN25_7B, 7_615_616_512, 131072),
        (QWEN25_05B, 494_032_768, 32768),
        (GPT2, 124_439_808, 1024),
        (PYTHIA_160M, 162_322_944, 2048),
    ],
    ids=["llama-2-7b", "llama-3-8b", "mistral-7b", "qwen2.5-7b", "qwen2.5-0.5b-tied", "gpt2", "pythia-160m"],
)
def test_real_configs_give_exact_counts(tmp_path, config, count, seq_len):
    arch, hints = architecture_from_hf_config(write(tmp_path, config))
    assert param_count(arch) == count
    assert hints == {"model_type": config["model_type"], "seq_len": seq_len, "name": config.get("architectures", [config["model_type"]])[0]}
    assert arch.max_positions == seq_len  # the context length is kept on the architecture too


def test_family_details(tmp_path):
    qwen, _ = architecture_from_hf_config(write(tmp_path, QWEN25_7B))
    assert qwen.bias == "qkv" and not qwen.tied_embeddings and qwen.kv_heads == 4
    gpt2, _ = architecture_from_hf_config(write(tmp_path, GPT2))
    assert (gpt2.ffn, gpt2.mlp, gpt2.bias, gpt2.norm, gpt2.positions, gpt2.tied_embeddings) == (
        3072, "plain", "all", "layernorm", "learned", True)
    neox, _ = architecture_from_hf_config(write(tmp_path, PYTHIA_160M))
    assert (neox.positions, neox.bias, neox.tied_embeddings) == ("rotary", "all", False)


def test_explicit_head_dim(tmp_path):
    # Mistral-NeMo-like: 32 heads of 128 on a 5120-wide model, so q projects to 4096
    config = {**MISTRAL_7B, "hidden_size": 5120, "head_dim": 128, "num_hidden_layers": 2}
    arch, _ = architecture_from_hf_config(write(tmp_path, config))
    shapes = dict(tensor_shapes(arch))
    assert shapes["model.layers.0.self_attn.q_proj.weight"] == (4096, 5120)
    assert shapes["model.layers.0.self_attn.k_proj.weight"] == (1024, 5120)


def test_null_head_dim_and_kv_heads_default(tmp_path):
    config = {**LLAMA_2_7B, "head_dim": None, "num_key_value_heads": None}
    arch, _ = architecture_from_hf_config(write(tmp_path, config))
    assert param_count(arch) == 6_738_415_616


def test_gpt2_n_inner_and_untied(tmp_path):
    arch, _ = architecture_from_hf_config(write(tmp_path, {**GPT2, "n_inner": 1000, "tie_word_embeddings": False}))
    assert arch.ffn == 1000 and not arch.tied_embeddings


def test_folder_path_reads_its_config(tmp_path):
    write(tmp_path, LLAMA_2_7B)
    arch, _ = architecture_from_hf_config(tmp_path)
    assert param_count(arch) == 6_738_415_616


def test_missing_keys_take_the_transformers_defaults(tmp_path):
    config = {k: v for k, v in LLAMA_2_7B.items() if k != "max_position_embeddings"}
    arch, hints = architecture_from_hf_config(write(tmp_path, config))
    assert hints["seq_len"] == arch.max_positions == 2048  # LlamaConfig's default
    bare, _ = architecture_from_hf_config(write(tmp_path, {"model_type": "llama"}))
    assert param_count(bare) == 6_738_415_616  # LlamaConfig() is Llama 2 7B's shape
    gpt2, hints = architecture_from_hf_config(write(tmp_path, {k: v for k, v in GPT2.items() if k != "n_positions"}))
    assert gpt2.max_positions == hints["seq_len"] == 1024 and param_count(gpt2) == 124_439_808


def test_model_named_from_name_or_path(tmp_path):
    _, hints = architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "_name_or_path": "meta-llama/Llama-2-7b-hf"}))
    assert hints["name"] == "meta-llama/Llama-2-7b-hf"
    _, hints = architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "_name_or_path": "/home/me/ckpt/llama-7b"}))
    assert hints["name"] == "ckpt/llama-7b"
    _, hints = architecture_from_hf_config(write(tmp_path, {"model_type": "gpt2"}))
    assert hints["name"] == "gpt2"


def test_unknown_model_type_lists_supported(tmp_path):
    with pytest.raises(PlanError, match="model_type 'bert'.*llama, mistral, qwen2, qwen3.*gpt_neox.*transformers"):
        architecture_from_hf_config(write(tmp_path, {"model_type": "bert", "hidden_size": 768}))
    with pytest.raises(PlanError, match="has no model_type; ZeroDesk reads llama"):
        architecture_from_hf_config(write(tmp_path, {"hidden_size": 768}))
    for odd in (["llama"], {"name": "llama"}, 7, True):  # JSON that is not a name: one sentence, not a TypeError
        with pytest.raises(PlanError, match="has a model_type that is not a name; ZeroDesk reads llama"):
            architecture_from_hf_config(write(tmp_path, {"model_type": odd, "hidden_size": 768}))


@pytest.mark.parametrize("text, message", [
    ("{\"model_type\": \"llama\",", "is not valid JSON"),
    ("[1, 2]", "must hold a JSON object"),
])
def test_bad_json(tmp_path, text, message):
    with pytest.raises(PlanError, match=message):
        architecture_from_hf_config(write(tmp_path, text))


def test_unreadable_file(tmp_path):
    with pytest.raises(PlanError, match="cannot read"):
        architecture_from_hf_config(tmp_path / "nope.json")


def test_non_utf8_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(b"\xff\xfe\x00{")
    with pytest.raises(PlanError, match="not UTF-8"):
        architecture_from_hf_config(path)


def test_malformed_values(tmp_path):
    with pytest.raises(PlanError, match="hidden_size must be a positive integer"):
        architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "hidden_size": "4096"}))
    with pytest.raises(PlanError, match="head_dim must be a positive integer"):
        architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "head_dim": 0}))


def test_inconsistent_shape_is_a_plan_error(tmp_path):
    with pytest.raises(PlanError, match="no valid architecture.*multiple of heads"):
        architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "num_attention_heads": 30}))


@pytest.mark.parametrize("config, bias, extra", [
    ({**LLAMA_2_7B, "attention_bias": True}, "attention", 32 * (3 * 4096 + 4096)),
    ({**LLAMA_2_7B, "mlp_bias": True}, "mlp", 32 * (2 * 11008 + 4096)),
    ({**LLAMA_2_7B, "attention_bias": True, "mlp_bias": True}, "all", 32 * (4 * 4096 + 2 * 11008 + 4096)),
])
def test_llama_biases_per_projection(tmp_path, config, bias, extra):
    arch, _ = architecture_from_hf_config(write(tmp_path, config))
    assert arch.bias == bias and param_count(arch) == 6_738_415_616 + extra


def test_gpt_neox_without_attention_bias(tmp_path):
    arch, _ = architecture_from_hf_config(write(tmp_path, {**PYTHIA_160M, "attention_bias": False}))
    assert arch.bias == "mlp" and param_count(arch) == 162_322_944 - 12 * (3 * 768 + 768)


@pytest.mark.parametrize("key, value", [
    ("tie_word_embeddings", "false"), ("attention_bias", "true"), ("attention_bias", 1), ("num_key_value_heads", 8.0),
])
def test_strict_types(tmp_path, key, value):
    with pytest.raises(PlanError, match=key):
        architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, key: value}))


def test_default_biases_are_accepted(tmp_path):
    arch, _ = architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "attention_bias": False, "mlp_bias": False}))
    assert arch.bias == "none"
    arch, _ = architecture_from_hf_config(write(tmp_path, {**PYTHIA_160M, "attention_bias": True}))
    assert arch.bias == "all"


def test_cli_names_the_model_from_the_config_and_keeps_its_context(tmp_path):
    import shutil
    import subprocess
    import sys

    folder = tmp_path / "checkpoint-1000"
    folder.mkdir()
    shutil.copy(Path(__file__).parent / "hf_configs" / "llama-2-7b-hf.json", folder / "config.json")
    out = subprocess.run([sys.executable, "-m", "zerodesk", "plan", "--config", str(folder), "--profile", "torch"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Model: meta-llama/Llama-2-7b-hf, P = 6,738,415,616" in out.stdout and "checkpoint-1000" not in out.stdout
    assert "seq 4096 x micro-batch 1" in out.stdout  # Llama 2's context, not a 2048 default


@pytest.mark.parametrize("data, window, period", [
    (MISTRAL_7B, 4096, None),
    ({**MISTRAL_7B, "sliding_window": None}, None, None),  # null is no window, not transformers' default 4096
    ({k: v for k, v in MISTRAL_7B.items() if k != "sliding_window"}, 4096, None),  # absent: MistralConfig's 4096
    ({**MISTRAL_7B, "model_type": "phi3", "sliding_window": 2047}, 2047, None),  # Phi-3-mini-4k's own window
    ({**MISTRAL_7B, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}, 4096, None),
    ({**QWEN25_7B, "sliding_window": 131072}, None, None),  # use_sliding_window false (every public Qwen2.5)
    ({**QWEN25_7B, "use_sliding_window": True, "max_window_layers": 0, "sliding_window": 4096}, 4096, None),
    ({**QWEN25_7B, "use_sliding_window": True, "max_window_layers": 28, "sliding_window": 4096}, None, None),
    ({**MISTRAL_7B, "model_type": "gemma2", "head_dim": 128}, 4096, 2),  # Gemma-2: windowed and global alternate
    ({**MISTRAL_7B, "model_type": "gemma2", "head_dim": 128, "num_hidden_layers": 4,
      "layer_types": ["sliding_attention"] * 4}, 4096, None),
], ids=["mistral", "mistral-null", "mistral-absent", "phi3", "mixtral", "qwen-off", "qwen-all", "qwen-none-reached",
        "gemma2", "gemma2-layer-types"])
def test_sliding_window_read_as_the_model_applies_it(tmp_path, data, window, period):
    arch, _ = architecture_from_hf_config(write(tmp_path, data))
    assert (arch.sliding_window, arch.window_period) == (window, period)
    if period == 2:
        assert [arch.windowed(i) for i in range(4)] == [True, False, True, False]
        assert arch.windowed_layers == arch.layers // 2


def test_partial_windows_and_unknown_activations_are_one_sentence(tmp_path):
    with pytest.raises(PlanError, match="max_window_layers"):
        architecture_from_hf_config(write(tmp_path, {**QWEN25_7B, "use_sliding_window": True,
                                                     "max_window_layers": 4, "sliding_window": 4096}))
    with pytest.raises(PlanError, match="activation_function must be one of"):
        architecture_from_hf_config(write(tmp_path, {**GPT2, "activation_function": "gelu_10"}))


def test_activation_is_the_one_transformers_runs(tmp_path):
    gpt2, _ = architecture_from_hf_config(write(tmp_path, GPT2))
    assert gpt2.activation is None and gpt2.act == "gelu_new"  # GPT-2's own default: NewGELUActivation
    tanh, _ = architecture_from_hf_config(write(tmp_path, {**GPT2, "activation_function": "gelu_pytorch_tanh"}))
    assert tanh.act == "gelu_tanh"
    phi, _ = architecture_from_hf_config(write(tmp_path, {**LLAMA_2_7B, "hidden_act": "gelu_new"}))
    assert phi.act == "gelu_new"
    from zerodesk.core.hf_config import hf_config_from_architecture

    assert hf_config_from_architecture(phi)["hidden_act"] == "gelu_new"


def test_a_gemma2_without_a_window_builds_and_reads_back_without_one():
    """Gemma2Model makes its sliding mask whatever the layers, so the config carries a window no layer uses."""
    from zerodesk.core.architecture import Architecture
    from pathlib import Path

    from zerodesk.core.hf_config import architecture_from_config_dict, hf_config_from_architecture

    arch = Architecture(family="gemma2", layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, vocab=256, mlp="gated",
                        norm="rmsnorm", positions="rotary", tied_embeddings=True)
    cfg = hf_config_from_architecture(arch)
    assert cfg["sliding_window"] and cfg["layer_types"] == ["full_attention"] * 2
    assert architecture_from_config_dict(cfg, Path("config.json")).sliding_window is None
