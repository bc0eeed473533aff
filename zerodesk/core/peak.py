"""The predicted full-step peak of one rank, per stage, in closed form (no torch, well under 1 ms).

A training step is a few moments where memory can peak; each moment is the model states in
use then plus the transients alive then. The prediction is the largest moment:

  forward    the last block (FSDP2: its all-gather buffer held to the next all-gather) and the
             loss (bf16 logits + fp32 copy + log-softmax: 10 B per logit)
  backward   the loss's backward (log-softmax kept + ~8 B per logit of temporaries), a block's MLP
             backward (its gradient temporaries over every saved tensor, the block's own rebuilt
             under full recompute: the last block, and the next while the last reduce-scatters),
             the first block's reduce-scatter (FSDP2) and the end of backward with all gradients (DDP)
  optimizer  all states plus AdamW's temporaries, by its kernels (plan.optimizer_impl): foreach
             (torch's CUDA default; the measure worker sets it on both devices) one fp32 copy
             of the rank's parameters, for-loop two of its largest tensor, fused none

Engines as the measure worker runs them: DDP (+ ZeroRedundancyOptimizer) under bf16 autocast for
stages 0-1, FSDP2 per block + root with a bf16 MixedPrecisionPolicy for stages 2-3 (stage 2 keeps
every group gathered from forward to its backward; stage 3 re-gathers with one block prefetched).
Gradients are set to None before each step, so forward holds no gradients. States come from the
plan's profile (zerodesk.core.accounting); the CUDA allowance the user sets is shown apart.
Fragmentation (reserved - allocated) is not predicted: it is measured, and labelled so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from math import ceil, prod

from .accounting import SCHEMES, STAGES, Breakdown, compute
from .accumulation import accumulate
from .plan import Architecture, Plan, Profile
from .residuals import ActivationEstimate, Compute, estimate

if TYPE_CHECKING:
    from .step_template import CompiledStep

BF16, FP32 = 2, 4
PHASES = ("forward", "backward", "optimizer")


@dataclass(frozen=True)
class Moment:
    phase: str
    name: str  # e.g. "loss", "last block", "first block reduce-scatter"
    components: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.components.values())


@dataclass(frozen=True)
class StagePeak:
    """The predicted peak of one stage: its phase, the moment and what fills memory then."""

    stage: int
    phase: str
    moment: str
    components: dict[str, int]  # bytes by component at the peak moment, the CUDA allowance included
    phase_totals: dict[str, int] = field(default_factory=dict)  # each phase's own peak
    complete: bool = True  # False: raw parameter count, so activations are left out

    @property
    def total_bytes(self) -> int:
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

    torch: PyTorch's engines as the measure worker runs them (see the module docstring).
    paper: the ZeRO paper's own step (§3.1, §5): the scheme's 16-bit (or 32-bit) parameters are used as they
    are (no cast copy; at stages 0-2 every rank holds them whole, so nothing is gathered), stage 3 gathers one
    block (and the root's embedding and head) at a time with the next block prefetched, gradients are made in the
    parameters' dtype and reduce-scattered in the scheme's communication dtype as each block's backward ends."""
    if plan.profile == Profile.TORCH:
        if stage <= 1:
            return Engine("autocast", True, 0, FP32, FP32, FP32, FP32, FP32)
        return Engine("bf16", False, BF16, BF16, FP32, FP32, FP32, BF16)
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


def traced_step(plan: Plan, compute_mode: str) -> "CompiledStep | None":
    """The model's own step (core.step_template) for this compute mode, when its structure has a template."""
    from .step_template import template_for

    arch = plan.model.architecture
    if arch is None and not plan.model.step_template:
        return None
    template = template_for(arch, plan.model.step_template)
    if template is None:
        return None
    return template.step(arch, plan.seq_len, compute_mode, plan.recompute, plan.micro_batch)


def moments(plan: Plan, stage: int, b: Breakdown | None = None, _sh: _Shapes | None = None,
            _act: dict | None = None, _top: bool = False) -> list[Moment]:
    """Every candidate peak moment of one stage, each with its components in bytes.

    From the model's own step (a step template) where its structure has one, else from the closed-form
    activation model (core.residuals). _top: only the largest moment of each place (predict's shortcut)."""
    b = b or compute(plan)
    eng = engine(plan, stage)
    states = dict(b.stage(stage).components)
    grad_keys = _grad_keys(plan, b)
    at_rest_grads = sum(v for k, v in states.items() if k in grad_keys)
    resting = {k: v for k, v in states.items() if k not in grad_keys}  # set_to_none: no grads in forward
    sh = _sh or _shapes(plan)
    arch = plan.model.architecture
    step = (_act or {}).get(("step", eng.compute), "unset")
    if step == "unset":
        step = traced_step(plan, eng.compute)
    if step is not None:
        from .peak_traced import traced_moments

        inputs = 2 * 8 * plan.seq_len * plan.micro_batch
        out = [Moment(ph, name, comps) for ph, name, comps in
               traced_moments(plan, stage, step, eng, sh, resting, inputs, top_only=_top, cache=_act)]
        if stage >= 2:
            out.append(Moment("backward", "root reduce-scatter", {k: v for k, v in dict(
                resting, inputs=inputs, grads=block_grads(at_rest_grads, sh),
                unsharded_grads=eng.grad * sh.root_padded, reduce_scatter=eng.reduce * sh.root_padded).items() if v}))
        comps = dict(states, inputs=inputs)
        comps["optimizer_temps"] = optimizer_temps(plan, stage, sh)
        out.append(Moment("optimizer", "optimizer step", comps))
        return accumulate(plan, stage, out, b)  # later micro-batches keep the gradients (core.accumulation)
    if _act is not None and eng.compute in _act:
        act = _act[eng.compute]
    else:
        act = estimate(arch, plan.seq_len, plan.micro_batch, eng.compute, plan.recompute) if arch else None
    layers = act.per_layer_bytes * act.layers + act.final_norm_bytes if act else 0
    logits = plan.seq_len * plan.micro_batch * arch.vocab if arch else 0
    tokens_h = plan.seq_len * plan.micro_batch * arch.hidden if arch else 0
    stream = eng.stream * tokens_h  # the gradient of the residual stream (fp32 under autocast)
    rebuilt = act.recompute_bytes if act else 0
    out: list[Moment] = []

    inputs = 2 * 8 * plan.seq_len * plan.micro_batch  # int64 tokens and targets

    def m(phase: str, name: str, **extra: int) -> None:
        comps = dict(resting, inputs=inputs)
        comps.update({k: v for k, v in extra.items() if v})  # what this step does not hold is left out
        out.append(Moment(phase, name, comps))

    if stage <= 1:
        if eng.cast_weights:
            cast = act.cast_weights_bytes if act else BF16 * plan.params
            saved_cast = act.cast_saved_bytes if act else cast
            recast = act.recast_bytes if act else 0
        else:  # the parameters are used as they are
            cast = saved_cast = recast = 0
        m("forward", "loss", cast_weights=cast, activations=layers, logits=10 * logits)
        # autocast's cache is gone after forward: only the weights the layers saved remain
        m("backward", "loss backward", cast_weights=saved_cast, activations=layers, logits=12 * logits)
        # The last gradients arrive with the whole residual stream's gradient still alive.
        m("backward", "end of backward", grads=at_rest_grads, activations=rebuilt, temporaries=stream)
        if act is not None:
            # The last block's backward at its MLP: every block input or saved tensor, this block's activations
            # and weight casts rebuilt (full recompute), the stream gradient, the MLP's gradient temporaries,
            # and the gradients already out: the head's (or the tied table's) and the down projection's.
            full = act.recompute == "full"
            m("backward", "block backward", cast_weights=saved_cast + (recast if full else 0),
              grads=eng.grad_state * (arch.vocab + arch.ffn) * arch.hidden,
              temporaries=stream + act.mlp_backward_bytes,
              activations=act.per_layer_bytes * act.layers + (rebuilt if full else 0) + act.shared_bytes)
    else:
        block_gathered = eng.gathered * sh.block_padded
        ag = block_gathered  # the all-gather buffer held to the next all-gather (nothing without gathering)
        root_gathered = eng.gathered * sh.root_padded
        block_shard = eng.shard_grad * -(-sh.block_padded // plan.shard_size)
        if stage == 2:
            gathered_end = eng.gathered * sh.all_padded  # torch: every group stays gathered to its backward
            m("forward", "last block", gathered_params=gathered_end, all_gather=ag,
              activations=layers, logits=2 * logits)
        else:
            gathered_end = 0  # every group, the root included, is resharded after forward
            m("forward", "last block", gathered_params=root_gathered + block_gathered,
              all_gather=ag, activations=layers)
        # The first block: the root and block 0 gathered, both all-gather buffers still held, the embedding's output
        # and the rotary tables (fp32, and FSDP2's bf16 cast) alive.
        rope = (FP32 + BF16) * 2 * plan.seq_len * (arch.dim_per_head // 2) if arch and arch.positions == "rotary" else 0
        m("forward", "first block", gathered_params=root_gathered + block_gathered,
          all_gather=root_gathered + ag, activations=stream + rope)
        m("forward", "loss", gathered_params=gathered_end, activations=layers, logits=10 * logits)
        m("backward", "loss backward", gathered_params=gathered_end, activations=layers, logits=12 * logits)
        # The first block's reduce-scatter: its input, one shard of output, the head's gradient waiting for the
        # root's reduce-scatter, the residual stream's gradient.
        remaining = layers - (act.per_layer_bytes + act.final_norm_bytes if act else 0) + rebuilt
        # post-backward reshards the block before it reduce-scatters; stage 3 has the next one prefetched
        gathered = eng.gathered * (sh.all_padded - sh.block_padded) if stage == 2 else root_gathered + block_gathered
        ag3 = 0 if stage == 2 else ag
        m("backward", "first block reduce-scatter", gathered_params=gathered, all_gather=ag3,
          reduce_scatter=eng.reduce * sh.block_padded, grads=block_shard,
          unsharded_grads=eng.grad * sh.head_grad, temporaries=stream, activations=max(remaining, 0))
        if act is not None:
            # A block's backward at its MLP (the first sub-layer backward reaches): the saved tensors of every block
            # up to it, its own activations rebuilt (full recompute; selective rebuilds only attention, later), the
            # MLP's gradient temporaries and the down projection's weight gradient (the block's gradients wait
            # unsharded for its reduce-scatter). The last block holds them all; the next one holds one block less
            # while the last reduce-scatters.
            own = rebuilt if act.recompute == "full" else 0
            temps = stream + act.mlp_backward_bytes + eng.grad * arch.hidden * arch.ffn
            last_gathered = gathered_end if stage == 2 else root_gathered + block_gathered
            m("backward", "last block backward", gathered_params=last_gathered, all_gather=ag3,
              unsharded_grads=eng.grad * sh.head_grad, temporaries=temps,
              activations=act.per_layer_bytes * act.layers + own + act.shared_bytes)
            if act.layers > 1:
                m("backward", "block backward", gathered_params=gathered, all_gather=ag3,
                  reduce_scatter=eng.reduce * sh.block_padded, grads=block_shard,
                  unsharded_grads=eng.grad * sh.head_grad, temporaries=temps,
                  activations=act.per_layer_bytes * (act.layers - 1) + own + act.shared_bytes)
        # The root's reduce-scatter at the end (resharded first): every block's gradient shard, the root's
        # gradients (embedding and head) and their reduce-scatter input.
        m("backward", "root reduce-scatter", grads=block_grads(at_rest_grads, sh),
          unsharded_grads=eng.grad * sh.root_padded, reduce_scatter=eng.reduce * sh.root_padded)
    comps = dict(states, inputs=inputs)
    comps["optimizer_temps"] = optimizer_temps(plan, stage, sh)
    out.append(Moment("optimizer", "optimizer step", comps))
    return accumulate(plan, stage, out, b)  # later micro-batches keep the gradients (core.accumulation)


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
        return 2 * FP32 * min(sh.largest_tensor or plan.params, local_elements(plan, stage, sh))
    # ZeroRedundancyOptimizer (stage 1) steps whole tensors: the largest this rank may own
    largest = sh.largest_tensor if stage <= 1 else sh.largest_local
    return 2 * FP32 * largest


def local_elements(plan: Plan, stage: int, sh: _Shapes | None = None) -> int:
    """Parameters the largest rank's optimizer steps: all (0), its whole tensors (1), its dim-0 shards (2-3)."""
    from .torch_profile import zero_owned

    if stage == 0 or plan.shard_size == 1:
        return plan.params
    if plan.profile != Profile.TORCH:
        return ceil(plan.params / plan.shard_size)
    sh = sh or _shapes(plan)
    if stage >= 2 or not sh.tensors:  # FSDP2 (rank 0's chunks), or a raw count (even shards)
        return sh.fsdp_local
    if plan.shard_size >= sh.tensors:  # every tensor lands on a rank of its own
        return sh.largest_tensor
    # ZeroRedundancyOptimizer: whole tensors, greedily balanced; the largest owner
    return max(elements for elements, _ in zero_owned(sh.sizes, plan.shard_size))


def predict(plan: Plan, b: Breakdown | None = None) -> list[StagePeak]:
    """The predicted peak of every stage (0-3) for this plan."""
    b = b or compute(plan)
    allowance = plan.cuda_allowance_bytes
    sh, arch = _shapes(plan), plan.model.architecture
    modes = {engine(plan, stage).compute for stage in STAGES}
    acts: dict = {("step", mode): traced_step(plan, mode) for mode in modes}
    acts.update({mode: estimate(arch, plan.seq_len, plan.micro_batch, mode, plan.recompute, b.params)
                 for mode in modes if arch is not None and acts[("step", mode)] is None})
    out = []
    for stage in STAGES:
        ms = moments(plan, stage, b, sh, acts, _top=True)
        phase_totals = {ph: max((x.total for x in ms if x.phase == ph), default=0) for ph in PHASES}
        top = max(ms, key=lambda x: x.total)
        comps = {k: v for k, v in top.components.items() if v}
        if allowance:
            comps["cuda_allowance"] = allowance
        out.append(StagePeak(stage, top.phase, top.name, comps, phase_totals,
                             complete=arch is not None or acts[("step", engine(plan, stage).compute)] is not None))
    return out


def predicted_peak(plan: Plan, stage: int) -> StagePeak:
    """One stage's predicted peak."""
    return predict(plan)[stage]


def activations(plan: Plan, stage: int) -> ActivationEstimate | None:
    """The activation model the prediction uses for this stage (torch: autocast for 0-1, bf16 for 2-3; paper:
    the scheme's parameter dtype throughout)."""
    arch: Architecture | None = plan.model.architecture
    if arch is None:
        return None
    return estimate(arch, plan.seq_len, plan.micro_batch, engine(plan, stage).compute, plan.recompute)
