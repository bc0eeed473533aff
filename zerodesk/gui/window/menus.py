"""The main window's commands: its actions (with their shortcuts), menus, toolbar and their texts.

A mixin of MainWindow: it builds the actions on the window's parts (model, tabs, docks, document) and
calls their commands; each action's slot lives with the job it does (files, tabs, layout).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMessageBox

from ... import __version__
from ..base import i18n, theme
from ..form.fields import card_example
from ..glossary.claims import CARD_CLAIM


class WindowMenus:
    """Actions, menus and the toolbar of MainWindow, and the small commands they run."""

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
        self.act_tab_fit = self._action("actTabFit", lambda: self.show_tab("fit"), "Ctrl+4")
        self.act_simulate = self._action("actSimulate", lambda: self.start_run("simulated"), "F5")
        self.act_measure = self._action("actMeasure", lambda: self.start_run("measured"), "Shift+F5")
        self.act_find = self._action("actFindClaim", self._focus_glossary_search, K.Find)
        self.act_units = self._action("actToggleUnits", self.toggle_units, "Ctrl+U")
        self.act_about = self._action("actAbout", self._about)
        self.act_toggle_form = self.form_dock.toggleViewAction()
        self.act_toggle_form.setShortcut(QKeySequence("Ctrl+Shift+F"))
        self.act_toggle_glossary = self.glossary.toggleViewAction()
        self.act_toggle_glossary.setShortcut(QKeySequence("F1"))
        for dock, action in ((self.form_dock, self.act_toggle_form), (self.glossary, self.act_toggle_glossary)):
            # a dock shown again in a narrow window's tab group comes to the front, not behind the other's tab
            action.triggered.connect(lambda shown, dock=dock: shown and dock.raise_())
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
        current_theme = self.settings.theme
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
        self.menu_view.addActions([self.act_tab_plan, self.act_tab_table, self.act_tab_measure, self.act_tab_fit])
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

    def _retranslate_menus(self) -> None:
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
            self.act_tab_fit: (self.tr("Fit Ta&b"), self.tr(
                "Show the fit tab: the largest micro-batch and the lowest stage that fit, by Nd (predicted)")),
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
            self._recent_tail = menu.addAction("", self.document.clear_recent)
        else:
            self._recent_tail = menu.addAction("")
            self._recent_tail.setEnabled(False)
        self._retranslate_recent_menu()

    def _retranslate_recent_menu(self) -> None:
        """Only the last entry's text is in the UI language (the others are file names). Set in place: a rebuild
        deletes the menu's actions while Qt is still handing LanguageChange to them (a crash)."""
        tail = getattr(self, "_recent_tail", None)
        if tail is not None:
            tail.setText(self.tr("Clear List") if tail.isEnabled() else self.tr("No recent plans"))

    def _about(self) -> None:
        QMessageBox.about(self, self.tr("About ZeroDesk"), self.tr(
            "<b>ZeroDesk {version}</b><p>Plans the memory of ZeRO data-parallel training: per-rank model states "
            "by stage, from the ZeRO paper's accounting (§3.1, §5) or PyTorch's engines.</p>"
            "<p>Figures are computed model states; the peak of a step adds activations, temporary buffers "
            "and fragmentation (§3.2).</p>").format(version=__version__))

    # -- commands ------------------------------------------------------------------------------------
    def show_card_example(self) -> None:
        self.model.load(card_example(self.model.plan))
        self.tabs.setCurrentIndex(0)
        self.glossary.select_claim(CARD_CLAIM)

    def toggle_units(self) -> None:
        self.form.toggle_units()  # as a choice in the form: what is typed there stays

    def _focus_glossary_search(self) -> None:
        self.glossary.show()
        self.glossary.raise_()
        self.glossary.search.setFocus()
        self.glossary.search.selectAll()

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
            self.settings.theme = code
        self.theme_actions[code].setChecked(True)

    def _next_language(self) -> None:
        codes = list(i18n.LANGUAGES)
        self.set_language(codes[(codes.index(i18n.current_language()) + 1) % len(codes)])
