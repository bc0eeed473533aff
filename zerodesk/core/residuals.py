"""What comes on top of the model states (ZeRO §3.2): an activation estimate, clearly labelled.

Counts the tensors one block saves for backward with 16-bit activations, fused (flash)
attention, no dropout, no recomputation and no tensor/sequence parallelism, plus the fp32
logits of the loss. It is an estimate to size the gap, not a measurement: measure the step.
"""

from __future__ import annotations

from dataclasses import dataclass

from .plan import Plan

ACT_BYTES = 2  # bf16/fp16 activations
LOGIT_BYTES = 4 + ACT_BYTES  # fp32 upcast for the loss plus the 16-bit logits


@dataclass(frozen=True)
class ActivationEstimate:
    per_layer_bytes: int
    logits_bytes: int
    layers: int

    @property
    def total_bytes(self) -> int:
        return self.per_layer_bytes * self.layers + self.logits_bytes


def activation_estimate(plan: Plan) -> ActivationEstimate | None:
    """None when only a raw parameter count is known (the shapes decide activations)."""
    arch = plan.model.architecture
    if arch is None:
        return None
    tokens = plan.seq_len * plan.micro_batch
    h, f = arch.hidden, arch.ffn
    q = arch.heads * arch.dim_per_head
    kv = arch.n_kv_heads * arch.dim_per_head
    attention = h + h + (q + 2 * kv) + q  # norm input, projection input, q/k/v, attention output
    mlp = h + h + (4 * f if arch.mlp == "gated" else 2 * f)  # norm input, projection input, inner tensors
    per_layer = tokens * (attention + mlp) * ACT_BYTES
    logits = tokens * arch.vocab * LOGIT_BYTES
    return ActivationEstimate(per_layer, logits, arch.layers)
