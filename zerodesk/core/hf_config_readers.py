"""Each family's reader: the keys its transformers config class reads, as Architecture's fields.

A reader gets the file's keys through core.hf_config_keys (strict, with the class defaults of
core.hf_config_defaults) and returns the fields; core.hf_config builds the Architecture from them.
"""

from __future__ import annotations

from typing import Any, Callable

from .architecture import FAMILIES
from .errors import PlanError
from .hf_config_defaults import WINDOW_DEFAULT
from .hf_config_keys import ConfigKeys


def _llama_like(c: ConfigKeys, family: str) -> dict[str, Any]:
    heads = c.int("num_attention_heads")
    out = dict(
        layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=heads,
        kv_heads=c.int("num_key_value_heads", default=None), head_dim=c.int("head_dim", default=None),
        ffn=c.int("intermediate_size"), vocab=c.int("vocab_size"), mlp="gated",
        activation=c.activation("hidden_activation" if family == "gemma2" else "hidden_act"),
        norm="nonparametric" if family == "olmo" else "rmsnorm",
        max_positions=c.int("max_position_embeddings"),
    )
    attention_bias = c.bool("attention_bias", False) if family in ("llama", "qwen3", "gemma", "gemma2", "olmo") else False
    mlp_bias = c.bool("mlp_bias", False) if family == "llama" else False
    out["bias"] = "qkv" if family == "qwen2" else {(False, False): "none", (True, False): "attention",
                                                   (False, True): "mlp", (True, True): "all"}[attention_bias, mlp_bias]
    if family == "qwen3":
        out["qk_norm"] = True
    if family == "mixtral":
        out["experts"] = c.int("num_local_experts", "num_experts")
        out["top_k"] = c.int("num_experts_per_tok")
    if family == "phi3":
        out["head_dim"] = None  # Phi-3 always splits hidden evenly
        _partial_rotary(c, out, hidden=out["hidden"], heads=heads, default=1.0)
    _sliding_window(c, out, family)
    if family == "gemma2":
        out["attn_softcap"] = c.optional_number("attn_logit_softcapping", 50.0)
        out["final_softcap"] = c.optional_number("final_logit_softcapping", 30.0)
    return out


def _sliding_window(c: ConfigKeys, out: dict[str, Any], family: str) -> None:
    """The window as transformers applies it: null means none; Gemma-2 alternates windowed and global layers;
    Qwen2/3 window only with use_sliding_window, on the layers from max_window_layers on."""
    if family in ("qwen2", "qwen3"):
        window = c.optional_int("sliding_window", 4096) if c.bool("use_sliding_window", False) else None
        if window is not None:
            first = c.cfg.get("max_window_layers", 28)
            if isinstance(first, bool) or not isinstance(first, int) or first < 0:
                raise PlanError(f"{c.path}: max_window_layers must be a whole number, not {first!r}")
            if first >= out["layers"]:
                window = None  # no layer reaches max_window_layers
            elif first > 0:
                raise PlanError(f"{c.path}: a sliding window on layers {first} and later only (max_window_layers) is "
                                "not modelled; ZeroDesk models a window on every layer or on alternating layers")
        out["sliding_window"] = window
        return
    if family not in WINDOW_DEFAULT:
        return
    out["sliding_window"] = window = c.optional_int("sliding_window", WINDOW_DEFAULT[family])
    if family != "gemma2" or window is None:
        return
    types = c.cfg.get("layer_types")
    if types is None:
        out["window_period"] = 2  # Gemma2Config: layers 0, 2, 4, ... windowed, 1, 3, 5, ... global
        return
    if not isinstance(types, list) or any(t not in ("sliding_attention", "full_attention") for t in types):
        raise PlanError(f"{c.path}: layer_types must list sliding_attention or full_attention per layer")
    windowed = [t == "sliding_attention" for t in types]
    if not any(windowed):  # every layer global: the window is there only because Gemma2Model wants one
        out["sliding_window"] = None
        return
    for period in [None, *range(2, len(windowed) + 1)]:
        if windowed == [period is None or (i + 1) % period != 0 for i in range(len(windowed))]:
            out["window_period"] = period
            return
    raise PlanError(f"{c.path}: layer_types must window every layer or all but every N-th one")


def _partial_rotary(c: ConfigKeys, out: dict[str, Any], *, hidden: int, heads: int, default: float,
                    keys: tuple[str, ...] = ("partial_rotary_factor",)) -> None:
    """Partial rotary (no parameters; kept so the form and the activation model see it)."""
    rope = c.cfg.get("rope_parameters")
    factor = rope.get("partial_rotary_factor") if isinstance(rope, dict) else None
    key = next((k for k in keys if c.cfg.get(k) is not None), None)
    if factor is None and key is not None:
        factor = c.number(key, default)
    factor = default if factor is None else factor
    if factor < 1.0:
        out["rotary_dim"] = max(1, int(hidden // heads * factor))


def _phi(c: ConfigKeys) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               kv_heads=c.int("num_key_value_heads", default=None), ffn=c.int("intermediate_size"),
               vocab=c.int("vocab_size"), mlp="plain", activation=c.activation("hidden_act"), norm="layernorm",
               bias="all", head_bias=True, parallel=True, qk_norm=c.bool("qk_layernorm", False),
               max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.5)
    return out


def _stablelm(c: ConfigKeys) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               kv_heads=c.int("num_key_value_heads"), ffn=c.int("intermediate_size"), vocab=c.int("vocab_size"),
               mlp="gated", activation=c.activation("hidden_act"), norm="layernorm",
               bias="qkv" if c.bool("use_qkv_bias", False) else "none", qk_norm=c.bool("qk_layernorm", False),
               parallel=c.bool("use_parallel_residual", False), max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.25)
    return out


def _falcon(c: ConfigKeys) -> dict[str, Any]:
    hidden, heads = c.int("n_embed", "hidden_size"), c.int("num_attention_heads")  # FalconConfig: n_embed wins
    new_arch = c.bool("new_decoder_architecture", False)
    if new_arch:
        kv = c.int("num_kv_heads", default=heads)
    else:
        kv = 1 if c.bool("multi_query", True) else heads
    parallel = c.bool("parallel_attn", True)
    norms = c.int("num_ln_in_parallel_attn", default=2 if new_arch else 1)
    if norms not in (1, 2):
        raise PlanError(f"{c.path}: num_ln_in_parallel_attn must be 1 or 2, not {norms}")
    return dict(layers=c.int("num_hidden_layers"), hidden=hidden, heads=heads, kv_heads=kv,
                ffn=c.int("ffn_hidden_size", default=4 * hidden), vocab=c.int("vocab_size"), mlp="plain",
                activation=c.activation("activation"), norm="layernorm",
                bias="all" if c.bool("bias", False) else "none",
                positions="alibi" if c.bool("alibi", False) else "rotary", parallel=parallel,
                parallel_norms=norms if parallel else 1, max_positions=c.int("max_position_embeddings"))


def _bloom(c: ConfigKeys) -> dict[str, Any]:
    hidden = c.int("n_embed", "hidden_size")  # BloomConfig: n_embed wins
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=4 * hidden, vocab=c.int("vocab_size"), mlp="plain", norm="layernorm", bias="all",
                positions="alibi", embed_norm=True, max_positions=c.int("seq_length", default=2048))


def _opt(c: ConfigKeys) -> dict[str, Any]:
    hidden = c.int("hidden_size")
    pre_norm = c.bool("do_layer_norm_before", True)
    embed = c.int("word_embed_proj_dim", default=hidden)
    return dict(layers=c.int("num_hidden_layers"), hidden=hidden, heads=c.int("num_attention_heads"),
                ffn=c.int("ffn_dim"), vocab=c.int("vocab_size"), mlp="plain", activation=c.activation("activation_function"),
                norm="layernorm" if c.bool("layer_norm_elementwise_affine", True) else "nonparametric",
                bias="all" if c.bool("enable_bias", True) else "none", positions="learned", position_offset=2,
                embed_dim=embed if embed != hidden else None,
                final_norm=pre_norm and not c.bool("_remove_final_layer_norm", False),
                max_positions=c.int("max_position_embeddings"))


def _gptj(c: ConfigKeys) -> dict[str, Any]:
    hidden = c.int("n_embd", "hidden_size")
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=c.int("n_inner", default=4 * hidden), vocab=c.int("vocab_size"), mlp="plain",
                activation=c.activation("activation_function"), norm="layernorm", bias="mlp", head_bias=True,
                parallel=True, rotary_dim=c.int("rotary_dim", default=None),
                max_positions=c.int("n_positions", "max_position_embeddings"))


def _gpt2(c: ConfigKeys) -> dict[str, Any]:
    hidden = c.int("n_embd", "hidden_size")
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=c.int("n_inner", default=4 * hidden), vocab=c.int("vocab_size"), mlp="plain",
                activation=c.activation("activation_function"), norm="layernorm", bias="all", positions="learned",
                max_positions=c.int("n_positions", "max_position_embeddings"))


def _gpt_neox(c: ConfigKeys) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               ffn=c.int("intermediate_size"), vocab=c.int("vocab_size"), mlp="plain",
               activation=c.activation("hidden_act"), norm="layernorm",
               bias="all" if c.bool("attention_bias", True) else "mlp",
               parallel=c.bool("use_parallel_residual", True), max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.25,
                    keys=("partial_rotary_factor", "rotary_pct"))
    return out


READERS: dict[str, Callable[[ConfigKeys], dict[str, Any]]] = {
    **{f: (lambda c, f=f: _llama_like(c, f))
       for f in ("llama", "mistral", "qwen2", "qwen3", "mixtral", "gemma", "gemma2", "olmo", "phi3")},
    "phi": _phi, "stablelm": _stablelm, "falcon": _falcon, "bloom": _bloom, "opt": _opt, "gptj": _gptj,
    "gpt2": _gpt2, "gpt_neox": _gpt_neox,
}
SUPPORTED = tuple(f for f in FAMILIES if f != "custom")
assert set(READERS) == set(SUPPORTED)
