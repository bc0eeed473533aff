"""The fit's memo of peaks keeps what it found in a form Python's cyclic collector stops walking: an editing session
grows the memo by thousands of moments' totals, and every full collection during an edit walked each one of them
(core.fit_peaks._Totals). No torch, no Qt."""

from __future__ import annotations

import gc

from zerodesk.core import catalog
from zerodesk.core.catalog import find_gpu
from zerodesk.core.fit_map import FitMapModel
from zerodesk.core.plan import Plan


def test_a_memos_totals_are_untracked_once_collected():
    plan = Plan.model_validate({"model": catalog.find_model("llama-2-7b").to_model_spec().model_dump(),
                                "cluster": {"nodes": 2, "gpus_per_node": 8, "gpu": "h100-80gb",
                                            "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes},
                                "seq_len": 4096, "profile": "torch"})
    fit = FitMapModel()
    assert fit.update(plan).answer is not None
    kept = list(fit._memo._totals.values())
    assert len(kept) > 20
    gc.collect()
    assert not [t for t in kept if gc.is_tracked(t.totals)]
    assert all(t.peak == max(t.totals) for t in kept if t.totals)
