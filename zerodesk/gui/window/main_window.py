"""ZeroDesk's main window: the form (dock), the Plan, Table and Measure tabs, the glossary (dock).

Data flows one way: form -> Plan -> core.compute -> Breakdown -> chart, table, glossary
context. An invalid form leaves the last valid plan on screen. This module builds the parts and
wires them; beside it live the menus and their commands (window_menus), plan files and exports
(window_files), size and docks (window_layout), tabs built when first shown (window_tabs) and the
work that waits for the first paint (window_startup).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QScrollArea, QTabWidget, QWidget

from ...core.accounting import Breakdown
from ...core.plan import Plan
from ...core.plan_model import PlanModel
from . import document
from ..base import i18n
from ..charts.plan_tab import PlanTab
from ..runs.records import RunRecords
from .fit_scroll import FitScrollArea
from ..glossary.dock import STAGES_CLAIM, GlossaryDock, component_claim_id, profile_claim_id, scheme_claim_ids
from .hf_import import install_hf_import
from ..lesson import install_lesson
from ..form.plan_form import PlanForm, default_plan
from ..base.settings import Settings
from .shortcuts import WindowShortcutsFirst
from ..table.table_tab import TableTab
from .file_commands import FileCommands
from .layout import WindowLayout, app_icon
from .menus import WindowMenus
from .startup import DeferredStart
from .lazy_pages import LazyPages


class MainWindow(WindowMenus, FileCommands, WindowLayout, QMainWindow):
    def __init__(self, settings: Settings | None = None, plan: Plan | None = None, persist: bool = True) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or Settings()
        self._persist = persist
        self.quiet = False  # no modal message boxes (screenshot mode, tests): errors go to the status bar
        self.open_error = ""  # a plan file given at start that could not be read
        self.document = document.PlanDocument(self.settings, self)
        self._compute_error = ""
        self._asking_reload = False
        self.model = PlanModel()  # plan, breakdown, errors: the views below render what it holds
        self._hidden_views_plan: tuple[Plan, Breakdown] | None = None  # not yet drawn by the charts and the table
        self.startup = DeferredStart(self)  # what the first frame does not show comes right after it

        # central: tabs (Plan; Table and Measure are built when first shown)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.chart_panel = PlanTab(nd_chart_later=True)  # the stage bars are in the first frame; the Nd chart follows it
        self.chart = self.chart_panel.chart
        self.startup.add(self.chart_panel.release_nd_chart)
        # in a scroll area: a small window scrolls the Plan tab rather than squeezing its texts over the charts
        plan_scroll = FitScrollArea(self.chart_panel)
        plan_scroll.setObjectName("planScroll")
        self.chart_panel.textsChanged.connect(plan_scroll.fit, Qt.ConnectionType.QueuedConnection)
        self.tabs.addTab(plan_scroll, "")
        self.pages = LazyPages(self.tabs)
        self._table_slot = self.pages.add(self._build_table, "tableSlot")
        self._measure_slot = self.pages.add(self._build_measure_tab, "measureSlot")
        self.setCentralWidget(self.tabs)
        # Runs (simulate, measure) and their evidence on the Plan chart
        self.evidence = RunRecords(self.chart, self)
        self._runs = None

        # docks
        first = plan or default_plan(self.settings.units)
        self.form = PlanForm(first)
        self.form_dock = QDockWidget()
        self.form_dock.setObjectName("planDock")
        scroll = QScrollArea()
        scroll.setObjectName("planScroll")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # never cut a long label off
        scroll.setMinimumWidth(300)
        self.form_dock.setWidget(scroll)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.form_dock)
        self.glossary = GlossaryDock()
        self.glossary.setMinimumWidth(260)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.glossary)
        self.resizeDocks([self.form_dock, self.glossary], [360, 400], Qt.Orientation.Horizontal)

        # the standing explanation lives in the status bar's own label: a passing message hides it, never clears it
        self.status_note = QLabel()
        self.status_note.setObjectName("statusNote")
        self.statusBar().addWidget(self.status_note, 1)

        self._build_actions()
        self._build_menus()
        self.retranslate()
        # keys go to the window only once it is painted: its filter of every application event can wait for that
        self.startup.add(lambda: setattr(self, "shortcuts_first", WindowShortcutsFirst(self)))
        self.chart_panel.exportRequested.connect(lambda suffix: self.export_dialog(suffix))

        self.form.planChanged.connect(self._on_plan)
        self.form.errorsChanged.connect(self.model.set_errors)
        self._subscribe_views()
        self.form.edited.connect(self._update_modified)
        self.chart.segmentClicked.connect(self._on_segment_clicked)
        self.chart.segmentHovered.connect(self._on_segment_hovered)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.evidence.notice.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.evidence.recordsChanged.connect(self._on_records)
        self.document.pathChanged.connect(lambda _p: self._update_title())
        self.document.recentChanged.connect(lambda _r: self._rebuild_recent_menu())
        self.document.diskChanged.connect(self._on_disk_changed)

        self.startup.add(lambda: self.setWindowIcon(app_icon()))  # loading the SVG icon need not delay the frame
        self.evidence.load(self.form.plan())
        self._on_plan(self.form.plan())
        self.act_lesson = install_lesson(self)
        self.hf_import = install_hf_import(self)  # File > Import Hugging Face config…, dropped config.json
        self.document.mark_saved(self.document_plan(), None)
        self._restore_layout()
        self._update_title()

    def retranslate(self) -> None:
        self._retranslate_menus()
        self.form_dock.setWindowTitle(self.tr("Model and cluster"))
        self.tabs.setTabText(0, self.tr("Plan"))
        self.tabs.setTabText(self.pages.index(self._table_slot), self.tr("Table"))
        self.tabs.setTabText(self.pages.index(self._measure_slot), self.tr("Measure"))
        self.evidence.redraw()  # series labels are in the UI language
        self.tabs.setAccessibleName(self.tr("Views"))
        self._rebuild_recent_menu()
        self._update_title()
        self._on_errors(self.form.errors())

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def dp_chart(self):
        """The memory-versus-Nd chart (built now if the first paint has not brought it yet)."""
        return self.chart_panel.release_nd_chart()

    # -- tabs ------------------------------------------------------------------------------------------
    def add_tab(self, widget: QWidget, title: str) -> int:
        """Add a view to the central tabs; returns its index."""
        return self.tabs.addTab(widget, title)

    @property
    def table(self) -> TableTab:
        """The Table tab, built on first use (it is not needed to paint the first window)."""
        return self.pages.page(self._table_slot)

    def _build_table(self) -> TableTab:
        table = TableTab()
        if self.model.plan is not None and self.model.breakdown is not None:
            table.set_breakdown(self.model.plan, self.model.breakdown)
        return table

    @property
    def runs(self):
        """The RunController (simulate, measure), made with the first use of the Measure tab."""
        if self._runs is None:
            from ..runs.controller import RunController

            self._runs = RunController(self)
            self.evidence.attach(self._runs)
            app = QApplication.instance()
            if app is not None:
                app.aboutToQuit.connect(self._runs.kill_now)
        return self._runs

    @property
    def measure_tab(self):
        """The Measure tab, built on first use (it is not needed to paint the first window)."""
        return self.pages.page(self._measure_slot)

    def _build_measure_tab(self):
        from ..runs.measure_tab import MeasureTab

        tab = MeasureTab(self.runs, self.settings.measure(persist=self._persist))
        tab.set_plan(self.model.plan, self.model.breakdown)
        tab.set_records(self.evidence.shelf.shown())
        return tab

    def _on_tab_changed(self, _index: int) -> None:
        self._render_hidden_views()

    def run_evidence(self, kind: str) -> bool:
        """Simulate or measure the current plan from anywhere: the Measure tab shows the run."""
        tab = self.measure_tab
        self.tabs.setCurrentWidget(tab)
        return tab.simulate() if kind == "simulated" else tab.start()

    def _on_records(self) -> None:
        measure = self.pages.built(self._measure_slot)
        if measure is not None:
            measure.set_records(self.evidence.shelf.shown())
        self._update_modified()

    def document_plan(self) -> Plan:
        """The plan as the file keeps it: the form's plan with the evidence taken for it."""
        return self.form.plan().model_copy(update={"evidence": self.evidence.records_for_file()})

    # -- plan flow -------------------------------------------------------------------------------
    def current_plan(self) -> Plan | None:
        return self.form.plan()

    @property
    def breakdown(self) -> Breakdown | None:
        return self.model.breakdown

    def _on_plan(self, plan: Plan | None) -> None:
        self.model.set_plan(plan)

    def _subscribe_views(self) -> None:
        """Each view follows the plan model (the window only wires; a view never knows its siblings)."""
        def on_plan(model: PlanModel, what: str) -> None:
            if what == "compute_error":
                self.statusBar().showMessage(self.tr("Cannot compute this plan: {error}").format(error=model.compute_error))
            elif what == "plan":
                self._render_plan(model.plan, model.breakdown)
            elif what == "errors":
                self._on_errors(model.errors)

        self.model.subscribe(on_plan)

    def _render_plan(self, plan: Plan, b: Breakdown) -> None:
        self._hidden_views_plan = (plan, b)
        measure = self.pages.built(self._measure_slot)
        if measure is None or self.tabs.currentWidget() is not measure:
            self._render_hidden_views()  # else the Plan and Table tabs catch up when shown: an edit stays fast
        self.glossary.set_context(plan.profile, plan.scheme)
        self.evidence.set_plan(plan)
        if measure is not None:
            measure.set_plan(plan, b)
        if plan.units != self.settings.units and self._persist:
            self.settings.units = plan.units
        self._update_modified()

    def _render_hidden_views(self) -> None:
        """Bring the charts and the table up to the plan model (they wait while the Measure tab is in view)."""
        if self._hidden_views_plan is None:
            return
        plan, b = self._hidden_views_plan
        self._hidden_views_plan = None
        self.chart_panel.set_breakdown(plan, b)
        table = self.pages.built(self._table_slot)
        if table is not None:
            table.set_breakdown(plan, b)

    def _on_errors(self, errors: dict) -> None:
        self.chart_panel.set_stale(errors)
        if errors:
            self.status_note.setText(self.tr("{n} field(s) need attention; the chart shows the last valid plan.").format(n=len(errors)))
        else:
            self.status_note.setText(self.tr("Computed: model states per rank; not the peak (ZeRO §3.2)."))
        self._update_modified()

    def _on_segment_clicked(self, stage: int, key: str) -> None:
        for claim_id in (component_claim_id(key), *scheme_claim_ids(self.form.plan().scheme),
                         profile_claim_id(self.form.plan().profile), STAGES_CLAIM):
            if self.glossary.select_claim(claim_id):
                self.glossary.show()
                self.glossary.raise_()
                claim = self.glossary.glossary.claim(claim_id)  # its words, not its internal id
                self.statusBar().showMessage(self.tr("Glossary: {claim}").format(claim=claim.summary), 4000)
                return

    def _on_segment_hovered(self, stage: int, key: str) -> None:
        b, plan = self.model.breakdown, self.chart.plan
        if b is not None and plan is not None:
            self.statusBar().showMessage(
                f"{i18n.stage_short(stage)} · {i18n.component_label(key)}: "
                f"{i18n.fmt_bytes(b.stage(stage).components[key], plan.units)}", 3000)

    # -- window events -----------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.save_layout()
        if self._runs is not None:
            self._runs.kill_now()  # no rank outlives the window
        self.document.stop_watching()  # a closed window looks at no file
        event.accept()

