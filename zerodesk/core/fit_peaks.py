"""The fit's memo of stage peaks: every stage's predicted peak (the CUDA allowance left out) at the variants a solve
asks of a plan (recomputation, micro-batch, sequence, Nd), kept across edits that leave what the peaks read alone
(peak_key). The moments are summed as arrays where a traced step allows (core.peak_totals, core.peak_accumulated),
else built (core.peak.moment_totals); where their largest is not predict()'s figure on the plan itself, every peak is
predict()'s (core.fit says why). The memo also keeps the answers of the searches run over its peaks (core.fit), by
all each one reads. Pure Python: no torch, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .accounting import STAGES, Breakdown, StageResult, _stage_rows, comm_by_link, compute
from .fit_search import peak_of
from .peak import moment_totals, predict, shapes
from .peak_engine import params_of
from .peak_accumulated import stage_totals
from .peak_totals import Shared, StageTotals
from .plan import Hybrid, Plan, Profile
from .recent import Recent


# What a stage's predicted peak (allowance left out) never reads, or reads only as one of a variant's own axes
# (recompute, micro-batch, sequence, Nd): plans that differ only here share their peaks. tests/test_fit.py changes
# each and checks that no peak moves.
PEAK_FREE: dict[str, Any] = {"units": True, "bandwidth_gbps": True, "evidence": True, "cuda_allowance_bytes": True,
                             "micro_batch": True, "seq_len": True, "recompute": True, "cluster": True,
                             "model": {"name"}}
MEMO_LIMIT = 50_000  # stage peaks a memo keeps before a fresh one starts (an editing session grows it)


def peak_key(plan: Plan) -> str:
    """The part of a plan its stage peaks depend on (see PEAK_FREE); of the cluster, what the peaks read: the shard
    group (the states shard among it) and the kernels a named GPU implies (plan.kernel_device: CUDA's attention and
    norm kernels save less). A memo kept across an edit of either gave the previous plan's peaks.
    Kept for the last few plans asked, by identity (plans are never changed in place): one answer asks it of the same
    plan several times (the solve, the map, the cells)."""
    return _KEYS.get(plan, lambda: plan.model_dump_json(exclude={**PEAK_FREE, "accum_steps": True, "accum_sync": True})
                     + f"|shard_group={plan.cluster.shard_group}|kernels={plan.kernel_device}|accum={accum_class(plan)}")


_KEYS: Recent[str] = Recent(4, same=lambda a, b: a is b)


def accum_class(plan: Plan) -> str:
    """What the peaks read of gradient accumulation (core.accumulation): none; or reducing every micro-batch (the
    same moments at any number of steps); or only the last's, with or without a middle micro-batch (3 steps or
    more). Plans of one class share their peaks: an edit of the steps often needs none anew."""
    if plan.accum_steps <= 1:
        return "none"
    if plan.accum_sync == "every":
        return "every"
    return "last, 2" if plan.accum_steps == 2 else "last, 3+"


class _Peaks:
    """Stage peaks of the plan's variants (recompute, micro-batch, sequence, Nd), allowance left out, memoised.

    One memo serves every plan with the same peak_key: the window keeps it across edits (peak_memo)."""

    def __init__(self, plan: Plan, breakdown: Breakdown | None = None) -> None:
        self.plan, self.allowance = plan, plan.cuda_allowance_bytes
        self.key = peak_key(plan)
        # compute(plan), or the caller's (the window's plan model has it for every plan it shows)
        self._breakdowns: dict[int, Breakdown] = {plan.dp: compute(plan) if breakdown is None else breakdown}
        self._states: dict[int, Breakdown] = {}
        self._comm: dict[int, list[int]] = {}
        self._comm_of: dict[tuple, list[int]] = {}  # comm of another plan of the key's class (accumulation)
        self._plans: dict[tuple, Plan] = {}
        self._totals: dict[tuple, Mapping[str, int]] = {}
        self._shapes: dict[int, Any] = {}
        self._stage_totals: dict[tuple, StageTotals | None] = {}
        self._shared = Shared()  # what those of every stage, mode and Nd share (the variants are all of self.plan)
        self._predicted: dict[tuple, list[int]] = {}  # predict()'s stage peaks by variant, where it answers
        # the searches' answers (core.fit), by all each one reads: an edit back to a point searched before (a
        # sequence, Nd or GPU tried again) searches nothing, as its peaks are all known here
        self.searches: dict[tuple, Any] = {}
        self.via_predict = False
        if not self._moments_agree():
            self.via_predict = True
            self._totals.clear()

    def breakdown(self, dp: int) -> Breakdown:
        """The plan's breakdown at Nd, communication included."""
        if dp not in self._breakdowns:
            self._breakdowns[dp] = compute(self.variant(self.plan.recompute, self.plan.micro_batch, self.plan.seq_len, dp))
        return self._breakdowns[dp]

    def comm(self, dp: int, plan: Plan | None = None) -> list[int]:
        """Each stage's bytes one rank moves per step at Nd (the breakdown's, without its states where not known), of
        `plan` where its accumulation steps or sync differ from the memo's plan's (the key shares the peaks of a
        class of them, core.accumulation; the communication is per step)."""
        if plan is not None and (plan.accum_steps, plan.accum_sync) != (self.plan.accum_steps, self.plan.accum_sync):
            key = (dp, plan.accum_steps, plan.accum_sync)
            if key not in self._comm_of:
                at = plan if dp == plan.dp else plan.model_copy(update={"cluster": plan.cluster.model_copy(
                    update={"dp": dp})})
                self._comm_of[key] = [c.total_bytes for c in comm_by_link(at)]
            return self._comm_of[key]
        if dp in self._breakdowns:
            return [s.comm_bytes for s in self._breakdowns[dp].stages]
        if dp not in self._comm:
            self._comm[dp] = [c.total_bytes for c in comm_by_link(self.variant(self.plan.recompute,
                                                                               self.plan.micro_batch,
                                                                               self.plan.seq_len, dp))]
        return self._comm[dp]

    def states(self, dp: int) -> Breakdown:
        """The states at Nd, what the peaks read: the breakdown where known, else the states alone (the communication
        of every link is most of a breakdown's cost, and the map asks a dozen Nd values of a new plan)."""
        if dp in self._breakdowns:
            return self._breakdowns[dp]
        if dp not in self._states:
            self._states[dp] = states_only(self.variant(self.plan.recompute, self.plan.micro_batch, self.plan.seq_len,
                                                        dp))
        return self._states[dp]

    def variant(self, recompute: str, batch: int, seq: int, dp: int) -> Plan:
        key = (recompute, batch, seq, dp)
        if key not in self._plans:
            # one mode on every block: the plan's own choice per block (core.knobs) is fit_recompute's question
            update: dict[str, Any] = {"recompute": recompute, "micro_batch": batch, "seq_len": seq,
                                      "recompute_every": 1, "recompute_blocks": None}
            if dp != self.plan.dp:
                update["cluster"] = self.plan.cluster.model_copy(update={"dp": dp})
            self._plans[key] = self.plan.model_copy(update=update)  # in range by construction: no validation
        return self._plans[key]

    def totals(self, stage: int, recompute: str, batch: int, seq: int, dp: int) -> dict[str, int]:
        """Every moment's bytes (or predict()'s peak alone, where moments and predict disagree)."""
        dp = self.peak_dp(dp)
        key = (stage, recompute, batch, seq, dp)
        if key not in self._totals:
            b = self.states(dp)
            if self.via_predict:  # predict() adds the memo's plan's allowance: take that one off
                point = (recompute, batch, seq, dp)
                if point not in self._predicted:  # predict() answers every stage: the others are asked next
                    self._predicted[point] = [p.total_bytes for p in predict(self.variant(*point), b)]
                self._totals[key] = _Totals(("peak",), [self._predicted[point][stage] - self.allowance])
            else:
                summed = self._summing(stage, recompute, batch, seq, dp)
                summed = summed and summed(batch, seq)
                if summed is None:
                    summed = moment_totals(self.variant(recompute, batch, seq, dp), stage, b, self.shapes(dp))
                self._totals[key] = _totals(*summed)
        return self._totals[key]

    def _summing(self, stage: int, recompute: str, batch: int, seq: int, dp: int) -> StageTotals | None:
        """What every micro-batch and sequence of a stage, mode and Nd share (core.peak_totals), or None."""
        at = (stage, recompute, dp)
        if at not in self._stage_totals:
            self._stage_totals[at] = stage_totals(self.variant(recompute, batch, seq, dp), stage, self.states(dp),
                                                  self.shapes(dp), self._shared)
        return self._stage_totals[at]

    def floor(self, stage: int, recompute: str, batch: int, seq: int, dp: int) -> int | None:
        """A lower bound of the peak (allowance left out) that places none of the step's template moments: the peak
        where known, else the largest of the step's last moments (StageTotals.floor), one of the moments the peak
        is the largest of. None: no bound (the peaks are predict()'s, or no traced step sums there)."""
        dp = self.peak_dp(dp)
        known = self._totals.get((stage, recompute, batch, seq, dp))
        if known is not None:
            return peak_of(known)
        if self.via_predict:
            return None
        summing = self._summing(stage, recompute, batch, seq, dp)
        return None if summing is None else summing.floor(batch, seq)

    def peak_dp(self, dp: int) -> int:
        """The Nd whose peaks are those at dp: the shard group N itself where N divides dp (HSDP: the states, the
        units and the collectives are the group's, rank r as r mod N; only the replicas grow), else dp. A map that
        widens to 65,536 ranks because nothing fits asks no new peak past N."""
        n = self.plan.cluster.shard_group
        return n if n and self.plan.hybrid == Hybrid.HSDP and dp % n == 0 else dp

    def shapes(self, dp: int) -> Any:
        """The tensor groups at Nd: the same for every variant there."""
        if dp not in self._shapes:
            self._shapes[dp] = shapes(self.variant(self.plan.recompute, self.plan.micro_batch, self.plan.seq_len, dp))
        return self._shapes[dp]

    def peak(self, stage: int, recompute: str, batch: int, seq: int, dp: int) -> int:
        return peak_of(self.totals(stage, recompute, batch, seq, dp))

    @property
    def evaluations(self) -> int:
        return len(self._totals)

    def _moments_agree(self) -> bool:
        """predict() is the largest moment plus the allowance, on the plan itself, for every stage."""
        plan = self.plan
        # the plan itself where it is the variant (one mode on every block): the views that show its peaks (the stage
        # chart, the table) ask predict() of the very same plan and breakdown, which keeps its last answers
        uniform = plan.recompute_every == 1 and plan.recompute_blocks is None
        at = plan if uniform else self.variant(plan.recompute, plan.micro_batch, plan.seq_len, plan.dp)
        peaks = predict(at, self.breakdown(plan.dp))
        return all(p.total_bytes == self.peak(p.stage, plan.recompute, plan.micro_batch, plan.seq_len, plan.dp)
                   + self.allowance for p in peaks)


class _Totals(Mapping):
    """Every moment's bytes at one variant, by moment label, with their largest (the searches ask it of each many
    times). Kept as the labels and the totals in moments' order (`names`, `totals`: the searches read them as rows,
    core.fit_search); the label -> bytes index is made only where a search asks a moment by name."""

    def __init__(self, names: tuple[str, ...], totals: list[int]) -> None:
        # a tuple: one of numbers only, which Python's collector stops tracking (a memo keeps thousands of these, and
        # a list's every item was walked again by each full collection during an edit)
        self.names, self.totals = names, tuple(totals)
        self._index: dict[str, int] | None = None
        self.peak = max(totals, default=None)  # None: none to take the largest of (peak_of says so)

    def __getitem__(self, label: str) -> int:
        if self._index is None:
            self._index = dict(zip(self.names, self.totals))
        return self._index[label]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def _totals(names: tuple[str, ...], totals: list[int]) -> Mapping[str, int]:
    """_Totals where every label is its own (labels() marks a name given twice), else the plain dict (a label given
    twice keeps its last bytes at its first place, as dict(zip()) always did)."""
    if _unique(names):
        return _Totals(names, totals)
    out = dict(zip(names, totals))
    return _Totals(tuple(out), list(out.values()))


_UNIQUE: dict[int, tuple[tuple[str, ...], bool]] = {}  # by the labels tuple's identity (a StageTotals keeps its own)


def _unique(names: tuple[str, ...]) -> bool:
    known = _UNIQUE.get(id(names))
    if known is None or known[0] is not names:
        if len(_UNIQUE) >= 256:
            _UNIQUE.clear()
        known = _UNIQUE[id(names)] = (names, len(set(names)) == len(names))
    return known[1]


def states_only(plan: Plan) -> Breakdown:
    """compute(plan) without the communication (0 bytes a stage), the notes nor every rank's runs: the states the
    peaks read (the largest rank's; at a large Nd with a shard group the runs are many, and checked one by one)."""
    params = params_of(plan)  # plan.params, kept by the model (it is counted anew each time it is asked)
    stages = [StageResult(s, comps, [], 0, formula)
              for s, (comps, _runs, formula) in zip(STAGES, _stage_rows(plan, params, plan.dp, every_rank=False))]
    return Breakdown(params, plan.dp, plan.profile, plan.scheme, stages,
                     exact_shapes=plan.profile == Profile.TORCH and plan.model.census is not None)


def peak_memo(plan: Plan, previous: _Peaks | None = None, breakdown: Breakdown | None = None) -> _Peaks:
    """A memo of stage peaks for this plan: `previous` when it serves it (the same peak_key, not yet full), else a
    new one. Pass it to solve, batch_limits and stage_peaks so an edit recomputes only what it changed.
    breakdown: compute(plan), where the caller has it (a new memo starts from it)."""
    if previous is not None and previous.evaluations < MEMO_LIMIT and previous.key == peak_key(plan):
        return previous
    return _Peaks(plan, breakdown)
