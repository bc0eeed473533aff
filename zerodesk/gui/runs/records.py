"""The runs' records of the plan: kept on core.evidence's shelf, in step with the plan model, and drawn
on the Plan chart (the link between the run controller, the shelf and the chart).

Results of a run taken for the plan as planned go onto the shelf as they arrive (a stage at a time)
and are drawn beside the bars as their own marker kind, compared with the torch profile's
prediction for the same run. When the plan changes, records of the old plan are set aside with a
notice, and come back when it changes back. Neither the tab nor the chart knows the other.
"""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import QCoreApplication, QObject, Signal

from ...core.evidence import EvidenceRecord, EvidenceShelf, run_key
from ...core.plan import Plan
from ...core.plan_model import PlanModel
from ..base import i18n

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


def record_label(record: EvidenceRecord) -> str:
    """'measured · CPU, 2 ranks · torch 2.13.0 · 2026-11-29' — a series names its source."""
    device = {"cpu": translate("Evidence", "CPU"), "cuda": translate("Evidence", "CUDA")}.get(record.device, record.device)
    if record.kind == "simulated":
        head = translate("Evidence", "simulated · rank 0 of {n}, fake tensors").format(n=i18n.fmt_int(record.ranks))
    else:
        head = translate("Evidence", "measured · {device}, {n} ranks").format(device=device, n=record.ranks)
    return f"{head} · torch {record.torch} · {record.date[:10]}"


class RunRecords(QObject):
    """Keeps the shelf in step with the plan and the runs, and draws the shown records on `chart`."""

    notice = Signal(str)  # one sentence for the status bar: evidence set aside or restored
    recordsChanged = Signal()  # the shown records changed (the tab's comparison table follows)

    def __init__(self, chart, model: PlanModel | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.controller = None
        self.shelf = EvidenceShelf()
        self._run_key: str | None = None
        if model is not None:
            model.events.plan.connect(lambda plan, _b: self.set_plan(plan))

    def attach(self, controller) -> None:
        """Follow a RunController's runs (attached when the first run can start)."""
        self.controller = controller
        controller.runStarted.connect(self._on_run_started)
        controller.changed.connect(self._on_run_changed)

    # -- the plan ------------------------------------------------------------------------------------
    def set_plan(self, plan: Plan | None) -> None:
        if plan is None:
            return
        change = self.shelf.set_plan(plan)
        if not change.set_aside and not change.restored:
            return
        if change.restored:
            self.notice.emit(self.tr("This plan's earlier results are back on the chart: {what}.").format(
                what=", ".join(record_label(r) for r in change.restored)))
        else:
            self.notice.emit(self.tr("The plan changed: {what} no longer match it and were taken off the chart "
                                     "(they come back if the plan changes back).").format(
                what=", ".join(record_label(r) for r in change.set_aside)))
        self.redraw()

    def load(self, plan: Plan) -> None:
        """A plan file was opened (or a new plan made): its records replace the session's."""
        self.shelf.load(plan.evidence)
        self.shelf.key = None
        self.shelf.set_plan(plan)
        self.redraw()

    def records_for_file(self) -> list[EvidenceRecord] | None:
        return self.shelf.shown() or None

    # -- runs ------------------------------------------------------------------------------------------
    def _on_run_started(self) -> None:
        job = self.controller.job
        self._run_key = run_key(job.plan) if job is not None and job.on_chart else None

    def _on_run_changed(self) -> None:
        if self._run_key is None:
            return
        date = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
        record = self.controller.state.to_record(self._run_key, date)
        if record is None:
            return
        old = self.shelf.get(record.kind, record.key)
        if old is not None and old.stages == record.stages:
            return
        self.shelf.put(record)
        if record.key == self.shelf.key:
            self.redraw()

    # -- drawing ----------------------------------------------------------------------------------------
    def redraw(self) -> None:
        if not self.chart.measured() and not self.shelf.shown():
            return  # nothing drawn, nothing to draw: spare the chart a repaint
        self.chart.clear_measured()
        for record in self.shelf.shown():
            label = record_label(record)
            for s in record.stages:
                self.chart.overlay_measured(s.stage, s.peak_bytes, s.states_bytes, label, kind=record.kind,
                                            reference_bytes=s.predicted_bytes)
        self.recordsChanged.emit()
