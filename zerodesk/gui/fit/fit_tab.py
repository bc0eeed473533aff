"""The Fit tab: what fits on the plan's GPUs, following the plan model.

The figures come from the core (zerodesk.core.fit_map.FitMapModel: the solver's answer and the map, kept across
edits); this tab only words and draws them, and sets the plan to a chosen cell through the model (plan_at), as
any other edit. While another tab is in view it only notes the latest plan, and answers it when shown. Under the
table, the global-batch question (global_batch.GlobalBatchPanel, answered by FitMapModel.global_batch).
"""

from __future__ import annotations

import html
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...core.accounting import STAGES, Breakdown
from ...core.fit_map import FitMapModel, FitState, plan_at
from ...core.plan import Plan
from ...core.plan_model import PlanModel
from ..base import i18n
from ..base.layout_now import settle_layout
from ..base.style import ERROR_COLOR, STAGE_COLORS, WARN_COLOR
from ..base.wrapped_label import WrappedLabel
from ..charts.chart_export import save_png, save_svg
from . import texts
from .config_table import ConfigTable
from .global_batch import GlobalBatchPanel
from .map_chart import FitMapChart


MAP_ROW_PX = 24  # the map's least height per row (a micro-batch), axes aside
MAP_AXES_LINES = 5  # the axes' least height in lines of text: tick labels, the axis title, their margins
MIN_MAP_HEIGHT, MAX_MIN_MAP_HEIGHT = 150, 360
MIN_TABLE_HEIGHT = 140  # the header and four configurations; the rest scroll


def _label(name: str, rich: bool = True, keep_height: bool = False) -> QLabel:
    label = WrappedLabel(keep_height=keep_height)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class FitTab(QWidget):
    """In a scroll area that gives it the viewport's height or its minimum (window.fit_scroll): a small window
    scrolls the view rather than squeezing the map; textsChanged tells that area the height it needs moved."""

    exportRequested = Signal(str)  # ".png" or ".svg", from the map's context menu
    textsChanged = Signal()

    def __init__(self, model: PlanModel | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("fitTab")
        self.fit = FitMapModel()
        self.state: FitState | None = None
        self._model = model
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None  # the model's compute(plan), which a new memo of peaks starts from
        self._dirty = False
        self._errors = 0
        v = QVBoxLayout(self)
        v.setContentsMargins(6, 6, 6, 6)
        v.setSpacing(4)
        self.caption = _label("fitCaption", keep_height=True)
        v.addWidget(self.caption)
        self.stale = _label("fitStale", rich=False)
        self.stale.setStyleSheet(f"color: {ERROR_COLOR};")
        self.stale.hide()
        v.addWidget(self.stale)
        self.recommendation = _label("fitRecommendation", keep_height=True)
        v.addWidget(self.recommendation)
        self.recompute = _label("fitCheapestRecompute", keep_height=True)  # the cheapest recomputation that fits, per stage
        v.addWidget(self.recompute)
        self.legend = _label("fitLegend", keep_height=True)
        v.addWidget(self.legend)

        self.chart = FitMapChart()
        self.chart.text_for = self.cell_text
        self.chart.cellChosen.connect(self.choose)
        self.chart.cellFocused.connect(self._show_details)
        self.chart.paletteApplied.connect(lambda: self.state is not None and self._update_texts())  # the legend
        v.addWidget(self.chart, 3)
        self.details = _label("fitDetails", rich=False)
        v.addWidget(self.details)
        self.table = ConfigTable()
        self.table.setMinimumHeight(MIN_TABLE_HEIGHT)
        v.addWidget(self.table, 2)
        self.global_batch = GlobalBatchPanel(self.fit.global_batch)
        v.addWidget(self.global_batch)
        self.notes = _label("fitNotes", rich=False)
        self.notes.setStyleSheet(f"color: {WARN_COLOR};")
        v.addWidget(self.notes)
        self._texts = (self.caption, self.recommendation, self.recompute, self.legend, self.notes)

        self._export_actions = []
        for suffix in (".png", ".svg"):
            action = QAction(self)
            action.triggered.connect(lambda _=False, s=suffix: self.exportRequested.emit(s))
            self._export_actions.append(action)
        self.chart.menu.actions = self._export_actions
        self.retranslate()
        if model is not None:
            model.events.plan.connect(self.set_plan)
            model.events.errors.connect(self.set_stale)
            if model.plan is not None:
                self.set_plan(model.plan, model.breakdown)
            self.set_stale(model.errors)

    # -- following the model -------------------------------------------------------------------------
    def set_plan(self, plan: Plan, breakdown: Breakdown | None = None) -> None:
        """Store; answer now if visible, else when next shown (an edit elsewhere stays fast). breakdown: compute(plan),
        as the model sends it with the plan."""
        self._plan, self._breakdown, self._dirty = plan, breakdown, True
        if self.isVisible():
            self.render_plan()

    def showEvent(self, event) -> None:
        if self._dirty:
            self.render_plan()
        super().showEvent(event)

    def set_stale(self, errors: dict[str, str]) -> None:
        """The form is invalid: say that the view shows the last valid plan."""
        self._errors = len(errors)
        self._show_stale()

    def _show_stale(self) -> None:
        self.stale.setText("⚠ " + self.tr("{n} field(s) need attention; the view shows the last valid plan.").format(
            n=self._errors))
        self.stale.setVisible(bool(self._errors))

    def catch_up(self) -> None:
        """Answer the plan that waited while the tab was out of view (exports and tests call this)."""
        if self._dirty:
            self.render_plan()

    def render_plan(self) -> None:
        self._dirty = False
        plan = self._plan
        if plan is None:
            return
        self.state = state = self.fit.update(plan, self._breakdown)
        self.chart.set_map(state.map)
        rows = len(state.map.batches) if state.map is not None else 4
        axes = MAP_AXES_LINES * self.fontMetrics().lineSpacing()  # a fixed 64 px let the axis title under the hint
        self.chart.setMinimumHeight(min(MAX_MIN_MAP_HEIGHT, max(MIN_MAP_HEIGHT, rows * MAP_ROW_PX + axes)))
        self.table.show_answer(plan, state.answer)
        self.global_batch.set_plan(plan)
        self._update_texts()
        settle_layout(self)  # laid out at its final size before the frame: one paint of the edit

    def choose(self, dp: int, micro_batch: int) -> None:
        """Set the plan to a cell of the map: its Nd and micro-batch, the rest unchanged (through the model)."""
        if self._model is None or self._model.plan is None:
            return
        plan = plan_at(self._model.plan, dp, micro_batch)
        self._model.load(plan)

    def cell_text(self, dp: int, micro_batch: int) -> str:
        """The hover text of a cell of the map (rich text)."""
        if self.state is None or self.state.map is None:
            return ""
        return texts.cell_text(self.state.plan, self.fit.cell(dp, micro_batch))

    def _show_details(self, dp: int, micro_batch: int) -> None:
        if dp < 0 or self.state is None or self.state.map is None:
            self.details.setText(self._hint())
            self.chart.setAccessibleDescription(self._hint())
            return
        cell, unit = self.fit.cell(dp, micro_batch), self.state.plan.units
        shown = cell.stage if cell.stage is not None else min(STAGES, key=lambda s: cell.peaks[s])
        room = cell.headroom(shown)
        words = (self.tr("stage {stage} fits: peak {peak}, headroom {room}") if room >= 0 else
                 self.tr("nothing fits; the lowest peak, stage {stage}: {peak}, over by {room}"))
        self.details.setText(self.tr("Nd = {dp} · micro-batch {mb}: {what}.").format(
            dp=i18n.fmt_int(dp), mb=i18n.fmt_int(micro_batch), what=words.format(
                stage=shown, peak=i18n.fmt_bytes(cell.peaks[shown], unit), room=i18n.fmt_bytes(abs(room), unit))))
        self.chart.setAccessibleDescription(self.details.text())  # what a screen reader says of the focused cell

    def _hint(self) -> str:
        return self.tr("Hover a cell for its peaks; click it, or choose it with the arrow keys and Enter, to set "
                       "the plan there.")

    # -- texts ---------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.chart.setAccessibleName(self.tr("Fit map: the lowest ZeRO stage that fits, by Nd and micro-batch"))
        self.chart.set_axis_titles(self.tr("Data-parallel degree Nd"), self.tr("Micro-batch"))
        self._export_actions[0].setText(self.tr("Export Fit View as PNG…"))
        self._export_actions[1].setText(self.tr("Export Fit View as SVG…"))
        self._update_texts()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.global_batch.retranslate()
            self._show_stale()
            if self.state is not None:
                self.table.show_answer(self.state.plan, self.state.answer)
        super().changeEvent(event)

    def _update_texts(self) -> None:
        state = self.state
        self.details.setText(self._hint())
        if state is None:
            return
        plan = state.plan
        if state.answer is None:
            title = self.tr("What fits on one GPU")  # outside the f-string: lupdate reads no call inside one
            self.caption.setText(f"<b>{html.escape(title)}</b>")
            self.recommendation.setText(f'<span style="color:{ERROR_COLOR}">{html.escape(self._error_text(plan))}</span>')
            self.legend.setText("")
            self.recompute.setText("")
            self.recompute.hide()
            self.notes.setText("")
            return
        shown = [(label, label.text(), label.isVisibleTo(self)) for label in self._texts]
        self.caption.setText(texts.caption(plan, state.answer))
        self.recommendation.setText(texts.recommendation(state.answer, plan.units))
        self.recompute.setText(texts.cheapest_recompute(plan, state.recompute))
        self.recompute.setVisible(bool(state.recompute))
        self.legend.setText(self._legend_html())
        self.notes.setText("\n".join(texts.notes(plan, state.answer)))
        if any((label.text(), label.isVisibleTo(self)) != (text, visible) for label, text, visible in shown):
            self.textsChanged.emit()  # the height the view needs may have changed (not when no text did)

    def _error_text(self, plan: Plan) -> str:
        gpu = plan.cluster.gpu_memory_bytes
        if not gpu:
            return self.tr("What fits needs the memory of one GPU: choose a GPU or give its memory.")
        if plan.cuda_allowance_bytes >= gpu:
            return self.tr("The CUDA allowance leaves nothing of the GPU's memory: make it smaller than the GPU's "
                           "memory.")
        return self.state.error

    def _legend_html(self) -> str:
        def swatch(color: str, name: str, mark: str = "■") -> str:  # a label never breaks inside itself
            return f'<span style="color:{color}; font-size:large">{mark}</span>&nbsp;' + html.escape(name).replace(" ", "&nbsp;")

        text = self.palette().color(self.foregroundRole()).name()
        parts = [swatch(STAGE_COLORS[s], i18n.stage_short(s)) for s in STAGES]
        parts += [swatch(self.chart.none_color().name(), texts.none_label()), swatch(text, self.tr("this plan"), "▢")]
        lead = html.escape(self.tr("Colour: the lowest stage that fits, at the plan's sequence and recompute."))
        return lead + " " + "&nbsp;&nbsp; ".join(parts)

    # -- export --------------------------------------------------------------------------------------
    def export_png(self, path: Path, scale: float = 2.0) -> bool:
        """The whole view (caption, recommendation, map, table, notes) at `scale` x its size on screen."""
        with self._printing():
            return save_png(self, [self.chart], Path(path), scale)

    def export_svg(self, path: Path) -> bool:
        with self._printing():
            return save_svg(self, [self.chart], Path(path), "ZeroDesk fit", self.caption.text())

    @contextmanager
    def _printing(self):
        """The view as a file shows it: the latest plan, no keyboard cursor."""
        self.catch_up()
        self.chart.set_printing(True)
        try:
            yield
        finally:
            self.chart.set_printing(False)
