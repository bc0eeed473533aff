"""What a run has said so far, reduced from its protocol messages. Torch-free and Qt-free.

`RunState.apply(message)` is the only way in: the CLI (command.py, sim_command.py) and the
window (gui/runs/controller.py) feed it the messages a ProtocolReader gives, and read back
phases per stage, results, overall progress and the outcome. Errors made by the front end
itself (cancel, watchdog, a crash) come in as Error messages too, so every ending is one path.
"""

from __future__ import annotations

from dataclasses import dataclass

from .protocol import Done, Error, Message, PhaseMsg, Result, Sample, Started

# Phase -> (start, end) of a stage's share of progress: set-up, warm-up, then the measured step.
PHASE_SPAN = {"setup": (0.0, 0.1), "warmup": (0.1, 0.45), "forward": (0.45, 0.7), "backward": (0.7, 0.85),
              "optimizer": (0.85, 1.0)}


@dataclass(frozen=True)
class StageStatus:
    """One stage of a run: 'waiting', 'running' (with its phase and progress in it), 'done' or 'stopped'."""

    state: str
    phase: str | None = None
    progress: float = 0.0


class RunState:
    """The reducer. `stages` and `ranks` are what was asked; Started may narrow them."""

    def __init__(self, stages: list[int] | tuple[int, ...] = (0, 1, 2, 3), ranks: int = 1,
                 kind: str = "measured") -> None:
        self.stages = list(stages)
        self.ranks = ranks
        self.kind = kind  # "measured" or "simulated"
        self.started: Started | None = None
        self.results: dict[tuple[int, int], Result] = {}
        self.samples = 0
        self.outcome: Done | Error | None = None
        self._phase: dict[int, tuple[str, float]] = {}

    # -- the reducer -----------------------------------------------------------------------------
    def apply(self, msg: Message) -> bool:
        """Take one message; False when it changes nothing (anything after the outcome, a finished stage's phase)."""
        if self.outcome is not None:
            return False
        if isinstance(msg, Started):
            self.started = msg
            self.stages = list(msg.stages)
            self.ranks = msg.ranks
            self.kind = msg.source
        elif isinstance(msg, PhaseMsg):
            if self._stage_done(msg.stage):
                return False
            self._phase[msg.stage] = (msg.phase, msg.progress)
        elif isinstance(msg, Sample):
            self.samples += 1
        elif isinstance(msg, Result):
            self.results[(msg.stage, msg.rank)] = msg
        elif isinstance(msg, (Done, Error)):
            self.outcome = msg
        return True

    # -- what it says ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def succeeded(self) -> bool:
        return isinstance(self.outcome, Done) and bool(self.results)

    @property
    def error(self) -> Error | None:
        return self.outcome if isinstance(self.outcome, Error) else None

    @property
    def reporting_ranks(self) -> int:
        """Results expected per stage: every rank measures; a simulation reports rank 0 of its Nd."""
        return 1 if self.kind == "simulated" else max(1, self.ranks)

    def _stage_done(self, stage: int) -> bool:
        return sum(1 for s, _ in self.results if s == stage) >= self.reporting_ranks

    def stage_status(self, stage: int) -> StageStatus:
        if self._stage_done(stage):
            return StageStatus("done", None, 1.0)
        if self.error is not None and stage in self.stages:
            return StageStatus("stopped")
        if stage in self._phase:
            phase, progress = self._phase[stage]
            return StageStatus("running", phase, progress)
        return StageStatus("waiting")

    def current_stage(self) -> int | None:
        """The first asked stage that is under way (has a phase, no full results)."""
        return next((s for s in self.stages if self.stage_status(s).state == "running"), None)

    @property
    def progress(self) -> float:
        """0..1 over the asked stages, each stage weighted alike; 1 on Done."""
        if isinstance(self.outcome, Done):
            return 1.0
        if not self.stages:
            return 0.0
        total = 0.0
        for s in self.stages:
            st = self.stage_status(s)
            if st.state == "done":
                total += 1.0
            elif st.state == "running" and st.phase in PHASE_SPAN:
                lo, hi = PHASE_SPAN[st.phase]
                total += lo + (hi - lo) * st.progress
        return total / len(self.stages)

    def sorted_results(self) -> list[Result]:
        return [self.results[k] for k in sorted(self.results)]

    def stage_results(self, stage: int) -> list[Result]:
        return [r for (s, _), r in sorted(self.results.items()) if s == stage]

    # -- what it leaves -------------------------------------------------------------------------
    def to_record(self, key: str, date: str):
        """The finished stages as an EvidenceRecord for the plan `key` (None before any stage finished).

        Per stage the largest rank: the peak, and the states with DDP's buckets (as the Plan tab's bars
        count them) beside the torch profile's prediction for the same rank."""
        from ..core.evidence import EvidenceRecord, StageEvidence

        if self.started is None:
            return None
        stages = []
        for s in sorted({s for s, _ in self.results}):
            ranks = self.stage_results(s)
            if len(ranks) < self.reporting_ranks:
                continue
            stages.append(StageEvidence(
                stage=s, peak_bytes=max(r.peak_bytes for r in ranks),
                states_bytes=max(r.states.total + (r.comm_buffers or 0) for r in ranks),
                predicted_bytes=max(r.predicted_states.total + (r.predicted_comm_buffers or 0) for r in ranks)))
        if not stages:
            return None
        st = self.started
        return EvidenceRecord(kind=self.kind, key=key, torch=st.torch, device=st.device, device_name=st.device_name,
                              ranks=st.ranks, date=date, stages=stages)
