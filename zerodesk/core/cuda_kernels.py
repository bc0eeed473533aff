"""What CUDA's attention and norm kernels keep for backward that the CPU kernels do not (plan.kernels = cuda).

Step templates are traced with the CPU kernels. On CUDA two kernels save less, by their documented behaviour:

- Fused SDPA (FlashAttention, memory-efficient, cuDNN) returns its output in (batch, seq, heads, head_dim) memory
  order, so the model's transpose to (batch, seq, heads x head_dim) before the output projection is a view: the
  contiguous copy the CPU kernel's (batch, heads, seq, head_dim) output needs, which the projection saves, is not
  made (2 B per query element per block). Eager attention and the math fallback return the CPU layout on CUDA too.
- torch's nn.RMSNorm (ZeroDesk's own decoder; transformers' RMSNorms are Python and run alike) dispatches to a
  fused kernel that saves only its input, which the model keeps anyway, and one fp32 rstd per token: not the
  fp32 upcast and the normalised tensor of the composite CPU kernel (6 B per element of s·b·h with bf16
  activations, 4 B under autocast, whose residual stream is fp32 already).

Unverified on hardware in this release. Against the last H200 run (docs/gpu-smoke-h200.txt: ZeroDesk's decoder,
4 layers, hidden 1024, 8 heads, 2 x 1024 tokens), where the CPU-kernel prediction read 2.4-4.8% above the measured
forward and backward peaks, these two kernels take 88 MiB (stages 0-1) and 124 MiB (stages 2-3) off the moments
at the loss, leaving -0.5% to -0.7%; a new GPU run is the check (benchmarks/gpu_smoke.sh).
"""

from __future__ import annotations

from typing import Any

FUSED = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")


def saved_less(arch: Any, seq: int, batch: int, compute: str, recompute: str, attention: str | None) -> tuple[int, int]:
    """(bytes one block keeps less from its forward to its backward, bytes the final norm keeps less) on CUDA."""
    tokens = seq * batch
    per_block = 0
    if attention in FUSED and recompute == "none":  # recompute keeps no attention output (selective, full)
        per_block += 2 * tokens * arch.heads * arch.dim_per_head
    final = 0
    if arch.family == "custom" and arch.norm == "rmsnorm":
        per_norm = (4 if compute == "autocast" else 6) * tokens * arch.hidden
        if recompute != "full":  # full recompute keeps only the block input
            per_block += 2 * per_norm
        final = per_norm
    return per_block, final


def blocks_keeping(place: str, i: int | None, layers: int) -> tuple[int, bool]:
    """(blocks whose forward tensors are kept at this place of the step, whether the final norm's are)."""
    if place in ("head", "loss", "lossb", "headb", "last"):
        return layers, place != "last"
    if place in ("fwd", "bwd"):
        return (i or 0) + 1, False
    return 0, False
