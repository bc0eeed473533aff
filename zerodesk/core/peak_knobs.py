"""What the plan's knobs (core.knobs) change in the predicted step, for zerodesk.core.peak. Pure Python.

- The policy: FSDP2 gathers and computes in param_dtype, so the gathered parameters, their all-gather buffers, the
  gradients backward makes and the residual stream's gradient take its bytes; it reduce-scatters from a new buffer
  in reduce_dtype. (The paper profile's scheme fixes its dtypes: there the policy is the default one.)
- The units: FSDP2 gathers, frees and reduce-scatters a unit of N blocks at once (the root only: one unit of all);
  a block's gradients wait unsharded until its unit's backward ends, and the reduce-scatter buffer of a unit lives
  until the next unit's backward ends.
- Recomputation per block: each block saves and rebuilds by its own mode (core.residuals, one estimate per mode).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from .knobs import blocks_per_unit, param_bytes, recompute_per_block, reduce_bytes
from .plan import Plan, Profile
from .residuals import ActivationEstimate, estimate

FP32 = 4


@dataclass(frozen=True)
class StepKnobs:
    """The knobs as the step's bookkeeping reads them."""

    gathered: int  # bytes of a gathered parameter, a gradient as backward makes it, the stream's gradient (2-3)
    reduce: int  # bytes of a reduce-scatter input element
    per_unit: int  # blocks in one FSDP2 unit (all of them with the root only)
    root_only: bool
    prefetch: bool  # backward gathers the next unit ahead
    modes: tuple[str, ...]  # each block's recomputation, in order (empty for a raw count)

    def unit_end(self, block: int) -> int:
        """One past the last block of `block`'s unit."""
        return min((block // self.per_unit + 1) * self.per_unit, len(self.modes))

    def unit_start(self, block: int) -> int:
        return block - block % self.per_unit


def step_knobs(plan: Plan) -> StepKnobs:
    arch = plan.model.architecture
    layers = arch.layers if arch is not None else (plan.model.blocks or 0)
    torch = plan.profile == Profile.TORCH
    per_unit = blocks_per_unit(plan) if torch else 1
    return StepKnobs(gathered=param_bytes(plan) if torch else 2, reduce=reduce_bytes(plan) if torch else FP32,
                     per_unit=max(layers, 1) if per_unit is None else per_unit, root_only=per_unit is None,
                     prefetch=plan.prefetch == "on" or not torch, modes=recompute_per_block(plan, layers))


def unit_shapes(sh, kn: StepKnobs, layers: int):
    """peak_engine._Shapes with block_padded the largest FSDP2 unit (N blocks alike) and, with the root only, the root all;
    block_elems keeps one block's own."""
    if kn.root_only:
        return replace(sh, root_padded=sh.all_padded, block_padded=0)
    return replace(sh, block_padded=sh.block_padded * min(kn.per_unit, max(layers, 1)))


@dataclass(frozen=True)
class BlockActs:
    """The activations of each block by its own recomputation mode (core.residuals.estimate per mode)."""

    by_mode: dict[str, ActivationEstimate]
    modes: tuple[str, ...]

    @property
    def common(self) -> ActivationEstimate:
        """One estimate, for what does not depend on the mode (final norm, loss, shared tables, MLP temporaries)."""
        return self.by_mode[self.modes[-1]]

    @cached_property
    def saved(self) -> tuple[int, ...]:
        """What each block keeps from its forward to its backward."""
        return tuple(self.by_mode[m].per_layer_bytes for m in self.modes)

    @cached_property
    def saved_upto(self) -> tuple[int, ...]:
        """Blocks 0..j's saved bytes, for each j."""
        out, total = [], 0
        for s in self.saved:
            total += s
            out.append(total)
        return tuple(out)

    def rebuilt(self, block: int) -> int:
        """What block `block` rebuilds in its backward (0 without recompute)."""
        return self.by_mode[self.modes[block]].recompute_bytes

    def own(self, block: int) -> int:
        """What block `block` holds rebuilt at its MLP's backward: its whole forward under full recompute (selective
        rebuilds only attention, later)."""
        return self.rebuilt(block) if self.modes[block] == "full" else 0

    @property
    def total_saved(self) -> int:
        return self.saved_upto[-1] if self.modes else 0

    @property
    def cast_saved(self) -> int:
        """autocast: the bf16 weight copies the layers keep for backward (the head's, and each block's by its mode)."""
        return sum(self.by_mode[m].cast_saved_bytes for m in self.modes) // max(len(self.modes), 1)

    def recast(self, block: int) -> int:
        return self.by_mode[self.modes[block]].recast_bytes


def block_acts(plan: Plan, compute: str, modes: tuple[str, ...], params: int | None = None,
               cache: dict | None = None) -> BlockActs | None:
    """Each block's activations for this compute mode; None without an architecture."""
    arch = plan.model.architecture
    if arch is None or not modes:
        return None
    by_mode = {}
    for mode in sorted(set(modes)):
        key = (compute, mode)
        if cache is not None and key in cache:
            by_mode[mode] = cache[key]
            continue
        by_mode[mode] = estimate(arch, plan.seq_len, plan.micro_batch, compute, mode, params)
        if cache is not None:
            cache[key] = by_mode[mode]
    return BlockActs(by_mode, modes)
