"""The cheapest recomputation policy that fits, per ZeRO stage: none, or one mode on every k-th block (as
checkpoint_wrapper policies and TorchTitan's ac_freq set it), from the predicted full-step peak. Pure Python.

"Cheapest" is the forward work recomputed in backward, in FLOPs per step (a multiply-add is 2): full recompute
reruns a block's forward (its linear layers, 2 FLOPs per weight per token, and the attention scores and their
weighted sum, 2·t·s·q each, halved by the causal mask); selective reruns the attention sub-layer (its projections
and the scores). A policy fits when its predicted peak is at most the usable memory (core.fit.usable_memory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .accounting import STAGES, Breakdown, compute
from .fit import usable_memory
from .peak import moments, shapes
from .peak_bound import MixedBound
from .plan import Architecture, Plan


@dataclass(frozen=True)
class RecomputePolicy:
    """One policy: `recompute` on every `every`-th block (the every-th, 2·every-th, ...), the rest none."""

    recompute: str
    every: int
    blocks: int  # blocks it recomputes
    flops: int  # forward FLOPs it reruns per step

    @property
    def fields(self) -> dict:
        """The plan fields that set it."""
        return {"recompute": self.recompute, "recompute_every": self.every, "recompute_blocks": None}


@dataclass(frozen=True)
class PolicyFit:
    stage: int
    policy: RecomputePolicy | None  # None: not even full recompute on every block fits
    peak_bytes: int | None  # the policy's predicted peak, the CUDA allowance included
    usable_bytes: int


def block_flops(arch: Architecture, seq: int, batch: int) -> dict[str, int]:
    """Forward FLOPs one block reruns under each recomputation mode."""
    t = seq * batch
    q, kv = arch.heads * arch.dim_per_head, arch.n_kv_heads * arch.dim_per_head
    attn_weights = 2 * arch.hidden * q + 2 * arch.hidden * kv
    mlp_weights = (3 if arch.mlp == "gated" else 2) * arch.hidden * arch.ffn
    scores = 2 * t * seq * q  # QK^T and the weighted sum of V (2·t·s·q each), half of them masked
    attention = 2 * t * attn_weights + scores
    return {"none": 0, "selective": attention, "full": attention + 2 * t * mlp_weights}


def policies(arch: Architecture, seq: int, batch: int) -> list[RecomputePolicy]:
    """Every policy, from the least work rerun to the most (ties: the fewer blocks, then selective first)."""
    per_block = block_flops(arch, seq, batch)
    return list(_ordered(arch.layers, per_block["selective"], per_block["full"]))


@lru_cache(maxsize=64)
def _ordered(layers: int, selective: int, full: int) -> tuple[RecomputePolicy, ...]:
    """policies' list, by all it reads (the blocks and each mode's FLOPs a block): every edit of the Fit view asks it,
    and sorting 2·layers + 1 policies was a millisecond of each at 80 blocks. The last 64 points asked are kept."""
    per_block = {"selective": selective, "full": full}
    out = [RecomputePolicy("none", 1, 0, 0)]
    for mode in ("selective", "full"):
        for every in range(layers, 0, -1):
            n = layers // every
            out.append(RecomputePolicy(mode, every, n, n * per_block[mode]))
    return tuple(sorted(out, key=lambda p: (p.flops, p.blocks, p.recompute != "selective", -p.every)))


def cheapest_fitting(plan: Plan, stages: tuple[int, ...] = tuple(STAGES), peaks: dict | None = None,
                     _bound: bool = True, states: Breakdown | None = None,
                     uniform: Callable[[str, int], int] | None = None) -> list[PolicyFit]:
    """The cheapest policy that fits the plan's micro-batch and sequence at each stage (the plan's own recomputation
    aside). Needs the GPU's memory and the model's architecture (core.plan.PlanError otherwise).
    peaks: a dict of each policy's peak by stage that this fills and reads; pass the same one for plans whose peaks
    agree (the same core.fit_peaks.peak_key, micro-batch, sequence and Nd: the GPU's memory and the allowance only move the
    line they are held against), as the Fit view does across edits.
    A policy of one mode on some blocks is first held against core.peak_bound's cheap lower bound (_bound=False: not,
    the search as it was, which tests compare with). states: the plan's states (compute(plan)'s stages), when the
    caller has them. uniform(mode, stage): the stage's peak (the allowance aside) with one mode on every block at the
    plan's point, the largest of every moment's bytes, where the caller has it already (the Fit view: the solve's
    memo, core.fit_peaks): the policies of one mode on every block (none, and either mode on every block) read it
    instead of building their moments (tests/test_fit_recompute_bound.py holds both ways equal)."""
    arch = plan.model.architecture
    usable = usable_memory(plan)
    found: dict[int, PolicyFit] = {}
    if arch is None:
        return [PolicyFit(s, None, None, usable) for s in stages]
    states = states or compute(plan)  # the states do not depend on recomputation
    allowance = plan.cuda_allowance_bytes
    sh, cache = shapes(plan), {}  # neither depends on the policy: the closed form's and the steps' per mode are kept

    known = {} if peaks is None else peaks  # (mode, every, stage) -> (bytes, exact: False for a lower bound)
    bounds: dict = {}  # (mode, stage) -> MixedBound or None: a lower bound of many policies' steps at little cost

    def cheap_bound(policy: RecomputePolicy, stage: int) -> float | None:
        if not _bound or not 0 < policy.blocks < arch.layers:  # one mode on every block: the plain step, no mixed one
            return None
        if (policy.recompute, stage) not in bounds:
            bounds[policy.recompute, stage] = MixedBound.of(plan.model_copy(update=policy.fields), stage, states, sh,
                                                            cache, policy.recompute)
        bound = bounds[policy.recompute, stage]
        return None if bound is None else bound.bound(policy.every)

    def peak(policy: RecomputePolicy, stage: int) -> int | None:
        """predict()'s peak of one stage under the policy, the allowance aside, when it fits; None when it does not.
        A policy that does not fit is told by the moments of its step alone, without FSDP2's collectives (a unit's
        bytes at every block's end: most of the work): their largest is a lower bound of the peak, and over the usable
        memory it settles it. A policy under core.peak_bound's bound is asked of the whole step at once."""
        key = (policy.recompute, policy.every, stage)
        if uniform is not None and policy.every == 1 and (key not in known or not known[key][1]):
            known[key] = (uniform(policy.recompute, stage), True)  # the exact peak, as the moments give it
        if key not in known or not known[key][1] and known[key][0] <= usable:
            exact = key in known  # a lower bound that fits: the whole step decides
            if not exact and (low := cheap_bound(policy, stage)) is not None:
                if low > usable:
                    known[key] = (low, False)  # over the line already: the step's own moments are not placed
                    return None
                exact = True  # what the bound leaves mostly fits: the whole step decides at once, built once
            # the step of the whole plan's mode (the bound reads none of these: its steps are kept by their mode)
            for step in [k for k in cache if k[:1] == ("step",) and len(k) == 2]:
                del cache[step]
            # totals alone (with accumulation the moments it adds are never built: core.accumulation's totals)
            names, totals = moments(plan.model_copy(update=policy.fields), stage, states, sh, cache, _top=True,
                                    _totals=True, _collectives=exact)
            # the marked ends are the collectives' starting points, not moments of the step (unit_collectives)
            known[key] = (max(t for (_, name), t in zip(names, totals)
                              if exact or not name.endswith((" end", " start"))), exact)
            if not exact and known[key][0] <= usable:
                return peak(policy, stage)
        total, exact = known[key]
        return total if total <= usable else None

    ordered = policies(arch, plan.seq_len, plan.micro_batch)
    # what does not fit with the most rerun (full recompute on every block) fits with nothing less
    left = [s for s in stages if peak(ordered[-1], s) is not None]
    for policy in ordered:
        for s in left:
            if s not in found and (total := peak(policy, s)) is not None:
                found[s] = PolicyFit(s, policy, total + allowance, usable)
        if len(found) == len(left):
            break
    return [found.get(s, PolicyFit(s, None, None, usable)) for s in stages]


def policy_words(policy: RecomputePolicy | None, layers: int) -> str:
    if policy is None:
        return "nothing fits, not even full recompute on every block"
    if policy.recompute == "none":
        return "no recompute"
    if policy.every == 1:
        return f"{policy.recompute} recompute on every block"
    return (f"{policy.recompute} recompute on every {_ordinal(policy.every)} block ({policy.blocks:,} of {layers:,}: "
            f"--recompute {policy.recompute} --recompute-every {policy.every})")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def policy_json(fits: list[PolicyFit]) -> list[dict]:
    return [{"stage": f.stage, "tier": "predicted", "fits": f.policy is not None,
             **({"recompute": f.policy.recompute, "recompute_every": f.policy.every, "blocks": f.policy.blocks,
                 "rerun_flops": f.policy.flops, "peak_bytes": f.peak_bytes} if f.policy else {})} for f in fits]


def policy_text(plan: Plan, fits: list[PolicyFit]) -> str:
    """The lines `zerodesk fit` prints under its table."""
    from .units import fmt_bytes

    layers = plan.model.architecture.layers if plan.model.architecture else 0
    lines = [f"The cheapest recomputation that fits micro-batch {plan.micro_batch:,} at sequence {plan.seq_len:,} "
             f"(the least forward work rerun; predicted peaks, the CUDA allowance included, against the GPU's "
             f"{fmt_bytes(plan.cluster.gpu_memory_bytes, plan.units)}):"]
    for f in fits:
        peak = f" (peak {fmt_bytes(f.peak_bytes, plan.units)}, predicted)" if f.peak_bytes is not None else ""
        lines.append(f"  stage {f.stage}: {policy_words(f.policy, layers)}{peak}")
    return "\n".join(lines)
