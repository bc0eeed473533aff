"""Simulated and measured results kept with the plan they belong to. Pure Python: no Qt, no torch.

A record (zerodesk.core.evidence_records) holds, per stage, the largest rank's peak and model states
from one run, with where it ran and when. It belongs to a plan through `run_key`: the shapes,
sequence, batch and Nd a run depends on (not the units, the profile or the GPU). The shelf keeps
every record of this session; the ones whose key matches the current plan are shown and saved, the
others wait, and come back when the plan changes back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .evidence_records import EvidenceRecord, StageEvidence, Tier
from .plan import Plan

__all__ = ["EvidenceRecord", "StageEvidence", "Tier", "run_key", "ShelfChange", "EvidenceShelf"]  # records re-exported


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
