"""The model's architecture: its shape, its family's knobs (validated) and what follows from them.

`family` picks a module layout: "custom" is ZeroDesk's own decoder; every other family follows the Hugging Face
transformers (v5) module of the same model_type. Which settings a family has: core.architecture_families; its
exact tensor list, named and ordered as the model people load: core.architecture_layouts, read (memoised) through
core.architecture_tensors (imported from there: this module imports neither, so the three form no cycle).
Pure Python: no torch.
"""

from __future__ import annotations

from typing import Any, Literal

from .architecture_families import (  # noqa: F401  (re-exported: the families' tables, as callers name them)
    ACTIVATIONS, FAMILIES, FAMILY_ACTIVATION, FAMILY_KNOBS, Family)
from .record import ConfigDict, Field, Record, ValidationInfo, field_validator, model_validator


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
