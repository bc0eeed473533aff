"""Simulated and measured results kept with the plan they belong to. Pure Python: no Qt, no torch.

A record holds, per stage, the largest rank's peak and model states from one run, with where it
ran (torch version, device, ranks) and when. It belongs to a plan through `run_key`: the shapes,
sequence, batch and Nd a run depends on (not the units, the profile or the GPU). The shelf keeps
every record of this session; the ones whose key matches the current plan are shown and saved, the
others wait, and come back when the plan changes back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from .plan import Plan

Tier = Literal["simulated", "measured"]


class StageEvidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: int = Field(ge=0, le=3)
    peak_bytes: int = Field(ge=0, description="tracked peak of the step, largest rank")
    states_bytes: int = Field(ge=0, description="model states at rest, largest rank (with DDP's buckets, as the bars)")
    predicted_bytes: int = Field(ge=0, description="the torch profile's states for the same rank")


class EvidenceRecord(BaseModel):
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


def run_key(plan: Plan) -> str:
    """What a simulation or measurement depends on: the architecture (or P), sequence, batch and Nd."""
    arch = plan.model.architecture
    return json.dumps([arch.model_dump() if arch else plan.params, plan.seq_len, plan.micro_batch, plan.dp],
                      sort_keys=True)


@dataclass(frozen=True)
class ShelfChange:
    """What a plan change did to the evidence: records set aside and records brought back."""

    set_aside: tuple[EvidenceRecord, ...] = ()
    restored: tuple[EvidenceRecord, ...] = ()


class EvidenceShelf:
    """Every record of the session, newest per (kind, key); `shown()` are those of the current plan."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str], EvidenceRecord] = {}
        self.key: str | None = None

    def set_plan(self, plan: Plan) -> ShelfChange:
        key = run_key(plan)
        if key == self.key:
            return ShelfChange()
        before, self.key = self.shown(), key
        return ShelfChange(tuple(before), tuple(self.shown()))

    def put(self, record: EvidenceRecord) -> None:
        self._records[(record.kind, record.key)] = record

    def load(self, records: list[EvidenceRecord] | None) -> None:
        """A plan file's records replace the session's (a new document)."""
        self._records.clear()
        for r in records or []:
            self.put(r)

    def shown(self) -> list[EvidenceRecord]:
        order = {"simulated": 0, "measured": 1}
        return sorted((r for (kind, key), r in self._records.items() if key == self.key), key=lambda r: order[r.kind])

    def get(self, kind: str, key: str | None = None) -> EvidenceRecord | None:
        """The record of `kind` for `key` (default: the current plan's)."""
        return self._records.get((kind, key if key is not None else self.key or ""))
