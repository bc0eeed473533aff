"""Which settings each architecture family has, and the MLP activation it uses when its config names none.

A family is a module layout (core.architecture_layouts): ZeroDesk's own decoder ("custom") or a Hugging Face
transformers model_type. Architecture's validator reads these tables, and so do the window's form and the
config reader, so a setting a layout would ignore is refused everywhere alike. Pure Python: no torch.
"""

from __future__ import annotations

from typing import Literal

Family = Literal[
    "custom", "llama", "mistral", "qwen2", "qwen3", "mixtral", "gemma", "gemma2", "olmo", "phi", "phi3",
    "stablelm", "falcon", "bloom", "opt", "gptj", "gpt2", "gpt_neox",
]
FAMILIES: tuple[str, ...] = Family.__args__  # type: ignore[attr-defined]

# The knobs beyond the common shape (layers, hidden, heads, kv_heads, ffn, vocab, tied_embeddings,
# max_positions). A family may set a knob only to the values listed for it; an unlisted knob keeps
# its default, so no setting is ever silently ignored by a layout.
_ROTARY = {"positions": ("rotary",), "rotary_dim": None}
_LLAMA = {"mlp": ("gated",), "norm": ("rmsnorm",), "head_dim": None, "activation": None, **_ROTARY}
_WINDOW = {"sliding_window": None}
FAMILY_KNOBS: dict[str, dict[str, tuple | None]] = {  # None: any valid value
    "custom": {"mlp": None, "bias": ("none", "qkv", "all"), "norm": ("layernorm", "rmsnorm"),
               "positions": ("learned", "rotary"), "head_dim": None},
    "llama": {**_LLAMA, "bias": ("none", "attention", "mlp", "all")},
    "mistral": {**_LLAMA, **_WINDOW},
    "qwen2": {**_LLAMA, **_WINDOW, "bias": ("qkv",)},
    "qwen3": {**_LLAMA, **_WINDOW, "bias": ("none", "attention"), "qk_norm": (True,)},
    "mixtral": {**_LLAMA, **_WINDOW, "experts": None, "top_k": None},
    "gemma": {**_LLAMA, "bias": ("none", "attention")},
    "gemma2": {**_LLAMA, **_WINDOW, "bias": ("none", "attention"), "window_period": None, "attn_softcap": None,
               "final_softcap": None},
    "olmo": {**_LLAMA, "bias": ("none", "attention"), "norm": ("nonparametric",)},
    "phi": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("all",), "head_bias": (True,), "parallel": (True,),
            "qk_norm": None, "activation": None, **_ROTARY},
    "phi3": {"mlp": ("gated",), "norm": ("rmsnorm",), "activation": None, **_ROTARY, **_WINDOW},
    "stablelm": {"mlp": ("gated",), "norm": ("layernorm",), "bias": ("none", "qkv"), "qk_norm": None,
                 "parallel": None, "activation": None, **_ROTARY},
    "falcon": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("none", "all"), "positions": ("rotary", "alibi"),
               "parallel": None, "parallel_norms": None, "activation": None},
    "bloom": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("all",), "positions": ("alibi",),
              "embed_norm": (True,)},
    "opt": {"mlp": ("plain",), "norm": ("layernorm", "nonparametric"), "bias": ("none", "all"),
            "positions": ("learned",), "position_offset": None, "embed_dim": None, "final_norm": None,
            "activation": None},
    "gptj": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("mlp",), "head_bias": (True,), "parallel": (True,),
             "activation": None, **_ROTARY},
    "gpt2": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("all",), "positions": ("learned",),
             "activation": None},
    "gpt_neox": {"mlp": ("plain",), "norm": ("layernorm",), "bias": ("all", "mlp"), "parallel": None,
                 "activation": None, **_ROTARY},
}


# Each family's MLP activation when its config names none (transformers' config defaults), by the names
# Architecture.activation uses (transformers' ACT2FN names; gelu_tanh is its gelu_pytorch_tanh).
FAMILY_ACTIVATION = {
    "gemma": "gelu_tanh", "gemma2": "gelu_tanh", "phi": "gelu_new", "falcon": "gelu", "bloom": "gelu", "opt": "relu",
    "gptj": "gelu_new", "gpt2": "gelu_new", "gpt_neox": "gelu",
}
ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "gelu_new", "gelu_fast", "quick_gelu", "relu", "relu2")
