"""The knobs FSDP users turn, read one way: zerodesk.core.options declares them, the plan holds them. Pure Python.

- The mixed-precision policy, under FSDP2's MixedPrecisionPolicy names: param_dtype is the dtype FSDP2 all-gathers
  parameters in and computes in (stages 2-3), reduce_dtype the dtype it reduce-scatters gradients in; for DDP's
  stages (0-1) autocast computes in param_dtype when that is 16-bit, and DDP all-reduces its fp32 gradients as they
  are (reduce_dtype is FSDP2's).
- The wrapping: one FSDP2 unit per block (then the root), per N consecutive blocks, or the root only; and whether
  backward gathers the next unit ahead (FSDP2's default) or each unit when its own backward starts.
- Recomputation per block: the plan's mode on every k-th block (the k-th, 2k-th, ... counting from one, as
  TorchTitan's ac_freq), or an explicit choice per block (recompute_blocks), as people set checkpoint_wrapper
  policies.

At rest none of this changes a byte: FSDP2 shards every tensor on its own dim 0 whatever the units, keeps the sharded
parameters in their own dtype (fp32) and casts the reduced gradients back to it, and DDP's states are fp32 either way.
What changes is what is gathered, reduced and saved during the step: core.torch_profile.torch_transient (the
gathered set), core.comm_links (the bytes each collective moves) and the worker, which runs them.
"""

from __future__ import annotations

from functools import lru_cache

from .comm_links import ElementBytes
from .notes import Note, note
from .options import AUTOCAST, PARAM_DTYPE, PREFETCH, RECOMPUTE, REDUCE_DTYPE, WRAP
from .plan import Plan, Profile
from .torch_profile import torch_transient, unit_of  # noqa: F401 (unit_of: the units a wrapping makes)

DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
ZERO1_BROADCAST_BYTES = 4  # ZeroRedundancyOptimizer broadcasts the fp32 parameters it updated
DDP_GRAD_BYTES = 4  # DDP all-reduces the gradients in their own dtype: fp32, as the parameters are


def param_bytes(plan: Plan) -> int:
    """Bytes of one gathered (unsharded) parameter element: MixedPrecisionPolicy's param_dtype."""
    return DTYPE_BYTES[plan.param_dtype]


def reduce_bytes(plan: Plan) -> int:
    """Bytes of one gradient element FSDP2 reduce-scatters: MixedPrecisionPolicy's reduce_dtype."""
    return DTYPE_BYTES[plan.reduce_dtype]


def autocast_dtype(plan: Plan) -> str | None:
    """The dtype DDP's stages compute in under torch.autocast, or None for fp32 compute (autocast off, or an fp32
    param_dtype, which autocast has no use for)."""
    if plan.autocast == AUTOCAST.default and DTYPE_BYTES[plan.param_dtype] < DTYPE_BYTES["fp32"]:
        return plan.param_dtype
    return None


def torch_element_bytes(plan: Plan) -> ElementBytes:
    """What one element of each collective takes under the torch engines with the plan's policy."""
    return ElementBytes(grad=reduce_bytes(plan), gather=param_bytes(plan), broadcast=ZERO1_BROADCAST_BYTES,
                        dense_grad=DDP_GRAD_BYTES)


def blocks_per_unit(plan: Plan) -> int | None:
    """Blocks in one FSDP2 unit: 1 (a unit per block), the plan's N, or None (the root only: no block units)."""
    if plan.wrap == "root":
        return None
    return plan.wrap_blocks if plan.wrap == "blocks" else 1


def unit_spans(blocks: int, per_unit: int | None) -> list[range]:
    """The blocks of each FSDP2 unit in order (the root apart): consecutive runs of `per_unit`, the last maybe shorter."""
    if per_unit is None:
        return []
    return [range(start, min(start + per_unit, blocks)) for start in range(0, blocks, per_unit)]


def recompute_per_block(plan: Plan, blocks: int) -> tuple[str, ...]:
    """The recomputation of each of `blocks` blocks: the explicit list, else the plan's mode on every k-th block.

    A list made for another block count (a scaled-down measurement) is resampled to `blocks` (resample_blocks)."""
    if plan.recompute_blocks is not None:
        return resample_blocks(plan.recompute_blocks, blocks)
    return _every_kth(plan.recompute, plan.recompute_every, blocks)


@lru_cache(maxsize=256)
def _every_kth(mode: str, every: int, blocks: int) -> tuple[str, ...]:
    return tuple(mode if (i + 1) % every == 0 else RECOMPUTE.default for i in range(blocks))


def resample_blocks(choices: list[str] | tuple[str, ...], blocks: int) -> tuple[str, ...]:
    """One choice per block for `blocks` blocks from a list made for len(choices): block j takes the choice at the
    same relative depth (a list for 32 blocks gives 4 blocks the choices of blocks 0, 8, 16 and 24)."""
    n = len(choices)
    return tuple(choices) if n == blocks else tuple(choices[j * n // blocks] for j in range(blocks))


def checkpoint_counts(plan: Plan, blocks: int) -> dict[str, int]:
    """How many blocks get each recomputation mode: {'none': ..., 'selective': ..., 'full': ...}."""
    per_block = recompute_per_block(plan, blocks)
    return {mode: per_block.count(mode) for mode in RECOMPUTE.values}


def gathered_params(plan: Plan, stage: int) -> int | None:
    """Bytes of parameters FSDP2 holds gathered at once in forward with the plan's policy and wrapping (torch_transient),
    among its shard group; None without the tensor shapes."""
    census = plan.model.census
    if census is None:
        return None
    return torch_transient(census, stage, plan.shard_size, plan.shard_placement, param_bytes=param_bytes(plan),
                           per_unit=blocks_per_unit(plan))["gathered_params"]


POLICY_FIELDS = (PARAM_DTYPE, REDUCE_DTYPE, AUTOCAST, WRAP, PREFETCH)


def knobs_set(plan: Plan) -> list[str]:
    """The knobs away from their defaults, as 'param_dtype fp32', 'wrap blocks (N = 4)', 'recompute every 2nd block'."""
    out = [f"{o.key} {getattr(plan, o.key)}" + (f" (N = {plan.wrap_blocks})" if o is WRAP and plan.wrap == "blocks" else "")
           for o in POLICY_FIELDS if getattr(plan, o.key) != o.default]
    if plan.recompute_blocks is not None:
        out.append("recompute per block")
    elif plan.recompute_every != 1 and plan.recompute != RECOMPUTE.default:
        out.append(f"recompute every {plan.recompute_every} blocks")
    return out


def knob_notes(plan: Plan) -> list[Note]:
    """What the figures do not follow: under the paper profile the policy and the wrapping do not apply (its scheme
    fixes the dtypes). The predicted peak follows every knob (core.peak_knobs), FP32 compute's activations included
    (the step's template and the closed form have an fp32 mode; core.peak.engine picks it)."""
    engine_knobs = [k for k in knobs_set(plan) if not k.startswith("recompute")]
    if plan.profile == Profile.PAPER and engine_knobs:
        return [note("knobs_torch_only", knobs=", ".join(engine_knobs))]
    return []
