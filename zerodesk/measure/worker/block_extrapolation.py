"""A model of L identical blocks simulated from the same model cut to 3, 4 and 5 blocks, exactly, or not at all.

Every figure of a simulated step comes from one memory tracker: an ordered stream of updates (a storage's bytes
added, freed, resized, moved to another category), of ops (after each, the tracker's running peak) and of phase
starts. A block more adds the same updates at the same places: the stream of 4 blocks is the stream of 3 with
segments inserted (one block's updates in the forward, one in the backward, its states where the tracker files
them). So the stream of 3 blocks and those segments, found by diffing it with the stream of 4, give the stream of
L blocks; it is used only where inserting them twice gives the recorded stream of 5 blocks update for update, and
where replaying each recorded stream through the tracker's own bookkeeping gives that run's figures to the byte.
Replaying the stream of L blocks then gives the step's peak, its categories and the phases' peaks at every op, as
the full simulation's tracker would. The states at rest and the predicted states are sums over the tensors: exactly
affine in the block count, which the three runs must show, field by field, or nothing is extrapolated.

It applies only where every block is the same: one FSDP2 unit per block (or the root alone), the same recomputation
on every block, a model given by its architecture whose layers are all of one type; anything else, or any check
that fails, and the caller simulates the full model.
"""

from __future__ import annotations

from typing import Any, Callable

from ...core.knobs import recompute_per_block
from ...core.plan import Plan
from ..protocol import Result
from . import torch_compat, trackers

SHORT = 3  # the shortest model simulated: a first, a middle and a last block
GRAM = 8  # items that must recur after an inserted segment for a place to be tried
SHORTEST_EXTRAPOLATED = 16  # fewer blocks: three short runs (3 + 4 + 5 blocks, each built, sharded and warmed) cost about what the full one does

_OP = ("op",)
_PHASE = "phase"
_EXTRAPOLATED = ("peak_bytes", "peak", "phase_peaks")  # from the replayed stream; the other figures affine
_NOT_FIGURES = ("step_s", "by_module")


class Recording:
    """One measured step's tracker stream (step.measure_stage's `recording`): updates, ops and phase starts, in order."""

    def __init__(self) -> None:
        self.items: list[tuple] = []
        self.ref_class: list = []

    def attach(self, tracker: Any) -> None:
        """Record from now on: call it before the tracker counts anything (start_tracker's observe)."""
        self.items = []  # a stage measured again starts a new stream
        self.ref_class = torch_compat.tracker_ref_class(tracker)
        torch_compat.record_tracker(tracker, self.items.append, lambda: self.items.append(_OP))

    def marking(self, start: Callable[[str | None], None]) -> Callable[[str | None], None]:
        def mark(phase: str | None) -> None:
            self.items.append((_PHASE, phase))
            start(phase)

        return mark


def replay(items: list[tuple], ref_class: list, device: Any) -> tuple[int, dict, dict]:
    """(peak_bytes, peak, phase_peaks) of a recorded stream, as step.measure_stage reads them off the tracker."""
    tracker = torch_compat.ReplayedTracker(ref_class)
    peaks = trackers.PhasePeaks(tracker, device)
    for item in items:
        if item is _OP:
            tracker.op()
        elif item[0] == _PHASE:
            peaks.start(item[1])
        else:
            tracker.update(item)
    peak_bytes, peak = peaks.overall()
    return peak_bytes, peak, peaks.peaks


def insertions(short: list[tuple], longer: list[tuple], first: bool = False) -> list[tuple[int, list[tuple]]] | None:
    """[(index in short, segment)] that make `longer` from `short` by insertions alone; None where that fails.

    Left to right: where the two part, the segment ends at one of the places where the next GRAM items of `short`
    recur in `longer`: the one after which they agree longest, or with `first` the nearest after which they agree
    for GRAM items (two insertions close together, or one at the end of a run of like items, each read one way).
    The caller checks the result (expand): a segment placed elsewhere than the block's own place can only fail
    that check, never mislead."""
    numbers: dict[tuple, int] = {}
    a = [numbers.setdefault(item, len(numbers)) for item in short]
    b = tuple(numbers.setdefault(item, len(numbers)) for item in longer)
    places: dict[tuple, list[int]] = {}
    for p in range(len(b) - GRAM + 1):
        places.setdefault(b[p:p + GRAM], []).append(p)
    found = []
    i = j = 0
    n, m = len(a), len(b)
    while i < n:
        if j < m and a[i] == b[j]:
            i, j = i + 1, j + 1
            continue
        spare = (m - j) - (n - i)  # items of `longer` still to insert
        best = None
        for p in places.get(tuple(a[i:i + GRAM]), ()) if n - i >= GRAM else range(j + 1, j + spare + 1):
            if j < p <= j + spare:
                run = _agreement(a, i, b, p)
                if best is None or run > best[0]:
                    best = (run, p)
                if first and run >= min(GRAM, n - i):
                    break
        if best is None:
            return None
        found.append((i, longer[j:best[1]]))
        j = best[1]
    if j < m:
        found.append((n, longer[j:]))
    return found


def runs_apart(short: list[tuple], inserted: list[tuple[int, list[tuple]]]) -> list[tuple[int, list[tuple]]]:
    """The same insertions with a segment's leading or trailing ops that track nothing, where they lengthen a run of
    such ops in `short`, inserted at that run's start or end instead: the same `longer` once, but a block's own
    updates and the run's share apart when inserted again."""
    out = []
    for i, segment in inserted:
        lead = 0
        while lead < len(segment) and i > 0 and segment[lead] is _OP and short[i - 1] is _OP:
            lead += 1
        trail = 0
        while trail < len(segment) - lead and i < len(short) and segment[len(segment) - 1 - trail] is _OP \
                and short[i] is _OP:
            trail += 1
        if lead:
            start = i - 1
            while start > 0 and short[start - 1] == short[i - 1]:
                start -= 1
            out.append((start, segment[:lead]))
        if len(segment) - lead - trail:
            out.append((i, segment[lead:len(segment) - trail]))
        if trail:
            end = i
            while end < len(short) and short[end] == short[i]:
                end += 1
            out.append((end, segment[len(segment) - trail:]))
    return sorted(out, key=lambda ins: ins[0])  # stable: segments at one place keep their order


def _agreement(a: list[int], i: int, b: tuple, p: int) -> int:
    """How many items a[i:] and b[p:] have in common from the start (slices compared in doubling lengths)."""
    low, step = 0, 1
    while True:
        high = low + step
        if a[i + low:i + high] != list(b[p + low:p + high]) or i + high > len(a) or p + high > len(b):
            break
        low, step = high, step * 2
    while step > 1:  # the last doubling overshot: halve back down to the exact run
        step //= 2
        high = low + step
        if i + high <= len(a) and p + high <= len(b) and a[i + low:i + high] == list(b[p + low:p + high]):
            low = high
    return low


def expand(short: list[tuple], inserted: list[tuple[int, list[tuple]]], times: int) -> list[tuple]:
    """`short` with each segment inserted `times` times at its place."""
    out: list[tuple] = []
    at = 0
    for index, segment in inserted:
        out += short[at:index]
        out += segment * times
        at = index
    out += short[at:]
    return out


def eligible(plan: Plan, stage: int) -> bool:
    """Whether the plan's blocks are all alike for the simulation (see the module's doc) and many enough."""
    arch = plan.model.architecture  # the model is built from it whatever else the spec holds
    if stage < 2 or arch is None:
        return False
    if arch.layers < SHORTEST_EXTRAPOLATED or (plan.wrap == "blocks" and plan.wrap_blocks != 1):
        return False
    if len(set(recompute_per_block(plan, arch.layers))) != 1:
        return False
    return _layers_of_one_type(arch)


def _layers_of_one_type(arch: Any) -> bool:
    """transformers' config of the architecture names one type for every layer (or none: all are alike)."""
    if arch.family == "custom":
        return True
    from ...core.hf_config import hf_config_from_architecture
    from .hf_model import hf_config

    try:
        types = getattr(hf_config(hf_config_from_architecture(arch)), "layer_types", None)
    except Exception:  # noqa: BLE001 - a config transformers cannot read: the full simulation reports it
        return False
    return types is None or len(set(types)) == 1


def shortened(plan: Plan, layers: int) -> Plan:
    data = plan.model_dump()
    data["model"]["architecture"]["layers"] = layers
    return Plan.model_validate(data)


def extrapolated(plan: Plan, device: Any, runs: dict[int, tuple[Result, Recording]]) -> Result | None:
    """The Result of plan's full block count from the runs of SHORT, SHORT + 1 and SHORT + 2 blocks; None unless
    every check of the module's doc holds."""
    a, b, c = (runs[k] for k in (SHORT, SHORT + 1, SHORT + 2))
    streams = [run[1].items for run in (a, b, c)]
    for first, apart in ((False, False), (False, True), (True, False), (True, True)):  # readings of the insertions:
        inserted = insertions(streams[0], streams[1], first)  # the first that also makes c counts
        if inserted and apart:
            inserted = runs_apart(streams[0], inserted)
        if inserted and expand(streams[0], inserted, 1) == streams[1] and expand(streams[0], inserted, 2) == streams[2]:
            break
    else:
        return None
    ref_class = a[1].ref_class
    for result, recording in (a, b, c):  # the replay is the tracker's own bookkeeping, checked on every run
        if recording.ref_class != ref_class or \
                replay(recording.items, ref_class, device) != (result.peak_bytes, result.peak, result.phase_peaks):
            return None
    steps = plan.model.architecture.layers - SHORT
    peak_bytes, peak, phase_peaks = replay(expand(streams[0], inserted, steps), ref_class, device)
    dumps = [run[0].model_dump(exclude=set(_EXTRAPOLATED)) for run in (a, b, c)]
    rest = _affine(dumps, steps)
    if rest is None:
        return None
    return Result.model_validate({**rest, "peak_bytes": peak_bytes, "peak": peak, "phase_peaks": phase_peaks})


def _affine(values: list[Any], steps: int) -> Any:
    """values[0] + steps x (values[1] - values[0]) for every integer in three like structures whose integers step
    evenly (values[2] - values[1] == values[1] - values[0]); the rest must be equal. None where they are not."""
    x, y, z = values
    if isinstance(x, dict):
        if not (isinstance(y, dict) and isinstance(z, dict) and list(x) == list(y) == list(z)):
            return None
        out = {}
        for key in x:
            if key in _NOT_FIGURES:
                out[key] = x[key]
                continue
            value = _affine([x[key], y[key], z[key]], steps)
            if value is None and x[key] is not None:
                return None
            out[key] = value
        return out
    if isinstance(x, list):
        if not (isinstance(y, list) and isinstance(z, list) and len(x) == len(y) == len(z)):
            return None
        items = [_affine(list(t), steps) for t in zip(x, y, z)]
        return None if any(i is None and t[0] is not None for i, t in zip(items, zip(x, y, z))) else items
    if type(x) is int and type(y) is int and type(z) is int:
        return x + steps * (y - x) if z - y == y - x else None
    return x if x == y == z else None


def simulate_stage(plan: Plan, device: Any, measure: Callable[..., Result]) -> Result | None:
    """The stage's Result for the full plan from measure(plan cut to k blocks, a Recording) for k = SHORT, SHORT + 1,
    SHORT + 2; None where the plan does not qualify or a check fails (then simulate the full model)."""
    runs = {}
    for layers in (SHORT, SHORT + 1, SHORT + 2):
        recording = Recording()
        try:
            # the last short model's phases are the stage's progress; the ones before it report setup, a third and
            # two thirds of the way through
            preparing = (layers - SHORT + 1) / 3 if layers < SHORT + 2 else None
            runs[layers] = (measure(shortened(plan, layers), recording, preparing=preparing), recording)
        except Exception:  # noqa: BLE001 - a short model that fails: the full one runs, and reports its own failure
            return None
    return extrapolated(plan, device, runs)
