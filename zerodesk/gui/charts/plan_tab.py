"""The "Plan" tab: captions that say what and whence, the stage bars, and memory versus Nd."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from ...core.accounting import Breakdown
from ...core.plan import Offload, Plan
from ...core.plan_model import PlanModel
from ..base import i18n
from ..base.layout_now import settle_layout
from ..base.provenance import peak_warning, provenance
from ..base.style import ERROR_COLOR, PEAK_COLOR, WARN_COLOR, component_color
from ..base.wrapped_label import WrappedLabel
from .dp_chart import DpChart, dp_legend_html
from .plan_export import PlanTabExport
from .draw_once import drawing_held
from .dp_hybrid import hybrid_legend_html
from .stage_chart import StageChart


def _nowrap(text: str) -> str:
    return html.escape(text).replace(" ", "&nbsp;")


def _caption_label(name: str) -> QLabel:
    # each keeps the tallest height its texts needed: an edit whose caption is a line shorter does not move the charts
    label = WrappedLabel(keep_height=True)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _with_toggle(label: QLabel, toggle: QCheckBox) -> QWidget:
    row = QWidget()
    h = QHBoxLayout(row)
    h.setContentsMargins(0, 0, 0, 0)
    h.addWidget(label, 1)
    h.addWidget(toggle, 0, Qt.AlignmentFlag.AlignTop)
    return row


class _ChartRoom(QWidget):
    """Holds a chart's place until the chart is built, asking the layout for what the chart will ask:
    a pyqtgraph view's size hint is its first scene rect (a widget's default 640x480) within 3/4 of
    the screen, as QGraphicsView::sizeHint bounds it. So the splitter divides as it will with the chart."""

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        screen = QGuiApplication.primaryScreen()
        hint = QSize(640, 480)
        return hint if screen is None else hint.boundedTo(screen.virtualSize() * 3 / 4)


class PlanTab(PlanTabExport, QWidget):
    """The Plan tab: captions, the stage bars (with offload beside them) and memory versus Nd.

    It observes the plan model; while another tab is in view it only notes the latest plan and draws it
    when shown again (an edit made then stays fast)."""

    exportRequested = Signal(str)  # ".png" or ".svg", from a chart's context menu
    textsChanged = Signal()  # its texts were set: the height it needs may have changed

    def __init__(self, model: PlanModel | None = None, parent=None, nd_chart_later: bool = False) -> None:
        """nd_chart_later: the Nd chart is built and drawn by release_nd_chart() (its caption stays in
        place), so the first frame waits for the stage bars only."""
        super().__init__(parent)
        self.setObjectName("planTab")
        self._plan: Plan | None = None
        self._breakdown: Breakdown | None = None
        self._waiting: tuple[Plan, Breakdown] | None = None  # the model's latest plan, not drawn while out of view
        self._stale = False
        v = QVBoxLayout(self)
        v.setContentsMargins(6, 6, 6, 6)
        v.setSpacing(2)
        self.caption = _caption_label("stageCaption")
        self.log_toggle = QCheckBox()
        self.log_toggle.setObjectName("stageLogScale")
        v.addWidget(_with_toggle(self.caption, self.log_toggle))
        self.stale = _caption_label("staleNote")
        self.stale.setStyleSheet(f"color: {ERROR_COLOR};")
        self.stale.hide()
        v.addWidget(self.stale)
        self.legend = _caption_label("stageLegend")
        v.addWidget(self.legend)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("chartSplitter")
        split.setChildrenCollapsible(False)
        top = QWidget()
        tv = QVBoxLayout(top)
        tv.setContentsMargins(0, 0, 0, 0)
        self.chart = StageChart()
        self.chart.setMinimumHeight(180)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.chart, 3)
        self._chart_row = row
        self.offload_chart = None  # beside the stage bars, never stacked into them; built for the first plan that offloads
        tv.addLayout(row, 1)
        self.warning = _caption_label("peakWarning")
        self.warning.setStyleSheet(f"color: {WARN_COLOR};")
        tv.addWidget(self.warning)
        split.addWidget(top)
        self._top_pane = top

        bottom = QWidget()
        bv = QVBoxLayout(bottom)
        bv.setContentsMargins(0, 4, 0, 0)
        bv.setSpacing(2)
        self.dp_caption = _caption_label("dpCaption")
        self.dp_log_toggle = QCheckBox()
        self.dp_log_toggle.setObjectName("dpLogScale")
        self.dp_log_toggle.setChecked(True)  # as DpChart starts: memory falls as 1/Nd, straight on log-log axes
        bv.addWidget(_with_toggle(self.dp_caption, self.dp_log_toggle))
        self._nd_pane = bv
        self._nd_room = _ChartRoom()  # the Nd chart's place until it is built: the layout does not move then
        self._nd_room.setMinimumHeight(140)
        bv.addWidget(self._nd_room, 1)
        self.dp_chart: DpChart | None = None
        split.addWidget(bottom)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 4)
        self.splitter = split
        v.addWidget(split, 1)
        self.chart.setAccessibleName(self.tr("Per-stage memory chart"))
        self.chart.measuredChanged.connect(self._update_legend)
        self._export_actions = []
        for suffix in (".png", ".svg"):
            from PySide6.QtGui import QAction

            a = QAction(self)
            a.triggered.connect(lambda _=False, s=suffix: self.exportRequested.emit(s))
            self._export_actions.append(a)
        self._link_chart(self.chart, self.log_toggle)
        if not nd_chart_later:
            self.release_nd_chart()
        self._retranslate_controls()
        if model is not None:
            model.events.plan.connect(self.show_plan)
            model.events.errors.connect(self.set_stale)
            if model.plan is not None:
                self.show_plan(model.plan, model.breakdown)
            self.set_stale(model.errors)

    def _link_chart(self, plot, box: QCheckBox, from_box: bool = False) -> None:
        """Log scale: the check box and the chart's context menu stay in step (the chart starts as the
        box when `from_box`: a chart built later); the menu exports."""
        if from_box and box.isChecked() != plot.log_y:
            plot.set_log_y(box.isChecked())
        box.setChecked(plot.log_y)
        box.toggled.connect(plot.set_log_y)
        plot.menu.logToggled.connect(box.setChecked)
        plot.menu.logToggled.connect(lambda _on: self._update_texts())
        plot.menu.actions = self._export_actions

    def release_nd_chart(self) -> DpChart:
        """The Nd chart, built (in its place) and drawn for the plan shown if it is not yet."""
        if self.dp_chart is not None:
            return self.dp_chart
        chart = DpChart()
        chart.setMinimumHeight(140)
        self._nd_pane.replaceWidget(self._nd_room, chart)
        self._nd_room.hide()  # under the chart until deleted: not painted with it
        self._nd_room.deleteLater()
        self.dp_chart = chart
        self._link_chart(chart, self.dp_log_toggle, from_box=True)
        chart.setAccessibleName(self.tr("Memory versus Nd chart"))
        chart.menu.log_action.setText(self.tr("Logarithmic Scale"))
        if self._plan is not None and self._breakdown is not None:
            chart.set_plan(self._plan, self._breakdown)  # its caption is in place already: the panel keeps its size
        if chart.parentWidget().isVisible():  # in view now, drawn once in its place (the layout shows it a turn
            with drawing_held(chart):  # later, drawn first at the size it is made at)
                chart.show()
                self._nd_pane.activate()
        return chart

    def focus_chain(self) -> list[QWidget]:
        """The tab's controls in the order Tab visits them: each chart after its Log scale box, stages first."""
        chain = [self.log_toggle, self.chart, self.dp_log_toggle]
        return chain + ([self.dp_chart] if self.dp_chart is not None else [])

    def _charts(self) -> tuple:
        return (self.chart,) if self.dp_chart is None else (self.chart, self.dp_chart)

    def _retranslate_controls(self) -> None:
        for box in (self.log_toggle, self.dp_log_toggle):
            box.setText(self.tr("Log scale"))
            box.setToolTip(self.tr("Logarithmic memory axis: small stages and models stay readable"))
        for plot in self._charts():
            plot.menu.log_action.setText(self.tr("Logarithmic Scale"))
        self._export_actions[0].setText(self.tr("Export Charts as PNG…"))
        self._export_actions[1].setText(self.tr("Export Charts as SVG…"))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_warning()

    def _fit_warning(self) -> None:
        """The warning wraps to more lines when narrow: the chart's pane grows its minimum so the
        splitter never squeezes the text over the bars."""
        width = self._top_pane.width()
        if width < 120:  # not laid out yet: a text wrapped to a few pixels would ask for a huge pane
            return
        need = self.chart.minimumHeight() + self.warning.heightForWidth(width) + 6
        if self._top_pane.minimumHeight() != need:
            self._top_pane.setMinimumHeight(need)
            self.textsChanged.emit()  # the height it needs changed: a scroll area around it fits again
    def show_plan(self, plan: Plan, b: Breakdown) -> None:
        """The model's plan: drawn now, or when the tab is next shown if another tab is in view."""
        self._waiting = (plan, b)
        window = self.window()
        if window is self or not window.isVisible() or self.isVisible():  # before the first frame too: it shows the plan
            self.catch_up()

    def catch_up(self) -> None:
        """Draw the plan that waited while another tab was in view (exports and tests call this too)."""
        if self._waiting is not None:
            plan, b = self._waiting
            self._waiting = None
            self.set_breakdown(plan, b)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.catch_up()

    def set_breakdown(self, plan: Plan, b: Breakdown) -> None:
        """The charts take the plan, the captions say it, the tab is laid out at the captions' new size, and only
        then each chart draws, once, at its final size: the event loop paints the edit once (it painted, laid out
        and painted again, two to six times, and a chart drew for the data and again for its new height)."""
        self._plan, self._breakdown = plan, b
        offload = () if self.offload_chart is None else (self.offload_chart.plot,)
        with drawing_held(*self._charts(), views=offload):
            self.chart.set_breakdown(plan, b)
            if self.offload_chart is None and plan.offload != Offload.NONE:
                from .offload_chart import OffloadChart

                self.offload_chart = OffloadChart()
                self._chart_row.addWidget(self.offload_chart, 2)
            if self.offload_chart is not None:
                self.offload_chart.set_plan(plan)  # hides itself when the plan offloads nothing
            if self.dp_chart is not None:
                self.dp_chart.set_plan(plan, b)
            self._update_texts()
            settle_layout(self)

    def set_stale(self, errors: dict[str, str]) -> None:
        """The form is invalid: say that the chart shows the last valid plan."""
        self._stale = bool(errors)
        if errors:
            self.stale.setText("⚠ " + html.escape(self.tr(
                "{n} field(s) need attention; the chart shows the last valid plan.").format(n=len(errors))))
        if errors and not self.stale.isVisible() and self.isVisible():
            # the note pushes the charts down: laid out now, each chart drawn once at its new size and painted once (the
            # window painted them stretched first, then drew them a turn later and painted them again). Hidden again,
            # the valid plan that comes next lays the tab out so.
            with drawing_held(*self._charts()):
                self.stale.setVisible(True)
                settle_layout(self)
        else:
            self.stale.setVisible(bool(errors))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.chart.setAccessibleName(self.tr("Per-stage memory chart"))
            if self.dp_chart is not None:
                self.dp_chart.setAccessibleName(self.tr("Memory versus Nd chart"))
            self._retranslate_controls()
            self._update_texts()
            self.set_stale({"": ""} if self._stale else {})
        super().changeEvent(event)

    def _update_texts(self) -> None:
        plan, b = self._plan, self._breakdown
        if plan is None or b is None:
            return
        unit = self.chart.unit  # the plan's unit, stepped down for a small model
        name = i18n.model_label(plan.model.name) or (
            self.tr("custom architecture") if plan.model.architecture else self.tr("raw parameter count"))
        c = plan.cluster
        title = html.escape(self.tr("Per-rank model-state memory by ZeRO stage"))
        dp_title = html.escape(self.tr("Per-rank model states versus Nd"))
        log_note = html.escape(" · " + self.tr("log memory axis"))
        self.caption.setText(
            f"<b>{title}</b> — "
            + html.escape(provenance(plan, b)) + (log_note if self.chart.log_y else "") + "<br>"
            + html.escape(self.tr("{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPUs) · figures in {unit} ({note})").format(
                name=name, p=i18n.fmt_int(b.params), short=i18n.fmt_count(b.params), nd=b.dp, nodes=c.nodes, gpn=c.gpus_per_node,
                unit=i18n.unit_label(unit), note=i18n.unit_note(unit))))
        self._update_legend()
        notes = "".join("<br>" + html.escape(self.tr("Note: {note}.").format(note=i18n.core_note(n))) for n in b.notes)
        if self.chart.peaks:
            # the hatched top is the predicted peak: say so, shortly, and where to check it
            text = self.tr("The bars are model states; the hatched top is the predicted peak of a full step "
                           "(activations, gathered parameters, buffers; sequence {seq} × micro-batch {mb}). "
                           "Fragmentation is not predicted: Simulate or Measure the step.").format(
                seq=i18n.fmt_int(plan.seq_len), mb=i18n.fmt_int(plan.micro_batch))
        else:  # no activations, no peak: none is drawn, and this says why
            text = peak_warning() + " " + self.tr(
                "No predicted peak is drawn: without the architecture the activations are unknown "
                "(a raw parameter count); pick a preset or give the architecture for it.")
        self.warning.setText("⚠ " + html.escape(text) + notes)
        self._fit_warning()
        self.textsChanged.emit()
        self.dp_caption.setText(
            f"<b>{dp_title}</b> — "
            + html.escape(self.tr("computed, {profile}; {unit}; dotted line: current Nd = {nd}").format(
                profile=i18n.profile_short(b.profile.value),
                unit=i18n.unit_label(self.dp_chart.unit if self.dp_chart is not None else unit), nd=b.dp))
            + (log_note if self.dp_log_toggle.isChecked() else "") + "<br>" + dp_legend_html() + hybrid_legend_html(plan))

    def _update_legend(self) -> None:
        b = self._breakdown
        if b is None:
            return
        text = "&nbsp;&nbsp; ".join(
            f'<span style="color:{component_color(k, i)}; font-size:large">■</span>&nbsp;{_nowrap(i18n.component_label(k))}'
            for i, k in enumerate(b.stages[0].components))
        if self.chart.peaks:
            text += (f'&nbsp;&nbsp; <span style="color:{PEAK_COLOR}; font-size:large">▨</span>&nbsp;'
                     + _nowrap(self.tr("predicted peak of the step (estimate)")))
        measured = self.chart.measured_legend_html()
        text += "<br>" + measured if measured else ""
        if text != self.legend.text():  # the chart asks again after each drawing: the same text is no new paint
            self.legend.setText(text)
