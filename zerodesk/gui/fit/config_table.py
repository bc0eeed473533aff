"""The solver's figures per stage and recompute mode, as `zerodesk fit` prints them: the largest micro-batch and the
peak there and at one more, the longest sequence and the fewest Nd at micro-batch 1, the communication per step.
The recommended configuration's row is bold."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ...core.fit import FitAnswer
from ...core.plan import Plan
from ..base import i18n
from . import texts


class ConfigTable(QTableWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("fitTable")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        # columns fitted once per answer (show_answer): a header that resizes to contents measures every column
        # again on each cell set, ~1 ms a cell
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName(self.tr("Largest micro-batch per stage and recompute mode"))
        self._shown = self._fitted = None  # the cells as set last; each column's contents and width as fitted last
        self._measured: dict[tuple, int] = {}  # a column's contents -> the width measured for them

    def headers(self, plan: Plan) -> list[str]:
        unit = i18n.unit_label(plan.units)
        return [self.tr("Stage"), self.tr("Recompute"), self.tr("Largest\nmicro-batch"),
                self.tr("Peak there\n({unit})").format(unit=unit), self.tr("Peak at one more\n({unit})").format(unit=unit),
                self.tr("Longest sequence\n(micro-batch 1)"), self.tr("Fewest Nd\n(micro-batch 1)"),
                self.tr("Communication\nper step ({unit})").format(unit=unit) if plan.accum_steps == 1 else
                self.tr("Communication per step\nof {k} micro-batches ({unit})", "", plan.accum_steps).format(
                    k=i18n.fmt_int(plan.accum_steps), unit=unit)]

    def rows(self, plan: Plan, answer: FitAnswer) -> list[list[str]]:
        """Every row as displayed (figures with their unit)."""
        unit = plan.units

        def nbytes(value: int | None) -> str:
            return "—" if value is None else i18n.fmt_bytes(value, unit)

        return [[str(c.stage), texts.recompute_name(c.recompute), i18n.fmt_int(c.max_micro_batch),
                 nbytes(c.peak_at_max_bytes), nbytes(c.peak_above_bytes), i18n.fmt_int(c.max_seq),
                 self.tr("none") if c.min_dp is None else i18n.fmt_int(c.min_dp), nbytes(c.comm_bytes)]
                for c in answer.configs]

    def show_answer(self, plan: Plan | None, answer: FitAnswer | None) -> None:
        """Show an answer: the cells' texts set in place where they changed (the items are made once), the columns
        fitted once (_fit_columns)."""
        if plan is None or answer is None:
            self.setRowCount(0)
            self._shown = self._fitted = None
            return
        header, rows = self.headers(plan), self.rows(plan, answer)
        rec = answer.recommendation
        if (self.rowCount(), self.columnCount()) != (len(rows), len(header)):
            self.setColumnCount(len(header))
            self.setRowCount(len(rows))
            self._shown = None  # new items: every cell set
            for r in range(len(rows)):
                for c in range(len(header)):
                    item = QTableWidgetItem()
                    item.setTextAlignment((Qt.AlignmentFlag.AlignLeft if c < 2 else Qt.AlignmentFlag.AlignRight)
                                          | Qt.AlignmentFlag.AlignVCenter)
                    self.setItem(r, c, item)
        self.setHorizontalHeaderLabels(header)
        bold, plain = QFont(self.font()), QFont(self.font())
        bold.setBold(True)
        marked = [(config.stage, config.recompute) == (rec.stage, rec.recompute) for config in answer.configs]
        shown = self._shown  # only this method sets the cells
        if shown is None or shown[0] != plain or len(shown[1]) != len(rows):
            shown = (plain, [[None] * len(row) for row in rows], [None] * len(rows))
        for r, (row, strong) in enumerate(zip(rows, marked)):
            font = bold if strong else plain
            was, was_strong = shown[1][r], shown[2][r]
            for c, text in enumerate(row):
                if was[c] == text and was_strong == strong:
                    continue
                item = self.item(r, c)
                if item.text() != text:
                    item.setText(text)
                if item.font() != font:
                    item.setFont(font)
        self._shown = (plain, rows, marked)
        self._fit_columns(header, rows, marked)

    def _fit_columns(self, header: list[str], rows: list[list[str]], marked: list[bool]) -> None:
        """Each column fitted to its contents as resizeColumnsToContents would. Measuring a column asks every cell's
        size hint (~0.07 ms a column): a column is measured again only where its header, a cell's text or the bold
        row changed (or its width is not the one fitted last), and contents measured before (an edit undone, a value
        typed again) take the width measured then."""
        font = self.font().key()
        columns = [(font, c, head, tuple(row[c] for row in rows), tuple(marked)) for c, head in enumerate(header)]
        fitted = self._fitted
        if fitted is None or len(fitted) != len(columns):
            self.resizeColumnsToContents()
        else:
            for c, (column, (was, width)) in enumerate(zip(columns, fitted)):
                if column == was and self.columnWidth(c) == width:
                    continue
                known = self._measured.get(column)
                if known is None:
                    self.resizeColumnToContents(c)
                elif self.columnWidth(c) != known:
                    self.setColumnWidth(c, known)
        self._fitted = [(column, self.columnWidth(c)) for c, column in enumerate(columns)]
        if len(self._measured) > 512:
            self._measured.clear()
        self._measured.update(self._fitted)

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._measured.clear()  # widths measured in another style or font
        super().changeEvent(event)
