"""Each family's module layout: every trainable tensor's name and shape, in module registration order.

"custom" is ZeroDesk's own decoder (measure/worker/model.py builds it without transformers); every other family
follows the Hugging Face transformers (v5) module of the same model_type, tensor for tensor: names, shapes (Conv1D's
(in, out) included), order, fusion (GPT-2's c_attn, Falcon's and BLOOM's query_key_value, Phi-3's qkv_proj and
gate_up_proj, Mixtral's stacked experts). Pure Python: no torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the record imports this module's list through core.architecture_tensors
    from .architecture import Architecture

Shape = tuple[int, ...]


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


LAYOUTS = {  # family -> its layout; every other family is laid out as Llama is
    "custom": _custom, "phi": _phi, "gpt_neox": _gpt_neox, "falcon": _falcon, "bloom": _bloom, "opt": _opt,
    "gptj": _gptj, "gpt2": _gpt2,
}


def lay_out(arch: Architecture) -> tuple[tuple[str, Shape], ...]:
    """(name, shape) for every trainable tensor of `arch`, in module registration order; tied weights once."""
    t = _Tensors()
    LAYOUTS.get(arch.family, _llama_style)(arch, t)
    return tuple(t.items)
