"""A memo of peaks shares what its StageTotals have in common (core.peak_totals.Shared: the engine per stage, the
step's knobs per recomputation, the units' shapes per Nd, the placed steps) across every stage, recomputation and Nd
it is asked: over random plans (models, profiles, schemes, GPUs, shard groups, units, prefetch, kernels, dtypes,
optimizers, accumulation) every moment's label and total the memo sums is the one a StageTotals made alone for that
point gives, byte for byte, and a point no step sums is None both ways."""

from __future__ import annotations

import random

import pytest

from zerodesk.core.accounting import STAGES
from zerodesk.core.fit_peaks import _Peaks
from zerodesk.core.peak_accumulated import stage_totals
from zerodesk.core.plan import Plan
from test_peak_totals import ACCUMULATING, name, random_plan

RECOMPUTE = ("none", "selective", "full")
PLANS = [random_plan(random.Random(seed)) for seed in range(300, 316)] + [
    random_plan(random.Random(seed)).model_copy(update=ACCUMULATING[seed % len(ACCUMULATING)])
    for seed in range(400, 406)]


@pytest.mark.parametrize("p", PLANS, ids=name)
def test_a_memos_shared_totals_are_each_points_own(p: Plan):
    rng = random.Random(p.seq_len * 7 + p.micro_batch)
    memo = _Peaks(p)
    dps = sorted({1, 2, 48, 64, p.dp, rng.choice([4, 8, 16, 256, 1024])})
    points = [(1, p.seq_len), (p.micro_batch, p.seq_len), (rng.randint(2, 48), rng.randint(64, 20_000))]
    shared = []
    # every stage, mode and Nd through the one memo first (each StageTotals built after the others it shares with)
    for dp in dps:
        for mode in RECOMPUTE:
            for stage in STAGES:
                at = memo._summing(stage, mode, *points[0], dp)
                shared.append((dp, mode, stage, at, [at and at(batch, seq) for batch, seq in points]))
    summed = 0
    for dp, mode, stage, at, got in shared:
        # a StageTotals of its own for the same point: nothing shared with another
        alone = stage_totals(memo.variant(mode, *points[0], dp), stage, memo.states(dp), memo.shapes(dp))
        assert (at is None) == (alone is None)
        if alone is None:
            continue
        for (batch, seq), mine in zip(points, got):
            assert mine == alone(batch, seq), (dp, mode, stage, batch, seq)
            summed += mine is not None
    assert summed  # the plans sum somewhere (a template, one mode on every block)
