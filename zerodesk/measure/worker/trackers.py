"""torch's memory trackers as a measured step uses them: one per stage, peaks per phase, a live byte stream.

MemTracker follows DDP's stages (0-1), FSDPMemTracker FSDP2's (2-3): both private torch APIs, reached
through torch_compat. Their categories become the protocol's (CATEGORIES). Trackers need two
iterations and reset_mod_stats() between them (Adam's state appears lazily), which step.py arranges.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from ..protocol import Sample, WorkerError
from . import torch_compat
from .engines import Engine

SAMPLE_INTERVAL_S = 0.01

# Tracker categories -> protocol categories.
CATEGORIES = {
    "Parameter": "params", "Sharded Param": "params", "Unsharded Param": "unsharded_params",
    "Gradient": "grads", "Sharded Grad": "grads", "Unsharded Grad": "unsharded_grads",
    "Optstate": "optimizer", "OptState": "optimizer", "Activation": "activations", "Temp": "temporaries",
    "Buffer": "buffers", "All Gather": "all_gather", "Reduce Scatter": "reduce_scatter", "Inputs": "inputs",
    "Other": "other",
}


def check_tracker(stage: int) -> None:
    """Fail with tracker_unavailable when torch's private memory trackers for `stage` are missing or changed."""
    try:
        torch_compat.check("mem_tracker")
        if stage >= 2:
            torch_compat.check("fsdp_mem_tracker")
    except torch_compat.TorchInternalsMoved as exc:
        raise WorkerError("tracker_unavailable", f"this torch has no usable memory tracker for stage {stage}: {exc}") \
            from None


def start_tracker(stage: int, engine: Engine, tokens: Any, targets: Any,
                  observe: Callable[[Any], Any] | None = None) -> Any:
    """The tracker of `stage`, told about everything that exists before the step: model, optimizer, batch.

    observe(tracker): called before the tracker counts anything (a module_ledger.ModuleLedger listens from there)."""
    if stage >= 2:
        tracker = torch_compat.fsdp_mem_tracker(engine.train_model, engine.optimizer)
        if observe is not None:
            observe(tracker)
        tracker.track_inputs((tokens, targets))
    else:
        tracker = torch_compat.mem_tracker()
        if observe is not None:
            observe(tracker)
        tracker.track_external(engine.train_model, engine.optimizer, tokens, targets)
    return tracker


def categories(snap: dict) -> dict[str, int]:
    """A tracker snapshot of one device as protocol categories, with "total"."""
    out: dict[str, int] = {"total": 0}
    for key, value in snap.items():
        name = getattr(key, "value", key)
        if name == "Total":
            out["total"] = int(value)
        else:
            cat = CATEGORIES.get(name, str(name).lower().replace(" ", "_"))
            out[cat] = out.get(cat, 0) + int(value)
    return out


def current(tracker: Any, device: Any) -> dict[str, int]:
    """The tracker's bytes on `device` now, by protocol category, with "total"."""
    return categories(tracker.get_tracker_snapshot("current").get(device, {}))


class PhasePeaks:
    """Per-phase peaks from one tracker: its running peak restarts from the current total at each phase start; a phase
    that comes again (gradient accumulation: one forward and backward per micro-batch) keeps its highest."""

    def __init__(self, tracker: Any, device: Any, ledger: Any = None) -> None:
        self.tracker, self.device, self.ledger = tracker, device, ledger  # ledger: a ModuleLedger, told each phase
        self.current: str | None = None
        self.peaks: dict[str, dict[str, int]] = {}

    def start(self, name: str | None) -> None:
        kept = False
        if self.current is not None:  # a phase met again (the next micro-batch's forward) keeps its highest peak
            snap = categories(self.tracker.get_tracker_snapshot("peak").get(self.device, {}))
            if snap["total"] >= self.peaks.get(self.current, {"total": -1})["total"]:
                self.peaks[self.current] = snap
                kept = True
        if self.ledger is not None:
            self.ledger.mark(self.current, name, kept)
        self.current = name
        if name is not None:
            torch_compat.restart_peak(self.tracker)

    def overall(self) -> tuple[int, dict[str, int]]:
        cats = dict(self.peaks[self.peak_phase])
        return cats.pop("total"), cats

    @property
    def peak_phase(self) -> str:
        """The phase whose peak is the step's."""
        return max(self.peaks, key=lambda n: self.peaks[n]["total"])


class Sampler(threading.Thread):
    """Streams the rank's current tracked bytes while the measured step runs."""

    def __init__(self, read: Callable[[], int], emit: Callable[[Any], None], stage: int, rank: int) -> None:
        super().__init__(daemon=True)
        self.read, self.emit, self.stage, self.rank = read, emit, stage, rank
        self.stop = threading.Event()
        self.t0 = time.perf_counter()

    def sample(self) -> None:
        try:
            value = int(self.read())
        except Exception:  # the tracker's dict may change under us; skip one tick
            return
        self.emit(Sample(stage=self.stage, rank=self.rank, t=time.perf_counter() - self.t0, bytes=max(0, value)))

    def run(self) -> None:
        while not self.stop.wait(SAMPLE_INTERVAL_S):
            self.sample()


@contextmanager
def streaming(tracker: Any, device: Any, emit: Callable[[Any], None], stage: int, rank: int,
              on: bool) -> Iterator[None]:
    """Sample the tracker's total on `device` while the block runs (when `on`): the curve and the reported peak
    are one kind of figure. One sample at the start and one at the end, whatever happens in between."""
    if not on:
        yield
        return
    sampler = Sampler(lambda: torch_compat.current_total(tracker, device), emit, stage, rank)
    sampler.sample()
    sampler.start()
    try:
        yield
    finally:
        sampler.stop.set()
        sampler.join()
        sampler.sample()


def file_kept_unsharded_storages(tracker: Any, model: Any) -> None:
    """Tell an FSDPMemTracker entered after an untracked warm-up what a tracked one would have left it knowing.

    FSDP2 keeps each unsharded parameter's storage from step to step (freed to 0 bytes, regrown at each
    all-gather), and the tracker files it as an unsharded parameter the first time a pre-forward hook sees it.
    Unknown to the tracker, the next all-gather's copy-out would file those bytes as activations until the hook
    relabels them, so a forward peak at that moment would split differently. Everything else the warm-up keeps
    (sharded parameters and gradients, optimizer states, buffers, inputs) the tracker picks up on entry."""
    for param in torch_compat.unsharded_params(model):
        torch_compat.file_as_unsharded_param(tracker, param)
