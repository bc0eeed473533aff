"""ZeroDesk's main window: the form (dock), Plan/Table tabs (room for more), the glossary (dock).

Data flows one way: form -> Plan -> core.compute -> Breakdown -> chart, table, glossary
context. An invalid form leaves the last valid plan on screen.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from .. import APP_NAME, __version__
from ..core.accounting import Breakdown
from ..core.plan import Plan, PlanError
from ..core.text import shorten
from ..core.plan_model import PlanModel
from ..resources import resource
from . import files, i18n, theme
from .chart_panel import ChartPanel
from .fit_scroll import FitScrollArea
from .first_paint import after_first_paint
from .glossary_dock import (
    CARD_CLAIM,
    STAGES_CLAIM,
    GlossaryDock,
    component_claim_id,
    profile_claim_id,
    scheme_claim_ids,
)
from .plan_form import PlanForm, default_plan
from .evidence.chart_link import ChartEvidence
from .settings import Settings
from .lesson import install_lesson
from .hf_import import install_hf_import, is_hf_config
from .shortcuts import WindowShortcutsFirst
from .table_view import TablePanel

DEFAULT_SIZE = QSize(1440, 900)


def app_icon() -> QIcon:
    icon = QIcon()
    for name in ("zerodesk.svg", "zerodesk-256.png", "zerodesk-64.png"):
        try:
            path = resource("icons", name)
        except FileNotFoundError:
            continue
        if path.is_file():
            icon.addFile(str(path))
    return icon


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings | None = None, plan: Plan | None = None, persist: bool = True) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or Settings()
        self._persist = persist
        self.quiet = False  # no modal message boxes (screenshot mode, tests): errors go to the status bar
        self.open_error = ""  # a plan file given at start that could not be read
        self.document = files.PlanDocument(self.settings, self)
        self._compute_error = ""
        self._asking_reload = False
        self.model = PlanModel()  # plan, breakdown, errors: the views below render what it holds
        self._hidden_views_plan: tuple[Plan, Breakdown] | None = None  # not yet drawn by the charts and the table

        # central: tabs (Plan, Table; the Measure tab is added later with add_tab)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.chart_panel = ChartPanel()
        self.chart = self.chart_panel.chart
        self.dp_chart = self.chart_panel.dp_chart
        self.table = TablePanel()
        # in a scroll area: a small window scrolls the Plan tab rather than squeezing its texts over the charts
        plan_scroll = FitScrollArea(self.chart_panel)
        plan_scroll.setObjectName("planScroll")
        self.chart_panel.textsChanged.connect(plan_scroll.fit, Qt.ConnectionType.QueuedConnection)
        self.tabs.addTab(plan_scroll, "")
        self.tabs.addTab(self.table, "")
        self.setCentralWidget(self.tabs)
        # Runs (simulate, measure) and their evidence on the Plan chart; the Measure tab is built when first shown.
        self.evidence = ChartEvidence(self.chart, self)
        self._runs = None
        self._measure_tab = None
        self._measure_slot = QWidget()
        self._measure_slot.setObjectName("measureSlot")
        self.tabs.addTab(self._measure_slot, "")

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
        self.shortcuts_first = WindowShortcutsFirst(self)
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

        after_first_paint(self, lambda: self.setWindowIcon(app_icon()))  # loading the SVG icon need not delay the frame
        self.evidence.load(self.form.plan())
        self._on_plan(self.form.plan())
        self.act_lesson = install_lesson(self)
        self.hf_import = install_hf_import(self)  # File > Import Hugging Face config…, dropped config.json
        self.document.mark_saved(self.document_plan(), None)
        self._restore_layout()
        self._update_title()

    # -- actions and menus -------------------------------------------------------------------
    def _action(self, name: str, slot, shortcut=None, checkable: bool = False) -> QAction:
        a = QAction(self)
        a.setObjectName(name)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.setCheckable(checkable)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        self.act_new = self._action("actNew", lambda: self.new_plan(), K.New)
        self.act_open = self._action("actOpen", lambda: self.open_dialog(), K.Open)
        self.act_save = self._action("actSave", lambda: self.save(), K.Save)
        self.act_save_as = self._action("actSaveAs", lambda: self.save_as(), "Ctrl+Shift+S")
        self.act_export_png = self._action("actExportPng", lambda: self.export_dialog(".png"), "Ctrl+E")
        self.act_export_svg = self._action("actExportSvg", lambda: self.export_dialog(".svg"), "Ctrl+Shift+E")
        self.act_quit = self._action("actQuit", self.close, "Ctrl+Q")
        self.act_copy_table = self._action("actCopyTable", lambda: self.copy_table(), "Ctrl+Shift+C")
        self.act_card = self._action("actCardExample", lambda: self.show_card_example(), "Ctrl+K")
        self.act_tab_plan = self._action("actTabPlan", lambda: self.tabs.setCurrentIndex(0), "Ctrl+1")
        self.act_tab_table = self._action("actTabTable", lambda: self.tabs.setCurrentIndex(1), "Ctrl+2")
        self.act_tab_measure = self._action("actTabMeasure", lambda: self.tabs.setCurrentWidget(self.measure_tab), "Ctrl+3")
        self.act_simulate = self._action("actSimulate", lambda: self.run_evidence("simulated"), "F5")
        self.act_measure = self._action("actMeasure", lambda: self.run_evidence("measured"), "Shift+F5")
        self.act_find = self._action("actFindClaim", self._focus_glossary_search, K.Find)
        self.act_units = self._action("actToggleUnits", self.toggle_units, "Ctrl+U")
        self.act_about = self._action("actAbout", self._about)
        self.act_toggle_form = self.form_dock.toggleViewAction()
        self.act_toggle_form.setShortcut(QKeySequence("Ctrl+Shift+F"))
        self.act_toggle_glossary = self.glossary.toggleViewAction()
        self.act_toggle_glossary.setShortcut(QKeySequence("F1"))
        self.lang_group = QActionGroup(self)
        self.lang_actions: dict[str, QAction] = {}
        for code, name in i18n.LANGUAGES.items():
            a = QAction(name, self)
            a.setObjectName(f"actLang_{code}")
            a.setCheckable(True)
            a.setChecked(code == i18n.current_language())
            a.triggered.connect(lambda _=False, c=code: self.set_language(c))
            self.lang_group.addAction(a)
            self.lang_actions[code] = a
        self.act_next_lang = self._action("actNextLanguage", self._next_language, "Ctrl+Shift+L")
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        current_theme = theme.saved_theme(self.settings.store)
        for code in theme.THEMES:
            a = QAction(self)
            a.setObjectName(f"actTheme_{code}")
            a.setCheckable(True)
            a.setChecked(code == current_theme)
            a.triggered.connect(lambda _=False, c=code: self.set_theme(c))
            self.theme_group.addAction(a)
            self.theme_actions[code] = a

    def _build_menus(self) -> None:
        mb = self.menuBar()
        self.menu_file = mb.addMenu("")
        self.menu_file.addActions([self.act_new, self.act_open])
        self.menu_recent = self.menu_file.addMenu("")
        self.menu_recent.setObjectName("menuRecent")
        self.menu_file.addActions([self.act_save, self.act_save_as])
        self.menu_file.addSeparator()
        self.menu_file.addActions([self.act_export_png, self.act_export_svg])
        self.menu_file.addSeparator()
        self.menu_file.addAction(self.act_quit)
        self.menu_edit = mb.addMenu("")
        self.menu_edit.addActions([self.act_copy_table, self.act_card])
        self.menu_view = mb.addMenu("")
        self.menu_view.addActions([self.act_tab_plan, self.act_tab_table, self.act_tab_measure])
        self.menu_view.addActions([self.act_simulate, self.act_measure])
        self.menu_view.addSeparator()
        self.menu_view.addActions([self.act_toggle_form, self.act_toggle_glossary, self.act_find])
        self.menu_view.addSeparator()
        self.menu_view.addAction(self.act_units)
        self.menu_theme = self.menu_view.addMenu("")
        self.menu_theme.setObjectName("menuTheme")
        self.menu_theme.addActions(list(self.theme_actions.values()))
        self.menu_lang = mb.addMenu("")
        self.menu_lang.addActions(list(self.lang_actions.values()))
        self.menu_lang.addSeparator()
        self.menu_lang.addAction(self.act_next_lang)
        self.menu_help = mb.addMenu("")
        self.menu_help.addAction(self.act_about)

        self.toolbar = self.addToolBar("")
        self.toolbar.setObjectName("mainToolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar.addActions([self.act_new, self.act_open, self.act_save])
        self.toolbar.addSeparator()
        self.toolbar.addActions([self.act_card, self.act_copy_table, self.act_export_png])
        self.toolbar.addSeparator()
        self.toolbar.addActions([self.act_simulate, self.act_measure])
        self._rebuild_recent_menu()

    def retranslate(self) -> None:
        texts = {
            self.act_new: (self.tr("&New"), self.tr("New plan")),
            self.act_open: (self.tr("&Open…"), self.tr("Open a plan file (*.zerodesk.json)")),
            self.act_save: (self.tr("&Save"), self.tr("Save the plan")),
            self.act_save_as: (self.tr("Save &As…"), self.tr("Save the plan under a new name")),
            self.act_export_png: (self.tr("Export Chart as &PNG…"), self.tr("Export both charts with their captions as PNG")),
            self.act_export_svg: (self.tr("Export Chart as S&VG…"), self.tr("Export both charts with their captions as SVG")),
            self.act_quit: (self.tr("&Quit"), self.tr("Quit ZeroDesk")),
            self.act_copy_table: (self.tr("&Copy Table as Text"), self.tr("Copy the per-stage table as text")),
            self.act_card: (self.tr("Card &Example"), self.tr("P = 2·10⁹, Nd = 4, paper's Adam: 32 / 14 / 11 / 8 GB")),
            self.act_tab_plan: (self.tr("&Plan"), self.tr("Show the plan tab: both charts")),
            self.act_tab_table: (self.tr("&Table"), self.tr("Show the table tab")),
            self.act_tab_measure: (self.tr("&Measure Tab"), self.tr("Show the measure tab: simulate or measure a training step")),
            self.act_simulate: (self.tr("S&imulate"), self.tr(
                "Simulate one full-size step of rank 0 under fake tensors (for models this machine cannot hold)")),
            self.act_measure: (self.tr("Measu&re"), self.tr("Measure one real training step per stage on local ranks")),
            self.act_find: (self.tr("&Find Claim…"), self.tr("Filter the glossary's claims")),
            self.act_units: (self.tr("Switch &Units (GB / GiB)"), self.tr("Switch between GB (10⁹ B) and GiB (2³⁰ B)")),
            self.act_about: (self.tr("&About ZeroDesk"), ""),
            self.act_next_lang: (self.tr("Next Language"), self.tr("Switch the interface language")),
        }
        for action, (text, tip) in texts.items():
            action.setText(text)
            if tip:
                shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                action.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
                action.setStatusTip(tip)
        self.menu_file.setTitle(self.tr("&File"))
        self.menu_recent.setTitle(self.tr("Open &Recent"))
        self.menu_edit.setTitle(self.tr("&Edit"))
        self.menu_view.setTitle(self.tr("&View"))
        self.menu_lang.setTitle(self.tr("&Language"))
        self.menu_help.setTitle(self.tr("&Help"))
        self.menu_theme.setTitle(self.tr("&Theme"))
        for code, text in (("system", self.tr("Follow the &System")), ("light", self.tr("&Light")), ("dark", self.tr("&Dark"))):
            self.theme_actions[code].setText(text)
        self.toolbar.setWindowTitle(self.tr("Main toolbar"))
        self.form_dock.setWindowTitle(self.tr("Model and cluster"))
        self.tabs.setTabText(0, self.tr("Plan"))
        self.tabs.setTabText(1, self.tr("Table"))
        self.tabs.setTabText(self.tabs.indexOf(self._measure_tab or self._measure_slot), self.tr("Measure"))
        self.evidence.redraw()  # series labels are in the UI language
        self.tabs.setAccessibleName(self.tr("Views"))
        self._rebuild_recent_menu()
        self._update_title()
        self._on_errors(self.form.errors())

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- room for more views ---------------------------------------------------------------------
    def add_tab(self, widget: QWidget, title: str) -> int:
        """Add a view to the central tabs (the Measure tab uses this); returns its index."""
        return self.tabs.addTab(widget, title)

    # -- simulate and measure ----------------------------------------------------------------------
    @property
    def runs(self):
        """The RunController (simulate, measure), made with the first use of the Measure tab."""
        if self._runs is None:
            from .evidence.controller import RunController

            self._runs = RunController(self)
            self.evidence.attach(self._runs)
            app = QApplication.instance()
            if app is not None:
                app.aboutToQuit.connect(self._runs.kill_now)
        return self._runs

    @property
    def measure_tab(self):
        """The Measure tab, built on first use (it is not needed to paint the first window)."""
        if self._measure_tab is None:
            from .measure_tab import MeasureTab

            tab = MeasureTab(self.runs, self.settings.measure(persist=self._persist))
            index = self.tabs.indexOf(self._measure_slot)
            blocked = self.tabs.blockSignals(True)
            current = self.tabs.currentIndex()
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, tab, tab.title())
            self.tabs.setCurrentIndex(current)
            self.tabs.blockSignals(blocked)
            self._measure_slot.deleteLater()
            self._measure_tab = tab
            tab.set_plan(self.model.plan, self.model.breakdown)
            tab.set_records(self.evidence.shelf.shown())
        return self._measure_tab

    def _on_tab_changed(self, index: int) -> None:
        if self._measure_tab is None and self.tabs.widget(index) is self._measure_slot:
            self.tabs.setCurrentWidget(self.measure_tab)
            return
        self._render_hidden_views()

    def run_evidence(self, kind: str) -> bool:
        """Simulate or measure the current plan from anywhere: the Measure tab shows the run."""
        tab = self.measure_tab
        self.tabs.setCurrentWidget(tab)
        return tab.simulate() if kind == "simulated" else tab.start()

    def _on_records(self) -> None:
        if self._measure_tab is not None:
            self._measure_tab.set_records(self.evidence.shelf.shown())
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
        if self._measure_tab is None or self.tabs.currentWidget() is not self._measure_tab:
            self._render_hidden_views()  # else the Plan and Table tabs catch up when shown: an edit stays fast
        self.glossary.set_context(plan.profile, plan.scheme)
        self.evidence.set_plan(plan)
        if self._measure_tab is not None:
            self._measure_tab.set_plan(plan, b)
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
        self.table.set_breakdown(plan, b)

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

    def show_card_example(self) -> None:
        self.form.apply_card_example()
        self.tabs.setCurrentIndex(0)
        self.glossary.select_claim(CARD_CLAIM)

    def toggle_units(self) -> None:
        combo = self.form.field("units")
        combo.setCurrentIndex(1 - combo.currentIndex())
        combo.activated.emit(combo.currentIndex())

    def _focus_glossary_search(self) -> None:
        self.glossary.show()
        self.glossary.raise_()
        self.glossary.search.setFocus()
        self.glossary.search.selectAll()

    # -- language ---------------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        i18n.set_language(lang)  # Qt sends LanguageChange to every widget
        self.glossary.set_language(lang)
        need = self.form_width_needed()
        if self.form_dock.isVisible() and self.form_dock.width() < need <= self.width() * 0.4:
            self.resizeDocks([self.form_dock], [need], Qt.Orientation.Horizontal)  # longer labels: widen the form
        if self._persist:
            self.settings.language = lang
        if lang in self.lang_actions:
            self.lang_actions[lang].setChecked(True)

    def set_theme(self, code: str) -> None:
        """Light, dark, or the system's choice (kept in the settings)."""
        theme.apply_theme(code)
        if self._persist:
            theme.save_theme(self.settings.store, code)
        self.theme_actions[code].setChecked(True)

    def _next_language(self) -> None:
        codes = list(i18n.LANGUAGES)
        self.set_language(codes[(codes.index(i18n.current_language()) + 1) % len(codes)])

    # -- files --------------------------------------------------------------------------------------
    def is_modified(self) -> bool:
        # a file changed on disk no longer holds what the window shows: that too is unsaved
        return self.document.is_modified(self.document_plan(), self.form.is_valid()) or self.document.disk_differs()

    def _update_modified(self) -> None:
        self.setWindowModified(self.is_modified())

    def _update_title(self) -> None:
        self.setWindowTitle(f"{files.display_name(self.document.path)}[*] — {APP_NAME}")
        self._update_modified()

    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save / Discard / Cancel; tests replace this to answer without a dialog."""
        return QMessageBox.question(
            self, self.tr("Unsaved changes"),
            self.tr("The plan “{name}” has unsaved changes. Save them?").format(name=files.display_name(self.document.path)),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)

    def ask_save_last_valid(self) -> bool:
        """Some fields are invalid: save the last valid plan anyway? (tests replace this)."""
        answer = QMessageBox.question(
            self, self.tr("Invalid fields"),
            self.tr("Some fields are invalid. Save the last valid plan (what the chart shows)?"),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Save

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current plan (saved, discarded, or nothing changed)."""
        if not self.is_modified():
            return True
        answer = self.ask_save_changes()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_plan(self) -> bool:
        if not self.maybe_save():
            return False
        self.evidence.load(default_plan(self.settings.units))
        self.form.set_plan(default_plan(self.settings.units))
        self.document.mark_saved(self.document_plan(), None)
        self._update_title()
        return True

    def load_plan(self, plan: Plan, path: Path | None = None, saved: Plan | None = None) -> None:
        """Show a plan; `saved` is what the file holds (differs when command-line flags changed it)."""
        self.evidence.load(plan)
        self.form.set_plan(plan)
        self.document.mark_saved(saved if saved is not None else self.document_plan(), path)
        self._update_title()

    def open_plan_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a plan file. Nothing changes (form, file, title) unless the whole plan could be read and shown."""
        if is_hf_config(path):  # a config.json opened like a plan is imported, not refused
            return self.hf_import.read(path, ask=ask)
        if ask and not self.maybe_save():
            return False
        try:
            plan, disk = self.document.read(path)
        except PlanError as exc:
            self.show_error(self.tr("Cannot open the plan"), str(exc))
            self._rebuild_recent_menu()
            return False
        previous = self.form.plan()
        try:
            self.evidence.load(plan)
            self.form.set_plan(plan)
        except Exception as exc:  # noqa: BLE001 - a plan the form cannot show: put the previous one back
            if previous is not None:
                self.form.set_plan(previous)
            self.show_error(self.tr("Cannot open the plan"),
                            self.tr("Cannot show plan file {path}: {reason}").format(
                                path=shorten(path, 200), reason=shorten(exc, 120) or type(exc).__name__))
            return False
        self.document.claim(self.document_plan(), path, disk)
        self._update_title()
        self.statusBar().showMessage(self.tr("Opened {path}").format(path=shorten(path, 200)), 4000)
        return True

    def open_dialog(self) -> bool:
        if not self.maybe_save():
            return False
        path = files.ask_open_path(self, self.settings)
        return self.open_plan_file(path, ask=False) if path else False

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        path = files.ask_save_path(self, self.settings, self.document.path)
        return self.save_to(path) if path else False

    def save_to(self, path: str | Path) -> bool:
        plan = self.document_plan()
        if not self.form.is_valid() and not self.ask_save_last_valid():
            return False
        try:
            try:
                saved = self.document.save(plan, path)
            except files.FileChangedOnDisk as conflict:
                if not self.ask_overwrite_changed(conflict):
                    return False
                saved = self.document.save(plan, path, overwrite=True)
        except PlanError as exc:
            self.show_error(self.tr("Cannot save the plan"), str(exc))
            return False
        self._update_title()
        self.statusBar().showMessage(self.tr("Saved {path}").format(path=shorten(saved, 200)), 4000)
        return True

    def ask_overwrite_changed(self, conflict: files.FileChangedOnDisk) -> bool:
        """The file changed or vanished on disk since we read it: write ours anyway? (tests replace this)."""
        name = files.display_name(conflict.path)
        if conflict.deleted:
            text = self.tr("“{name}” was deleted from the disk after it was opened here. Save it again?").format(name=name)
        else:
            text = self.tr("“{name}” was changed on disk by another program or window after it was opened here. "
                           "Overwrite those changes with this plan?").format(name=name)
        if self.quiet:
            self.statusBar().showMessage(text, 8000)
            return False
        answer = QMessageBox.warning(self, self.tr("File changed on disk"), text,
                                     QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                                     QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Save

    def ask_reload_changed(self, modified: bool) -> bool:
        """The open file changed on disk: reload it (losing unsaved edits when `modified`)? (tests replace this)."""
        name = files.display_name(self.document.path)
        text = (self.tr("“{name}” was changed on disk. Reload it and lose the changes made here?") if modified
                else self.tr("“{name}” was changed on disk. Reload it?")).format(name=name)
        if self.quiet:
            self.statusBar().showMessage(text, 8000)
            return False
        answer = QMessageBox.question(self, self.tr("File changed on disk"), text,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No if modified else QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def _on_disk_changed(self, deleted: bool) -> None:
        """Someone else changed or deleted the open file: say so, offer to reload; a later save will ask first."""
        if self._asking_reload:
            return
        if deleted:
            self.statusBar().showMessage(self.tr("“{name}” was deleted from the disk; Save will ask before writing it "
                                                 "again.").format(name=files.display_name(self.document.path)), 8000)
            self._update_modified()
            return
        modified = self.document.is_modified(self.form.plan(), self.form.is_valid())
        self._asking_reload = True
        try:
            reload = self.ask_reload_changed(modified)
        finally:
            self._asking_reload = False
        if reload and self.document.path is not None:
            self.open_plan_file(self.document.path, ask=False)
        self._update_modified()

    def show_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 8000)
        if self.quiet:
            return
        QMessageBox.warning(self, title, message)

    def _rebuild_recent_menu(self) -> None:
        menu = getattr(self, "menu_recent", None)
        if menu is None:
            return
        menu.clear()
        recent = self.settings.recent_files
        for i, p in enumerate(recent, start=1):
            a = menu.addAction(f"&{i} {Path(p).name}")
            a.setToolTip(p)
            a.setStatusTip(p)
            a.setData(p)
            a.triggered.connect(lambda _=False, path=p: self.open_plan_file(path))
        if recent:
            menu.addSeparator()
            menu.addAction(self.tr("Clear List"), self.document.clear_recent)
        else:
            empty = menu.addAction(self.tr("No recent plans"))
            empty.setEnabled(False)

    # -- export and copy -----------------------------------------------------------------------
    def export_chart(self, path: str | Path) -> bool:
        """PNG or SVG by suffix: both charts with their captions (what, whence, unit)."""
        path = Path(path)
        self._render_hidden_views()
        ok = self.chart_panel.export_svg(path) if path.suffix.lower() == ".svg" else self.chart_panel.export_png(path)
        if ok:
            self.statusBar().showMessage(self.tr("Exported {path}").format(path=path), 4000)
        else:
            self.show_error(self.tr("Cannot export the chart"), self.tr("Could not write {path}.").format(path=path))
        return ok

    def export_dialog(self, suffix: str) -> bool:
        path = files.ask_export_path(self, self.settings, suffix)
        return self.export_chart(path) if path else False

    def copy_table(self) -> str:
        self._render_hidden_views()
        text = self.table.copy_to_clipboard()
        self.statusBar().showMessage(self.tr("Table copied as text"), 3000)
        return text

    def _about(self) -> None:
        QMessageBox.about(self, self.tr("About ZeroDesk"), self.tr(
            "<b>ZeroDesk {version}</b><p>Plans the memory of ZeRO data-parallel training: per-rank model states "
            "by stage, from the ZeRO paper's accounting (§3.1, §5) or PyTorch's engines.</p>"
            "<p>Figures are computed model states; the peak of a step adds activations, temporary buffers "
            "and fragmentation (§3.2).</p>").format(version=__version__))

    # -- window state ------------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.settings.geometry if self._persist else None
        if geometry is None or not self.restoreGeometry(geometry):
            screen = QApplication.primaryScreen()
            size = DEFAULT_SIZE
            if screen is not None:
                avail = screen.availableGeometry().size()
                size = QSize(min(size.width(), avail.width()), min(size.height(), avail.height()))
            self.resize(size)
            QTimer.singleShot(0, self.fit_docks)  # after the first layout: a dock resized before it is ignored
        state = self.settings.window_state if self._persist else None
        if state is not None:
            self.restoreState(state)

    def form_width_needed(self) -> int:
        """The form dock's width that shows every field whole (labels grow in Russian)."""
        scroll = self.form_dock.widget()
        bar = scroll.verticalScrollBar().sizeHint().width() if scroll is not None else 16
        return self.form.minimumSizeHint().width() + bar + 6

    def fit_docks(self) -> None:
        """Dock widths for the window's width: the form whole if the window allows (at most 40% of it),
        the glossary about a quarter; the charts keep the rest."""
        width = self.width()
        form = max(320, min(self.form_width_needed(), round(width * 0.4)))
        glossary = max(260, min(420, round(width * 0.25)))
        self.resizeDocks([self.form_dock, self.glossary], [form, glossary], Qt.Orientation.Horizontal)

    def save_layout(self) -> None:
        if not self._persist:
            return
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.save_layout()
        if self._runs is not None:
            self._runs.kill_now()  # no rank outlives the window
        self.document.stop_watching()  # a closed window looks at no file
        event.accept()

