"""What eager PyTorch keeps for backward on top of the model states (ZeRO §3.2), term by term.

Counted op by op from what torch's autograd saves for the measure worker's decoder
(zerodesk.measure.worker.model), with 16-bit (bf16) compute and no dropout:

- `bf16` compute: parameters cast by FSDP2's MixedPrecisionPolicy, activations bf16 throughout
  (stages 2, 3). `autocast` compute: fp32 parameters under torch.autocast (DDP, stages 0, 1):
  the residual stream and the norms stay fp32, every linear layer casts its own bf16 copy of an
  fp32 input, and autocast caches one bf16 copy of each linear weight for the whole forward.
- nn.RMSNorm (torch's composite kernel) saves its input upcast to fp32 and the normalised fp32
  tensor (8 B per element of s·b·h) plus a fp32 rstd per token; nn.LayerNorm saves its input and
  a mean and rstd per token (in the input's dtype).
- Rotary: each rotation saves bf16 cos and sin (s x d/2). Under autocast q and k cast their own
  (4 per block); FSDP2 casts the block's fp32 cos/sin inputs to bf16 once (2 per block).
- Attention is fused (flash) SDPA: it saves q, k, v, its output and a fp32 logsumexp per head
  and token, never the s×s scores. After rotary the output is laid out (b, heads, s, d), so the
  output projection saves a contiguous copy of it (+2 B per q element).
- The loss: bf16 logits, their fp32 copy and the fp32 log-softmax (10 B per logit) at the
  forward's end; the log-softmax (4 B) stays saved for backward, which adds ~8 B of temporaries.

Every other family is transformers' own module (measure/worker/hf_model.py), which differs where it
matters: its RMSNorm casts the normalised tensor back to bf16 (6 B, not 8, under bf16); cos/sin
are made once per forward and shared by the blocks (shared_bytes); SDPA's output needs no copy;
a fused q/k/v (or gate/up) projection casts its input once under autocast, and under rotary its
output stays alive as v's base; GPT-2's default NewGELU keeps three more s·b·ffn tensors; a
sliding window the sequence reaches (Mistral) materialises the mask, a bf16 s×s copy per block.
Checked block by block against the simulated step (fake tensors) for GPT-2, GPT-NeoX, Llama and
Mistral layouts under both compute modes (GPT-NeoX under autocast keeps one s·b·h less: not modelled).

In backward a block's MLP adds its gradient temporaries (mlp_backward) to what the block saved
(or rebuilt, under full recompute); core.peak places that moment in the step.

Recompute wraps each block with torch's activation checkpointing (zerodesk.measure.worker.recompute):
`selective` recomputes the attention sub-layer (only its input is kept), `full` the whole block
(only the block input is kept); a recomputed block's activations live again during its backward.
Pure Python: no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .plan import Architecture, Plan

ACT_BYTES = 2  # bf16 activations
FP32 = 4
Compute = Literal["bf16", "autocast", "fp32"]
Recompute = Literal["none", "selective", "full"]

# transformers' layouts that project q, k and v (or gate and up) with one fused linear layer: under
# autocast that layer casts its input once, not once per projection.
FUSED_QKV = frozenset({"gpt2", "gpt_neox", "falcon", "bloom", "phi3"})
FUSED_GATE_UP = frozenset({"phi3"})

# RMSNorms that keep their fp32 normalised tensor (torch's nn.RMSNorm in ZeroDesk's own decoder, Gemma's
# float() norm); transformers' other RMSNorms cast it back to bf16 before the weight multiplies it.
OWN_RMSNORM = frozenset({"custom", "gemma", "gemma2"})


# The loss in bytes per logit (s·b·V): see the module docstring.
LOGITS_FORWARD_PEAK = 2 + 4 + 4  # bf16 logits + fp32 copy + fp32 log-softmax
LOGITS_SAVED = 4  # fp32 log-softmax kept for backward
LOGITS_BACKWARD_TEMPS = 8  # fp32 grad of the log-softmax input and its bf16/fp32 casts, at once


@dataclass(frozen=True)
class BlockTerms:
    """Bytes one block saves for backward, by source (the glossary names each term)."""

    norms: int  # both norms' saved tensors
    norm_outputs: int  # the norms' outputs as the linear layers save them (autocast: one bf16 copy per linear)
    qkv: int  # q, k, v as SDPA saves them (after rotary)
    rotary: int  # the bf16 cos/sin copies the rotations save
    attention_out: int  # SDPA output + logsumexp, and the copy the output projection saves after rotary
    mlp: int  # inner tensors of the MLP
    mask: int = 0  # a materialised attention mask as SDPA keeps it (bf16, b x s x s), see window_mask

    @property
    def attention(self) -> int:
        return self.qkv + self.rotary + self.attention_out + self.mask

    @property
    def total(self) -> int:
        return self.norms + self.norm_outputs + self.attention + self.mlp


@dataclass(frozen=True)
class ActivationEstimate:
    """Activations of one rank's micro-batch: per block, the ends of the model and the loss."""

    per_layer_bytes: int  # what one block keeps between its forward and its backward
    logits_bytes: int  # the loss's forward peak (10 B per logit)
    layers: int
    block: BlockTerms | None = None
    recompute: Recompute = "none"
    recompute_bytes: int = 0  # a block's activations rebuilt during its backward (0 without recompute)
    final_norm_bytes: int = 0  # the final norm's saves, the head's input and transformers' rotary tables
    logits_saved_bytes: int = 0  # the log-softmax kept for backward
    logits_backward_bytes: int = 0  # temporaries of the loss's backward
    cast_weights_bytes: int = 0  # autocast's cached bf16 copies of every linear weight and bias (DDP stages)
    cast_saved_bytes: int = 0  # of those, the weights the linear layers keep for backward (not recomputed ones)
    shared_bytes: int = 0  # made once per forward, kept by every block: transformers' rotary tables (in final_norm_bytes)
    mlp_backward_bytes: int = 0  # the MLP's backward temporaries: grads of its inner tensors alive at once
    recast_bytes: int = 0  # autocast: the bf16 weights a recomputed block casts again for its backward

    @property
    def total_bytes(self) -> int:
        """Everything saved at the end of forward plus the loss's forward peak (the old single figure)."""
        return self.per_layer_bytes * self.layers + self.final_norm_bytes + self.logits_bytes

    @property
    def saved_bytes(self) -> int:
        """Saved for backward when the forward ends: blocks, final norm and the log-softmax."""
        return self.per_layer_bytes * self.layers + self.final_norm_bytes + self.logits_saved_bytes


def _norm_saved(arch: Architecture, tokens: int, compute: Compute) -> int:
    h = arch.hidden
    if arch.norm == "rmsnorm":
        if compute == "bf16" and arch.family not in OWN_RMSNORM:  # transformers: x.float() * rsqrt, cast back
            return (FP32 + ACT_BYTES) * tokens * h + FP32 * tokens  # fp32 input, bf16 normalised, fp32 rstd
        return 2 * FP32 * tokens * h + FP32 * tokens  # fp32 input and normalised tensor, fp32 rstd
    if compute == "autocast":  # layer_norm runs in fp32: its fp32 input, fp32 mean and rstd
        return FP32 * tokens * h + 2 * FP32 * tokens
    return ACT_BYTES * tokens * h + 2 * ACT_BYTES * tokens


def block_terms(arch: Architecture, seq: int, batch: int, compute: Compute = "bf16") -> BlockTerms:
    """Bytes one block saves for backward without recompute (see the module docstring)."""
    t = seq * batch
    h, f = arch.hidden, arch.ffn
    hd = arch.dim_per_head
    q, kv = arch.heads * hd, arch.n_kv_heads * hd
    rotary = arch.positions == "rotary"
    # ZeroDesk's own decoder casts cos/sin in every block and copies SDPA's output after rotary;
    # transformers computes cos/sin once per forward (rotary_tables) and SDPA's output needs no copy.
    own = arch.family == "custom"
    masked = window_mask(arch, seq)  # with a mask SDPA's output is copied for the output projection too
    # autocast: q, k, v each cast the fp32 norm output (3 copies, 1 fused), gate and up both (2, 1 fused or plain)
    attn_inputs = (1 if arch.family in FUSED_QKV else 3) if compute == "autocast" else 1
    mlp_inputs = (2 if arch.mlp == "gated" and arch.family not in FUSED_GATE_UP else 1) if compute == "autocast" else 1
    mlp_inner = 4 if arch.mlp == "gated" else 2  # gated: gate, silu, up, product; plain: up, gelu
    if arch.mlp != "gated" and arch.act == "gelu_new" and arch.family != "custom":
        mlp_inner += 3  # NewGELUActivation's 0.5·x, tanh(...) and 1 + tanh(...) are saved too
    return BlockTerms(
        norms=2 * _norm_saved(arch, t, compute),
        norm_outputs=ACT_BYTES * t * h * (attn_inputs + mlp_inputs),
        # a fused projection with rotary: q and k are rebuilt, its output stays alive as v's base
        qkv=ACT_BYTES * t * (q + 2 * kv + (q + kv if rotary and arch.family in FUSED_QKV else 0)),
        rotary=(4 if compute == "autocast" else 2) * ACT_BYTES * seq * (hd // 2) if rotary and own else 0,
        attention_out=ACT_BYTES * t * q * (2 if (rotary and own) or masked else 1) + FP32 * t * arch.heads,
        mask=ACT_BYTES * batch * seq * seq if masked else 0,
        mlp=ACT_BYTES * t * f * mlp_inner,
    )


def window_mask(arch: Architecture, seq: int) -> bool:
    """Whether transformers materialises the attention mask: a sliding window (arch.sliding_window) that the
    sequence reaches; the mask is a (b, 1, s, s) bool tensor made once per forward, and each attention keeps a bf16
    copy of it (and SDPA's output, laid out for the mask, is copied for the output projection). Otherwise SDPA runs
    with is_causal and no mask."""
    return arch.sliding_window is not None and seq >= arch.sliding_window


def rotary_tables(arch: Architecture, seq: int, compute: Compute = "bf16") -> int:
    """transformers' cos and sin (1 x s x rotated lanes, in the residual stream's dtype), computed once per forward
    and saved by every block's rotation: counted once, with the final norm."""
    if arch.positions != "rotary" or arch.family == "custom":
        return 0
    return 2 * seq * (arch.rotary_dim or arch.dim_per_head) * (FP32 if compute == "autocast" else ACT_BYTES)


def linear_weight_count(arch: Architecture, params: int) -> int:
    """Elements of every linear layer's weight and bias (what autocast casts to bf16), head included.

    params: the exact count of arch. Everything but the embeddings and the norms is a linear layer;
    a tied head casts the shared table."""
    norm_params = (2 * arch.layers + 1) * arch.hidden * (2 if arch.norm == "layernorm" else 1)
    positions = arch.max_positions * arch.hidden if arch.positions == "learned" else 0
    n = params - arch.vocab * arch.hidden - positions - norm_params
    return n + (arch.vocab * arch.hidden if arch.tied_embeddings else 0)


def estimate(arch: Architecture, seq: int, batch: int, compute: Compute = "bf16",
             recompute: Recompute = "none", params: int | None = None) -> ActivationEstimate:
    """The full activation model of one rank for this shape, compute mode and recompute choice.

    fp32 compute (32-bit parameters used as they are) is the bf16 model at twice the bytes: an upper bound, as the
    tensors bf16 compute already keeps in fp32 (the norms' upcasts) are not copied again."""
    if compute == "fp32":
        half = estimate(arch, seq, batch, "bf16", recompute, params)
        return ActivationEstimate(**{k: 2 * v if isinstance(v, int) and k != "layers" else v
                                     for k, v in vars(half).items()})
    t = seq * batch
    terms = block_terms(arch, seq, batch, compute)
    h = arch.hidden
    if recompute == "full":  # only the block input survives (fp32 residual stream under autocast)
        per_layer = (FP32 if compute == "autocast" else ACT_BYTES) * t * h
        rebuilt = terms.total
    elif recompute == "selective":  # the attention sub-layer keeps only its input: the norm's output
        copies = ACT_BYTES * t * h * (3 if compute == "autocast" else 1)  # its input as q, k, v saved it
        kept = (FP32 if compute == "autocast" else ACT_BYTES) * t * h
        per_layer = terms.total - terms.attention - copies + kept
        rebuilt = terms.attention + copies
    else:
        per_layer, rebuilt = terms.total, 0
    tables = rotary_tables(arch, seq, compute)  # (the window's bool mask is gone with the forward: blocks keep copies)
    final_norm = _norm_saved(arch, t, compute) + ACT_BYTES * t * h + tables
    logits = t * arch.vocab
    cast = saved_cast = recast = 0
    if compute == "autocast":
        from .architecture_tensors import param_count

        cast = 2 * linear_weight_count(arch, params if params is not None else param_count(arch))
        q, kv = arch.heads * arch.dim_per_head, arch.n_kv_heads * arch.dim_per_head
        attn_w = 2 * h * q + 2 * h * kv
        mlp_w = (3 if arch.mlp == "gated" else 2) * h * arch.ffn
        kept = {"none": attn_w + mlp_w, "selective": mlp_w, "full": 0}[recompute]
        saved_cast = 2 * (arch.layers * kept + arch.vocab * h)  # biases are not saved; the head always is
        recast = 2 * (attn_w + mlp_w - kept)  # a recomputed block casts its weights again for its backward
    return ActivationEstimate(
        per_layer_bytes=per_layer, logits_bytes=LOGITS_FORWARD_PEAK * logits, layers=arch.layers, block=terms,
        recompute=recompute, recompute_bytes=rebuilt, final_norm_bytes=final_norm,
        logits_saved_bytes=LOGITS_SAVED * logits, logits_backward_bytes=LOGITS_BACKWARD_TEMPS * logits,
        cast_weights_bytes=cast, cast_saved_bytes=saved_cast, shared_bytes=tables,
        mlp_backward_bytes=mlp_backward(arch, t, compute), recast_bytes=recast)


def mlp_backward(arch: Architecture, tokens: int, compute: Compute = "bf16") -> int:
    """Bytes of the MLP's backward temporaries at their most, beyond its saved tensors: the down projection's
    input is freed once its backward has used it, while the gradient of that input (gated: of the activation and
    of up too) is alive: +2 s·b·ffn bf16 tensors gated, +1 plain. Under autocast the bf16 copy of the incoming
    fp32 gradient goes with them, and one s·b·ffn tensor less is alive at once."""
    n = 2 if arch.mlp == "gated" else 1
    return ACT_BYTES * tokens * arch.ffn * (n - 1 if compute == "autocast" else n)


def activation_estimate(plan: Plan, compute: Compute = "bf16") -> ActivationEstimate | None:
    """None when only a raw parameter count is known (the shapes decide activations)."""
    arch = plan.model.architecture
    if arch is None:
        return None
    return estimate(arch, plan.seq_len, plan.micro_batch, compute, getattr(plan, "recompute", "none"))
