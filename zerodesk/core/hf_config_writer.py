"""The way back: an Architecture as the config.json transformers builds exactly its tensor list from.

The measure worker builds its model from this dict; core.hf_config reads the other way. Pure Python: no torch.
"""

from __future__ import annotations

from typing import Any

from .architecture import ACTIVATIONS, Architecture

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
