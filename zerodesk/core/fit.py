"""What fits on the plan's GPUs: the largest micro-batch, the longest sequence and the smallest Nd per ZeRO stage and
recompute mode, and the configuration to run, all from the predicted full-step peak (zerodesk.core.peak).

A configuration fits when its predicted peak plus the CUDA allowance is at most the GPU's memory, that is, when the
peak is at most the usable memory (the GPU less the allowance). Peaks here leave the allowance out, so they compare
with the usable memory directly. Each answer is found from the peak's structure (core.fit_search): at a fixed
sequence length every moment is A + B·micro_batch, so two batches give the crossing; the sequence length needs a
quadratic (s² terms) and may switch pieces (a sliding window); the boundary is always confirmed (b fits, b + 1 does
not). The moments are peak.moments(); that their largest plus the allowance is peak.predict()'s figure is checked
on the plan itself, and where it is not, every answer is found from predict() instead. The memo of stage peaks a
solve reads (and the window keeps across edits) is core.fit_peaks.
Pure Python: no torch, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable, Sequence

from annotated_types import Le

from .accounting import STAGES, comm_by_link
from .fit_peaks import MEMO_LIMIT, PEAK_FREE, _Peaks, accum_class, peak_key, peak_memo, states_only  # noqa: F401
from .fit_search import Crossing, largest_fitting, smallest_fitting
from .options import RECOMPUTE as RECOMPUTE_OPTION
from .plan import MAX_RANKS, Plan, PlanError

RECOMPUTE = RECOMPUTE_OPTION.values  # the registry lists them from the least recompute to the most


def _upper(name: str) -> int:
    """The plan's own upper bound of a field (micro_batch, seq_len): what a found answer may reach."""
    return next(m.le for m in Plan.model_fields[name].metadata if isinstance(m, Le))


MAX_MICRO_BATCH = _upper("micro_batch")
MAX_SEQ = _upper("seq_len")


class FitError(PlanError):
    """What fits cannot be answered for this plan (one sentence naming the field)."""


@dataclass(frozen=True)
class ConfigFit:
    """One stage and recompute mode on the plan's GPUs."""

    stage: int
    recompute: str
    max_micro_batch: int  # the largest that fits at the plan's Nd and sequence length; 0: not even 1
    peak_at_max_bytes: int | None  # the predicted peak at that batch, allowance left out (None: nothing fits)
    peak_above_bytes: int | None  # at one more (None: the largest batch a plan allows already fits)
    max_seq: int  # the longest sequence at micro-batch 1 and the plan's Nd; 0: not even 1 token
    min_dp: int | None  # the smallest Nd searched at which micro-batch 1 fits (None: none of them)
    comm_bytes: int  # bytes one rank moves per step at the plan's Nd (core.accounting)


@dataclass(frozen=True)
class Reason:
    """Why a configuration is recommended: an id the window translates and the values its sentence names."""

    id: str  # least_comm | batch_too_large | nothing_fits
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Recommendation:
    stage: int | None  # None: nothing fits micro-batch 1
    recompute: str | None
    micro_batch: int  # the plan's micro-batch, or the most that fits when the plan's does not
    comm_bytes: int | None
    reason: Reason


@dataclass(frozen=True)
class DpSearch:
    """The Nd values min_dp searched: the divisors of nodes x GPUs per node when the plan sets its cluster
    (Nd must divide it), else powers of two up to the largest cluster a plan allows."""

    sizes: tuple[int, ...]
    world: int | None  # nodes x GPUs per node, when it constrains Nd


@dataclass(frozen=True)
class FitAnswer:
    gpu_memory_bytes: int  # one GPU
    allowance_bytes: int  # the plan's CUDA allowance
    usable_bytes: int  # what a peak may reach: the GPU less the allowance
    configs: list[ConfigFit]  # stage-major: stage 0 none, selective, full, stage 1 ...
    recommendation: Recommendation
    dp_search: DpSearch
    max_seq_cap: int  # the longest sequence searched (the plan's limit, or a learned position table)
    complete: bool  # False: a raw parameter count, activations unknown (states and token ids only)
    moments_agree: bool  # predict() was the largest moment plus the allowance; else predict() answered everything
    evaluations: int  # stage peaks evaluated
    batch_modelled: int  # largest-batch answers the two-batch solve gave and the boundary confirmed at once (of 12)

    def config(self, stage: int, recompute: str) -> ConfigFit:
        return self.configs[stage * len(RECOMPUTE) + RECOMPUTE.index(recompute)]


def usable_memory(plan: Plan) -> int:
    """The bytes a predicted peak may reach on one GPU; FitError without a GPU size or with nothing left."""
    gpu = plan.cluster.gpu_memory_bytes
    if not gpu:
        raise FitError("cluster.gpu_memory_bytes: what fits needs the memory of one GPU; choose a GPU or give its memory")
    if plan.cuda_allowance_bytes >= gpu:
        raise FitError(f"cuda_allowance_bytes: the CUDA allowance ({plan.cuda_allowance_bytes:,} B) leaves nothing of "
                       f"the GPU's {gpu:,} B; it must be smaller than the GPU's memory")
    return gpu - plan.cuda_allowance_bytes


def dp_search(plan: Plan) -> DpSearch:
    cluster = plan.cluster
    if cluster.model_fields_set & {"nodes", "gpus_per_node", "dp"}:
        world = cluster.world_size
        small = [d for d in range(1, int(world**0.5) + 1) if world % d == 0]
        return DpSearch(tuple(sorted({*small, *(world // d for d in small)})), world)
    return DpSearch(tuple(2**i for i in range(MAX_RANKS.bit_length()) if 2**i <= MAX_RANKS), None)


def max_seq_cap(plan: Plan) -> int:
    arch = plan.model.architecture
    if arch is not None and arch.positions == "learned":  # a learned table has no rows past its length
        return min(MAX_SEQ, arch.max_positions)
    return MAX_SEQ


def solve(plan: Plan, memo: _Peaks | None = None) -> FitAnswer:
    """Every answer for this plan (see the module docstring); FitError when the plan has no GPU size.
    memo: from peak_memo(plan), to reuse the peaks an earlier answer found."""
    usable = usable_memory(plan)
    peaks = peak_memo(plan, memo)
    known = peaks.evaluations
    seq, dp, cap_seq, search = plan.seq_len, plan.dp, max_seq_cap(plan), dp_search(plan)
    comm = dict(zip(STAGES, peaks.comm(dp, plan)))
    configs, modelled = [], 0
    for stage in STAGES:
        for r in RECOMPUTE:
            crossing = _batch_crossing(peaks, stage, r, seq, dp, usable, 1)
            best, modelled = crossing.largest, modelled + crossing.modelled
            longest = _longest(peaks, stage, r, dp, usable, cap_seq, min(seq, cap_seq))
            fewest = _searched(peaks, ("fewest", stage, r, seq, usable, search.sizes, dp), lambda stage=stage, r=r:
                               smallest_fitting(search.sizes, lambda nd: peaks.totals(stage, r, 1, seq, nd), usable,
                                                known=dp))
            configs.append(ConfigFit(stage, r, best, *_around(peaks, plan, stage, r, best), longest, fewest,
                                     comm[stage]))
    return FitAnswer(plan.cluster.gpu_memory_bytes, plan.cuda_allowance_bytes, usable, configs,
                     recommend(plan, configs, peaks), search, cap_seq, plan.model.architecture is not None,
                     not peaks.via_predict, peaks.evaluations - known, modelled)


def _searched(peaks: _Peaks, key: tuple, search: Callable[[], Any]) -> Any:
    """A search's answer, kept in the memo by all the search reads (the peaks are the memo's): asked again at the same
    point, as an edit back to an earlier sequence, Nd or GPU asks it, it is not searched again."""
    if key not in peaks.searches:  # None is an answer too (smallest_fitting: no Nd fits)
        peaks.searches[key] = search()
    return peaks.searches[key]


def _batch_crossing(peaks: _Peaks, stage: int, recompute: str, seq: int, dp: int, usable: int, start: int) -> Any:
    """largest_fitting of the micro-batch at one stage, recompute mode, sequence and Nd (kept: _searched)."""
    return _searched(peaks, ("batch", stage, recompute, seq, dp, usable, start), lambda: _none_fits(
        peaks, stage, recompute, 1, seq, dp, usable) or largest_fitting(
        lambda b: peaks.totals(stage, recompute, b, seq, dp), usable, MAX_MICRO_BATCH, degree=1, start=start))


def _none_fits(peaks: _Peaks, stage: int, recompute: str, batch: int, seq: int, dp: int, usable: int) -> Any:
    """A search's answer (nothing fits) where the smallest size it searches is over the usable memory by a lower
    bound of its peak (core.fit_peaks: the step's last moments, no template moment placed): the peak grows with the
    size searched, so no larger one fits either. None where the bound does not settle it (the search decides)."""
    low = peaks.floor(stage, recompute, batch, seq, dp)
    return Crossing(0, 0, True) if low is not None and low > usable else None


def _longest(peaks: _Peaks, stage: int, recompute: str, dp: int, usable: int, cap: int, start: int) -> int:
    """The longest sequence that fits at micro-batch 1 (largest_fitting from `start`, the plan's sequence). It does not
    depend on the plan's sequence, only where its search starts: once found for a stage, mode, Nd and usable memory,
    a search for another plan's sequence starts at that answer, whose boundary the memo knows (it fits, one more
    does not), and confirms it without a new peak."""
    last = ("longest", stage, recompute, dp, usable, cap)
    if last in peaks.searches:
        start = max(peaks.searches[last], 1)
    found = _searched(peaks, ("seq", stage, recompute, dp, usable, cap, start), lambda: (_none_fits(
        peaks, stage, recompute, 1, 1, dp, usable) or largest_fitting(
        lambda s: peaks.totals(stage, recompute, 1, s, dp), usable, cap, degree=2, start=start)).largest)
    peaks.searches[last] = found
    return found


def _around(peaks: _Peaks, plan: Plan, stage: int, recompute: str, best: int) -> tuple[int | None, int | None]:
    """The peak at the largest batch that fits and at one more (None where there is no such batch)."""
    return (peaks.peak(stage, recompute, best, plan.seq_len, plan.dp) if best else None,
            peaks.peak(stage, recompute, best + 1, plan.seq_len, plan.dp) if best < MAX_MICRO_BATCH else None)


def batch_boundary(plan: Plan, stage: int, recompute: str) -> tuple[int, int | None, int | None]:
    """(the largest micro-batch that fits, the peak there, the peak at one more) for one stage and recompute mode."""
    usable, peaks = usable_memory(plan), _Peaks(plan)
    best = largest_fitting(lambda b: peaks.totals(stage, recompute, b, plan.seq_len, plan.dp), usable,
                           MAX_MICRO_BATCH, degree=1, start=1).largest
    return (best, *_around(peaks, plan, stage, recompute, best))


def batch_limits(plan: Plan, dps: Sequence[int], memo: _Peaks | None = None,
                 recompute: str | None = None) -> dict[tuple[int, int], int]:
    """{(stage, Nd): the largest micro-batch that fits} at each of the Nd values, at the plan's sequence length and
    recompute mode (or `recompute`); 0 where not even 1 fits. Each is confirmed at its boundary, as in solve; the
    search starts where the previous Nd's answer was (the boundary moves little from one Nd to the next)."""
    usable, peaks = usable_memory(plan), peak_memo(plan, memo)
    mode, seq = recompute or plan.recompute, plan.seq_len
    out: dict[tuple[int, int], int] = {}
    for stage in STAGES:
        near = 1
        for nd in dps:
            best = _batch_crossing(peaks, stage, mode, seq, nd, usable, near).largest
            out[stage, nd] = best
            near = max(best, 1)
    return out


def stage_peaks(plan: Plan, micro_batch: int, dp: int, memo: _Peaks | None = None) -> list[int]:
    """Every stage's predicted peak (allowance left out) at a micro-batch and Nd, at the plan's sequence length and
    recompute mode."""
    peaks = peak_memo(plan, memo)
    return [peaks.peak(stage, plan.recompute, micro_batch, plan.seq_len, dp) for stage in STAGES]


def recommend(plan: Plan, configs: list[ConfigFit], peaks: _Peaks | None = None) -> Recommendation:
    """Among the configurations that fit the plan's micro-batch: the least communication per step, then the least
    recompute, then the most headroom (the lowest peak), then the lowest stage."""
    peaks = peaks or _Peaks(plan)
    want = plan.micro_batch

    def headroom_order(c: ConfigFit, batch: int) -> tuple:
        return (c.comm_bytes, RECOMPUTE.index(c.recompute), peaks.peak(c.stage, c.recompute, batch, plan.seq_len,
                                                                        plan.dp), c.stage)

    fitting = [c for c in configs if c.max_micro_batch >= want]
    if fitting:
        cheapest = min(fitting, key=lambda c: (c.comm_bytes, RECOMPUTE.index(c.recompute)))
        tied = [c for c in fitting if (c.comm_bytes, c.recompute) == (cheapest.comm_bytes, cheapest.recompute)]
        best = min(tied, key=lambda c: headroom_order(c, want))
        return Recommendation(best.stage, best.recompute, want, best.comm_bytes, Reason("least_comm", {
            "stage": best.stage, "recompute": best.recompute, "micro_batch": want, "comm_bytes": best.comm_bytes,
            "peak_bytes": peaks.peak(best.stage, best.recompute, want, plan.seq_len, plan.dp),
            "same_comm_stages": sorted({c.stage for c in tied if c.stage != best.stage})}))
    most = max((c for c in configs if c.max_micro_batch), default=None,
               key=lambda c: (c.max_micro_batch, -c.comm_bytes, -RECOMPUTE.index(c.recompute), -c.stage))
    if most is not None:
        return Recommendation(most.stage, most.recompute, most.max_micro_batch, most.comm_bytes, Reason(
            "batch_too_large", {"wanted": want, "dp": plan.dp, "stage": most.stage, "recompute": most.recompute,
                                "micro_batch": most.max_micro_batch, "comm_bytes": most.comm_bytes}))
    fewest = min((c for c in configs if c.min_dp is not None), default=None,
                 key=lambda c: (c.min_dp, c.comm_bytes, RECOMPUTE.index(c.recompute), c.stage))
    args: dict[str, Any] = {"dp": plan.dp}
    if fewest is not None:
        args.update(min_dp=fewest.min_dp, stage=fewest.stage, recompute=fewest.recompute)
    return Recommendation(None, None, 0, None, Reason("nothing_fits", args))


@dataclass(frozen=True)
class GlobalBatchFit:
    """One stage and recompute mode reaching a global batch: the fewest accumulation steps and the micro-batch then."""

    stage: int
    recompute: str
    accum_steps: int | None  # None: no whole micro-batch of G / Nd sequences over any number of steps fits
    micro_batch: int | None
    comm_bytes: int | None  # bytes one rank moves per step of those accumulation steps (None: not reached)


@dataclass(frozen=True)
class GlobalBatchAnswer:
    global_batch: int
    dp: int
    accum_sync: str  # the plan's: when the gradients are reduced, which sets what accumulation adds to communication
    configs: list[GlobalBatchFit]  # stage-major, as FitAnswer.configs
    recommended: GlobalBatchFit | None  # the fewest steps, then the least communication per step, recompute, stage


def global_batch_fit(plan: Plan, global_batch: int, memos: dict[str, _Peaks] | None = None) -> GlobalBatchAnswer:
    """The global batch G at the plan's Nd with the fewest accumulation steps, per stage and recompute mode.

    Every rank takes n = G / Nd sequences per step as k micro-batches of n / k (k divides n). One step (k = 1) needs
    micro-batch n to fit without accumulation; from k = 2 on the gradients kept between micro-batches are the same
    whatever k is (core.accumulation), so the largest micro-batch that fits with accumulation, m, gives the fewest
    steps: the smallest divisor k >= 2 of n with n / k <= m. Communication per step is counted at that k (with
    accumulation some collectives repeat per micro-batch: core.comm_links). FitError when Nd does not divide G.
    memos: a dict this fills with the stage peaks of one step and of accumulation (peak_memo); pass the same one
    again, as the window does across edits, to reuse them."""
    dp = plan.dp
    if global_batch < 1 or global_batch % dp:
        raise FitError(f"global batch: {global_batch:,} sequences must be a positive multiple of Nd ({dp:,}), "
                       "as every rank takes the same number per step")
    usable_memory(plan)  # FitError without a GPU size
    per_rank = global_batch // dp
    memos = {} if memos is None else memos
    limits = {}  # (steps: 1 or "more", stage, recompute) -> the largest micro-batch that fits
    for name, steps in (("one step", 1), ("accumulating", 2)):
        variant = plan.model_copy(update={"accum_steps": steps})
        memos[name] = peak_memo(variant, memos.get(name))
        for r in RECOMPUTE:
            for (stage, _), most in batch_limits(variant, [dp], memos[name], r).items():
                limits[steps, stage, r] = most
    comm_at = comm_per_step(plan)
    configs = []
    for stage in STAGES:
        for r in RECOMPUTE:
            if per_rank <= limits[1, stage, r]:
                k: int | None = 1
            else:
                k = next((k for k in _divisors(per_rank) if k >= 2 and per_rank // k <= limits[2, stage, r]), None)
            configs.append(GlobalBatchFit(stage, r, k, per_rank // k if k else None, comm_at(k)[stage] if k else None))
    reached = [g for g in configs if g.accum_steps is not None]
    best = min(reached, default=None,
               key=lambda g: (g.accum_steps, g.comm_bytes, RECOMPUTE.index(g.recompute), g.stage))
    return GlobalBatchAnswer(global_batch, dp, plan.accum_sync, configs, best)


def comm_per_step(plan: Plan) -> Callable[[int], list[int]]:
    """Each stage's bytes one rank moves per step of k micro-batches at the plan's Nd, by k (memoised)."""
    return cache(lambda k: [c.total_bytes for c in comm_by_link(plan.model_copy(update={"accum_steps": k}))])


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})
