"""The attention kernel a model really runs, found by running one of its blocks (worker side: torch).

The model decides before torch does: transformers runs eager attention for families that declare no SDPA
support (Gemma-2: softcapping) or build their own scores (BLOOM's ALiBi), and hands SDPA shapes that send it
to its math fallback (Falcon-7B: 71 query heads, 1 key/value head, no enable_gqa). So the label comes from a
forward of the model itself, one block long, under fake tensors on the run's device, at the run's sequence:
the fused SDPA op it dispatches names the kernel as torch.nn.attention.SDPBackend does (FLASH_ATTENTION,
EFFICIENT_ATTENTION, CUDNN_ATTENTION); SDPA called without one is MATH; no SDPA at all is EAGER.
"""

from __future__ import annotations

from typing import Any

FUSED = {
    "_scaled_dot_product_flash_attention_for_cpu": "FLASH_ATTENTION",
    "_scaled_dot_product_flash_attention": "FLASH_ATTENTION",
    "_scaled_dot_product_efficient_attention": "EFFICIENT_ATTENTION",
    "_scaled_dot_product_cudnn_attention": "CUDNN_ATTENTION",
    "_scaled_dot_product_fused_attention_overrideable": "OVERRIDEABLE",
}


def attention_kernel(spec: Any, seq: int, device: Any = "cpu") -> str | None:
    """The kernel the model's attention runs on `device` at sequence `seq`; None when it cannot be told.

    spec: an Architecture or a ModelSpec (as model.build_model takes)."""
    try:
        return _probe(spec, seq, device)
    except Exception:  # noqa: BLE001 - a label, never a failed run
        return None


def _probe(spec: Any, seq: int, device: Any) -> str:
    import torch
    import torch.nn.functional as F

    from ...core.plan import Architecture
    from . import torch_compat
    from .hf_model import build_hf_model
    from .model import build_model, built_by_transformers

    arch = spec if isinstance(spec, Architecture) else spec.architecture
    if arch is not None:  # one block of the same structure (under Gemma-2's alternation: its first, windowed)
        build = lambda: build_model(arch.model_copy(update={"layers": 1}), device)  # noqa: E731
    else:
        config = {**spec.hf_config, **_one_layer(spec.hf_config)}
        build = lambda: build_hf_model(config, device)  # noqa: E731
    seen: list[str] = []
    called: list[bool] = []

    class Ops(torch_compat.dispatch_mode_base()):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__.split(".")[0])
            return func(*args, **(kwargs or {}))

    original = F.scaled_dot_product_attention

    def sdpa(*args: Any, **kwargs: Any) -> Any:
        called.append(True)
        return original(*args, **kwargs)

    with torch_compat.fake_tensor_mode(), torch_compat.one_sequence_per_row(built_by_transformers(spec)):
        model = build()
        for p in model.parameters():
            p.data = p.data.to(torch.bfloat16)
        tokens = torch.zeros(1, seq, dtype=torch.long, device=device)
        F.scaled_dot_product_attention = sdpa
        try:
            with Ops(), torch.no_grad():
                model(tokens)
        finally:
            F.scaled_dot_product_attention = original
    fused = [FUSED[name] for name in seen if name in FUSED]
    if fused:
        return fused[0]
    return "MATH" if called else "EAGER"


def _one_layer(config: dict) -> dict:
    keys = ("num_hidden_layers", "n_layer", "num_layers")
    return {k: 1 for k in keys if k in config} or {"num_hidden_layers": 1}
