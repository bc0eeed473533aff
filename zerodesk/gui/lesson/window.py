"""The lesson window: controls (model, Nd, language, presenter, handouts), the step, navigation.

Keys: Page Down / Right / Down / Space go on, Page Up / Left / Up / Backspace go back (a slide
clicker sends Page Up/Down or arrows), Home / End jump, F11 toggles presenter mode, Esc leaves it
(and, outside presenter mode, closes the lesson).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ...core.catalog import find_model
from ...core.glossary import load_glossary
from ...core.lesson import LessonFigures, lesson_figures, lesson_plan
from ...core.lesson_text import LessonText, load_lesson
from ...core.plan import MAX_RANKS, Cluster, Plan
from ..base import i18n
from .controls import LessonControls, LessonNav
from .checklist_figure import card_checklist
from .step_view import StepView
from .style import DESK, presenter

DEFAULT_PRESET = "paper-figure1"
NEXT_KEYS = {Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Space}
PREV_KEYS = {Qt.Key.Key_PageUp, Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Backspace}
CLICKER_KEYS = {Qt.Key.Key_PageDown, Qt.Key.Key_PageUp}  # a clicker always steps, whatever has the focus


def preset_plan(name: str) -> Plan:
    preset = find_model(name)
    return Plan(model=preset.to_model_spec(), cluster=Cluster(nodes=1, gpus_per_node=preset.dp or 8),
                seq_len=preset.seq_len or 2048)


class LessonWindow(QWidget):
    stepChanged = Signal(int)

    def __init__(self, plan: Plan | None = None, set_language: Callable[[str], None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("lessonWindow")
        self._set_language = set_language or i18n.set_language
        self.plan = lesson_plan(plan or preset_plan(DEFAULT_PRESET))
        self.index = 0
        self.presenting = False
        self.animate = True
        self.lesson: LessonText = load_lesson(i18n.current_language())
        self.figures: LessonFigures = lesson_figures(self.plan)

        self.view = StepView()
        self._build_controls()
        self._build_nav()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.controls)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.nav)
        self._shortcuts()
        self.retranslate()
        self.refresh(animate=False)
        self.resize(1280, 800)

    # -- building ----------------------------------------------------------------------------------
    def _build_controls(self) -> None:
        c = self.controls = LessonControls()
        self.model_combo, self.dp_spin, self.lang_combo = c.model_combo, c.dp_spin, c.lang_combo
        self.presenter_button = c.presenter_button
        c.fill_models(self.plan)
        c.model_combo.activated.connect(lambda _i: self._on_model_chosen())
        c.dp_spin.setValue(self.plan.dp)
        c.dp_spin.valueChanged.connect(self.set_dp)
        c.dp_spin.editingFinished.connect(self.view.setFocus)
        c.lang_combo.activated.connect(lambda _i: self._set_language(c.lang_combo.currentData()))
        c.presenter_button.toggled.connect(self.set_presenter)
        c.pdf_button.clicked.connect(lambda: self._export_dialog("pdf"))
        c.png_button.clicked.connect(lambda: self._export_dialog("png"))
        for w in c.inputs():
            w.installEventFilter(self)

    def _build_nav(self) -> None:
        n = self.nav = LessonNav(len(self.lesson.steps))
        self.prev_button, self.next_button, self.step_buttons = n.prev_button, n.next_button, n.step_buttons
        n.prev_button.clicked.connect(self.previous)
        n.next_button.clicked.connect(self.next)
        for i, b in enumerate(n.step_buttons):
            b.clicked.connect(lambda _=False, k=i: self.go(k))

    def _shortcuts(self) -> None:
        self._sc_presenter = QShortcut(QKeySequence(Qt.Key.Key_F11), self, self.toggle_presenter)
        self._sc_escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.escape)
        for sc in (self._sc_presenter, self._sc_escape):
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
        self.view.setFocus()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("ZeroDesk lesson: {title}").format(title=self.lesson.title))

    # -- state ---------------------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return len(self.lesson.steps)

    def refresh(self, animate: bool | None = None) -> None:
        animate = self.animate if animate is None else animate
        lang = i18n.current_language()
        glossary = load_glossary(lang)
        self.view.show_step(self.lesson.steps[self.index], self.index, self.count, self.figures, glossary,
                            card_checklist(glossary), self.plan.units, animate)
        for i, b in enumerate(self.step_buttons):
            b.setChecked(i == self.index)
            b.setToolTip(self.lesson.steps[i].title)
        self.prev_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index < self.count - 1)

    def go(self, index: int, animate: bool | None = None) -> None:
        index = max(0, min(self.count - 1, index))
        if index != self.index:
            self.index = index
            self.refresh(animate)
            self.stepChanged.emit(index)
        else:
            self.refresh(animate)

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def set_plan(self, plan: Plan) -> None:
        self.plan = lesson_plan(plan)
        self.figures = lesson_figures(self.plan)
        if self.dp_spin.value() != self.plan.dp:
            self.dp_spin.blockSignals(True)
            self.dp_spin.setValue(self.plan.dp)
            self.dp_spin.blockSignals(False)
        self.refresh()

    def _on_model_chosen(self) -> None:
        data = self.model_combo.currentData()
        if isinstance(data, Plan):
            self.set_plan(data)
        else:
            self.set_model(data)

    def add_plan_choice(self, plan: Plan, label: str) -> None:
        """Offer a plan that is not a preset (the main window's) as the first model choice."""
        self.model_combo.insertItem(0, label, lesson_plan(plan))
        self.model_combo.insertSeparator(1)
        self.controls._fit_model_combo()

    def set_model(self, name: str | None) -> None:
        """A preset by name: its own Nd when it suggests one, else the Nd on screen."""
        if not name:
            return
        preset = find_model(name)
        nd = preset.dp or self.plan.dp
        self.set_plan(self.plan.model_copy(update={
            "model": preset.to_model_spec(), "seq_len": preset.seq_len or self.plan.seq_len,
            "cluster": Cluster(nodes=1, gpus_per_node=nd)}))
        at = self.model_combo.findData(name)
        if at >= 0:
            self.model_combo.setCurrentIndex(at)

    def set_dp(self, nd: int) -> None:
        nd = max(1, min(MAX_RANKS, int(nd)))
        if nd != self.plan.dp:
            self.set_plan(self.plan.model_copy(update={"cluster": Cluster(nodes=1, gpus_per_node=nd)}))

    # -- presenter mode --------------------------------------------------------------------------------
    def toggle_presenter(self) -> None:
        self.set_presenter(not self.presenting)

    def set_presenter(self, on: bool, full_screen: bool = True) -> None:
        """Presenter mode on or off; `full_screen=False` keeps the window's size (offscreen slides)."""
        if on == self.presenting:
            return
        self.presenting = on
        self.presenter_button.blockSignals(True)
        self.presenter_button.setChecked(on)
        self.presenter_button.blockSignals(False)
        self.nav.setVisible(not on)
        if on and full_screen:
            self._normal_geometry = self.saveGeometry()
            self.showFullScreen()
        elif not on and self.isFullScreen():
            self.showNormal()
            if getattr(self, "_normal_geometry", None) is not None:
                self.restoreGeometry(self._normal_geometry)
        self._apply_style()
        self.view.setFocus()

    def _apply_style(self) -> None:
        style = presenter(self.width(), self.height(), self.logicalDpiY()) if self.presenting else DESK
        if style != self.view.style_:
            self.setPalette(style.palette(self.palette()) if self.presenting else self.style().standardPalette())
            self.setAutoFillBackground(self.presenting)
            self.view.apply_style(style)
            self.controls.apply_style(style)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.presenting:
            self._apply_style()

    def escape(self) -> None:
        if self.presenting:
            self.set_presenter(False)
        else:
            self.close()

    # -- keys ------------------------------------------------------------------------------------------
    def _step_key(self, key) -> bool:
        if key in NEXT_KEYS:
            self.next()
        elif key in PREV_KEYS:
            self.previous()
        elif key == Qt.Key.Key_Home:
            self.go(0)
        elif key == Qt.Key.Key_End:
            self.go(self.count - 1)
        else:
            return False
        return True

    def keyPressEvent(self, event) -> None:
        if not self._step_key(event.key()):
            super().keyPressEvent(event)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # a clicker's Page Up/Down steps even while a control has the focus (a spin box would eat them)
        if event.type() == QEvent.Type.KeyPress and event.key() in CLICKER_KEYS:
            self._step_key(event.key())
            return True
        return super().eventFilter(obj, event)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.lesson = load_lesson(i18n.current_language())
            self.retranslate()
            self.refresh(animate=False)
        super().changeEvent(event)

    # -- handouts --------------------------------------------------------------------------------------
    def _export_dialog(self, kind: str) -> None:
        from . import handouts

        handouts.export_dialog(self, kind)
