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

from .accounting import STAGES, Breakdown, compute
from .accumulation import accumulate, accumulated_totals
from .peak_collectives import unit_collectives
from .peak_engine import (  # noqa: F401  (re-exported: the peak's pieces, as callers and tests name them)
    BF16, FP32, Engine, Moment, _grad_keys, _shapes, _Shapes, block_grads, engine, local_elements, optimizer_temps,
    shapes, unit_bytes)
from .peak_knobs import StepKnobs, block_acts, step_knobs, unit_shapes
from .plan import Architecture, Plan
from .recent import Recent
from .residuals import ActivationEstimate, estimate

if TYPE_CHECKING:
    from .step_template import CompiledStep

PHASES = ("forward", "backward", "optimizer")


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


def traced_step(plan: Plan, compute_mode: str, recompute: str | None = None) -> "CompiledStep | None":
    """The model's own step (core.step_template) for this compute mode, when its structure has a template.

    recompute: the mode every block of the step takes; by default the plan's when all its blocks take one, else
    None (a choice per block: moments() places one step per mode, _mixed_moments)."""
    from .peak_totals import _template

    arch = plan.model.architecture
    if arch is None and not plan.model.step_template:
        return None
    if recompute is None:
        modes = set(step_knobs(plan).modes)
        if len(modes) > 1:
            return None
        recompute = modes.pop() if modes else plan.recompute
    template = _template(arch, plan.model.step_template)
    if template is None:
        return None
    return template.step(arch, plan.seq_len, compute_mode, recompute, plan.micro_batch)


def moment_totals(plan: Plan, stage: int, b: Breakdown | None = None,
                  _sh: _Shapes | None = None) -> tuple[tuple[str, ...], list[int]]:
    """(each moment's label, each moment's bytes) for every moment moments() gives, in its order: the fit's question,
    answered without building each moment's components where the traced step allows (one recomputation on every
    block, one micro-batch a step). A label is "phase: name", a name given twice marked with primes (name, name')."""
    from .peak_totals import labels

    names, totals = moments(plan, stage, b, _sh, _totals=True)
    return labels(names), totals


def _named_totals(ms: list[Moment]) -> tuple[tuple[tuple[str, str], ...], list[int]]:
    return tuple((m.phase, m.name) for m in ms), [m.total for m in ms]


def moments(plan: Plan, stage: int, b: Breakdown | None = None, _sh: _Shapes | None = None,
            _act: dict | None = None, _top: bool = False, _totals: bool = False, _collectives: bool = True) -> list:
    """Every candidate peak moment of one stage, each with its components in bytes.

    From the model's own step (a step template) where its structure has one, else from the closed-form
    activation model (core.residuals). _top: only the largest moment of each place (predict's shortcut).
    _totals: ((phase, name) per moment, bytes per moment) instead (moment_totals). _collectives=False: without FSDP2's
    collectives from a template's step (peak_collectives): the marked ends stay instead, and the rest of the moments
    are the step's own (what a search that needs only to know a peak is over a line may look at first).
    With _totals and accumulation, the totals of accumulate's moments (core.accumulation.accumulated_totals; the
    template's moments and those they add summed as arrays where they can be, core.peak_accumulated_pairs)."""
    b = b or compute(plan)
    eng = engine(plan, stage)
    states = dict(b.stage(stage).components)
    grad_keys = _grad_keys(plan, b)
    at_rest_grads = sum(v for k, v in states.items() if k in grad_keys)
    resting = {k: v for k, v in states.items() if k not in grad_keys}  # set_to_none: no grads in forward
    arch = plan.model.architecture
    kn = step_knobs(plan)  # the units, prefetch and each block's recomputation (core.peak_knobs)
    one = _sh or _shapes(plan)  # one block a group
    sh = unit_shapes(one, kn, len(kn.modes))  # block_padded: the largest FSDP2 unit; the root all with the root only
    step = (_act or {}).get(("step", eng.compute), "unset")
    if step == "unset":
        step = traced_step(plan, eng.compute)
    # top: only each phase's largest (an earlier block's correction is one figure per place, so a place's largest
    # stays its largest); not with accumulation, whose later micro-batches read every moment's gradients
    mixed = _mixed_moments(plan, stage, eng, one, resting, b, kn, _act,
                           _top and plan.accum_steps <= 1, _collectives) if step is None else None
    if step is not None or mixed is not None:
        from .peak_accumulated_pairs import accumulated_pairs
        from .peak_totals import traced_totals
        from .peak_traced import traced_moments

        inputs = 2 * 8 * plan.seq_len * plan.micro_batch
        placed: tuple = ((), [])  # the fit's way: the template's moments as totals alone
        added: tuple = ((), [])  # and with accumulation, those it adds for them
        one_step = plan.accum_steps <= 1
        if mixed is not None:
            out = mixed
        elif _totals and not _top and _collectives and one_step \
                and (summed := traced_totals(plan, stage, step, eng, one, resting, inputs, kn)) is not None:
            placed, out = summed, []  # the collectives' totals are in it (core.peak_totals)
        elif _totals and not _top and _collectives and not one_step \
                and (pairs := accumulated_pairs(plan, stage, step, eng, one, resting, inputs, kn, b)) is not None:
            placed, added = pairs[:2], pairs[2:]
            out = [Moment(ph, name, comps) for ph, name, comps in
                   traced_moments(plan, stage, step, eng, one, resting, inputs, units=kn, ends_only=True)]
        elif _totals and not _top and one_step:
            placed = traced_moments(plan, stage, step, eng, one, resting, inputs, units=kn, totals_only=True)
            out = [Moment(ph, name, comps) for ph, name, comps in
                   traced_moments(plan, stage, step, eng, one, resting, inputs, units=kn, ends_only=True)]
        else:
            out = [Moment(ph, name, comps) for ph, name, comps in
                   traced_moments(plan, stage, step, eng, one, resting, inputs, top_only=_top, units=kn,
                                  with_ends=_collectives)]
        if _collectives and out:
            out = unit_collectives(plan, stage, out, one)
        if stage >= 2:
            out.append(Moment("backward", "root reduce-scatter", {k: v for k, v in dict(
                resting, inputs=inputs, grads=block_grads(at_rest_grads, sh),
                unsharded_grads=eng.grad * sh.root_padded, reduce_scatter=eng.reduce * sh.root_padded).items() if v}))
        comps = dict(states, inputs=inputs)
        comps["optimizer_temps"] = optimizer_temps(plan, stage, one)
        out.append(Moment("optimizer", "optimizer step", comps))
        if _totals and one_step:
            names, totals = _named_totals(out)
            return placed[0] + names, placed[1] + totals
        if _totals:  # accumulate's order: the step's moments, then what each adds, the placed ones first
            names, totals = accumulated_totals(plan, stage, out, b, lambda: unit_bytes(plan, stage, None, one))
            n = len(out)
            return (placed[0] + tuple(names[:n]) + added[0] + tuple(names[n:]),
                    placed[1] + totals[:n] + added[1] + totals[n:])
        return accumulate(plan, stage, out, b, lambda: unit_bytes(plan, stage, None, one))  # later micro-batches keep the gradients (core.accumulation)
    acts = block_acts(plan, eng.compute, kn.modes, b.params, _act)  # each block by its own recomputation
    act = acts.common if acts else None
    layers = acts.total_saved + act.final_norm_bytes if act else 0
    logits = plan.seq_len * plan.micro_batch * arch.vocab if arch else 0
    tokens_h = plan.seq_len * plan.micro_batch * arch.hidden if arch else 0
    stream = eng.stream * tokens_h  # the gradient of the residual stream (fp32 under autocast)
    last = len(kn.modes) - 1
    out: list[Moment] = []

    inputs = 2 * 8 * plan.seq_len * plan.micro_batch  # int64 tokens and targets

    def m(phase: str, name: str, **extra: int) -> None:
        comps = dict(resting, inputs=inputs)
        comps.update({k: v for k, v in extra.items() if v})  # what this step does not hold is left out
        out.append(Moment(phase, name, comps))

    if stage <= 1:
        if eng.cast_weights:
            cast = act.cast_weights_bytes if act else BF16 * plan.params
            saved_cast = acts.cast_saved if act else cast
            recast = acts.recast(last) if act else 0
        else:  # the parameters are used as they are
            cast = saved_cast = recast = 0
        m("forward", "loss", cast_weights=cast, activations=layers, logits=10 * logits)
        # autocast's cache is gone after forward: only the weights the layers saved remain
        m("backward", "loss backward", cast_weights=saved_cast, activations=layers, logits=12 * logits)
        # The last gradients arrive with the whole residual stream's gradient still alive.
        m("backward", "end of backward", grads=at_rest_grads, activations=acts.rebuilt(0) if act else 0,
          temporaries=stream)
        if act is not None:
            # The last block's backward at its MLP: every block input or saved tensor, this block's activations
            # and weight casts rebuilt (full recompute), the stream gradient, the MLP's gradient temporaries,
            # and the gradients already out: the head's (or the tied table's) and the down projection's.
            full = kn.modes[last] == "full"
            m("backward", "block backward", cast_weights=saved_cast + (recast if full else 0),
              grads=eng.grad_state * (arch.vocab + arch.ffn) * arch.hidden,
              temporaries=stream + act.mlp_backward_bytes,
              activations=acts.total_saved + acts.own(last) + act.shared_bytes)
    else:
        per_block = one.block_padded  # one block's elements
        unit_gathered = eng.gathered * sh.block_padded  # the largest unit
        ag = unit_gathered  # the all-gather buffer held to the next all-gather (nothing without gathering)
        root_gathered = eng.gathered * sh.root_padded
        rs = eng.reduce * sh.block_padded  # a unit's reduce-scatter input
        block_shard = eng.shard_grad * -(-per_block // plan.shard_size)  # one block's gradient shard
        if stage == 2:
            gathered_end = eng.gathered * sh.all_padded  # torch: every group stays gathered to its backward
            m("forward", "last block", gathered_params=gathered_end, all_gather=ag,
              activations=layers, logits=2 * logits)
        else:
            gathered_end = 0  # every group, the root included, is resharded after forward
            m("forward", "last block", gathered_params=root_gathered + unit_gathered,
              all_gather=ag, activations=layers)
        # The first block: the root and block 0 gathered, both all-gather buffers still held, the embedding's output
        # and the rotary tables (fp32, and FSDP2's cast) alive.
        rope = ((FP32 + kn.gathered) * 2 * plan.seq_len * (arch.dim_per_head // 2)
                if arch and arch.positions == "rotary" else 0)
        m("forward", "first block", gathered_params=root_gathered + unit_gathered,
          all_gather=root_gathered + ag, activations=stream + rope)
        m("forward", "loss", gathered_params=gathered_end, activations=layers, logits=10 * logits)
        m("backward", "loss backward", gathered_params=gathered_end, activations=layers, logits=12 * logits)
        # post-backward reshards the unit before it reduce-scatters; stage 3 has the next one prefetched
        gathered = eng.gathered * (sh.all_padded - sh.block_padded) if stage == 2 else root_gathered + unit_gathered
        ag3 = 0 if stage == 2 or not kn.prefetch else ag
        if not kn.root_only:
            # The first unit's reduce-scatter: its input, one shard of output, the head's gradient waiting for the
            # root's reduce-scatter, the residual stream's gradient, the blocks before the unit still saved.
            first = kn.unit_start(last) if last >= 0 else 0
            remaining = (acts.saved_upto[first - 1] if first else 0) + acts.rebuilt(first) if act else 0
            m("backward", "first block reduce-scatter", gathered_params=gathered, all_gather=ag3,
              reduce_scatter=rs, grads=eng.shard_grad * -(-sh.block_padded // plan.shard_size),
              unsharded_grads=eng.grad * sh.head_grad, temporaries=stream, activations=max(remaining, 0))
        if act is not None:
            # A block's backward at its MLP (the first sub-layer backward reaches): the saved tensors of every block
            # up to it, its own activations rebuilt (full recompute), the MLP's gradient temporaries and the down
            # projection's weight gradient; the gradients of the later blocks of its unit wait unsharded for the
            # unit's reduce-scatter, and the previous unit's reduce-scatter input lives until this unit's ends.
            temps = stream + act.mlp_backward_bytes + eng.grad * arch.hidden * arch.ffn
            last_gathered = gathered_end if stage == 2 else root_gathered + unit_gathered
            m("backward", "last block backward", gathered_params=last_gathered, all_gather=ag3,
              unsharded_grads=eng.grad * sh.head_grad, temporaries=temps,
              activations=acts.total_saved + acts.own(last) + act.shared_bytes)
            best = max(range(last), key=lambda j: _block_backward_bytes(acts, kn, j, eng.grad * per_block, rs),
                       default=None)
            if best is not None:  # the block whose backward holds the most
                end = kn.unit_end(best)
                later = len(kn.modes) - end  # blocks reduce-scattered already
                m("backward", "block backward",
                  gathered_params=eng.gathered * (sh.all_padded - per_block * later) if stage == 2 else last_gathered,
                  all_gather=ag3, reduce_scatter=rs if later else 0, grads=block_shard * later,
                  unsharded_grads=eng.grad * (sh.head_grad + per_block * (end - best - 1)), temporaries=temps,
                  activations=acts.saved_upto[best] + acts.own(best) + act.shared_bytes)
        # The root's reduce-scatter at the end (resharded first): every block's gradient shard, the root's
        # gradients (embedding and head; every block's too with the root only) and their reduce-scatter input.
        m("backward", "root reduce-scatter", grads=block_grads(at_rest_grads, sh),
          unsharded_grads=eng.grad * sh.root_padded, reduce_scatter=eng.reduce * sh.root_padded)
    comps = dict(states, inputs=inputs)
    comps["optimizer_temps"] = optimizer_temps(plan, stage, one)
    out.append(Moment("optimizer", "optimizer step", comps))
    if _totals and plan.accum_steps > 1:
        names, totals = accumulated_totals(plan, stage, out, b, lambda: unit_bytes(plan, stage, None, one))
        return tuple(names), totals
    if _totals:
        return _named_totals(out)
    return accumulate(plan, stage, out, b, lambda: unit_bytes(plan, stage, None, one))  # later micro-batches keep the gradients (core.accumulation)


def _mixed_moments(plan: Plan, stage: int, eng: Engine, one: _Shapes, resting: dict, b: Breakdown, kn: StepKnobs,
                   cache: dict | None, top: bool = False, with_ends: bool = True) -> list[Moment] | None:
    """The traced step's moments with a recomputation chosen per block: each place read from the step of its own
    block's mode (core.peak_traced.place_block), the earlier blocks' saved tensors corrected to their own modes by
    the closed form's per-block difference (core.residuals). None without a template or an architecture."""
    from .peak_traced import place_block, traced_moments

    arch = plan.model.architecture
    if arch is None or len(set(kn.modes)) <= 1:
        return None
    steps = {}
    for mode in sorted(set(kn.modes)):
        key = ("step", eng.compute, mode)
        step = cache[key] if cache is not None and key in cache else traced_step(plan, eng.compute, mode)
        if cache is not None:
            cache[key] = step
        if step is None:
            return None
        steps[mode] = step
    acts = block_acts(plan, eng.compute, kn.modes, b.params, cache)
    inputs = 2 * 8 * plan.seq_len * plan.micro_batch
    layers = len(kn.modes)
    out = []
    for mode, step in steps.items():
        own = acts.by_mode[mode].per_layer_bytes
        def own_block(place: str, i: int | None, mode: str = mode) -> bool:  # a place is read from its block's step
            return kn.modes[place_block(place, i, layers)[0]] == mode

        def earlier(place: str, i: int | None, own: int = own) -> int:  # sum(saved[j] - own) over the blocks alive
            alive = place_block(place, i, layers)[1]
            return acts.saved_upto[alive - 1] - own * alive if alive else 0

        out += [Moment(phase, name, comps) for phase, name, comps, *_ in traced_moments(
            plan, stage, step, eng, one, resting, inputs, top_only=top, units=kn, every_block=True, only=own_block,
            more=earlier, with_ends=with_ends)]
    return out


def _block_backward_bytes(acts, kn: StepKnobs, j: int, block_grads: int, rs: int) -> int:
    """What varies between blocks at a block's backward: the saved tensors up to it, its own rebuilt, the gradients
    of the later blocks of its unit and the previous unit's reduce-scatter input."""
    end = kn.unit_end(j)
    return (acts.saved_upto[j] + acts.own(j) + block_grads * (end - j - 1)
            + (rs if end < len(kn.modes) else 0))


def _same_question(a: tuple, b: tuple) -> bool:
    # the very objects (one edit's views), or equal ones (a choice made again: a profile or scheme toggled back)
    return (a[0] is b[0] or a[0] == b[0]) and (a[1] is b[1] or a[1] == b[1])


_LAST: Recent[list[StagePeak]] = Recent(8, same=_same_question)


def predict(plan: Plan, b: Breakdown | None = None) -> list[StagePeak]:
    """The predicted peak of every stage (0-3) for this plan.

    The views of one edit (the stage chart, the table) ask for the same plan and breakdown, and an edit back to a
    recent choice asks for an equal one: the last few answers are kept (plans and breakdowns are never changed in
    place; a look-up compares by identity first, then by value), so each new plan is predicted once."""
    return list(_LAST.get((plan, b), lambda: _predict(plan, b)))


def _predict(plan: Plan, b: Breakdown | None) -> list[StagePeak]:
    b = b or compute(plan)
    allowance = plan.cuda_allowance_bytes
    sh, arch = _shapes(plan), plan.model.architecture
    modes = {engine(plan, stage).compute for stage in STAGES}
    acts: dict = {("step", mode): traced_step(plan, mode) for mode in modes}
    # the closed form's activation estimates are made once per (compute, recomputation) as the stages ask
    # (core.peak_knobs.block_acts)
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


