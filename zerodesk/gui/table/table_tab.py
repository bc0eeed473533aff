"""The plan as a table: per-stage components, totals, formula, fit against the GPU, communication.

Every cell carries its unit; the caption says where the figures come from; the footnote says
plainly that states fitting is not the peak (ZeRO §3.2). Copy gives the same table as text.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.accounting import STAGES, Breakdown, comm_seconds
from ...core.peak import predict
from ...core.plan import Plan, Profile
from ...core.plan_model import PlanModel
from ...core.options import RECOMPUTE
from ...core.residuals import activation_estimate
from ...core.units import scaled_unit
from ..base import i18n
from ..base.provenance import component_specs, peak_warning, provenance
from ..base.style import WARN_COLOR
from .comm_rows import comm_note, comm_rows



MIN_COLUMN = 120  # px: narrower than this a stage's figures wrap word by word


def balanced_lines(header: str, longest: int = 16) -> str:
    """A header line longer than `longest` characters in two lines of about equal length (a header does not
    wrap, so 'optimizer states partitioned' would set its column's width)."""
    out = []
    for line in header.split("\n"):
        spaces = [i for i, ch in enumerate(line) if ch == " "]
        if len(line) > longest and spaces:
            cut = min(spaces, key=lambda i: abs(i - len(line) / 2))
            line = line[:cut] + "\n" + line[cut + 1:]
        out.append(line)
    return "\n".join(out)


def share_width(wanted: list[int], available: int, floors: list[int] | None = None) -> list[int]:
    """Column widths: each as wide as it wants when all fit (spare shared evenly); otherwise the width is shared
    fairly (water-filling: a column that wants less than its share keeps what it wants, the rest split what is
    left), so every stage stays in view and long verdicts wrap instead of pushing stages out to a scroll bar.
    `floors`: no column narrower (its header, which does not wrap; MIN_COLUMN by default)."""
    n = len(wanted)
    if sum(wanted) <= available:
        return [w + (available - sum(wanted)) // n for w in wanted]
    widths = [0] * n
    floors = floors or [MIN_COLUMN] * n
    left, open_ = available, sorted(range(n), key=lambda c: wanted[c])
    while open_:
        share = left // len(open_)
        c = open_[0]
        if wanted[c] > share:
            for c in open_:
                widths[c] = max(floors[c], share)
            break
        widths[c] = wanted[c]
        left -= wanted[c]
        open_.pop(0)
    return widths

class TableTab(QWidget):
    """The Table tab: it observes the plan model and draws when shown (a hidden table costs an edit nothing)."""

    def __init__(self, model: PlanModel | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("tableTab")
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self._dirty = False
        self._heads: tuple | None = None  # the header labels shown
        self._rows: list[list[str]] = []
        self._caption_lines: list[str] = []
        # the tab's content lives in a body the tab sizes itself, the tab having no layout of its own: a layout
        # passes every change of its widget's size hint up (QLayout::activate), and at the tab widget each one
        # repainted all of it, tab bar and frame, on every edit that changed a row or a caption
        self._body = QWidget(self)
        v = QVBoxLayout(self._body)
        self.caption = QLabel()
        self.caption.setObjectName("tableCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.caption)
        self.table = QTableWidget()
        self.table.setObjectName("planTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)
        # columns as wide as their widest text (headers included), the rest of the width shared out
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        v.addWidget(self.table, 1)
        self.table.viewport().installEventFilter(self)
        self.activations = QLabel()
        self.activations.setObjectName("activationsNote")
        self.activations.setWordWrap(True)
        v.addWidget(self.activations)
        self.note = QLabel()
        self.note.setObjectName("peakNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {WARN_COLOR}; font-weight: bold;")
        v.addWidget(self.note)
        row = QHBoxLayout()
        row.addStretch(1)
        self.copy_button = QPushButton()
        self.copy_button.setObjectName("copyTableButton")
        self.copy_button.clicked.connect(self.copy_to_clipboard)
        row.addWidget(self.copy_button)
        v.addLayout(row)
        self.retranslate()
        if model is not None:
            model.events.plan.connect(self.set_breakdown)
            if model.plan is not None:
                self.set_breakdown(model.plan, model.breakdown)

    def retranslate(self) -> None:
        self.copy_button.setText(self.tr("Copy table as text"))
        self.copy_button.setToolTip(self.tr("Copy the table, its caption and notes (Ctrl+Shift+C)"))
        self.table.setAccessibleName(self.tr("Per-stage memory table"))
        self.note.setText("⚠ " + peak_warning())
        self._dirty = True
        if self.isVisible():
            self._render()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def set_breakdown(self, plan: Plan, b: Breakdown) -> None:
        """Store; draw now if visible, else when next shown (keeps edits fast)."""
        self._plan, self._breakdown, self._dirty = plan, b, True
        if self.isVisible():
            self._render()

    def showEvent(self, event) -> None:
        if self._dirty:
            self._render()
        super().showEvent(event)

    def rows(self) -> list[list[str]]:
        """Header and body as strings, exactly as displayed."""
        if self._dirty:
            self._render()
        return [list(r) for r in self._rows]

    def _batch_note(self, plan) -> str:
        """The global batch, and what accumulation keeps between micro-batches (core.accumulation)."""
        text = self.tr("Global batch {g} = micro-batch {mb} × {k} accumulation steps × Nd {nd} (sequences per "
                       "optimizer step).").format(g=i18n.fmt_int(plan.global_batch), mb=i18n.fmt_int(plan.micro_batch),
                                                 k=i18n.fmt_int(plan.accum_steps), nd=i18n.fmt_int(plan.dp))
        if plan.accum_steps == 1:
            return text
        kept = (self.tr("Between micro-batches each rank keeps the whole model's gradients (reduced in the last "
                        "micro-batch only); the predicted peak counts them.") if plan.accum_sync == "last" else
                self.tr("Between micro-batches each rank keeps its stage's own gradients (reduced every "
                        "micro-batch); the predicted peak counts them."))
        return text + " " + kept

    def _build_rows(self) -> list[list[str]]:
        plan, b = self._plan, self._breakdown
        peaks = predict(plan, b)
        complete = all(p.complete for p in peaks)  # no activations (a raw count): no peak to show
        unit = self.unit
        specs = component_specs(plan)
        header = [self.tr("Per rank"), *[i18n.stage_label(s) for s in STAGES]]
        rows = [header]
        for key in b.stages[0].components:
            spec = specs.get(key)
            name = i18n.component_label(key) + (f" ({spec.dtype})" if spec else "")
            rows.append([name, *[i18n.fmt_bytes(s.components[key], unit) for s in b.stages]])
        rows.append([self.tr("Total model states"), *[i18n.fmt_bytes(s.total_bytes, unit) for s in b.stages]])
        rows.append([self.tr("Formula (bytes)"), *[i18n.core_formula(s.formula) for s in b.stages]])
        if plan.profile == Profile.TORCH and any(len({sum(r.values()) for _, r in s.runs}) > 1 for s in b.stages):
            rows.append([self.tr("Ranks: smallest – largest"),
                         *[f"{i18n.fmt_bytes(s.total_range[0], unit)} – {i18n.fmt_bytes(s.total_range[1], unit)}" for s in b.stages]])
        gpu = plan.cluster.gpu_memory_bytes
        act = activation_estimate(plan)
        if gpu:
            gpu_unit = scaled_unit(gpu, plan.units)
            rows.append([self.tr("States vs GPU memory"), *[self.verdict(s.total_bytes, gpu, gpu_unit) for s in b.stages]])
            if act is not None:  # the verdict that matters: what comes on top counts too
                rows.append([self.tr("States + activations vs GPU memory"),
                             *[self.verdict(s.total_bytes + act.total_bytes, gpu, gpu_unit) for s in b.stages]])
        else:
            rows.append([self.tr("States vs GPU memory"), *[self.tr("no GPU memory given")] * len(b.stages)])
        phases = {"forward": self.tr("forward"), "backward": self.tr("backward"), "optimizer": self.tr("optimizer step")}
        if not complete:
            rows.append([self.tr("Predicted peak of the step (estimate)"),
                         *[self.tr("needs the architecture (no activations in a raw count)")] * len(peaks)])
        else:
            rows.append([self.tr("Predicted peak of the step (estimate)"),
                         *[f"≈ {i18n.fmt_bytes(p.total_bytes, unit)} ({phases.get(p.phase, p.phase)})" for p in peaks]])
        if gpu and complete:
            fit = []
            for p in peaks:
                pct = i18n.fmt_number(100 * p.total_bytes / gpu, 0)
                fit.append(self.tr("fits: {pct}% of {gpu}").format(pct=pct, gpu=i18n.fmt_bytes(gpu, gpu_unit))
                           if p.total_bytes <= gpu else
                           self.tr("over by {over} ({pct}%)").format(
                               over=i18n.fmt_bytes(p.total_bytes - gpu, scaled_unit(p.total_bytes - gpu, plan.units)), pct=pct))
            rows.append([self.tr("Predicted peak vs GPU memory"), *fit])
        comm_unit = scaled_unit(max(s.comm_bytes for s in b.stages), plan.units)
        k = plan.accum_steps
        label = (self.tr("Communication per step") if k == 1 else  # a step of k micro-batches: what repeats, k times
                 self.tr("Communication per step of {k} micro-batches", "", k).format(k=i18n.fmt_int(k)))
        rows.append([label, *[i18n.fmt_bytes(s.comm_bytes, comm_unit) for s in b.stages]])
        rows.append([self.tr("Communication time at {bw} GB/s").format(bw=i18n.fmt_number(plan.bandwidth_gbps, 0 if plan.bandwidth_gbps == int(plan.bandwidth_gbps) else 2)),
                     *[i18n.fmt_seconds(comm_seconds(s.comm_bytes, plan.bandwidth_gbps)) for s in b.stages]])
        return rows + comm_rows(plan)

    def verdict(self, need: int, gpu: int, unit: str) -> str:
        """'fits: 20% of 80.00 GB' or 'over by 24.00 GB: needs 130% of 80.00 GB'."""
        pct = i18n.fmt_number(100 * need / gpu, 0)
        if need <= gpu:
            return self.tr("fits: {pct}% of {gpu}").format(pct=pct, gpu=i18n.fmt_bytes(gpu, unit))
        return self.tr("over by {over}: needs {pct}% of {gpu}").format(
            over=i18n.fmt_bytes(need - gpu, scaled_unit(need - gpu, unit)), pct=pct, gpu=i18n.fmt_bytes(gpu, unit))

    @property
    def unit(self) -> str:
        """The unit of the table's memory figures: the plan's, stepped down to them (a small model in MiB)."""
        plan, b = self._plan, self._breakdown
        if plan is None or b is None:
            return "GB"
        return scaled_unit(max([s.total_bytes for s in b.stages] + [p.total_bytes for p in predict(plan, b)]), plan.units)

    def _fit_columns(self) -> None:
        """Each column as wide as its header and cells where the width allows, else the long ones wrap."""
        table = self.table
        n = table.columnCount()
        if not n:
            return
        header = table.horizontalHeader()
        # what resizeColumnsToContents would set, measured without setting it: each column is resized once, to its
        # share (resized twice, the wrapped rows were measured again for each)
        wanted = [max(table.sizeHintForColumn(c), 0 if header.isHidden() else header.sectionSizeHint(c)) for c in range(n)]
        bar = table.verticalScrollBar()  # wrapped rows may bring it: leave it room now
        available = table.viewport().width() - (0 if bar.isVisible() else bar.sizeHint().width())
        floors = [max(MIN_COLUMN, header.sectionSizeFromContents(c).width() + 12) for c in range(n)]
        widths = share_width([w + 12 for w in wanted], available, floors)
        for c, w in enumerate(widths):
            table.setColumnWidth(c, w)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._body.setGeometry(self.rect())
        self._fit_columns()

    def sizeHint(self):
        return self._body.sizeHint()

    def minimumSizeHint(self):
        return self._body.minimumSizeHint()

    def eventFilter(self, watched, event) -> bool:
        # the viewport narrows without the tab resizing (the row labels widen in Russian, a scroll bar appears)
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _render(self) -> None:
        self._dirty = False
        plan, b = self._plan, self._breakdown
        if plan is None or b is None:
            self._rows = []
            return
        rows = self._build_rows()
        self._rows = rows
        unit = self.unit
        self._caption_lines = [
            self.tr("Per-rank model-state memory, largest rank"),
            provenance(plan, b),
            self.tr("P = {p} parameters · Nd = {nd} · figures in {unit} ({note})").format(
                p=i18n.fmt_int(b.params), nd=b.dp, unit=i18n.unit_label(unit), note=i18n.unit_note(unit)),
        ]
        self.caption.setText("<b>" + html.escape(self._caption_lines[0]) + "</b><br>"
                             + "<br>".join(html.escape(line) for line in self._caption_lines[1:]))
        act = activation_estimate(plan)
        if act is not None:
            self.activations.setText(self.tr(
                "On top, estimated activations for sequence {seq} × micro-batch {mb}: {act} per rank "
                "(16-bit, fused attention, recompute: {recompute}; an estimate, not a measurement).").format(
                seq=i18n.fmt_int(plan.seq_len), mb=i18n.fmt_int(plan.micro_batch),
                act=i18n.fmt_bytes(act.total_bytes, scaled_unit(act.total_bytes, plan.units)),
                recompute=i18n.option_label(RECOMPUTE, plan.recompute)))
        else:
            self.activations.setText(self.tr(
                "On top: activations (give the architecture to estimate them), temporary buffers, fragmentation."))
        notes = [self.tr("Note: {note}.").format(note=i18n.core_note(n)) for n in b.notes] + [comm_note(plan),
                                                                                               self._batch_note(plan)]
        if notes:
            self.activations.setText(self.activations.text() + "\n" + "\n".join(notes))
        body = rows[1:]
        table = self.table
        table.setColumnCount(len(rows[0]) - 1)
        table.setRowCount(len(body))
        cells = table.model()
        heads = ([balanced_lines(h) for h in rows[0][1:]], [balanced_lines(r[0], 32) for r in body])
        if heads != self._heads:
            self._heads = heads
            # the headers told once, as the cells below: each label's own change had the headers measure every row
            # again (the row labels change with the scheme: ~20 ms of such an edit)
            cells.blockSignals(True)
            try:
                table.setHorizontalHeaderLabels(heads[0])
                table.setVerticalHeaderLabels(heads[1])
            finally:
                cells.blockSignals(False)
            cells.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(heads[0]) - 1)
            if heads[1]:
                cells.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(heads[1]) - 1)
        bold = QFont(table.font())
        bold.setBold(True)
        total_row = len(b.stages[0].components)
        # the cells in place, their text set only where it changed, and the view told once: every cell's own
        # change had the view measure the rows again (~45 ms for the whole table on an edit)
        cells.blockSignals(True)
        try:
            self._set_cells(body, total_row, bold)
        finally:
            cells.blockSignals(False)
        if body:
            cells.dataChanged.emit(cells.index(0, 0), cells.index(len(body) - 1, len(rows[0]) - 2))
        self._fit_columns()

    def _set_cells(self, body: list[list[str]], total_row: int, bold: QFont) -> None:
        table = self.table
        for r, row in enumerate(body):
            for c, text in enumerate(row[1:]):
                item = table.item(r, c)
                if item is None:
                    item = QTableWidgetItem(text)
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    if r == total_row:
                        item.setFont(bold)
                    table.setItem(r, c, item)
                    continue
                if item.text() != text:
                    item.setText(text)
                if r == total_row and item.data(Qt.ItemDataRole.FontRole) != bold:
                    item.setFont(bold)
                elif r != total_row and item.data(Qt.ItemDataRole.FontRole) is not None:
                    item.setData(Qt.ItemDataRole.FontRole, None)  # as a new cell: the table's own font

    # -- copying ---------------------------------------------------------------------------------
    def as_text(self) -> str:
        rows = self.rows()
        if not rows:
            return ""
        rows = [[c.replace("\n", " — ") for c in r] for r in rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [*self._caption_lines, ""]
        for n, row in enumerate(rows):
            lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines += ["", self.activations.text(), peak_warning()]
        return "\n".join(lines) + "\n"

    def copy_to_clipboard(self) -> str:
        # plain text only: a QMimeData handed to the clipboard crashes PySide6 6.12 at exit
        text = self.as_text()
        QGuiApplication.clipboard().setText(text)
        return text
