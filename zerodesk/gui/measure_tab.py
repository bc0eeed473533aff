"""The "Measure" tab: simulate or measure a training step and set it beside the plan.

Composes small parts (gui/evidence/): the controls, the run bar, the live timeline, the tier
comparison and the per-rank results, and a log. It renders what its RunController says and asks it
to start or cancel; the main window links the controller to the Plan chart. The tab never reaches
into its container.
"""

from __future__ import annotations

import html
import shlex

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from ..core.accounting import Breakdown
from ..core.evidence import EvidenceRecord, run_key
from ..core.plan import Plan
from ..core.units import fmt_count
from ..measure import rules
from ..measure.protocol import Scale, scale_plan
from ..measure.simulate import SIMULATED_STAGES
from . import i18n
from .evidence.controller import RunController, RunJob
from .evidence.controls import MeasureControls
from .evidence.fmt import fmt_auto, fmt_duration, fmt_percent
from .evidence.results import RankResults, TierComparison
from .evidence.status import RunBar, phase_name
from .evidence.timeline import TimelineChart
from .settings import MeasureSettings
from .style import ERROR_COLOR, OK_COLOR


class MeasureTab(QWidget):
    def __init__(self, controller: RunController, settings: MeasureSettings | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measureTab")
        self.controller = controller
        self.extra_env: dict[str, str] = {}  # added to a run's environment (tests inject faults here)
        self._plan: Plan | None = None
        self._stale = True  # the controls or the plan changed since the last run: say what Start would do
        self._build(settings or MeasureSettings(persist=False))
        controller.runStarted.connect(self._on_run_started)
        controller.changed.connect(self.refresh)
        controller.stopping.connect(self.refresh)
        controller.sample.connect(self.timeline.add)
        controller.logLine.connect(self.log.appendPlainText)
        controller.runFinished.connect(self._on_run_finished)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.refresh)
        self.refresh()

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
        self._plan = plan
        self.controls.default_ranks(rules.default_ranks(plan))
        self.timeline.family = rules.unit_family(plan)
        self.comparison.set_plan(plan, breakdown)
        self.rank_results.show(self.rank_results.results, rules.unit_family(plan))
        self._stale = self._stale or not self.is_running()  # a run under way reports on its own plan when done
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

    def _common_problem(self, verb: str) -> str:
        plan = self._plan
        if plan is None:
            return self.tr("There is no valid plan yet.")
        if plan.model.architecture is None:
            return self.tr("{verb} needs the model's architecture (layers, hidden, heads, FFN, vocabulary), not only a "
                           "parameter count: pick a model preset or enter the architecture in the form.").format(verb=verb)
        if not self.controls.interpreter():
            return self.tr("Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).")
        return ""

    def measure_problem(self) -> str:
        """Why Measure cannot run now ("" if it can)."""
        problem = self._common_problem(self.tr("Measuring"))
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
        refusal = rules.host_fit(scaled, stages, ranks, self.controls.device_choice())
        if refusal is not None:
            return self.tr("The model states of {n} CPU ranks need about {need}, more than this machine can spare "
                           "({free} free): scale the model down (layers ×, hidden ×), use fewer ranks, or Simulate.").format(
                n=ranks, need=fmt_auto(refusal.need, "GB"), free=fmt_auto(refusal.free, "GB"))
        return ""

    def simulate_problem(self) -> str:
        return self._common_problem(self.tr("Simulating"))

    def simulated_stages(self) -> list[int]:
        """The selected stages the fake process group can run; all of those when none is selected."""
        return [s for s in self.controls.selected_stages() if s in SIMULATED_STAGES] or list(SIMULATED_STAGES)

    def _job(self, kind: str) -> RunJob:
        c = self.controls
        if kind == "simulated":
            return RunJob("simulated", self._plan, tuple(self.simulated_stages()), self._plan.dp,
                          python=c.interpreter(), timeout_s=c.timeout.value(), env=dict(self.extra_env))
        return RunJob("measured", self._plan, tuple(c.selected_stages()), c.ranks.value(), c.device_choice(),
                      c.scale(), c.interpreter(), c.timeout.value(), dict(self.extra_env))

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
        self.status.relax()
        self.rank_results.show([], self.rank_results.family)
        self.timeline.family = rules.unit_family(self.controller.job.plan)
        self.timeline.clear_data()
        self._tick.start()
        self.refresh()

    def _on_run_finished(self, _ok: bool) -> None:
        self._tick.stop()
        self.timeline.stop()
        self.refresh()

    def _on_controls(self) -> None:
        self._stale = True
        self.refresh()

    # -- rendering ----------------------------------------------------------------------------------------
    def _showing_run(self) -> bool:
        return self.controller.job is not None and (self.is_running() or not self._stale)

    def refresh(self) -> None:
        running, c, state = self.is_running(), self.controller, self.controller.state
        self.controls.set_running(running)
        self.bar.set_running(running, c.is_stopping(), not self.measure_problem(), not self.simulate_problem())
        showing = self._showing_run()
        self.bar.show_progress(state if showing else None, running)
        noun = self.tr("simulated") if showing and c.job.kind == "simulated" else self.tr("measured")
        self.bar.show_phases(state if showing else None, self.controls.selected_stages(), noun)
        if showing and state.results and len(state.results) != len(self.rank_results.results):
            self.rank_results.show(state.sorted_results(), rules.unit_family(c.job.plan))
        if showing and state.error is not None:
            self.timeline.stop()
        self.status.setText(self._status_html(showing))
        self.model_note.setText(self._model_note())

    def _status_html(self, showing: bool) -> str:
        c, state = self.controller, self.controller.state
        if not showing:
            return self._idle_html()
        if self.is_running():
            return self._running_html()
        if state.error is not None:
            return self._error_html()
        return self._summary_html()

    def _idle_html(self) -> str:
        problem = self.measure_problem()
        sim_problem = self.simulate_problem()
        if sim_problem:
            return f'<span style="color:{ERROR_COLOR}">{html.escape(sim_problem)}</span>'
        plan, c = self._plan, self.controls
        sim = self.tr("<b>Simulate</b> runs rank 0 of {nd} ranks for stage(s) {stages} as a full-size step under fake "
                      "tensors: no GPU, little memory — for models this machine cannot hold. Expect about {time}.").format(
            nd=i18n.fmt_int(plan.dp), stages=", ".join(map(str, self.simulated_stages())),
            time=fmt_duration(rules.simulate_seconds(plan, len(self.simulated_stages()))))
        if problem:
            meas = self.tr("<b>Measure</b> cannot run: {why}").format(why=html.escape(problem))
            return sim + "<br>" + f'<span style="color:{ERROR_COLOR}">{meas}</span>'
        stages, ranks, device = c.selected_stages(), c.ranks.value(), c.device_choice()
        where = {"cpu": self.tr("CPU ranks (gloo)"), "cuda": self.tr("CUDA ranks (NCCL, one GPU each)"),
                 "auto": self.tr("CUDA ranks if this machine has a GPU, else CPU ranks")}[device]
        meas = self.tr("<b>Measure</b> runs a warm-up and one measured training step for stage(s) {stages} on {ranks} "
                       "local {where}. Expect about {time}, much of it starting the ranks (each imports torch).").format(
            stages=", ".join(map(str, stages)), ranks=ranks, where=html.escape(where),
            time=fmt_duration(rules.measure_seconds(self.measured_plan(), len(stages), ranks, device)))
        chart = self._chart_note(plan, c.scale(), ranks)
        return sim + "<br>" + meas + " " + html.escape(chart)

    def _chart_note(self, plan: Plan, scale: Scale, ranks: int) -> str:
        if not scale.identity:
            return self.tr("A scaled run is compared here only; the Plan tab's bars stay those of the full model.")
        if ranks != plan.dp:
            return self.tr("The Plan tab's bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab "
                           "(set Ranks to {nd} to put markers on that chart).").format(nd=plan.dp, ranks=ranks)
        return self.tr("Results also land on the Plan tab's chart beside each bar.")

    def _running_html(self) -> str:
        c, state = self.controller, self.controller.state
        sim = c.job.kind == "simulated"
        current = state.current_stage()
        if c.is_stopping():
            text = self.tr("Stopping every process of the run…")
        elif state.started is None:
            text = self.tr("Starting the simulation (it imports torch)…") if sim else self.tr(
                "Starting {ranks} ranks (each imports torch)…").format(ranks=c.job.ranks)
        elif current is None:
            text = self.tr("Simulating…") if sim else self.tr("Measuring…")
        else:
            phase = phase_name(state.stage_status(current).phase)
            text = (self.tr("Simulating stage {n}: {phase}…") if sim else self.tr("Measuring stage {n}: {phase}…")).format(
                n=current, phase=phase)
        return html.escape(text + " " + self.tr("({s} s so far; Cancel stops every process)").format(
            s=round(c.elapsed_s())))

    def error_text(self) -> str:
        """The one sentence that says why the last run failed ("" if it did not)."""
        error = self.controller.state.error
        if error is None:
            return ""
        if error.code == "cancelled":
            return self.tr("The run was cancelled; every process of it was stopped.")
        reason = " ".join(error.message.split()).rstrip(".")
        if reason.lower().startswith(("the measurement ", "the simulation ")):  # already a sentence about the run
            return reason[:1].upper() + reason[1:] + "."
        return self.tr("The run failed: {reason}.").format(reason=reason)

    def _error_html(self) -> str:
        text = html.escape(self.error_text())
        if self.controller.state.error.code == "cancelled":
            return f"<b>{text}</b>"
        more = "<br>" + html.escape(self.tr("Details are in the log below.")) if self.log.blockCount() > 1 else ""
        return f'<span style="color:{ERROR_COLOR}"><b>⚠ {text}</b></span>{more}'

    def _summary_html(self) -> str:
        c, state = self.controller, self.controller.state
        st, job = state.started, c.job
        if st is None:
            return html.escape(self.tr("The run finished without results."))
        wall = i18n.fmt_seconds(state.outcome.wall_s) if state.outcome.wall_s is not None else "?"
        device = {"cpu": self.tr("CPU"), "cuda": self.tr("CUDA")}.get(st.device, st.device)
        if job.kind == "simulated":
            head = self.tr("Simulated rank 0 of {ranks} under fake tensors, torch {torch}, in {wall}.").format(
                ranks=i18n.fmt_int(st.ranks), torch=st.torch, wall=wall)
        else:
            head = self.tr("Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.").format(
                device=device + (f" ({st.device_name})" if st.device_name else ""), ranks=st.ranks, torch=st.torch, wall=wall)
        lines = [html.escape(head)]
        diffs = [(abs(d), d, r) for r in state.sorted_results()
                 if (d := rules.difference_pct(r.states.total, r.predicted_states.total)) is not None]
        if diffs:
            worst = max(diffs, key=lambda x: x[0])
            if worst[0] < 0.005:
                lines.append(html.escape(self.tr("Model states at rest match the torch profile on every rank ({d}).").format(
                    d=fmt_percent(worst[1]))))
            else:
                lines.append(html.escape(self.tr("Model states at rest differ from the torch profile by up to {d} "
                                                 "(stage {s}, rank {r}).").format(
                    d=fmt_percent(worst[1]), s=worst[2].stage, r=worst[2].rank)))
        if self._plan is not None and run_key(self._plan) != run_key(job.plan):
            lines.append(html.escape(self.tr("The plan has changed since this run; its results were set aside.")))
        elif job.on_chart:
            lines.append(html.escape(self.tr("On the Plan tab's chart, beside each bar: the peak and the model states of "
                                             "the largest rank, % against the torch profile.")))
        elif not job.scale.identity:
            lines.append("<b>" + html.escape(self.tr("Measured on a scaled model: {model}.").format(
                model=self._model_text(job.plan, job.scale))) + "</b> " + html.escape(self.tr(
                "The Plan tab's bars are for the full model, so no markers were put there.")))
        else:
            lines.append(html.escape(self.tr("The Plan tab's bars are for Nd = {nd}; this run used {ranks} ranks, so no "
                                             "markers were put there.").format(nd=job.plan.dp, ranks=st.ranks)))
        return f'<span style="color:{OK_COLOR}"><b>✓</b></span> ' + "<br>".join(lines)

    def _model_text(self, full: Plan, scale: Scale) -> str:
        """'2 layers, hidden 64, …; P = …' or, scaled, '2 of 32 layers, …; P = … of …'."""
        scaled = scale_plan(full, scale)
        a, b = full.model.architecture, scaled.model.architecture
        if scale.identity:
            return self.tr("{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × "
                           "micro-batch {mb}; P = {p} ({short})").format(
                layers=a.layers, hidden=a.hidden, heads=a.heads, ffn=a.ffn, vocab=i18n.fmt_int(a.vocab), seq=full.seq_len,
                mb=full.micro_batch, p=i18n.fmt_int(full.params), short=fmt_count(full.params))
        return self.tr("{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; "
                       "P = {p} ({short}) of {P} ({SHORT})").format(
            l=b.layers, L=a.layers, h=b.hidden, H=a.hidden, f=b.ffn, F=a.ffn, v=i18n.fmt_int(b.vocab),
            V=i18n.fmt_int(a.vocab), s=scaled.seq_len, S=full.seq_len, p=i18n.fmt_int(scaled.params),
            short=fmt_count(scaled.params), P=i18n.fmt_int(full.params), SHORT=fmt_count(full.params))

    def _model_note(self) -> str:
        job = self.controller.job if self._showing_run() else None
        plan = job.plan if job else self._plan
        scale = job.scale if job else self.controls.scale()
        if plan is None or plan.model.architecture is None:
            return ""
        try:
            scaled = scale_plan(plan, scale)
        except ValueError:
            return ""
        ranks = job.ranks if job and job.kind == "measured" else self.controls.ranks.value()
        stages = list(job.stages) if job else (self.controls.selected_stages() or list(rules.STAGES))
        largest = max(rules.predicted_states(scaled, stages, ranks).values())
        what = self.tr("Model as measured: {model}.") if scale.identity else self.tr("Scaled model as measured: {model}.")
        return what.format(model=self._model_text(plan, scale)) + " " + self.tr(
            "Predicted model states at rest (torch profile, largest of {n} ranks): up to {v}.").format(
            n=ranks, v=fmt_auto(largest, rules.unit_family(plan)))
