"""The Measure tab's two tables: each rank of the last run, and the three tiers side by side per stage."""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ...core import peak
from ...core.accounting import STAGES, Breakdown
from ...core.evidence import EvidenceRecord
from ...core.plan import Plan
from ...measure.protocol import Result
from ...measure.rules import difference_pct, predicted_states, table_unit
from ..base import i18n
from ..base.style import ERROR_COLOR, OK_COLOR
from .fmt import fmt_in, fmt_percent
from .records import record_label

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")



def predicted_peak(plan: Plan, stage: int) -> int | None:
    """The predicted peak of a stage's step (activations and buffers on top of the states), or None when
    the core cannot predict it (the comparison shows "—" then)."""
    try:
        return peak.predicted_peak(plan, stage).total_bytes
    except (ValueError, ArithmeticError):
        return None


def _table(name: str, columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
    table.setAlternatingRowColors(True)
    table.verticalHeader().hide()
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
    table.setMinimumHeight(90)
    return table


def table_text(table: QTableWidget) -> list[list[str]]:
    """A table as text, header first (what a user would copy)."""
    head = [table.horizontalHeaderItem(c).text() if table.horizontalHeaderItem(c) else ""
            for c in range(table.columnCount())]
    return [head] + [[table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
                     for r in range(table.rowCount())]


def _headers(table: QTableWidget, headers: list[tuple[str, str]]) -> None:
    for col, (text, tip) in enumerate(headers):
        item = QTableWidgetItem(text)
        item.setToolTip(tip)
        table.setHorizontalHeaderItem(col, item)


class RankResults:
    """Every rank of the last run: peak, states measured and predicted, their difference, DDP's buckets."""

    def __init__(self) -> None:
        self.table = _table("measureResults", 7)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.results: list[Result] = []
        self.family = "GB"
        self.source = "measured"
        self.retranslate()

    def retranslate(self) -> None:
        sim = self.source == "simulated"
        _headers(self.table, [
            (translate("Results", "Stage"), translate("Results", "ZeRO stage (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 and 3 = FSDP2)")),
            (translate("Results", "Rank"), translate("Results", "Rank of the run")),
            (translate("Results", "Peak\nof the step"), translate("Results", "Tracked peak of the step: model states, activations, temporaries and buffers")),
            (translate("Results", "States\nsimulated") if sim else translate("Results", "States\nmeasured"),
             translate("Results", "Parameters, gradients and optimizer state at rest after the optimizer step, from live tensors")),
            (translate("Results", "States\npredicted"), translate("Results", "The same, predicted by the torch profile for the run's shapes and ranks")),
            (translate("Results", "Difference\nvs torch profile"), translate("Results", "(run − predicted) / predicted states")),
            (translate("Results", "DDP buckets\nrun / pred."),
             translate("Results", "DDP's gradient buckets (stages 0 and 1), from the run / predicted; the Plan tab's bars include them")),
        ])
        self.show(self.results, self.family)

    def show(self, results: list[Result], family: str) -> None:
        self.results, self.family = list(results), family
        self.source = results[0].source if results else self.source
        self.table.setRowCount(len(results))
        if not results:
            return
        largest = max(max(r.peak_bytes, r.states.total, r.predicted_states.total) for r in results)
        unit = table_unit(largest, family)
        for row, r in enumerate(results):
            d = difference_pct(r.states.total, r.predicted_states.total)
            buckets = "—" if r.comm_buffers is None else fmt_in(r.comm_buffers, unit)
            if r.comm_buffers is not None and r.predicted_comm_buffers is not None:
                number = fmt_in(r.comm_buffers, unit).rsplit(" ", 1)[0]
                buckets = f"{number} / {fmt_in(r.predicted_comm_buffers, unit)}"  # one unit for the pair
            cells = [str(r.stage), str(r.rank), fmt_in(r.peak_bytes, unit), fmt_in(r.states.total, unit),
                     fmt_in(r.predicted_states.total, unit), fmt_percent(d), buckets]
            tip = "<br>".join([
                "<b>" + html.escape(i18n.stage_short(r.stage) + " · " + translate("Results", "rank {r}").format(r=r.rank)) + "</b>",
                *(html.escape(translate("Results", "{what}: run {m}, predicted {p}").format(
                    what=i18n.component_label(k), m=i18n.fmt_exact_bytes(getattr(r.states, k)),
                    p=i18n.fmt_exact_bytes(getattr(r.predicted_states, k)))) for k in ("params", "grads", "optimizer")),
                html.escape(translate("Results", "Peak of the step: {v} (activations and temporaries included)").format(
                    v=i18n.fmt_exact_bytes(r.peak_bytes))),
            ] + ([html.escape(translate("Results", "Step time: {t}").format(t=i18n.fmt_seconds(r.step_s)))] if r.step_s is not None else []))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(RIGHT if col >= 2 else Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(tip)
                if col == 5 and d is not None:
                    item.setForeground(pg.mkColor(OK_COLOR if abs(d) < 0.005 else ERROR_COLOR))
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()


class TierComparison:
    """Per stage: computed states (the chart's profile), the torch profile, the predicted peak, then the
    simulated and measured peaks and states with their differences in %. Each column names its source."""

    def __init__(self) -> None:
        self.table = _table("evidenceComparison", 8)
        self.plan: Plan | None = None
        self.breakdown: Breakdown | None = None
        self.records: list[EvidenceRecord] = []
        self.table.setRowCount(len(STAGES))

    def set_plan(self, plan: Plan | None, breakdown: Breakdown | None) -> None:
        self.plan, self.breakdown = plan, breakdown
        self.refresh()

    def set_records(self, records: list[EvidenceRecord]) -> None:
        self.records = list(records)
        self.refresh()

    def _record(self, kind: str) -> EvidenceRecord | None:
        return next((r for r in self.records if r.kind == kind), None)

    def headers(self) -> list[tuple[str, str]]:
        profile = i18n.profile_short(self.plan.profile.value) if self.plan is not None else ""
        sim, meas = self._record("simulated"), self._record("measured")
        none = translate("Results", "no run for this plan yet")
        return [
            (translate("Results", "Stage"), translate("Results", "ZeRO stage")),
            (translate("Results", "Computed\nstates"), translate("Results", "Model states of the largest rank, computed with the {profile} profile (the bars)").format(
                profile=profile)),
            (translate("Results", "Torch profile\nstates"), translate("Results", "Model states of the largest rank as PyTorch's engines keep them "
                                             "(computed; the reference for every % here)")),
            (translate("Results", "Predicted\npeak"), translate("Results", "The computed peak of the step: states, activations and buffers")),
            (translate("Results", "Simulated\npeak"), record_label(sim) if sim else none),
            (translate("Results", "Simulated\nstates (Δ)"), (record_label(sim) if sim else none) + " — " + translate("Results", "Δ vs the torch profile")),
            (translate("Results", "Measured\npeak (Δ)"), (record_label(meas) if meas else none) + " — " + translate("Results", "Δ vs the simulated peak")),
            (translate("Results", "Measured\nstates (Δ)"), (record_label(meas) if meas else none) + " — " + translate("Results", "Δ vs the torch profile")),
        ]

    def refresh(self) -> None:
        _headers(self.table, self.headers())
        plan, b = self.plan, self.breakdown
        if plan is None or b is None:
            return
        family = "GB" if plan.units == "GB" else "GiB"
        torch_states = predicted_states(plan, STAGES, plan.dp)
        sim, meas = self._record("simulated"), self._record("measured")
        peaks = {s: predicted_peak(plan, s) for s in STAGES}
        figures = [b.stage(s).total_bytes for s in STAGES] + list(torch_states.values())
        for rec in (sim, meas):
            for st in rec.stages if rec else []:
                figures += [st.peak_bytes, st.states_bytes]
        unit = table_unit(max(figures + [1]), family)

        def with_diff(value: int, reference: int | None) -> str:
            if reference is None:
                return fmt_in(value, unit)
            return f"{fmt_in(value, unit)}\n{fmt_percent(difference_pct(value, reference))}"  # Δ under the figure

        for row, s in enumerate(STAGES):
            sim_st = sim.stage(s) if sim else None
            meas_st = meas.stage(s) if meas else None
            cells = [
                i18n.stage_short(s),
                fmt_in(b.stage(s).total_bytes, unit),
                fmt_in(torch_states[s], unit),
                fmt_in(peaks[s], unit) if peaks[s] is not None else "—",
                fmt_in(sim_st.peak_bytes, unit) if sim_st else "—",
                with_diff(sim_st.states_bytes, sim_st.predicted_bytes) if sim_st else "—",
                with_diff(meas_st.peak_bytes, sim_st.peak_bytes if sim_st else None) if meas_st else "—",
                with_diff(meas_st.states_bytes, meas_st.predicted_bytes) if meas_st else "—",
            ]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(RIGHT if col else Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()

