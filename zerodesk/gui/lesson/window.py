"""The lesson window: controls (model, Nd, language, presenter, handouts), the step, navigation.

Keys: Page Down / Right / Down / Space go on, Page Up / Left / Up / Backspace go back (a slide
clicker sends Page Up/Down or arrows), Home / End jump, F11 toggles presenter mode, Esc leaves it
(and, outside presenter mode, closes the lesson).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.catalog import model_presets
from ...core.glossary import load_glossary
from ...core.lesson import LessonFigures, lesson_figures, lesson_plan
from ...core.lesson_text import LessonText, load_lesson
from ...core.plan import MAX_RANKS, Cluster, Plan
from .. import i18n
from .step_view import StepView
from .style import DESK, presenter

DEFAULT_PRESET = "paper-figure1"
NEXT_KEYS = {Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Space}
PREV_KEYS = {Qt.Key.Key_PageUp, Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Backspace}
CLICKER_KEYS = {Qt.Key.Key_PageDown, Qt.Key.Key_PageUp}  # a clicker always steps, whatever has the focus


def preset_plan(name: str) -> Plan:
    from ...core.catalog import find_model

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
        self.controls = QWidget()
        self.controls.setObjectName("lessonControls")
        row = QHBoxLayout(self.controls)
        row.setContentsMargins(0, 0, 0, 0)
        self.model_label = QLabel()
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("lessonModel")
        self._fill_models()
        self.model_combo.activated.connect(lambda _i: self._on_model_chosen())
        self.dp_label = QLabel()
        self.dp_spin = QSpinBox()
        self.dp_spin.setObjectName("lessonDp")
        self.dp_spin.setRange(1, MAX_RANKS)
        self.dp_spin.setKeyboardTracking(False)
        self.dp_spin.setValue(self.plan.dp)
        self.dp_spin.valueChanged.connect(self.set_dp)
        self.dp_spin.editingFinished.connect(self.view.setFocus)
        self.lang_combo = QComboBox()
        self.lang_combo.setObjectName("lessonLanguage")
        for code, name in i18n.LANGUAGES.items():
            self.lang_combo.addItem(name, code)
        self.lang_combo.activated.connect(lambda _i: self._set_language(self.lang_combo.currentData()))
        self.presenter_button = QPushButton()
        self.presenter_button.setObjectName("lessonPresenter")
        self.presenter_button.setCheckable(True)
        self.presenter_button.toggled.connect(self.set_presenter)
        self.pdf_button = QPushButton()
        self.pdf_button.setObjectName("lessonExportPdf")
        self.pdf_button.clicked.connect(self._export_pdf_dialog)
        self.png_button = QPushButton()
        self.png_button.setObjectName("lessonExportPng")
        self.png_button.clicked.connect(self._export_png_dialog)
        for w in (self.model_label, self.model_combo, self.dp_label, self.dp_spin):
            row.addWidget(w)
        row.addStretch(1)
        for w in (self.lang_combo, self.presenter_button, self.pdf_button, self.png_button):
            row.addWidget(w)
        for w in (self.model_combo, self.lang_combo, self.presenter_button, self.pdf_button, self.png_button, self.dp_spin):
            w.installEventFilter(self)

    def _fill_models(self) -> None:
        self.model_combo.clear()
        for preset in model_presets():
            self.model_combo.addItem(preset.label, preset.name)
        name = self.plan.model.name
        at = self.model_combo.findData(name)
        if at < 0:  # a model that is not a preset (e.g. the main window's plan)
            self.model_combo.insertItem(0, name or i18n.fmt_int(self.plan.params), None)
            at = 0
        self.model_combo.setCurrentIndex(at)

    def _build_nav(self) -> None:
        self.nav = QWidget()
        self.nav.setObjectName("lessonNav")
        row = QHBoxLayout(self.nav)
        row.setContentsMargins(0, 0, 0, 0)
        self.prev_button = QPushButton()
        self.prev_button.setObjectName("lessonPrev")
        self.prev_button.clicked.connect(self.previous)
        self.next_button = QPushButton()
        self.next_button.setObjectName("lessonNext")
        self.next_button.clicked.connect(self.next)
        row.addWidget(self.prev_button)
        row.addStretch(1)
        self.step_buttons: list[QToolButton] = []
        for i in range(len(self.lesson.steps)):
            b = QToolButton()
            b.setText(str(i + 1))
            b.setCheckable(True)
            b.setAutoRaise(True)
            b.clicked.connect(lambda _=False, n=i: self.go(n))
            row.addWidget(b)
            self.step_buttons.append(b)
        row.addStretch(1)
        row.addWidget(self.next_button)
        for w in (self.prev_button, self.next_button, *self.step_buttons):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def _shortcuts(self) -> None:
        self._sc_presenter = QShortcut(QKeySequence(Qt.Key.Key_F11), self, self.toggle_presenter)
        self._sc_escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.escape)
        for sc in (self._sc_presenter, self._sc_escape):
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
        self.view.setFocus()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("ZeroDesk lesson: {title}").format(title=self.lesson.title))
        self.model_label.setText(self.tr("Model:"))
        self.dp_label.setText(self.tr("Nd:"))
        self.dp_spin.setToolTip(self.tr("Data-parallel ranks Nd: every figure follows"))
        self.model_combo.setToolTip(self.tr("The model of the lesson: every figure follows"))
        self.lang_combo.setToolTip(self.tr("Language of the lesson and the window"))
        self.presenter_button.setText(self.tr("Presenter (F11)"))
        self.presenter_button.setToolTip(self.tr("Full screen, large type, high contrast; Esc leaves"))
        self.pdf_button.setText(self.tr("Handout PDF…"))
        self.pdf_button.setToolTip(self.tr("Export the lesson as a PDF, one step a page"))
        self.png_button.setText(self.tr("PNG Slides…"))
        self.png_button.setToolTip(self.tr("Export every step as a PNG slide"))
        self.prev_button.setText(self.tr("◀ Previous"))
        self.next_button.setText(self.tr("Next ▶"))
        self.prev_button.setToolTip(self.tr("Previous step (Page Up, ←)"))
        self.next_button.setToolTip(self.tr("Next step (Page Down, →, Space)"))
        at = self.lang_combo.findData(i18n.current_language())
        if at >= 0:
            self.lang_combo.setCurrentIndex(at)

    # -- state ---------------------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return len(self.lesson.steps)

    def refresh(self, animate: bool | None = None) -> None:
        animate = self.animate if animate is None else animate
        lang = i18n.current_language()
        glossary = load_glossary(lang)
        self.view.show_step(self.lesson.steps[self.index], self.index, self.count, self.figures, glossary,
                            glossary.checklist, self.plan.units, animate)
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

    def set_model(self, name: str | None) -> None:
        """A preset by name: its own Nd when it suggests one, else the Nd on screen."""
        if not name:
            return
        from ...core.catalog import find_model

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

    def set_presenter(self, on: bool) -> None:
        if on == self.presenting:
            return
        self.presenting = on
        self.presenter_button.blockSignals(True)
        self.presenter_button.setChecked(on)
        self.presenter_button.blockSignals(False)
        self.nav.setVisible(not on)
        if on:
            self._normal_geometry = self.saveGeometry()
            self.showFullScreen()
        else:
            self.showNormal()
            if getattr(self, "_normal_geometry", None) is not None:
                self.restoreGeometry(self._normal_geometry)
        self._apply_style()
        self.view.setFocus()

    def _apply_style(self) -> None:
        style = presenter(self.width(), self.height()) if self.presenting else DESK
        if style != self.view.style_:
            self.setPalette(style.palette(self.palette()) if self.presenting else self.style().standardPalette())
            self.setAutoFillBackground(self.presenting)
            self.view.apply_style(style)

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
    def _export_pdf_dialog(self) -> None:
        from . import handouts

        handouts.export_dialog(self, "pdf")

    def _export_png_dialog(self) -> None:
        from . import handouts

        handouts.export_dialog(self, "png")
