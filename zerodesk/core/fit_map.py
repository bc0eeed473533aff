"""What the window's Fit view shows, Qt-free: the solver's answer for the plan, and a map of Nd (columns) by
micro-batch (rows) whose every cell knows the lowest ZeRO stage that fits there.

The map's columns are the powers of two from 1 to at least 1,024 (past the plan's cluster, further while no stage
fits anywhere) and the plan's own Nd and cluster size; its rows the powers of two up to the first no stage
reaches, and the plan's micro-batch. A column's largest micro-batch per stage comes from the solver
(fit.batch_limits, each confirmed at its boundary), so a cell's colour is exact; a cell's peaks are found when
asked (hover) and kept. All at the plan's sequence length and recompute mode, predicted, allowance left out.

The state also holds the cheapest recomputation that fits each stage at the plan's micro-batch and sequence
(fit_recompute.cheapest_fitting, as `zerodesk fit` prints it).

FitMapModel keeps the solver's memo of stage peaks across edits (fit.peak_memo): an edit of the micro-batch, the
GPU's memory, the allowance, the cluster or the units finds most peaks already known; a new model starts afresh.
Pure Python: no torch, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

from .accounting import STAGES, Breakdown
from .fit import (MAX_MICRO_BATCH, FitAnswer, FitError, GlobalBatchAnswer, batch_limits, global_batch_fit, peak_memo,
                  solve, stage_peaks, usable_memory)
from .fit_recompute import PolicyFit, cheapest_fitting
from .plan import MAX_RANKS, Cluster, Plan
from .recent import Recent

MIN_TOP_DP = 1024  # the map shows Nd up to at least this: what more GPUs would change
MIN_TOP_BATCH = 8  # and micro-batches up to at least this
RECENT = 6  # answers (with their memos of peaks) kept for edits back to an earlier plan
POLICY_POINTS = 24  # the recomputation policies' peaks kept, per point (an edit cycling through a field's values)
POLICIES_KEPT = 256  # and the cheapest policies found, per point and usable memory


@dataclass(frozen=True)
class Cell:
    """One cell of the map: its Nd and micro-batch, the lowest stage that fits there, and every stage's peak."""

    dp: int
    micro_batch: int
    stage: int | None  # the lowest stage whose predicted peak fits the usable memory; None: none does
    peaks: tuple[int, ...]  # each stage's predicted peak in bytes, the CUDA allowance left out
    limits: tuple[int, ...]  # each stage's largest micro-batch at this Nd (0: not even 1)
    usable_bytes: int

    def headroom(self, stage: int) -> int:
        """Bytes left under the usable memory at this stage's peak (negative: over by that much)."""
        return self.usable_bytes - self.peaks[stage]

    def fits(self, stage: int) -> bool:
        return self.micro_batch <= self.limits[stage]


@dataclass(frozen=True)
class FitMap:
    dps: tuple[int, ...]  # columns, ascending
    batches: tuple[int, ...]  # rows, ascending
    limits: dict[tuple[int, int], int]  # (stage, Nd) -> the largest micro-batch that fits (0: not even 1)
    usable_bytes: int
    plan_dp: int
    plan_micro_batch: int

    def stage_at(self, dp: int, micro_batch: int) -> int | None:
        """The lowest stage that fits this Nd and micro-batch, or None."""
        return next((s for s in STAGES if micro_batch <= self.limits[s, dp]), None)

    def stages(self) -> list[list[int | None]]:
        """stage_at for every cell: rows (ascending micro-batch) of columns (ascending Nd)."""
        return [[self.stage_at(dp, b) for dp in self.dps] for b in self.batches]

    def column_limits(self, dp: int) -> tuple[int, ...]:
        return tuple(self.limits[s, dp] for s in STAGES)


@dataclass
class FitState:
    """The Fit view's content for one plan: the answer and the map, or the sentence saying why there is none."""

    plan: Plan
    answer: FitAnswer | None = None
    map: FitMap | None = None
    error: str = ""
    recompute: list[PolicyFit] = field(default_factory=list)  # the cheapest recomputation that fits, per stage
    _cells: dict[tuple[int, int], Cell] = field(default_factory=dict, repr=False)
    _global: dict[int, GlobalBatchAnswer] = field(default_factory=dict, repr=False)


class FitMapModel:
    """Computes the Fit view's state for a plan, keeping what an edit did not change."""

    def __init__(self) -> None:
        self._memo = None
        self._recent: list[tuple[FitState, object]] = []  # the last few answers with their memos, newest first
        self._global_memos: dict = {}  # global_batch_fit's peaks of one step and of accumulation, kept across edits
        # the recomputation policies' peaks (fit_recompute.cheapest_fitting), by what they depend on
        self._policy_peaks: Recent[dict] = Recent(POLICY_POINTS)
        self._policies: dict[tuple, list[PolicyFit]] = {}  # their answers, by the point and the usable memory
        self.state: FitState | None = None

    def update(self, plan: Plan, breakdown: Breakdown | None = None) -> FitState:
        """The answer and the map for `plan` (error: one sentence when the plan cannot be answered); breakdown:
        compute(plan), where the caller has it (the window's plan model does), for a new memo of peaks.

        The last RECENT answers are kept with their memos: a plan edited back to one of them (a choice toggled and
        toggled back) is answered from there."""
        if self.state is not None and self.state.plan == plan:
            return self.state
        for i, (state, memo) in enumerate(self._recent):
            if state.plan == plan:
                self._recent.insert(0, self._recent.pop(i))
                self.state, self._memo = state, memo
                return state
        try:
            self._memo = peak_memo(plan, self._memo, breakdown)
            answer = solve(plan, self._memo)
            point = (self._memo.key, plan.micro_batch, plan.seq_len, plan.dp)
            known = self._policy_peaks.get(point, dict)
            memo = self._memo
            # one mode on every block: the solve's own peaks at the plan's point (not where the memo's are predict()'s)
            uniform = None if memo.via_predict else (
                lambda mode, stage: memo.peak(stage, mode, plan.micro_batch, plan.seq_len, plan.dp))
            # the answer reads the policies' peaks at the point and the line they are held against
            against = (*point, answer.usable_bytes, plan.cuda_allowance_bytes)
            if len(self._policies) >= POLICIES_KEPT:
                self._policies.clear()
            if against not in self._policies:
                self._policies[against] = (cheapest_fitting(plan, peaks=known, states=memo.states(plan.dp),
                                                            uniform=uniform)
                                           if plan.model.architecture is not None else [])
            policies = self._policies[against]
            state = FitState(plan, answer, self._map(plan), recompute=policies)
        except (FitError, ValueError, ArithmeticError) as exc:  # as PlanModel: one sentence, the window stays
            state = FitState(plan, error=str(exc))
        self._recent = [(state, self._memo), *self._recent][:RECENT]
        self.state = state
        return state

    def cell(self, dp: int, micro_batch: int) -> Cell:
        """The cell at one of the current map's Nd values and any micro-batch (kept once found)."""
        state = self.state
        if state is None or state.map is None:
            raise ValueError("no map: the plan has no answer")
        key = (dp, micro_batch)
        if key not in state._cells:
            fmap, plan = state.map, state.plan
            if dp not in fmap.dps:
                raise KeyError(f"Nd = {dp} is not a column of the map")
            peaks = tuple(stage_peaks(plan, micro_batch, dp, self._memo))
            state._cells[key] = Cell(dp, micro_batch, fmap.stage_at(dp, micro_batch), peaks,
                                     fmap.column_limits(dp), fmap.usable_bytes)
        return state._cells[key]

    def global_batch(self, global_batch: int) -> GlobalBatchAnswer:
        """The fewest accumulation steps that reach a global batch at the plan's Nd (fit.global_batch_fit), kept per
        global batch; FitError (one sentence) when the plan has no answer or Nd does not divide it."""
        state = self.state
        if state is None or state.answer is None:
            raise FitError(state.error if state is not None else "no plan yet")
        if global_batch not in state._global:
            state._global[global_batch] = global_batch_fit(state.plan, global_batch, self._global_memos)
        return state._global[global_batch]

    def _map(self, plan: Plan) -> FitMap:
        world = plan.cluster.world_size
        top = min(MAX_RANKS, max(MIN_TOP_DP, _pow2_at_least(2 * max(world, plan.dp))))
        dps = sorted({*_powers_of_two(top), plan.dp, world})
        limits = batch_limits(plan, dps, self._memo)
        while top < MAX_RANKS and not any(limits.values()):  # nothing fits anywhere yet: more GPUs
            more = [top << k for k in (1, 2, 3) if top << k <= MAX_RANKS]
            limits.update(batch_limits(plan, more, self._memo))
            dps += more
            top = more[-1]
        most = max(limits.values())
        cap = min(MAX_MICRO_BATCH, max(MIN_TOP_BATCH, _pow2_at_least(most + 1)))
        batches = sorted({*_powers_of_two(cap), plan.micro_batch})
        return FitMap(tuple(dps), tuple(batches), limits, usable_memory(plan), plan.dp, plan.micro_batch)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def _powers_of_two(top: int):
    n = 1
    while n <= top:
        yield n
        n *= 2


def plan_at(plan: Plan, dp: int, micro_batch: int) -> Plan:
    """The plan set to a cell of the map: Nd = dp and the micro-batch, the rest as it was (see cluster_for)."""
    data = plan.model_dump()
    data["cluster"] = cluster_for(plan.cluster, dp).model_dump()
    data["micro_batch"] = micro_batch
    return Plan.model_validate(data)


def cluster_for(cluster: Cluster, dp: int) -> Cluster:
    """A cluster with Nd = dp: the same one when dp divides its GPUs; else as many nodes of the same size as make
    dp divide them (nodes of dp's common factor with the node size, past the largest cluster a plan allows)."""
    world = cluster.world_size
    if world % dp == 0:
        return cluster.model_copy(update={"dp": None if dp == world else dp})
    per_node = cluster.gpus_per_node
    nodes = dp // gcd(dp, per_node)  # nodes x per_node is the least common multiple of dp and per_node
    if nodes * per_node > MAX_RANKS:
        per_node = gcd(dp, per_node)
        nodes = dp // per_node
    return cluster.model_copy(update={"nodes": nodes, "gpus_per_node": per_node,
                                      "dp": None if nodes * per_node == dp else dp})
