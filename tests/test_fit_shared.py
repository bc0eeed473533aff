"""A memo of peaks shares what its StageTotals have in common (core.peak_totals.Shared: the engine per stage, the
step's knobs per recomputation, the units' shapes per Nd, the placed steps) across every stage, recomputation and Nd
it is asked: over random plans (models, profiles, schemes, GPUs, shard groups, units, prefetch, kernels, dtypes,
optimizers, accumulation) every moment's label and total the memo sums is the one a StageTotals made alone for that
point gives, byte for byte, and a point no step sums is None both ways."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from zerodesk.core.accounting import STAGES
from zerodesk.core.fit_peaks import _Peaks
from zerodesk.core.peak_accumulated import stage_totals
from zerodesk.core.peak_totals import KEYS, _collective_totals, _Ends, collective_arrays
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


@pytest.mark.parametrize("seed", range(40))
def test_the_regrouped_collective_totals_are_collective_arrays(seed: int):
    """peak_totals._collective_totals sums the three collective moments regrouped (fewer array operations): on random
    ends (any sign, either prefetch, outputs over and under what a unit holds) they are collective_arrays', in
    unit_collectives' order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    big = 1 << int(rng.integers(4, 40))

    def arr() -> np.ndarray:
        return rng.integers(-big // 4, big, n, dtype=np.int64)

    # the ends: a few the head backward's start (the root regathered), some with a unit before them
    ends = SimpleNamespace(start=rng.random(n) < 0.2, before=[None if rng.random() < 0.3 else 1 for _ in range(n)],
                           _made_order=None)
    ends.made_order = lambda: _Ends.made_order(ends)
    kn = SimpleNamespace(prefetch=bool(rng.integers(2)))
    shard = int(rng.integers(1, 64))
    total, comps = arr(), np.stack([arr() for _ in KEYS])
    units = (arr(), arr(), arr(), arr(), int(rng.integers(0, big)), int(rng.integers(0, big)))
    _, _, copy, gathered, regather = collective_arrays(shard, total, tuple(comps), kn, *units)
    assert _collective_totals(shard, ends, total, comps, kn, *units) == \
        np.concatenate((copy, gathered, regather))[_Ends.made_order(ends)].tolist()
