"""The model's architecture and its exact tensor list, named and ordered as the model people load.

`family` picks a module layout: "custom" is ZeroDesk's own decoder (measure/worker/model.py builds it
without transformers); every other family follows the Hugging Face transformers (v5) module of
the same model_type, tensor for tensor: names, shapes (Conv1D's (in, out) included), order,
fusion (GPT-2's c_attn, Falcon's and BLOOM's query_key_value, Phi-3's qkv_proj and gate_up_proj,
Mixtral's stacked experts). The torch profile shards and counts AdamW `step` tensors from this
list, so it must be the real one (tests/test_hf_families.py compares it with transformers).
Pure Python: no torch.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import Any, Literal

from .record import ConfigDict, Field, Record, ValidationInfo, field_validator, model_validator

Shape = tuple[int, ...]

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


def default_ffn(hidden: int, mlp: str = "gated") -> int:
    """The usual MLP width when none is given: 4·hidden for a plain MLP; for a gated one (SwiGLU)
    Llama's rule, 8/3·hidden rounded up to a multiple of 256 (hidden 4096 -> 11008)."""
    if mlp == "plain":
        return 4 * hidden
    return -(-(8 * hidden // 3) // 256) * 256


class Architecture(Record):
    """A decoder-only transformer: the common shape plus the knobs its family's layout reads."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    family: Family = Field(default="custom", description="module layout: ZeroDesk's own, or a Hugging Face model_type")
    layers: int = Field(ge=1, le=1024, description="transformer blocks")
    hidden: int = Field(ge=1, le=1_000_000, description="model width")
    head_dim: int | None = Field(default=None, ge=1, le=65536, description="per-head width; default hidden/heads")
    heads: int = Field(ge=1, le=4096, description="attention heads")
    kv_heads: int | None = Field(default=None, ge=1, le=4096, description="key/value heads (grouped-query)")
    ffn: int = Field(ge=1, le=10_000_000, description="MLP inner width (per expert for mixture-of-experts)")
    mlp: Literal["gated", "plain"] = "gated"
    activation: Literal["silu", "gelu", "gelu_tanh", "gelu_new", "gelu_fast", "quick_gelu", "relu", "relu2"] | None = Field(
        default=None, description="MLP activation (transformers' names); default: the family's own")
    vocab: int = Field(ge=1, le=10_000_000, description="vocabulary size")
    tied_embeddings: bool = False
    bias: Literal["none", "qkv", "attention", "mlp", "all"] = Field(
        default="none", description="biases: none, q/k/v only, q/k/v/o, MLP only, or all projections")
    head_bias: bool = Field(default=False, description="the output head has a bias")
    norm: Literal["layernorm", "rmsnorm", "nonparametric"] = "rmsnorm"
    positions: Literal["learned", "rotary", "alibi"] = "rotary"
    max_positions: int = Field(default=2048, ge=1, le=10_000_000, description="context length; learned table size")
    position_offset: int = Field(default=0, ge=0, le=1024, description="extra rows of a learned table (OPT: 2)")
    rotary_dim: int | None = Field(default=None, ge=1, le=65536, description="rotated lanes per head (partial rotary)")
    embed_norm: bool = Field(default=False, description="LayerNorm right after the embedding (BLOOM)")
    embed_dim: int | None = Field(default=None, ge=1, le=1_000_000, description="embedding width projected to hidden (OPT)")
    qk_norm: bool = Field(default=False, description="norms on queries and keys")
    parallel: bool = Field(default=False, description="attention and MLP read the same input (parallel block)")
    parallel_norms: Literal[1, 2] = Field(default=1, description="norms per parallel block (Falcon-40B/180B: 2)")
    final_norm: bool = Field(default=True, description="a norm after the last block")
    experts: int | None = Field(default=None, ge=2, le=4096, description="mixture-of-experts: experts per layer")
    top_k: int | None = Field(default=None, ge=1, le=4096, description="experts routed per token")
    sliding_window: int | None = Field(default=None, ge=1, le=10_000_000,
                                       description="sliding-window attention span in tokens; none: no window")
    window_period: int | None = Field(default=None, ge=2, le=1024,
                                      description="every N-th layer attends globally (Gemma-2: 2); none: all windowed")
    attn_softcap: float | None = Field(default=None, gt=0, le=1e6, description="tanh cap on attention scores")
    final_softcap: float | None = Field(default=None, gt=0, le=1e6, description="tanh cap on the logits")

    # Field validators (not a model validator) so each error carries the field's own path.
    @model_validator(mode="before")
    @classmethod
    def _ffn_defaults_from_hidden(cls, data: Any) -> Any:
        """An absent (or empty) ffn takes default_ffn(hidden, mlp); with no usable hidden it stays absent."""
        if isinstance(data, dict) and data.get("ffn") in (None, ""):
            try:
                hidden = int(str(data.get("hidden")).strip())
            except ValueError:
                return data
            if hidden >= 1:
                data = {**data, "ffn": default_ffn(hidden, data.get("mlp") or "gated")}
        return data

    @field_validator("heads")
    @classmethod
    def _heads_divide_hidden(cls, heads: int, info: ValidationInfo) -> int:
        hidden = info.data.get("hidden")
        if info.data.get("head_dim") is None and hidden and hidden % heads:
            raise ValueError(f"hidden ({hidden}) must be a multiple of heads ({heads}) unless head_dim is given")
        return heads

    @field_validator("kv_heads")
    @classmethod
    def _kv_heads_divide_heads(cls, kv_heads: int | None, info: ValidationInfo) -> int | None:
        heads = info.data.get("heads")
        if kv_heads is not None and heads and heads % kv_heads:
            raise ValueError(f"heads ({heads}) must be a multiple of kv_heads ({kv_heads})")
        return kv_heads

    @field_validator("top_k")
    @classmethod
    def _top_k_within_experts(cls, top_k: int | None, info: ValidationInfo) -> int | None:
        experts = info.data.get("experts")
        if top_k is not None and (experts is None or top_k > experts):
            raise ValueError(f"top_k ({top_k}) needs experts and must be at most experts ({experts})")
        return top_k

    @model_validator(mode="after")
    def _family_knobs(self) -> "Architecture":
        allowed = FAMILY_KNOBS[self.family]
        for name, field in type(self).model_fields.items():
            if name in _COMMON:
                continue
            value = getattr(self, name)
            if name in allowed:
                values = allowed[name]
                if values is not None and value not in values:
                    shown = " or ".join(_show(v) for v in values)
                    raise ValueError(f"family {self.family} has {name} {shown}, not {_show(value)}")
            elif value != field.default:
                raise ValueError(f"family {self.family} has no {name} setting (leave it at {_show(field.default)})")
        if self.family == "mixtral" and self.experts is None:
            raise ValueError("family mixtral needs experts (num_local_experts)")
        if self.window_period is not None and self.sliding_window is None:
            raise ValueError("window_period needs a sliding_window")
        if self.family == "bloom" and self.ffn != 4 * self.hidden:
            raise ValueError(f"family bloom has ffn = 4 x hidden ({4 * self.hidden}), not {self.ffn}")
        return self

    @property
    def n_kv_heads(self) -> int:
        return self.kv_heads or self.heads

    @property
    def dim_per_head(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def routed_experts(self) -> int:
        """Experts each token passes through: top_k for mixture-of-experts, else the one MLP."""
        return (self.top_k or 2) if self.experts else 1

    @property
    def active_ffn(self) -> int:
        """MLP inner width a token's activations see: only the routed experts (all count in P)."""
        return self.ffn * self.routed_experts

    @property
    def act(self) -> str:
        """The MLP activation the model runs: the one set, else the family's own default."""
        return self.activation or FAMILY_ACTIVATION.get(self.family) or ("silu" if self.mlp == "gated" else "gelu")

    def windowed(self, layer: int) -> bool:
        """Whether block `layer` (0-based) attends through the sliding window (Gemma-2: even layers)."""
        if self.sliding_window is None:
            return False
        return self.window_period is None or (layer + 1) % self.window_period != 0

    @property
    def windowed_layers(self) -> int:
        """Blocks that attend through the sliding window."""
        return sum(self.windowed(i) for i in range(self.layers)) if self.sliding_window is not None else 0


_COMMON = {"family", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "tied_embeddings", "max_positions"}


def _show(value: Any) -> str:
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


# ---------------------------------------------------------------- tensor lists per layout


class _Tensors:
    """Collects (name, shape) in registration order."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Shape]] = []

    def add(self, name: str, *shape: int) -> None:
        self.items.append((name, tuple(shape)))

    def linear(self, name: str, out_features: int, in_features: int, bias: bool) -> None:
        self.add(f"{name}.weight", out_features, in_features)
        if bias:
            self.add(f"{name}.bias", out_features)

    def conv1d(self, name: str, in_features: int, out_features: int) -> None:
        """GPT-2's Conv1D stores its weight as (in, out) and always has a bias."""
        self.add(f"{name}.weight", in_features, out_features)
        self.add(f"{name}.bias", out_features)

    def norm(self, name: str, dim: int, kind: str) -> None:
        if kind == "nonparametric":
            return
        self.add(f"{name}.weight", dim)
        if kind == "layernorm":
            self.add(f"{name}.bias", dim)


def _biases(arch: Architecture) -> tuple[bool, bool, bool]:
    """(q/k/v, output projection, MLP) have biases."""
    b = arch.bias
    return b in ("qkv", "attention", "all"), b in ("attention", "all"), b in ("mlp", "all")


def _custom(arch: Architecture, t: _Tensors) -> None:
    h, ffn, q_out, kv_out = arch.hidden, arch.ffn, arch.heads * arch.dim_per_head, arch.n_kv_heads * arch.dim_per_head
    qkv_b, o_b, mlp_b = _biases(arch)
    t.add("embed.weight", arch.vocab, h)
    if arch.positions == "learned":
        t.add("pos.weight", arch.max_positions, h)
    for i in range(arch.layers):
        b = f"blocks.{i}"
        t.norm(f"{b}.attn_norm", h, arch.norm)
        t.linear(f"{b}.attn.q", q_out, h, qkv_b)
        t.linear(f"{b}.attn.k", kv_out, h, qkv_b)
        t.linear(f"{b}.attn.v", kv_out, h, qkv_b)
        t.linear(f"{b}.attn.o", h, q_out, o_b)
        t.norm(f"{b}.mlp_norm", h, arch.norm)
        if arch.mlp == "gated":
            t.linear(f"{b}.mlp.gate", ffn, h, mlp_b)
        t.linear(f"{b}.mlp.up", ffn, h, mlp_b)
        t.linear(f"{b}.mlp.down", h, ffn, mlp_b)
    t.norm("norm", h, arch.norm)
    if not arch.tied_embeddings:
        t.add("head.weight", arch.vocab, h)


def _head(arch: Architecture, t: _Tensors, width: int) -> None:
    """lm_head: a tied weight is the embedding's (listed once, there); a head bias stays its own tensor."""
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, width)
    if arch.head_bias:
        t.add("lm_head.bias", arch.vocab)


def _llama_style(arch: Architecture, t: _Tensors) -> None:
    """LlamaForCausalLM and its relatives: model.layers.N.{self_attn, mlp, norms}, lm_head."""
    f = arch.family
    h, hd, ffn = arch.hidden, arch.dim_per_head, arch.ffn
    q_out, kv_out = arch.heads * hd, arch.n_kv_heads * hd
    qkv_b, o_b, mlp_b = _biases(arch)
    t.add("model.embed_tokens.weight", arch.vocab, h)
    for i in range(arch.layers):
        p = f"model.layers.{i}"
        if f == "phi3":  # o_proj is registered before the fused qkv_proj
            t.linear(f"{p}.self_attn.o_proj", h, q_out, False)
            t.linear(f"{p}.self_attn.qkv_proj", q_out + 2 * kv_out, h, False)
        else:
            t.linear(f"{p}.self_attn.q_proj", q_out, h, qkv_b)
            t.linear(f"{p}.self_attn.k_proj", kv_out, h, qkv_b)
            t.linear(f"{p}.self_attn.v_proj", kv_out, h, qkv_b)
            t.linear(f"{p}.self_attn.o_proj", h, q_out, o_b)
        if arch.qk_norm and f == "qwen3":
            t.norm(f"{p}.self_attn.q_norm", hd, "rmsnorm")
            t.norm(f"{p}.self_attn.k_norm", hd, "rmsnorm")
        elif arch.qk_norm:  # StableLM: one bias-free LayerNorm per head
            for j in range(arch.heads):
                t.add(f"{p}.self_attn.q_layernorm.norms.{j}.weight", hd)
            for j in range(arch.n_kv_heads):
                t.add(f"{p}.self_attn.k_layernorm.norms.{j}.weight", hd)
        if f == "mixtral":  # router, then every expert stacked in two 3-D tensors
            e = arch.experts or 1
            t.add(f"{p}.mlp.gate.weight", e, h)
            t.add(f"{p}.mlp.experts.gate_up_proj", e, 2 * ffn, h)
            t.add(f"{p}.mlp.experts.down_proj", e, h, ffn)
        elif f == "phi3":
            t.linear(f"{p}.mlp.gate_up_proj", 2 * ffn, h, False)
            t.linear(f"{p}.mlp.down_proj", h, ffn, False)
        else:
            t.linear(f"{p}.mlp.gate_proj", ffn, h, mlp_b)
            t.linear(f"{p}.mlp.up_proj", ffn, h, mlp_b)
            t.linear(f"{p}.mlp.down_proj", h, ffn, mlp_b)
        t.norm(f"{p}.input_layernorm", h, arch.norm)
        if not arch.parallel:  # StableLM's parallel residual has one norm
            t.norm(f"{p}.post_attention_layernorm", h, arch.norm)
        if f == "gemma2":  # sandwich norms around the MLP
            t.norm(f"{p}.pre_feedforward_layernorm", h, arch.norm)
            t.norm(f"{p}.post_feedforward_layernorm", h, arch.norm)
    t.norm("model.norm", h, arch.norm)
    _head(arch, t, h)


def _phi(arch: Architecture, t: _Tensors) -> None:
    h, hd, ffn = arch.hidden, arch.dim_per_head, arch.ffn
    t.add("model.embed_tokens.weight", arch.vocab, h)
    for i in range(arch.layers):
        p = f"model.layers.{i}.self_attn"
        t.linear(f"{p}.q_proj", arch.heads * hd, h, True)
        t.linear(f"{p}.k_proj", arch.n_kv_heads * hd, h, True)
        t.linear(f"{p}.v_proj", arch.n_kv_heads * hd, h, True)
        t.linear(f"{p}.dense", h, arch.heads * hd, True)
        if arch.qk_norm:
            t.norm(f"{p}.q_layernorm", hd, "layernorm")
            t.norm(f"{p}.k_layernorm", hd, "layernorm")
        t.linear(f"model.layers.{i}.mlp.fc1", ffn, h, True)
        t.linear(f"model.layers.{i}.mlp.fc2", h, ffn, True)
        t.norm(f"model.layers.{i}.input_layernorm", h, "layernorm")
    t.norm("model.final_layernorm", h, "layernorm")
    _head(arch, t, h)


def _gpt_neox(arch: Architecture, t: _Tensors) -> None:
    h, ffn = arch.hidden, arch.ffn
    attn_b = arch.bias == "all"
    t.add("gpt_neox.embed_in.weight", arch.vocab, h)
    for i in range(arch.layers):
        p = f"gpt_neox.layers.{i}"
        t.norm(f"{p}.input_layernorm", h, "layernorm")
        t.norm(f"{p}.post_attention_layernorm", h, "layernorm")
        t.linear(f"{p}.attention.query_key_value", 3 * h, h, attn_b)
        t.linear(f"{p}.attention.dense", h, h, attn_b)
        t.linear(f"{p}.mlp.dense_h_to_4h", ffn, h, True)
        t.linear(f"{p}.mlp.dense_4h_to_h", h, ffn, True)
    t.norm("gpt_neox.final_layer_norm", h, "layernorm")
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, h)


def _falcon(arch: Architecture, t: _Tensors) -> None:
    h, hd, ffn = arch.hidden, arch.dim_per_head, arch.ffn
    b = arch.bias == "all"
    t.add("transformer.word_embeddings.weight", arch.vocab, h)
    for i in range(arch.layers):
        p = f"transformer.h.{i}"
        t.linear(f"{p}.self_attention.query_key_value", (arch.heads + 2 * arch.n_kv_heads) * hd, h, b)
        t.linear(f"{p}.self_attention.dense", h, h, b)
        t.linear(f"{p}.mlp.dense_h_to_4h", ffn, h, b)
        t.linear(f"{p}.mlp.dense_4h_to_h", h, ffn, b)
        if not arch.parallel:
            t.norm(f"{p}.post_attention_layernorm", h, "layernorm")
            t.norm(f"{p}.input_layernorm", h, "layernorm")
        elif arch.parallel_norms == 2:
            t.norm(f"{p}.ln_attn", h, "layernorm")
            t.norm(f"{p}.ln_mlp", h, "layernorm")
        else:
            t.norm(f"{p}.input_layernorm", h, "layernorm")
    t.norm("transformer.ln_f", h, "layernorm")
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, h)


def _bloom(arch: Architecture, t: _Tensors) -> None:
    h = arch.hidden
    t.add("transformer.word_embeddings.weight", arch.vocab, h)
    t.norm("transformer.word_embeddings_layernorm", h, "layernorm")
    for i in range(arch.layers):
        p = f"transformer.h.{i}"
        t.norm(f"{p}.input_layernorm", h, "layernorm")
        t.linear(f"{p}.self_attention.query_key_value", 3 * h, h, True)
        t.linear(f"{p}.self_attention.dense", h, h, True)
        t.norm(f"{p}.post_attention_layernorm", h, "layernorm")
        t.linear(f"{p}.mlp.dense_h_to_4h", 4 * h, h, True)
        t.linear(f"{p}.mlp.dense_4h_to_h", h, 4 * h, True)
    t.norm("transformer.ln_f", h, "layernorm")
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, h)


def _opt(arch: Architecture, t: _Tensors) -> None:
    h, ffn, e = arch.hidden, arch.ffn, arch.embed_dim or arch.hidden
    b = arch.bias == "all"
    d = "model.decoder"
    t.add(f"{d}.embed_tokens.weight", arch.vocab, e)
    t.add(f"{d}.embed_positions.weight", arch.max_positions + arch.position_offset, h)
    if e != h:
        t.linear(f"{d}.project_out", e, h, False)
        t.linear(f"{d}.project_in", h, e, False)
    if arch.final_norm:
        t.norm(f"{d}.final_layer_norm", h, arch.norm)
    for i in range(arch.layers):
        p = f"{d}.layers.{i}"
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
            t.linear(f"{p}.self_attn.{proj}", h, h, b)
        t.norm(f"{p}.self_attn_layer_norm", h, arch.norm)
        t.linear(f"{p}.fc1", ffn, h, b)
        t.linear(f"{p}.fc2", h, ffn, b)
        t.norm(f"{p}.final_layer_norm", h, arch.norm)
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, e)


def _gptj(arch: Architecture, t: _Tensors) -> None:
    h, ffn = arch.hidden, arch.ffn
    t.add("transformer.wte.weight", arch.vocab, h)
    for i in range(arch.layers):
        p = f"transformer.h.{i}"
        t.norm(f"{p}.ln_1", h, "layernorm")
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
            t.linear(f"{p}.attn.{proj}", h, h, False)
        t.linear(f"{p}.mlp.fc_in", ffn, h, True)
        t.linear(f"{p}.mlp.fc_out", h, ffn, True)
    t.norm("transformer.ln_f", h, "layernorm")
    _head(arch, t, h)


def _gpt2(arch: Architecture, t: _Tensors) -> None:
    h, ffn = arch.hidden, arch.ffn
    t.add("transformer.wte.weight", arch.vocab, h)
    t.add("transformer.wpe.weight", arch.max_positions, h)
    for i in range(arch.layers):
        p = f"transformer.h.{i}"
        t.norm(f"{p}.ln_1", h, "layernorm")
        t.conv1d(f"{p}.attn.c_attn", h, 3 * h)
        t.conv1d(f"{p}.attn.c_proj", h, h)
        t.norm(f"{p}.ln_2", h, "layernorm")
        t.conv1d(f"{p}.mlp.c_fc", h, ffn)
        t.conv1d(f"{p}.mlp.c_proj", ffn, h)
    t.norm("transformer.ln_f", h, "layernorm")
    if not arch.tied_embeddings:
        t.add("lm_head.weight", arch.vocab, h)


_LAYOUTS = {
    "custom": _custom, "phi": _phi, "gpt_neox": _gpt_neox, "falcon": _falcon, "bloom": _bloom, "opt": _opt,
    "gptj": _gptj, "gpt2": _gpt2,
}


def tensor_shapes(arch: Architecture) -> list[tuple[str, Shape]]:
    """(name, shape) for every trainable tensor, in module registration order; tied weights once."""
    return list(_tensor_shapes(_Fields(arch)))


def numel(shape: Shape) -> int:
    return prod(shape)


def param_count(arch: Architecture) -> int:
    """Exact trainable parameter count (a tied head shares the embedding and adds nothing)."""
    return _param_count(_Fields(arch))


class _Fields:
    """An architecture as a cache key: equal when every field is, whichever object holds them. The solver and
    the peak ask for one architecture's tensor list hundreds of times per answer (once per Nd and stage)."""

    __slots__ = ("arch", "key")

    def __init__(self, arch: Architecture) -> None:
        self.arch, self.key = arch, (type(arch), tuple(arch.__dict__.items()))  # taken now: a later edit is a new key

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Fields) and self.key == other.key


@lru_cache(maxsize=64)
def _tensor_shapes(fields: _Fields) -> tuple[tuple[str, Shape], ...]:
    t = _Tensors()
    arch = fields.arch
    _LAYOUTS.get(arch.family, _llama_style)(arch, t)
    return tuple(t.items)


@lru_cache(maxsize=64)
def _param_count(fields: _Fields) -> int:
    arch = fields.arch
    # Blocks are alike: count one block and the rest (root) once, then the block `layers` times.
    one = tensor_shapes(arch.model_copy(update={"layers": 1}))
    block = sum(numel(s) for n, s in one if block_group(n) != "root")
    root = sum(numel(s) for n, s in one if block_group(n) == "root")
    return root + block * arch.layers


def block_group(name: str) -> str:
    """The FSDP2 group of a tensor: its block ('model.layers.3') when its path has a layer index, else 'root'.

    Every layout keeps its blocks in one ModuleList, and the first numeric path component is the
    block's index; the measuring worker wraps each block, then the root (measure/worker/model.py)."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.isdigit():
            return ".".join(parts[: i + 1])
    return "root"
