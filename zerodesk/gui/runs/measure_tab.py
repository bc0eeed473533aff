"""The "Measure" tab: simulate or measure a training step and set it beside the plan.

Composes small parts (beside it in gui/runs/): the controls, the run bar, the live timeline, the tier
comparison and the per-rank results, and a log. It observes the plan model, renders what its
RunController says and asks it to start or cancel; RunRecords links the controller to the Plan chart.
The tab never reaches into its container.
"""

from __future__ import annotations

import sys

import shlex

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from ...core.accounting import Breakdown
from ...core.evidence import EvidenceRecord
from ...core.plan import Plan
from ...core.plan_model import PlanModel
from ...measure import rules
from ...measure.protocol import SIMULATED_STAGES, scale_plan
from ..base.settings import MeasureSettings, Settings
from .controller import RunController, RunJob
from .controls import MeasureControls
from .fmt import fmt_auto
from .module_breakdown import ModuleBreakdown
from .results import RankResults, TierComparison
from .run_bar import RunBar
from .texts import RunTexts
from .timeline import TimelineChart


class MeasureTab(QWidget):
    def __init__(self, controller: RunController, settings: MeasureSettings | None = None,
                 model: PlanModel | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measureTab")
        self.controller = controller
        self.extra_env: dict[str, str] = {}  # added to a run's environment (tests inject faults here)
        self._plan: Plan | None = None
        self._stale = True  # the controls or the plan changed since the last run: say what Start would do
        self._breakdown: Breakdown | None = None
        self._plan_shown = True  # the comparison shows self._plan
        self._dirty = True  # something changed while the tab was hidden
        self.texts = RunTexts(controller)
        self._build(settings or Settings().measure(persist=False))
        controller.runStarted.connect(self._on_run_started)
        controller.changed.connect(self.refresh)
        controller.stopping.connect(self.refresh)
        controller.sample.connect(self.timeline.add)
        controller.logLine.connect(self.log.appendPlainText)
        controller.runFinished.connect(self._on_run_finished)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.refresh)
        if model is not None:
            model.events.plan.connect(self.set_plan)
            self.set_plan(model.plan, model.breakdown)
        self.refresh()
        if getattr(sys, "frozen", False) and not self.controls.interpreter():  # a bundle: find a Python with torch
            self.controls.search_python()

    def _build(self, settings: MeasureSettings) -> None:
        outer = QVBoxLayout(self)  # the controls scroll rather than force the window's minimum size up
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setObjectName("measureScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        scroll.setWidget(body)
        outer.addWidget(scroll)
        v = QVBoxLayout(body)
        v.setContentsMargins(6, 6, 6, 6)
        v.setSpacing(4)
        self.controls = MeasureControls(settings)
        v.addWidget(self.controls)
        self.bar = RunBar()
        v.addWidget(self.bar)
        self.status = self.bar.status
        self.model_note = QLabel()
        self.model_note.setObjectName("measureModelNote")
        self.model_note.setWordWrap(True)
        self.model_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.model_note)

        self.timeline = TimelineChart()
        self.timeline.setMinimumHeight(150)
        self.comparison = TierComparison()
        self.rank_results = RankResults()
        self.tables = QTabWidget()
        self.tables.setObjectName("measureTables")
        self.tables.setDocumentMode(True)
        self.tables.addTab(self.comparison.table, "")
        self.tables.addTab(self.rank_results.table, "")
        self.modules = ModuleBreakdown()  # the peak by module of the stage under the Plan chart's cursor
        self.tables.addTab(self.modules, "")
        self.log = QPlainTextEdit()
        self.log.setObjectName("measureLog")
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.log.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setMinimumHeight(60)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("measureSplitter")
        split.setChildrenCollapsible(False)
        for w, stretch in ((self.timeline, 3), (self.tables, 3), (self.log, 1)):
            split.addWidget(w)
            split.setStretchFactor(split.count() - 1, stretch)
        split.setSizes([280, 260, 110])
        v.addWidget(split, 1)

        self.controls.changed.connect(self._on_controls)
        self.bar.start_button.clicked.connect(self.start)
        self.bar.simulate_button.clicked.connect(self.simulate)
        self.bar.cancel_button.clicked.connect(self.controller.cancel)
        self.retranslate()

    def title(self) -> str:
        return self.tr("Measure")

    def retranslate(self) -> None:
        self.timeline.setAccessibleName(self.tr("Live memory timeline"))
        self.tables.setTabText(0, self.tr("Tiers side by side"))
        self.tables.setTabText(1, self.tr("Ranks of the last run"))
        self.tables.setTabText(2, self.tr("Peak by module"))
        self.comparison.table.setAccessibleName(self.tr("Computed, simulated and measured figures per stage"))
        self.rank_results.table.setAccessibleName(self.tr("Results of the last run per rank"))
        self.rank_results.retranslate()
        self.comparison.refresh()
        self.log.setAccessibleName(self.tr("Run log"))
        self.log.setPlaceholderText(self.tr("The command, the ranks' messages (stderr) and errors appear here."))
        self.refresh()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "bar"):
            self.retranslate()
        super().changeEvent(event)

    # -- inputs from the window -------------------------------------------------------------------
    def set_plan(self, plan: Plan | None, breakdown: Breakdown | None = None) -> None:
        if plan is None:
            return
        self._plan, self._breakdown = plan, breakdown
        self.controls.default_ranks(rules.default_ranks(plan, self.controls.device_choice(), self.controls.gpus()))
        self.timeline.family = rules.unit_family(plan)
        self._stale = self._stale or not self.is_running()  # a run under way reports on its own plan when done
        self._plan_shown = False
        self.refresh()

    def set_records(self, records: list[EvidenceRecord]) -> None:
        self.comparison.set_records(records)

    # -- what would run ---------------------------------------------------------------------------------
    def measured_plan(self) -> Plan | None:
        """The plan scaled as the controls say, or None when it cannot be measured."""
        if self._plan is None or self._plan.model.architecture is None:
            return None
        try:
            return scale_plan(self._plan, self.controls.scale())
        except ValueError:
            return None

    def _common_problem(self, kind: str) -> str:
        plan = self._plan
        if plan is None:
            return self.tr("There is no valid plan yet.")
        if not plan.model.buildable:
            return (self.tr("Simulating needs the model's architecture (layers, hidden, heads, FFN, vocabulary), not only "
                            "a parameter count: pick a model preset or enter the architecture in the form.")
                    if kind == "simulated" else
                    self.tr("Measuring needs the model's architecture (layers, hidden, heads, FFN, vocabulary), not only "
                            "a parameter count: pick a model preset or enter the architecture in the form."))
        if not self.controls.interpreter():
            return self.tr("Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).")
        return self.controls.interpreter_problem()

    def measure_problem(self) -> str:
        """Why Measure cannot run now ("" if it can)."""
        problem = self._common_problem("measured")
        if problem:
            return problem
        scaled = self.measured_plan()
        if scaled is None:
            return self.tr("This scale-down does not give a valid model; change the fractions.")
        arch = scaled.model.architecture
        if arch.positions == "learned" and scaled.seq_len > arch.max_positions:
            return self.tr("The sequence ({seq}) is longer than the learned position table ({n}); shorten it in the "
                           "form.").format(seq=scaled.seq_len, n=arch.max_positions)
        stages, ranks = self.controls.selected_stages(), self.controls.ranks.value()
        if not stages:
            return self.tr("Choose at least one stage to measure.")
        refusal = rules.host_fit(scaled, stages, ranks, self.controls.device_choice(), gpus=self.controls.gpus())
        if refusal is not None:
            return self.tr("The model states of {n} CPU ranks need about {need}, more than this machine can spare "
                           "({free} free): scale the model down (layers ×, hidden ×), use fewer ranks, or Simulate.", "",
                           ranks).format(
                n=ranks, need=fmt_auto(refusal.need, "GB"), free=fmt_auto(refusal.free, "GB"))
        return ""

    def simulate_problem(self) -> str:
        return self._common_problem("simulated")

    def simulated_stages(self) -> list[int]:
        """The selected stages the fake process group can run; all of those when none is selected."""
        return [s for s in self.controls.selected_stages() if s in SIMULATED_STAGES] or list(SIMULATED_STAGES)

    def _job(self, kind: str) -> RunJob:
        c = self.controls
        if kind == "simulated":
            return RunJob("simulated", self._plan, tuple(self.simulated_stages()), self._plan.dp,
                          python=c.interpreter(), timeout_s=c.timeout.value(), env=dict(self.extra_env),
                          warm=c.interpreter_ready())
        return RunJob("measured", self._plan, tuple(c.selected_stages()), c.ranks.value(), c.device_choice(),
                      c.scale(), c.interpreter(), c.timeout.value(), dict(self.extra_env), c.interpreter_ready())

    # -- running ------------------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.controller.is_running()

    def start(self) -> bool:
        """Measure with the controls' settings; False (and the reason in the tab) if it cannot start."""
        return self._start("measured", self.measure_problem())

    def simulate(self) -> bool:
        """Simulate rank 0 of the plan's Nd under fake tensors; False (and the reason) if it cannot start."""
        return self._start("simulated", self.simulate_problem())

    def _start(self, kind: str, problem: str) -> bool:
        if self.is_running() or problem:
            self.refresh()
            return False
        job = self._job(kind)
        self.log.clear()
        self.log.appendPlainText(self.tr("Run: {command}").format(
            command=shlex.join(a if len(a) <= 80 else a[:60] + "…}" for a in job.argv())))
        return self.controller.start(job)

    def _on_run_started(self) -> None:
        self._stale = False
        self.rank_results.show([], self.rank_results.family)
        self.modules.set_results([])
        self.timeline.family = rules.unit_family(self.controller.job.plan)
        self.timeline.clear_data()
        self._tick.start()
        self.refresh()

    def _on_run_finished(self, _ok: bool) -> None:
        self._tick.stop()
        self.timeline.stop(simulated=self.controller.job.kind == "simulated")
        self.refresh()

    def _on_controls(self) -> None:
        # Controls are locked during a run: a change then is the interpreter check answering or the plan's default
        # ranks, and the run under way still reports on its own job when it ends.
        self._stale = self._stale or not self.is_running()
        if self._plan is not None:  # the device or the interpreter's GPUs may change the default ranks
            self.controls.default_ranks(rules.default_ranks(self._plan, self.controls.device_choice(),
                                                            self.controls.gpus()))
        if not self.is_running():
            self.status.relax()  # new settings, new paragraph: it may be shorter than the last run's
        self.refresh()

    # -- rendering ----------------------------------------------------------------------------------------
    def _showing_run(self) -> bool:
        return self.controller.job is not None and (self.is_running() or not self._stale)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Render the controller's state and the plan. A hidden tab only notes that it must (edits stay fast)."""
        if not self.isVisible():
            self._dirty = True
            return
        self._dirty = False
        running, c, state = self.is_running(), self.controller, self.controller.state
        if not self._plan_shown and self._plan is not None:
            self._plan_shown = True
            self.comparison.set_plan(self._plan, self._breakdown)
            self.rank_results.show(self.rank_results.results, rules.unit_family(self._plan))
        problems = (self.measure_problem(), self.simulate_problem())
        self.controls.set_running(running)
        self.bar.set_running(running, c.is_stopping(), not problems[0], not problems[1])
        showing = self._showing_run()
        self.bar.show_progress(state if showing else None, running)
        self.bar.show_phases(state if showing else None, self.controls.selected_stages(),
                             c.job.kind if showing else "measured")
        if showing and state.results and len(state.results) != len(self.rank_results.results):
            self.rank_results.show(state.sorted_results(), rules.unit_family(c.job.plan))
            self.modules.set_results(state.sorted_results(), rules.unit_family(c.job.plan))
        if showing and state.error is not None:
            self.timeline.stop(simulated=c.job.kind == "simulated")
        self.status.setText(self._status_html(showing, problems))
        self.model_note.setText(self._model_note())

    def _status_html(self, showing: bool, problems: tuple[str, str]) -> str:
        if not showing:
            return self.texts.idle(self._plan, self.controls, *problems, self.simulated_stages(), self.measured_plan())
        if self.is_running():
            return self.texts.running()
        if self.controller.state.error is not None:
            return self.texts.error_html(self.log.blockCount() > 1)
        return self.texts.summary(self._plan)

    def error_text(self) -> str:
        """The one sentence that says why the last run failed ("" if it did not)."""
        return self.texts.error_text()

    def _model_note(self) -> str:
        job = self.controller.job if self._showing_run() else None
        c = self.controls
        if job is not None:
            return self.texts.model_note(job.plan, job.scale, job.ranks if job.kind == "measured" else c.ranks.value(),
                                         list(job.stages))
        return self.texts.model_note(self._plan, c.scale(), c.ranks.value(), c.selected_stages() or list(rules.STAGES))
