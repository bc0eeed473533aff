"""ZeroDesk's main window: the form (dock), the Plan, Table, Measure and Fit tabs, the glossary (dock).

Data flows one way: the form edits the plan model (zerodesk.core.plan_model); the model computes the
breakdown and every view observes it: the Plan tab, the Table tab, the Measure tab, the glossary's
context and the runs' records. An invalid form leaves the last valid plan on screen. This module
builds the parts and wires them; beside it live the menus and their commands (menus), plan files and
exports (file_commands), size and docks (layout), tabs built when first shown (lazy_pages) and the
work that waits for the first paint (startup). The window's state is the model, the document and the
runs' records; the mixins only command them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QScrollArea, QTabWidget, QWidget

from ...core.accounting import Breakdown
from ...core.plan import Plan
from ...core.plan_model import PlanModel
from ..base import i18n
from ..base.settings import Settings
from ..base.wheel_guard import install_wheel_guard
from ..charts.plan_tab import PlanTab
from ..form.fields import default_plan
from ..form.plan_form import PlanForm
from ..glossary.claims import STAGES_CLAIM, segment_claim_ids
from ..glossary.dock import GlossaryDock
from ..lesson import install_lesson
from ..runs.records import RunRecords
from .document import PlanDocument
from .file_commands import FileCommands
from .fit_scroll import FitScrollArea
from .hf_import import install_hf_import
from .layout import WindowLayout, app_icon
from .lazy_pages import LazyPages
from .menus import WindowMenus
from .shortcuts import WindowShortcutsFirst
from .startup import DeferredStart
from .toolbar_fit import ToolbarFit

if TYPE_CHECKING:
    from ..table.table_tab import TableTab

__all__ = ["MainWindow", "app_icon"]


class MainWindow(WindowMenus, FileCommands, WindowLayout, QMainWindow):
    def __init__(self, settings: Settings | None = None, plan: Plan | None = None, persist: bool = True) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or Settings()
        self._persist = persist
        self.quiet = False  # no modal message boxes (screenshot mode, tests): errors go to the status bar
        self.open_error = ""  # a plan file given at start that could not be read
        self.document = PlanDocument(self.settings, self)
        self._asking_reload = False
        self.model = PlanModel()  # the plan, its breakdown and the form's errors: every view observes it
        self.startup = DeferredStart(self)  # what the first frame does not show comes right after it

        # central: tabs (Plan; Table and Measure are built when first shown)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.plan_tab = PlanTab(self.model, nd_chart_later=True)  # the stage bars are in the first frame; the Nd chart follows it
        self.chart = self.plan_tab.chart
        self.startup.add(self.plan_tab.release_nd_chart)
        # in a scroll area: a small window scrolls the Plan tab rather than squeezing its texts over the charts
        plan_scroll = FitScrollArea(self.plan_tab)
        plan_scroll.setObjectName("planScroll")
        plan_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its charts and boxes take the focus; it follows them
        self.plan_tab.textsChanged.connect(plan_scroll.fit_soon)
        self.tabs.addTab(plan_scroll, "")
        self.pages = LazyPages(self.tabs)
        self._table_slot = self.pages.add(self._build_table, "tableSlot")
        self._measure_slot = self.pages.add(self._build_measure_tab, "measureSlot")
        self._fit_slot = self.pages.add(self._build_fit_tab, "fitSlot")
        self.setCentralWidget(self.tabs)
        # runs (simulate, measure): their records follow the plan and are drawn on the Plan chart
        first = plan or default_plan(self.settings.units)
        self.run_records = RunRecords(self.chart, self.model, self)
        self.run_records.load(first)
        self._runs = None

        # docks
        self.form = PlanForm(self.model, first)
        self.form_dock = QDockWidget()
        self.form_dock.setObjectName("planDock")
        scroll = QScrollArea()
        scroll.setObjectName("planScroll")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # never cut a long label off
        scroll.setMinimumWidth(300)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the fields take the focus; the area scrolls to the one that has it
        self.form_dock.setWidget(scroll)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.form_dock)
        self.glossary = GlossaryDock(self.model)
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
        self.plan_tab.exportRequested.connect(lambda suffix: self.export_dialog(suffix))

        events = self.model.events
        events.plan.connect(self._on_plan)
        events.errors.connect(self._on_errors)
        events.compute_error.connect(lambda error: self.statusBar().showMessage(
            self.tr("Cannot compute this plan: {error}").format(error=error)))
        self.chart.segmentClicked.connect(self._on_segment_clicked)
        self.chart.segmentHovered.connect(self._on_segment_hovered)
        self.chart.segmentFocused.connect(self._on_segment_focused)
        self.run_records.notice.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.run_records.recordsChanged.connect(self._on_records)
        self.document.pathChanged.connect(lambda _p: self._update_title())
        self.document.recentChanged.connect(lambda _r: self._rebuild_recent_menu())
        self.document.diskChanged.connect(self._on_disk_changed)

        self.startup.add(lambda: self.setWindowIcon(app_icon()))  # loading the SVG icon need not delay the frame
        self.startup.add(self._wire_nd_chart)  # once it is built: its keys, and the tab order through it
        # the wheel scrolls the form; a box changes only once it has focus (no wheel reaches an unpainted window). Last:
        # its filter sees every event of the application, the thousands that build the Nd chart and the card too
        self.startup.add(install_wheel_guard)
        self.act_lesson = install_lesson(self)
        # a narrow window drops these from the toolbar (not from the menus) before any other button would hide
        self.toolbar_fit = ToolbarFit(self.toolbar, [self.act_copy_table, self.act_export_png, self.act_new, self.act_card])
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
        self.tabs.setTabText(self.pages.index(self._fit_slot), self.tr("Fit"))
        self.run_records.redraw()  # series labels are in the UI language
        self.tabs.setAccessibleName(self.tr("Views"))
        self._retranslate_recent_menu()
        self._update_title()
        self._on_errors(self.model.errors)

    def _wire_nd_chart(self) -> None:
        nd = self.dp_chart
        nd.pointActivated.connect(self._on_nd_point_activated)
        nd.pointFocused.connect(lambda _s, _n: self.statusBar().showMessage(nd.accessibleDescription().replace("\n", " · ")))
        self.set_tab_order()
        if self.focusWidget() is None or not self.form.isAncestorOf(self.focusWidget()):
            self.form.field("model.preset").setFocus(Qt.FocusReason.OtherFocusReason)  # a keyboard starts at the form

    def set_tab_order(self) -> None:
        """Tab goes form -> the tabs' bar -> the Plan tab (each Log scale box, then its chart) -> the glossary."""
        card = self.glossary.card  # its widgets, not the dock's properties: those read a card a hidden dock defers
        chain = [self.form.last_in_tab_order(), self.tabs.tabBar(), *self.plan_tab.focus_chain(), card.search,
                 card.browser, card.checklist]
        chain = [w for w in chain if w is not None]
        for before, after in zip(chain, chain[1:]):
            QWidget.setTabOrder(before, after)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def dp_chart(self):
        """The memory-versus-Nd chart (built now if the first paint has not brought it yet)."""
        return self.plan_tab.release_nd_chart()

    # -- tabs ------------------------------------------------------------------------------------------
    def add_tab(self, widget: QWidget, title: str) -> int:
        """Add a view to the central tabs; returns its index."""
        return self.tabs.addTab(widget, title)

    @property
    def table_tab(self) -> TableTab:
        """The Table tab, built on first use (it is not needed to paint the first window)."""
        return self.pages.page(self._table_slot)

    def _build_table(self) -> TableTab:
        from ..table.table_tab import TableTab  # its modules load with the tab

        return TableTab(self.model)

    @property
    def runs(self):
        """The RunController (simulate, measure), made with the first use of the Measure tab."""
        if self._runs is None:
            from ..runs.controller import RunController  # the runs' modules load with the Measure tab

            self._runs = RunController(self)
            self.run_records.attach(self._runs)
            app = QApplication.instance()
            if app is not None:
                app.aboutToQuit.connect(self._runs.kill_now)
        return self._runs

    @property
    def measure_tab(self):
        """The Measure tab, built on first use (it is not needed to paint the first window)."""
        return self.pages.page(self._measure_slot)

    def _build_measure_tab(self):
        from ..runs.measure_tab import MeasureTab  # pydantic's protocol models load with the tab, not at start-up

        tab = MeasureTab(self.runs, self.settings.measure(persist=self._persist), self.model)
        tab.set_records(self.run_records.shelf.shown())
        tab.modules.claimRequested.connect(self.show_claim)
        return tab

    def show_tab(self, name: str) -> None:
        """Bring a tab into view by its name (plan, table, measure, fit: app.TAB_CHOICES)."""
        pages = {"table": self._table_slot, "measure": self._measure_slot, "fit": self._fit_slot}
        self.tabs.setCurrentIndex(0 if name == "plan" else self.pages.index(pages[name]))

    @property
    def fit_tab(self):
        """The Fit tab, built on first use (it is not needed to paint the first window)."""
        return self.pages.page(self._fit_slot).widget()

    def _build_fit_tab(self):
        from ..fit.fit_tab import FitTab  # the solver's view loads with its tab, not at start-up

        tab = FitTab(self.model)
        tab.exportRequested.connect(self._export_fit)
        scroll = FitScrollArea(tab)  # as the Plan tab: a small window scrolls it rather than squeezing the map
        scroll.setObjectName("fitScroll")
        tab.textsChanged.connect(scroll.fit_soon)
        return scroll

    def _export_fit(self, suffix: str) -> bool:
        from .document import ask_export_path

        path = ask_export_path(self, self.settings, suffix)
        if not path:
            return False
        tab = self.fit_tab
        ok = tab.export_svg(path) if path.suffix.lower() == ".svg" else tab.export_png(path)
        if ok:
            self.statusBar().showMessage(self.tr("Exported {path}").format(path=path), 4000)
        else:
            self.show_error(self.tr("Cannot export the chart"), self.tr("Could not write {path}.").format(path=path))
        return ok

    def start_run(self, kind: str) -> bool:
        """Simulate or measure the current plan from anywhere: the Measure tab shows the run."""
        tab = self.measure_tab
        self.tabs.setCurrentWidget(tab)
        return tab.simulate() if kind == "simulated" else tab.start()

    def _on_records(self) -> None:
        measure = self.pages.built(self._measure_slot)
        if measure is not None:
            measure.set_records(self.run_records.shelf.shown())
        self._update_modified()

    def document_plan(self) -> Plan:
        """The plan as the file keeps it: the model's plan with the runs' records taken for it."""
        return self.model.plan.model_copy(update={"evidence": self.run_records.records_for_file()})

    # -- following the model -----------------------------------------------------------------------------
    def _on_plan(self, plan: Plan, _b: Breakdown) -> None:
        if plan.units != self.settings.units and self._persist:
            self.settings.units = plan.units
        self._update_modified()

    def _on_errors(self, errors: dict) -> None:
        if errors:
            self.status_note.setText(self.tr("{n} field(s) need attention; the chart shows the last valid plan.").format(n=len(errors)))
        else:
            self.status_note.setText(self.tr("Computed: model states per rank; not the peak (ZeRO §3.2)."))
        self._update_modified()

    def _on_segment_clicked(self, stage: int, key: str) -> None:
        for claim_id in segment_claim_ids(key, self.model.plan):
            if self.show_claim(claim_id):
                return

    def show_claim(self, claim_id: str) -> bool:
        """Open the glossary at a claim (False when it has none of that id)."""
        if not self.glossary.select_claim(claim_id):
            return False
        self.glossary.show()
        self.glossary.raise_()
        claim = self.glossary.glossary.claim(claim_id)  # its words, not its internal id
        self.statusBar().showMessage(self.tr("Glossary: {claim}").format(claim=claim.summary), 4000)
        return True

    def _on_segment_focused(self, stage: int, key: str) -> None:
        """The keyboard's cursor on a segment: its figure and formula in the status bar, until the next move."""
        measure = self.pages.built(self._measure_slot)
        if measure is not None:
            measure.modules.set_stage(stage)
        self.statusBar().showMessage(self.chart.accessibleDescription().replace("\n", " · "))

    def _on_nd_point_activated(self, stage: int, nd: int) -> None:
        if self.glossary.select_claim(STAGES_CLAIM):
            self.glossary.show()
            self.glossary.raise_()

    def _on_segment_hovered(self, stage: int, key: str) -> None:
        measure = self.pages.built(self._measure_slot)
        if measure is not None:  # the last run's peak by module follows the stage under the cursor
            measure.modules.set_stage(stage)
        b, plan = self.chart.breakdown, self.chart.plan  # what the chart drew, which the mouse is over
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
        self.stop_reading()  # nor shows one still being read
        event.accept()
