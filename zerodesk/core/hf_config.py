"""Read a Hugging Face config.json into an Architecture (plain JSON; transformers is not needed).

Only decoder families whose parameters the Architecture shapes reproduce exactly are accepted;
anything else is refused with a sentence rather than approximated.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .plan import Architecture, PlanError, explain, read_json

LLAMA_LIKE = ("llama", "mistral", "qwen2")
SUPPORTED = (*LLAMA_LIKE, "gpt2", "gpt_neox")


def _read(path: Path) -> dict[str, Any]:
    data = read_json(path, "config")
    if not isinstance(data, dict):
        raise PlanError(f"{path} must hold a JSON object, not {type(data).__name__}")
    return data


def _ints(cfg: dict[str, Any], path: Path, model_type: str, keys: tuple[str, ...]) -> dict[str, int]:
    """The required fields, all at once: one sentence lists every missing or malformed one."""
    missing = [k for k in keys if cfg.get(k) is None]
    if missing:
        raise PlanError(f"{path} lacks {', '.join(missing)}, needed for model_type '{model_type}'")
    bad = [k for k in keys if isinstance(cfg[k], bool) or not isinstance(cfg[k], int) or cfg[k] < 1]
    if bad:
        raise PlanError(f"{path}: {', '.join(bad)} must be positive integers")
    return {k: cfg[k] for k in keys}


def _optional_int(cfg: dict[str, Any], path: Path, key: str) -> int | None:
    value = cfg.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PlanError(f"{path}: {key} must be a positive integer")
    return value


def _refuse_if(cfg: dict[str, Any], path: Path, key: str, bad_value: bool, why: str) -> None:
    if cfg.get(key, not bad_value) is bad_value:
        raise PlanError(f"{path} sets {key} = {json.dumps(bad_value)}, {why}")


def _llama_like(cfg: dict[str, Any], path: Path, model_type: str) -> dict[str, Any]:
    f = _ints(cfg, path, model_type,
              ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"))
    if model_type == "llama":
        # Llama's attention_bias adds a bias to o as well, mlp_bias to the MLP: neither is a bias mode we model
        why = "which puts biases on layers ZeroDesk's architecture cannot mark (it knows none, qkv or all)"
        _refuse_if(cfg, path, "attention_bias", True, why)
        _refuse_if(cfg, path, "mlp_bias", True, why)
    return dict(
        layers=f["num_hidden_layers"], hidden=f["hidden_size"], heads=f["num_attention_heads"],
        kv_heads=_optional_int(cfg, path, "num_key_value_heads"),
        head_dim=_optional_int(cfg, path, "head_dim"),
        ffn=f["intermediate_size"], mlp="gated", vocab=f["vocab_size"],
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),  # HF default for all three is False
        bias="qkv" if model_type == "qwen2" else "none",  # Qwen2 has q/k/v biases and no others
        norm="rmsnorm", positions="rotary",
    )


def _gpt2(cfg: dict[str, Any], path: Path) -> dict[str, Any]:
    f = _ints(cfg, path, "gpt2", ("n_embd", "n_layer", "n_head", "vocab_size", "n_positions"))
    return dict(
        layers=f["n_layer"], hidden=f["n_embd"], heads=f["n_head"],
        ffn=_optional_int(cfg, path, "n_inner") or 4 * f["n_embd"], mlp="plain", vocab=f["vocab_size"],
        tied_embeddings=bool(cfg.get("tie_word_embeddings", True)),
        bias="all", norm="layernorm", positions="learned", max_positions=f["n_positions"],
    )


def _gpt_neox(cfg: dict[str, Any], path: Path) -> dict[str, Any]:
    f = _ints(cfg, path, "gpt_neox",
              ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"))
    # newer configs may drop attention biases while the MLP keeps them: not expressible as one bias mode
    _refuse_if(cfg, path, "attention_bias", False, "which leaves biases on the MLP only, a mode ZeroDesk cannot mark")
    return dict(
        layers=f["num_hidden_layers"], hidden=f["hidden_size"], heads=f["num_attention_heads"],
        ffn=f["intermediate_size"], mlp="plain", vocab=f["vocab_size"],
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        bias="all", norm="layernorm", positions="rotary",
    )


def architecture_from_hf_config(path: str | os.PathLike) -> tuple[Architecture, dict[str, Any]]:
    """(Architecture, hints). Hints: model_type, and seq_len when the config names a context length.

    `path` is a config.json or a folder holding one.
    """
    path = Path(path)
    if os.path.isdir(path):  # never raises (names too long, NUL bytes): read_file then says why
        path = path / "config.json"
    cfg = _read(path)
    model_type = cfg.get("model_type")
    if model_type not in SUPPORTED:
        what = f"model_type '{model_type}'" if model_type else "no model_type"
        raise PlanError(f"{path} has {what}; ZeroDesk reads {', '.join(SUPPORTED)}")
    if model_type in LLAMA_LIKE:
        fields = _llama_like(cfg, path, model_type)
        seq_key = "max_position_embeddings"
    elif model_type == "gpt2":
        fields = _gpt2(cfg, path)
        seq_key = "n_positions"
    else:
        fields = _gpt_neox(cfg, path)
        seq_key = "max_position_embeddings"
    try:
        arch = Architecture(**{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        raise PlanError(f"{path} describes no valid architecture: {explain(exc)}") from None
    hints: dict[str, Any] = {"model_type": model_type}
    seq_len = _optional_int(cfg, path, seq_key)
    if seq_len is not None:
        hints["seq_len"] = seq_len
    return arch, hints
