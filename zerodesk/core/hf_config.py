"""Read a Hugging Face config.json into an Architecture (plain JSON; transformers is not needed).

Each family reads the keys its transformers config class reads, with that class's defaults for
missing ones, so the tensor list (core.architecture) equals the model transformers builds.
Types are strict: "false" as a string is an error, not a truthy value. A model_type without a
layout here is refused with a sentence; with transformers installed, measure/hf_tensors.py reads
any model type into an exact tensor list instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable


from .architecture import ACTIVATIONS, FAMILIES, FAMILY_ACTIVATION, Architecture
from .errors import PlanError, explain
from .json_files import read_json
from .record import validation_error

_MISSING = object()


class _Config:
    """A config dict with strict, path-naming accessors; `defaults` are the transformers class's."""

    def __init__(self, cfg: dict[str, Any], path: Path, defaults: dict[str, Any]) -> None:
        self.cfg, self.path, self.defaults = cfg, path, defaults

    def raw(self, *keys: str) -> tuple[str, Any]:
        """The first of `keys` the file sets (aliases, e.g. n_embed/hidden_size), else the class default."""
        for key in keys:
            if self.cfg.get(key) is not None:
                return key, self.cfg[key]
        return keys[0], self.defaults.get(keys[0], _MISSING)

    def int(self, *keys: str, default: Any = _MISSING) -> Any:
        key, value = self.raw(*keys)
        if value is _MISSING or value is None:
            if default is not _MISSING:
                return default
            raise PlanError(f"{self.path} lacks {key}, needed for model_type '{self.cfg['model_type']}'")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanError(f"{self.path}: {key} must be a positive integer, not {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.cfg.get(key)
        if value is None:
            return self.defaults.get(key, default)
        if not isinstance(value, bool):
            raise PlanError(f"{self.path}: {key} must be true or false (JSON booleans), not {value!r}")
        return value

    def number(self, key: str, default: float) -> float:
        value = self.cfg.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise PlanError(f"{self.path}: {key} must be a number in (0, 1], not {value!r}")
        return float(value)

    def activation(self, *keys: str) -> str | None:
        """The activation transformers runs, by Architecture's names; None where it is the family's own default."""
        key, value = self.raw(*keys)
        if value is _MISSING or value is None:
            return None
        name = _ACT_ALIASES.get(value, value) if isinstance(value, str) else value
        if self.cfg["model_type"] == "gemma" and name == "gelu":  # GemmaConfig reads its legacy "gelu" as tanh's
            name = "gelu_tanh"
        if name not in ACTIVATIONS:
            raise PlanError(f"{self.path}: {key} must be one of {', '.join(ACTIVATIONS)} "
                            f"(or gelu_pytorch_tanh, swish), not {value!r}")
        family = self.cfg["model_type"]
        default = FAMILY_ACTIVATION.get(family, "silu")
        return None if name == default else name

    def optional_int(self, key: str, default: Any) -> Any:
        """An integer the file may set to null (null means none); a missing key takes the class default."""
        if key not in self.cfg:
            return default
        value = self.cfg[key]
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanError(f"{self.path}: {key} must be a positive integer or null, not {value!r}")
        return value

    def optional_number(self, key: str, default: Any) -> Any:
        """A positive number the file may set to null (null means none); a missing key takes the class default."""
        if key not in self.cfg:
            return default
        value = self.cfg[key]
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise PlanError(f"{self.path}: {key} must be a positive number or null, not {value!r}")
        return float(value)


_ACT_ALIASES = {"gelu_pytorch_tanh": "gelu_tanh", "swish": "silu"}
# transformers' default sliding window per family (its config class), where a config.json leaves the key out
_WINDOW_DEFAULT = {"mistral": 4096, "gemma2": 4096, "mixtral": None, "phi3": None}


# Defaults of the transformers (v5) config classes, for the keys read below.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "llama": dict(vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                  num_attention_heads=32, max_position_embeddings=2048, tie_word_embeddings=False, hidden_act="silu"),
    "mistral": dict(vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                    num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072, hidden_act="silu"),
    "qwen2": dict(vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=32768, hidden_act="silu"),
    "qwen3": dict(vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=32, head_dim=128, max_position_embeddings=32768,
                  hidden_act="silu"),
    "mixtral": dict(vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                    num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072,
                    num_local_experts=8, num_experts_per_tok=2, hidden_act="silu"),
    "gemma": dict(vocab_size=256000, hidden_size=3072, intermediate_size=24576, num_hidden_layers=28,
                  num_attention_heads=16, num_key_value_heads=16, head_dim=256, max_position_embeddings=8192,
                  tie_word_embeddings=True, hidden_act="gelu_pytorch_tanh"),
    "gemma2": dict(vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                   num_attention_heads=8, num_key_value_heads=4, head_dim=256, max_position_embeddings=8192,
                   tie_word_embeddings=True, hidden_activation="gelu_pytorch_tanh"),
    "olmo": dict(vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                 num_attention_heads=32, max_position_embeddings=2048, hidden_act="silu"),
    "phi": dict(vocab_size=51200, hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
                num_attention_heads=32, max_position_embeddings=2048, hidden_act="gelu_new"),
    "phi3": dict(vocab_size=32064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
                 num_attention_heads=32, max_position_embeddings=4096, hidden_act="silu"),
    "stablelm": dict(vocab_size=50304, hidden_size=2560, intermediate_size=6912, num_hidden_layers=32,
                     num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=4096, hidden_act="silu"),
    "falcon": dict(vocab_size=65024, hidden_size=4544, num_hidden_layers=32, num_attention_heads=71,
                   max_position_embeddings=2048, tie_word_embeddings=True, multi_query=True, parallel_attn=True,
                   activation="gelu"),
    "bloom": dict(vocab_size=250880, hidden_size=64, n_layer=2, n_head=8, tie_word_embeddings=True),
    "opt": dict(vocab_size=50272, hidden_size=768, num_hidden_layers=12, ffn_dim=3072, num_attention_heads=12,
                max_position_embeddings=2048, tie_word_embeddings=True, do_layer_norm_before=True,
                enable_bias=True, layer_norm_elementwise_affine=True, activation_function="relu"),
    "gptj": dict(vocab_size=50400, n_positions=2048, n_embd=4096, n_layer=28, n_head=16, rotary_dim=64,
                 activation_function="gelu_new"),
    "gpt2": dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12, tie_word_embeddings=True,
                 activation_function="gelu_new"),
    "gpt_neox": dict(vocab_size=50432, hidden_size=6144, num_hidden_layers=44, num_attention_heads=64,
                     intermediate_size=24576, max_position_embeddings=2048, attention_bias=True,
                     use_parallel_residual=True, hidden_act="gelu"),
}
_DEFAULTS["gpt_neox"]["rotary_pct"] = 0.25


def _llama_like(c: _Config, family: str) -> dict[str, Any]:
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


def _sliding_window(c: _Config, out: dict[str, Any], family: str) -> None:
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
    if family not in _WINDOW_DEFAULT:
        return
    out["sliding_window"] = window = c.optional_int("sliding_window", _WINDOW_DEFAULT[family])
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


def _partial_rotary(c: _Config, out: dict[str, Any], *, hidden: int, heads: int, default: float,
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


def _phi(c: _Config) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               kv_heads=c.int("num_key_value_heads", default=None), ffn=c.int("intermediate_size"),
               vocab=c.int("vocab_size"), mlp="plain", activation=c.activation("hidden_act"), norm="layernorm",
               bias="all", head_bias=True, parallel=True, qk_norm=c.bool("qk_layernorm", False),
               max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.5)
    return out


def _stablelm(c: _Config) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               kv_heads=c.int("num_key_value_heads"), ffn=c.int("intermediate_size"), vocab=c.int("vocab_size"),
               mlp="gated", activation=c.activation("hidden_act"), norm="layernorm",
               bias="qkv" if c.bool("use_qkv_bias", False) else "none", qk_norm=c.bool("qk_layernorm", False),
               parallel=c.bool("use_parallel_residual", False), max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.25)
    return out


def _falcon(c: _Config) -> dict[str, Any]:
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


def _bloom(c: _Config) -> dict[str, Any]:
    hidden = c.int("n_embed", "hidden_size")  # BloomConfig: n_embed wins
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=4 * hidden, vocab=c.int("vocab_size"), mlp="plain", norm="layernorm", bias="all",
                positions="alibi", embed_norm=True, max_positions=c.int("seq_length", default=2048))


def _opt(c: _Config) -> dict[str, Any]:
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


def _gptj(c: _Config) -> dict[str, Any]:
    hidden = c.int("n_embd", "hidden_size")
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=c.int("n_inner", default=4 * hidden), vocab=c.int("vocab_size"), mlp="plain",
                activation=c.activation("activation_function"), norm="layernorm", bias="mlp", head_bias=True,
                parallel=True, rotary_dim=c.int("rotary_dim", default=None),
                max_positions=c.int("n_positions", "max_position_embeddings"))


def _gpt2(c: _Config) -> dict[str, Any]:
    hidden = c.int("n_embd", "hidden_size")
    return dict(layers=c.int("n_layer", "num_hidden_layers"), hidden=hidden, heads=c.int("n_head", "num_attention_heads"),
                ffn=c.int("n_inner", default=4 * hidden), vocab=c.int("vocab_size"), mlp="plain",
                activation=c.activation("activation_function"), norm="layernorm", bias="all", positions="learned",
                max_positions=c.int("n_positions", "max_position_embeddings"))


def _gpt_neox(c: _Config) -> dict[str, Any]:
    out = dict(layers=c.int("num_hidden_layers"), hidden=c.int("hidden_size"), heads=c.int("num_attention_heads"),
               ffn=c.int("intermediate_size"), vocab=c.int("vocab_size"), mlp="plain",
               activation=c.activation("hidden_act"), norm="layernorm",
               bias="all" if c.bool("attention_bias", True) else "mlp",
               parallel=c.bool("use_parallel_residual", True), max_positions=c.int("max_position_embeddings"))
    _partial_rotary(c, out, hidden=out["hidden"], heads=out["heads"], default=0.25,
                    keys=("partial_rotary_factor", "rotary_pct"))
    return out


_READERS: dict[str, Callable[[_Config], dict[str, Any]]] = {
    **{f: (lambda c, f=f: _llama_like(c, f))
       for f in ("llama", "mistral", "qwen2", "qwen3", "mixtral", "gemma", "gemma2", "olmo", "phi3")},
    "phi": _phi, "stablelm": _stablelm, "falcon": _falcon, "bloom": _bloom, "opt": _opt, "gptj": _gptj,
    "gpt2": _gpt2, "gpt_neox": _gpt_neox,
}
SUPPORTED = tuple(f for f in FAMILIES if f != "custom")
assert set(_READERS) == set(SUPPORTED)


def read_hf_config(path: str | os.PathLike) -> tuple[Path, dict[str, Any]]:
    """(the config.json path, its JSON object); `path` may be the folder that holds it."""
    path = Path(path)
    if os.path.isdir(path):  # never raises (names too long, NUL bytes): read_file then says why
        path = path / "config.json"
    data = read_json(path, "config")
    if not isinstance(data, dict):
        raise PlanError(f"{path} must hold a JSON object, not {type(data).__name__}")
    return path, data


def model_name(cfg: dict[str, Any]) -> str | None:
    """The model's own name: `_name_or_path` (a local path keeps its last two parts), else the architecture."""
    name = cfg.get("_name_or_path")
    if isinstance(name, str) and name.strip():
        name = name.strip().rstrip("/")
        return "/".join(Path(name).parts[-2:]) if name.startswith(("/", ".", "~")) else name
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return cfg.get("model_type") if isinstance(cfg.get("model_type"), str) else None


def architecture_from_config_dict(cfg: dict[str, Any], path: Path) -> Architecture:
    model_type = cfg.get("model_type")
    if model_type not in _READERS:
        what = f"model_type '{model_type}'" if model_type else "no model_type"
        raise PlanError(f"{path} has {what}; ZeroDesk reads {', '.join(SUPPORTED)} "
                        "(other types need the transformers package)")
    fields = _READERS[model_type](_Config(cfg, path, _DEFAULTS[model_type]))
    fields["family"] = model_type
    fields["tied_embeddings"] = _Config(cfg, path, _DEFAULTS[model_type]).bool("tie_word_embeddings", False)
    try:
        return Architecture(**{k: v for k, v in fields.items() if v is not None})
    except validation_error() as exc:
        raise PlanError(f"{path} describes no valid architecture: {explain(exc)}") from None


def architecture_from_hf_config(path: str | os.PathLike) -> tuple[Architecture, dict[str, Any]]:
    """(Architecture, hints). Hints: model_type, name, and seq_len (the context length the config names)."""
    path, cfg = read_hf_config(path)
    arch = architecture_from_config_dict(cfg, path)
    hints: dict[str, Any] = {"model_type": cfg["model_type"], "seq_len": arch.max_positions}
    name = model_name(cfg)
    if name:
        hints["name"] = name
    return arch, hints


# ---------------------------------------------------------------- the way back: Architecture -> config.json

_ACT_KEY = {"gemma2": "hidden_activation", "falcon": "activation", "opt": "activation_function",
            "gptj": "activation_function", "gpt2": "activation_function"}
_ACT_NAME = {name: name for name in ACTIVATIONS} | {"gelu_tanh": "gelu_pytorch_tanh"}


def hf_config_from_architecture(arch: Architecture) -> dict[str, Any]:
    """A config.json dict transformers builds exactly tensor_shapes(arch) from (the measure worker's model).

    Token ids are cleared so a scaled-down vocabulary stays valid."""
    f = arch.family
    if f == "custom":
        raise ValueError("the custom family is ZeroDesk's own layout and has no Hugging Face config")
    h, heads, kv = arch.hidden, arch.heads, arch.n_kv_heads
    cfg: dict[str, Any] = {"model_type": f, "vocab_size": arch.vocab, "tie_word_embeddings": arch.tied_embeddings,
                           "pad_token_id": None, "bos_token_id": None, "eos_token_id": None}
    qkv_b = arch.bias in ("qkv", "attention", "all")
    if f in ("gpt2", "gptj"):
        cfg.update(n_embd=h, n_layer=arch.layers, n_head=heads, n_inner=arch.ffn, n_positions=arch.max_positions)
        if f == "gptj":
            cfg["rotary_dim"] = arch.rotary_dim or arch.dim_per_head
    elif f == "bloom":
        cfg.update(hidden_size=h, n_layer=arch.layers, n_head=heads)
    else:
        cfg.update(hidden_size=h, num_hidden_layers=arch.layers, num_attention_heads=heads,
                   max_position_embeddings=arch.max_positions)
    if f in ("llama", "mistral", "qwen2", "qwen3", "mixtral", "gemma", "gemma2", "olmo", "phi3", "phi", "stablelm"):
        cfg.update(intermediate_size=arch.ffn, num_key_value_heads=kv)
        if f not in ("phi3", "phi", "stablelm") and (arch.head_dim is not None or f in ("qwen3", "gemma", "gemma2")):
            cfg["head_dim"] = arch.dim_per_head
    if f in ("llama", "qwen3", "gemma", "gemma2", "olmo"):
        cfg["attention_bias"] = qkv_b
    if f == "llama":
        cfg["mlp_bias"] = arch.bias in ("mlp", "all")
    if f == "mixtral":
        cfg.update(num_local_experts=arch.experts, num_experts_per_tok=arch.routed_experts)
    if f in ("mistral", "mixtral", "phi3", "gemma2"):
        cfg["sliding_window"] = arch.sliding_window  # null: no window (not the class default)
    if f in ("qwen2", "qwen3"):
        cfg.update(use_sliding_window=arch.sliding_window is not None, sliding_window=arch.sliding_window,
                   max_window_layers=0 if arch.sliding_window is not None else arch.layers)
    if f == "gemma2":
        if arch.sliding_window is None:  # Gemma2Model builds its sliding mask whatever the layers: a window no layer uses
            cfg["sliding_window"] = arch.max_positions or 1 << 20
        cfg["layer_types"] = ["sliding_attention" if arch.windowed(i) else "full_attention" for i in range(arch.layers)]
        cfg.update(attn_logit_softcapping=arch.attn_softcap, final_logit_softcapping=arch.final_softcap)
    if f in ("phi", "stablelm", "gpt_neox", "phi3"):
        factor = (arch.rotary_dim or arch.dim_per_head) / arch.dim_per_head
        cfg["rotary_pct" if f == "gpt_neox" else "partial_rotary_factor"] = factor  # GPTNeoXConfig reads rotary_pct
    if f == "phi":
        cfg["qk_layernorm"] = arch.qk_norm
    if f == "stablelm":
        cfg.update(use_qkv_bias=qkv_b, qk_layernorm=arch.qk_norm, use_parallel_residual=arch.parallel)
    if f == "gpt_neox":
        cfg.update(intermediate_size=arch.ffn, attention_bias=arch.bias == "all", use_parallel_residual=arch.parallel)
    if f == "falcon":
        cfg.update(ffn_hidden_size=arch.ffn, bias=arch.bias == "all", alibi=arch.positions == "alibi",
                   parallel_attn=arch.parallel)
        if arch.parallel_norms == 2 or kv not in (1, heads):
            cfg.update(new_decoder_architecture=True, num_kv_heads=kv, num_ln_in_parallel_attn=arch.parallel_norms)
        else:
            cfg.update(new_decoder_architecture=False, multi_query=kv == 1)
    if f == "opt":
        cfg.update(ffn_dim=arch.ffn, word_embed_proj_dim=arch.embed_dim or h, do_layer_norm_before=arch.final_norm,
                   enable_bias=arch.bias == "all", layer_norm_elementwise_affine=arch.norm == "layernorm")
    if arch.activation is not None:
        cfg[_ACT_KEY.get(f, "hidden_act")] = _ACT_NAME[arch.activation]
    return cfg
