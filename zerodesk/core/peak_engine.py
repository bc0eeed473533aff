"""The step's engine and the model's group sizes: the pieces core.peak's moments are made of.

Engine: what a profile's step holds per element (the dtypes of gathered parameters, gradients, reduce-scatter
inputs) at a stage. Shapes: the FSDP2 group sizes and the largest tensors of the plan's tensor list. With them
the bookkeeping a moment needs: the blocks' gradient shards, AdamW's temporaries, the rank's stepped elements and
a unit's bytes (for core.accumulation and the FSDP2 collectives, core.peak_collectives).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from math import ceil, prod

from .accounting import SCHEMES, Breakdown
from .knobs import autocast_dtype, param_bytes, reduce_bytes
from .peak_knobs import step_knobs, unit_shapes
from .plan import Plan, Profile
from .residuals import Compute

BF16, FP32 = 2, 4


@dataclass(frozen=True)
class Moment:
    phase: str
    name: str  # e.g. "loss", "last block", "first block reduce-scatter"
    components: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.components.values())


@dataclass(frozen=True)
class _Shapes:
    """What the transients need from the tensor list: group sizes and the largest local tensor."""

    root_padded: int  # elements of the root FSDP2 group, dim 0 padded to Nd
    block_padded: int  # the largest block group, padded
    all_padded: int
    largest_tensor: int  # elements of the largest tensor (whole)
    largest_local: int  # elements of the largest dim-0 shard (FSDP2)
    head_grad: int  # elements of the output head's gradient held to the root's reduce-scatter
    fsdp_local: int  # elements rank 0 steps under FSDP2: a full ceil(dim0/Nd)-row chunk of every tensor
    sizes: tuple[tuple[int, int], ...]  # (elements, tensors) per distinct size, largest first (ZeroRedundancyOptimizer)
    tensors: int  # how many tensors the model has (0: a raw count)


def _shapes(plan: Plan) -> _Shapes:
    """Group sizes as the plan's profile gathers them: FSDP2 pads each tensor's sharded dimension to the shard group
    (torch; hybrid sharding shards among the group, plan.shard_size); the paper partitions evenly, so its groups are
    their own size."""
    from .tensor_census import census_of_architecture

    arch = plan.model.architecture
    dp = plan.shard_size if plan.profile == Profile.TORCH else 1
    placement = plan.shard_placement
    # blocks are alike: count one and `layers` times (a tensor list is counted whole, once: core.tensor_census)
    census = census_of_architecture(arch.model_copy(update={"layers": 1})) if arch is not None else plan.model.census
    if census is None:  # a raw count: no groups or tensors known, so only the whole gathered model counts
        return _Shapes(0, 0, ceil(plan.params / dp) * dp, 0, 0, 0, ceil(plan.params / dp), (), 0)
    layers = arch.layers if arch is not None else 1
    groups: dict[str, int] = {}
    fsdp_local = 0
    for key, rows in census.placed_group_rows(dp, placement).items():  # key: the FSDP2 group, a block or the root
        copies = layers if key != "root" else 1
        for dim0, width in rows:  # every tensor of the group with this dim 0 is chunked alike
            chunk = -(-dim0 // dp)
            groups[key] = groups.get(key, 0) + chunk * dp * width
            fsdp_local += chunk * width * copies
    largest_local = max((-(-dim0 // dp) * rest for dim0, rest in census.placed_widest(dp, placement)), default=0)
    if layers == 1:
        ordered, tensors = census.sizes, census.tensors
    else:  # the listed block stands for `layers` blocks
        sizes: dict[int, int] = {}
        for key, shape, count in census.entries:
            sizes[prod(shape)] = sizes.get(prod(shape), 0) + count * (layers if key != "root" else 1)
        ordered, tensors = tuple(sorted(sizes.items(), reverse=True)), sum(sizes.values())
    largest = census.largest
    blocks = [n for k, n in groups.items() if k != "root"]
    block = max(blocks, default=0)
    root = groups.get("root", 0)
    if arch is not None:
        head = 0 if arch.tied_embeddings else arch.vocab * arch.hidden
        return _Shapes(root, block, root + block * arch.layers, largest, largest_local, head, fsdp_local, ordered,
                       tensors)
    return _Shapes(root, block, root + sum(blocks), largest, largest_local, census.head, fsdp_local, ordered, tensors)


def shapes(plan: Plan) -> _Shapes:
    """The plan's group sizes, for moments' and moment_totals' _sh (a caller asking for many variants of one plan at
    one Nd makes them once: they depend on neither the recomputation, the micro-batch nor the sequence)."""
    return _shapes(plan)


@dataclass(frozen=True)
class Engine:
    """The step a profile describes: how its parameters are used and the dtypes its transients take (bytes per
    element). Both profiles share the step's shape (the same moments); they differ only in this bookkeeping."""

    compute: Compute  # how the activations are made (residuals.Compute)
    cast_weights: bool  # autocast caches a bf16 copy of every linear weight (torch, stages 0-1)
    gathered: int  # a gathered parameter (stages 2-3); 0 where the whole parameters are a state already
    grad: int  # a gradient as backward makes it (held unsharded until its reduce-scatter, stages 2-3)
    grad_state: int  # a gradient as the stages 0-1 engine keeps it (DDP's fp32 .grad; the paper's fp16 buffer)
    reduce: int  # a reduce-scatter input
    shard_grad: int  # a gradient shard (stages 2-3)
    stream: int  # the residual stream's gradient


def engine(plan: Plan, stage: int) -> Engine:
    """The step of the plan's profile at this stage.

    torch: PyTorch's engines as the measure worker runs them (see the module docstring), FSDP2's with the plan's
    mixed-precision policy (core.knobs): it gathers, computes and makes gradients in param_dtype, reduce-scatters
    in reduce_dtype.
    paper: the ZeRO paper's own step (§3.1, §5): the scheme's 16-bit (or 32-bit) parameters are used as they
    are (no cast copy; at stages 0-2 every rank holds them whole, so nothing is gathered), stage 3 gathers one
    block (and the root's embedding and head) at a time with the next block prefetched, gradients are made in the
    parameters' dtype and reduce-scattered in the scheme's communication dtype as each block's backward ends."""
    if plan.profile == Profile.TORCH:
        if stage <= 1:  # DDP's fp32 parameters, under autocast (16-bit compute, weight copies cached) or not
            cast = autocast_dtype(plan) is not None
            return Engine("autocast" if cast else "fp32", cast, 0, FP32, FP32, FP32, FP32, FP32)
        gb = param_bytes(plan)
        return Engine("fp32" if gb >= FP32 else "bf16", False, gb, gb, FP32, reduce_bytes(plan), FP32, gb)
    spec = SCHEMES[plan.scheme]
    pb = round(sum(c.bytes_per_param for c in spec.components if c.state_class == "param"))
    gb = round(sum(c.bytes_per_param for c in spec.components if c.state_class == "grad"))
    made = pb  # backward makes gradients in the parameters' dtype (the BF16 scheme adds them into its FP32 buffer)
    return Engine("bf16" if pb <= BF16 else "fp32", False, pb if stage == 3 else 0, made, gb,
                  spec.comm_bytes_per_element, gb, min(pb, FP32))


def _grad_keys(plan: Plan, b: Breakdown) -> set[str]:
    if b.profile == Profile.TORCH:
        return {"grads"}
    return {c.key for c in SCHEMES[plan.scheme].components if c.state_class == "grad"}


def block_grads(at_rest_grads: int, sh: _Shapes) -> int:
    """The blocks' gradient shards while the root reduce-scatters last (stages 2-3): their share of the resting
    gradients, by elements. A share, not the resting gradients less the root's shard, so it holds whatever dtype and
    partition the profile's states use (the paper's fp16 gradients against an fp32 root once read negative)."""
    if sh.all_padded <= 0:
        return at_rest_grads
    return at_rest_grads * max(sh.all_padded - sh.root_padded, 0) // sh.all_padded


def optimizer_temps(plan: Plan, stage: int, sh: _Shapes | None = None) -> int:
    """AdamW's temporaries during the step, by its kernels (plan.optimizer_impl), on the largest rank.

    for-loop: per tensor, sqrt(exp_avg_sq) and its quotient: two fp32 copies of the largest local tensor.
    foreach (torch's default on CUDA): _foreach_sqrt over all local tensors at once: one fp32 copy of
    every parameter this rank steps. fused: updates in place, no temporaries. The paper profile steps its
    even partition (a flat ⌈P/Nd⌉ elements from stage 1 on), the torch profile what its engines assign.
    """
    if plan.optimizer_impl == "fused":
        return 0
    sh = sh or _shapes(plan)
    if plan.optimizer_impl == "foreach":
        return FP32 * local_elements(plan, stage, sh)
    if plan.profile != Profile.TORCH:
        return 2 * FP32 * min(sh.largest_tensor or params_of(plan), local_elements(plan, stage, sh))
    # ZeroRedundancyOptimizer (stage 1) steps whole tensors: the largest this rank may own
    largest = sh.largest_tensor if stage <= 1 else sh.largest_local
    return 2 * FP32 * largest


_PARAMS: dict[int, tuple[tuple, int]] = {}  # plan.params by the model's objects (a plan's variants share them)


def params_of(plan: Plan) -> int:
    """plan.params, kept by the model object and what it holds (plans are never changed in place: core.peak.predict
    and core.fit_peaks keep answers by identity too): the fit asks it of every stage, mode and Nd of a memo, and each
    ask keys the architecture's every field anew (core.architecture_tensors)."""
    model = plan.model
    held = (model, model.architecture, model.tensors, model.params)
    known = _PARAMS.get(id(model))
    if known is None or any(a is not b for a, b in zip(known[0], held)):
        if len(_PARAMS) >= 64:
            _PARAMS.clear()
        known = _PARAMS[id(model)] = (held, plan.params)
    return known[1]


def local_elements(plan: Plan, stage: int, sh: _Shapes | None = None) -> int:
    """Parameters the largest rank's optimizer steps: all (0), its whole tensors (1), its dim-0 shards (2-3)."""
    from .torch_profile import zero_owned

    if stage == 0 or plan.shard_size == 1:
        return params_of(plan)
    if plan.profile != Profile.TORCH:
        return ceil(params_of(plan) / plan.shard_size)
    sh = sh or _shapes(plan)
    if stage >= 2 or not sh.tensors:  # FSDP2 (rank 0's chunks), or a raw count (even shards)
        return sh.fsdp_local
    if plan.shard_size >= sh.tensors:  # every tensor lands on a rank of its own
        return sh.largest_tensor
    # ZeroRedundancyOptimizer: whole tensors, greedily balanced; the largest owner
    return max(elements for elements, _ in zero_owned(sh.sizes, plan.shard_size))


def unit_bytes(plan: "Plan", stage: int, blocks: int | None = None,
               one: _Shapes | None = None) -> tuple[int, int, int, int, int]:
    """(gradients, reduce-scatter input, gathered parameters) of the largest FSDP2 unit (or of a unit of `blocks`
    blocks), the residual stream's gradient and the gathered root, in bytes, as the peak's engine makes them
    (core.accumulation's unit_of). one: the plan's shapes() when the caller has them (they are counted from the
    model's tensors: a moment per block asked for them anew, most of a 70B fit's time)."""
    eng, kn = engine(plan, stage), step_knobs(plan)
    one = one or _shapes(plan)
    unit = unit_shapes(one, kn, len(kn.modes)).block_padded if blocks is None else one.block_padded * blocks
    arch = plan.model.architecture
    stream = eng.stream * plan.seq_len * plan.micro_batch * arch.hidden if arch is not None else 0
    return eng.grad * unit, eng.reduce * unit, eng.gathered * unit, stream, eng.gathered * one.root_padded
