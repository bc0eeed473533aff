"""The transformers (v5) config classes' defaults, for the keys core.hf_config_readers reads: a config.json that
leaves a key out means the class's default, so the tensor list equals the model transformers builds.
"""

from __future__ import annotations

from typing import Any

# Defaults of the transformers (v5) config classes, per model_type.
CLASS_DEFAULTS: dict[str, dict[str, Any]] = {
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
CLASS_DEFAULTS["gpt_neox"]["rotary_pct"] = 0.25

# transformers' default sliding window per family (its config class), where a config.json leaves the key out
WINDOW_DEFAULT = {"mistral": 4096, "gemma2": 4096, "mixtral": None, "phi3": None}
