"""Where a run's peak is, module by module: the largest parts of one stage's simulated or measured peak (embedding,
each block's attention and MLP, head, loss, ...), with each term linking to its glossary claim.

The run asks the worker for the peak by module (Result.by_module, measure/module_report.py); the window says which
stage is under the cursor on the Plan chart (set_stage), and opens the claim a link names (claimRequested).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from ...measure.module_report import SHOWN
from ...measure.protocol import Result
from ...measure.rules import table_unit
from ..base import i18n
from ..glossary.claims import component_claim_id
from .fmt import fmt_in
from .results import RIGHT, _table

TOP = 5
BY_MODULE_CLAIM = "peak-by-module"
# the tracker's categories as the chart's components (their labels and glossary claims)
COMPONENT_OF = {"unsharded_params": "gathered_params"}


def component_of(category: str) -> str:
    return COMPONENT_OF.get(category, category)


class ModuleBreakdown(QWidget):
    claimRequested = Signal(str)  # a glossary claim id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("moduleBreakdown")
        self._results: dict[int, Result] = {}  # stage -> the result with the largest peak (its largest rank)
        self._stage: int | None = None
        self._family = "GB"
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        self.title.setObjectName("moduleBreakdownTitle")
        self.title.setWordWrap(True)
        self.title.linkActivated.connect(self.claimRequested)
        self.table = _table("moduleBreakdownTable", 4)
        v.addWidget(self.title)
        v.addWidget(self.table, 1)
        self.refresh()

    def kind_label(self, kind: str) -> str:
        return {"embedding": self.tr("embedding"), "attention": self.tr("attention"), "mlp": self.tr("MLP"),
                "block": self.tr("block (norms, residual adds)"), "head": self.tr("head"),
                "model": self.tr("rest of the model"), "loss": self.tr("loss"), "optimizer": self.tr("optimizer step"),
                "buckets": self.tr("DDP gradient buckets"), "other": self.tr("other")}.get(kind, kind)

    def part_label(self, module: str, kind: str) -> str:
        """A module's path as the model names it; what runs outside every module by its kind, in words."""
        if not module:
            return self.tr("(rest of the model)")
        return f"({self.kind_label(kind)})" if module.startswith("(") else module

    # -- inputs -------------------------------------------------------------------------------------------------
    def set_results(self, results: list[Result], family: str = "GB") -> None:
        """A run's results: for each stage, the rank with the largest peak that reported its parts."""
        self._results = {}
        for r in results:
            if r.by_module and (r.stage not in self._results or r.peak_bytes > self._results[r.stage].peak_bytes):
                self._results[r.stage] = r
        self._family = family
        if self._stage not in self._results:
            self._stage = max(self._results, default=None)
        self.refresh()

    def set_stage(self, stage: int) -> None:
        """The stage under the cursor (the Plan chart's): shown when the run has it."""
        if stage in self._results and stage != self._stage:
            self._stage = stage
            self.refresh()

    @property
    def stage(self) -> int | None:
        return self._stage

    # -- rendering ----------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        result = self._results.get(self._stage) if self._stage is not None else None
        if result is None:
            self.title.setText(self.tr("Simulate or measure to see where the peak's memory is, module by module; "
                                       "hover a stage on the Plan chart to show its parts."))
            self.table.setRowCount(0)
            return
        shares = result.by_module[:TOP]
        unit = table_unit(result.peak_bytes, self._family)
        cats = [c for c in SHOWN if any(s.bytes.get(c) for s in shares)]
        links = " · ".join(f'<a href="{component_claim_id(component_of(c))}">'
                           f"{html.escape(i18n.component_label(component_of(c)))}</a>" for c in cats)
        tier = self.tr("simulated") if result.source == "simulated" else self.tr("measured")
        self.title.setText(
            self.tr('{stage}, {tier} peak {peak}: its <a href="{claim}">largest parts by module</a> '
                    "(terms: {links})").format(
                stage=html.escape(i18n.stage_short(result.stage)), tier=tier, claim=BY_MODULE_CLAIM,
                peak=html.escape(fmt_in(result.peak_bytes, unit)), links=links))
        with_unit = any(s.unit is not None for s in shares)
        heads = [self.tr("Part"), self.tr("Kind"), *([self.tr("FSDP2 unit")] if with_unit else []), self.tr("Total"),
                 *(i18n.component_label(component_of(c)) for c in cats)]
        self.table.setColumnCount(len(heads))
        self.table.setHorizontalHeaderLabels(heads)
        self.table.setRowCount(len(shares))
        for row, s in enumerate(shares):
            cells = [self.part_label(s.module, s.kind), self.kind_label(s.kind),
                     *([s.unit or self.tr("(root)")] if with_unit else []),
                     fmt_in(s.total, unit), *(fmt_in(s.bytes.get(c, 0), unit) for c in cats)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col >= len(cells) - len(cats) - 1:
                    item.setTextAlignment(RIGHT)
                self.table.setItem(row, col, item)
