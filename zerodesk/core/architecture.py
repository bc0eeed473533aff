"""Tensor shapes of a GPT-style decoder, named as the measure worker's module names them.

The worker builds its nn.Module from the same Architecture and checks its named parameters
against this list, so the `torch` profile's exact sharding arithmetic sees the real shapes.
"""

from __future__ import annotations

from math import prod

from .plan import Architecture

Shape = tuple[int, ...]


def tensor_shapes(arch: Architecture) -> list[tuple[str, Shape]]:
    """(name, shape) for every trainable tensor, in module registration order."""
    h, hd, ffn = arch.hidden, arch.dim_per_head, arch.ffn
    q_out, kv_out = arch.heads * hd, arch.n_kv_heads * hd
    all_bias = arch.bias == "all"
    qkv_bias = arch.bias in ("qkv", "all")

    shapes: list[tuple[str, Shape]] = [("embed.weight", (arch.vocab, h))]
    if arch.positions == "learned":
        shapes.append(("pos.weight", (arch.max_positions, h)))

    def norm(prefix: str) -> None:
        shapes.append((f"{prefix}.weight", (h,)))
        if arch.norm == "layernorm":
            shapes.append((f"{prefix}.bias", (h,)))

    def linear(prefix: str, out_features: int, in_features: int, bias: bool) -> None:
        shapes.append((f"{prefix}.weight", (out_features, in_features)))
        if bias:
            shapes.append((f"{prefix}.bias", (out_features,)))

    for i in range(arch.layers):
        b = f"blocks.{i}"
        norm(f"{b}.attn_norm")
        linear(f"{b}.attn.q", q_out, h, qkv_bias)
        linear(f"{b}.attn.k", kv_out, h, qkv_bias)
        linear(f"{b}.attn.v", kv_out, h, qkv_bias)
        linear(f"{b}.attn.o", h, q_out, all_bias)
        norm(f"{b}.mlp_norm")
        if arch.mlp == "gated":
            linear(f"{b}.mlp.gate", ffn, h, all_bias)
        linear(f"{b}.mlp.up", ffn, h, all_bias)
        linear(f"{b}.mlp.down", h, ffn, all_bias)
    norm("norm")
    if not arch.tied_embeddings:
        shapes.append(("head.weight", (arch.vocab, h)))
    return shapes


def numel(shape: Shape) -> int:
    return prod(shape)


def param_count(arch: Architecture) -> int:
    """Exact trainable parameter count (a tied head shares the embedding and adds nothing)."""
    return sum(numel(s) for _, s in tensor_shapes(arch))
