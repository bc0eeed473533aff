"""Simulated and measured results as a plan file keeps them: per stage, the largest rank's peak and
states from one run, with where it ran (torch version, device, ranks) and when. Pure data: no Qt, no torch.

zerodesk.core.evidence ties a record to the plan it was taken for (run_key) and shelves the others.
"""

from __future__ import annotations

from typing import Literal

from .record import ConfigDict, Field, Record

Tier = Literal["simulated", "measured"]


class StageEvidence(Record):
    model_config = ConfigDict(extra="forbid")

    stage: int = Field(ge=0, le=3)
    peak_bytes: int = Field(ge=0, description="tracked peak of the step, largest rank")
    states_bytes: int = Field(ge=0, description="model states at rest, largest rank (with DDP's buckets, as the bars)")
    predicted_bytes: int = Field(ge=0, description="the torch profile's states for the same rank")


class EvidenceRecord(Record):
    model_config = ConfigDict(extra="forbid")

    kind: Tier
    key: str = Field(description="run_key of the plan it was taken for")
    torch: str
    device: str
    device_name: str | None = None
    ranks: int = Field(ge=1, description="ranks of the run (a simulation plays rank 0 of this many)")
    date: str = Field(description="when the run finished, ISO 8601 UTC")
    stages: list[StageEvidence]

    def stage(self, stage: int) -> StageEvidence | None:
        return next((s for s in self.stages if s.stage == stage), None)
