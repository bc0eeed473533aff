"""The Fit view's global-batch question: "this many sequences per optimizer step, with the fewest accumulation
steps". A field for the global batch, the core's answer in words (fit.global_batch_fit through FitMapModel), and a
small grid of stages (rows) by recompute modes (columns), each cell "steps × micro-batch", the recommended one bold,
its communication per step in the cell's tooltip. Empty field: no question, nothing shown."""

from __future__ import annotations

import html
import re
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...core.accounting import STAGES
from ...core.fit import RECOMPUTE, FitError, GlobalBatchAnswer
from ...core.plan import Plan
from ..base import i18n
from ..base.style import ERROR_COLOR
from . import texts

MAX_GLOBAL_BATCH = 10**9  # sequences: past any job, and a count Qt's plural forms take (a C int)


class GlobalBatchPanel(QWidget):
    """Asks `answer_for(global_batch)` (FitMapModel.global_batch) for the plan the tab shows (set_plan)."""

    def __init__(self, answer_for: Callable[[int], GlobalBatchAnswer], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("fitGlobalBatchPanel")
        self._answer_for = answer_for
        self._plan: Plan | None = None
        self.answer: GlobalBatchAnswer | None = None
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 4, 0, 0)
        v.setSpacing(4)
        row = QHBoxLayout()
        self.label = QLabel()
        self.field = QLineEdit()
        self.field.setObjectName("fitGlobalBatch")
        self.field.setMaximumWidth(160)
        self.field.setClearButtonEnabled(True)
        self.label.setBuddy(self.field)
        self.field.textChanged.connect(self.refresh)
        row.addWidget(self.label)
        row.addWidget(self.field)
        row.addStretch(1)
        v.addLayout(row)
        self.words = QLabel()
        self.words.setObjectName("fitGlobalBatchAnswer")
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.words)
        self.grid = QTableWidget(len(STAGES), len(RECOMPUTE))
        self.grid.setObjectName("fitGlobalBatchTable")
        self.grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        rows = self.grid.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.grid.fontMetrics().height() + 8)
        for r in range(len(STAGES)):
            for c in range(len(RECOMPUTE)):
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.grid.setItem(r, c, item)
        self.grid.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.grid.setFixedHeight(self.grid.horizontalHeader().sizeHint().height() + rows.length()
                                 + 2 * self.grid.frameWidth())  # four rows, no scrolling
        v.addWidget(self.grid)
        self.retranslate()

    # -- input ---------------------------------------------------------------------------------------
    def set_plan(self, plan: Plan | None) -> None:
        self._plan = plan
        self.refresh()

    def wanted(self) -> int | None:
        """The global batch typed (grouped digits in the UI language allowed); None: empty; ValueError: not one."""
        text = i18n.number_typed(self.field.text()).replace(" ", "")
        if not text:
            return None
        if not re.fullmatch(r"[0-9]{1,10}", text) or not 1 <= int(text) <= MAX_GLOBAL_BATCH:
            raise ValueError(text)
        return int(text)

    def refresh(self) -> None:
        """Answer the typed global batch for the current plan (or say why not)."""
        self.answer = None
        try:
            wanted = self.wanted()
        except ValueError:
            return self._show_error(self.tr("Global batch: type a whole number of sequences from 1 to {top}.").format(
                top=i18n.fmt_int(MAX_GLOBAL_BATCH)))
        plan = self._plan
        if wanted is None or plan is None:
            return self._show_nothing()
        if wanted % plan.dp:
            return self._show_error(self.tr("Global batch: {g} is not a multiple of Nd ({dp}); every rank takes the "
                                            "same number of sequences per step.").format(
                g=i18n.fmt_int(wanted), dp=i18n.fmt_int(plan.dp)))
        try:
            self.answer = self._answer_for(wanted)
        except FitError:  # no GPU memory or nothing to answer: the tab already says why
            return self._show_nothing()
        self._show_answer(plan, self.answer)

    # -- output --------------------------------------------------------------------------------------
    def _show_nothing(self) -> None:
        self.words.setText("")
        self.words.hide()
        self.grid.hide()

    def _show_error(self, text: str) -> None:
        self.words.setText(f'<span style="color:{ERROR_COLOR}">{html.escape(text)}</span>')
        self.words.show()
        self.grid.hide()

    def _show_answer(self, plan: Plan, g: GlobalBatchAnswer) -> None:
        unit = plan.units
        self.words.setText(self.sentence(g, unit))
        self.words.show()
        bold, plain = QFont(self.grid.font()), QFont(self.grid.font())
        bold.setBold(True)
        best = g.recommended
        for c in g.configs:
            item = self.grid.item(c.stage, RECOMPUTE.index(c.recompute))
            if c.accum_steps is None:
                item.setText("—")
                item.setToolTip(self.tr("No micro-batch of it fits, with or without accumulation."))
            else:
                item.setText(f"{i18n.fmt_int(c.accum_steps)} × {i18n.fmt_int(c.micro_batch)}")  # steps × micro-batch
                item.setToolTip(self.tr("{k} steps of micro-batch {mb}; communication per step: {comm}", "",
                                        c.accum_steps).format(
                    k=i18n.fmt_int(c.accum_steps), mb=i18n.fmt_int(c.micro_batch),
                    comm=i18n.fmt_bytes(c.comm_bytes, unit)))
            item.setFont(bold if c == best else plain)
        self.grid.show()

    def sentence(self, g: GlobalBatchAnswer, unit: str) -> str:
        """The answer in words (rich text): the recommended stage, recompute, steps and micro-batch."""
        per_rank = g.global_batch // g.dp
        head = self.tr("Global batch {g} at Nd = {dp}: {n} sequences per rank per step.", "", per_rank).format(
            g=i18n.fmt_int(g.global_batch), dp=i18n.fmt_int(g.dp), n=i18n.fmt_int(per_rank))
        best = g.recommended
        if best is None:
            return html.escape(head + " " + self.tr("Nothing reaches it: no micro-batch of it fits, with or without "
                                                    "accumulation."))
        values = dict(stage=best.stage, recompute=texts.recompute_words(best.recompute),
                      mb=i18n.fmt_int(best.micro_batch), comm=i18n.fmt_bytes(best.comm_bytes, unit),
                      k=i18n.fmt_int(best.accum_steps))
        if best.accum_steps == 1:
            text = self.tr("Stage {stage} {recompute} takes it in one step of micro-batch {mb}, without accumulation, "
                           "moving {comm} per step.").format(**values)
        else:
            when = (self.tr("gradients reduced on every micro-batch") if g.accum_sync == "every" else
                    self.tr("gradients reduced on the last micro-batch only"))
            text = self.tr("Fewest accumulation steps: stage {stage} {recompute}, {k} steps of micro-batch {mb}, "
                           "moving {comm} per step ({when}).", "", best.accum_steps).format(**values, when=when)
        return f"{html.escape(head)} <b>{html.escape(text)}</b>"

    def retranslate(self) -> None:
        self.label.setText(self.tr("Global batch:"))
        self.field.setPlaceholderText(self.tr("sequences per optimizer step"))
        self.field.setToolTip(self.tr("The global batch wanted (sequences per optimizer step, all ranks): the fewest "
                                      "accumulation steps that reach it at the plan's Nd, per stage and recompute "
                                      "mode"))
        self.grid.setAccessibleName(self.tr("Accumulation steps × micro-batch for the global batch, per stage and "
                                            "recompute mode"))
        self.grid.setHorizontalHeaderLabels([texts.recompute_name(r) for r in RECOMPUTE])
        self.grid.setVerticalHeaderLabels([i18n.stage_short(s) for s in STAGES])
        self.refresh()
