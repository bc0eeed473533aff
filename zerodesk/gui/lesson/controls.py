"""The lesson's two bars: controls on top (model, Nd, language, presenter, handouts) and the
step navigation at the bottom. They only hold and label widgets; the window wires them."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSpinBox, QToolButton, QWidget

from ...core.catalog import model_presets
from ...core.plan import MAX_RANKS, Plan
from ..base import i18n


class LessonControls(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonControls")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.model_label = QLabel()
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("lessonModel")
        # a long label gives way (elided) before the language and the buttons are cut
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(10)
        self.model_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.dp_label = QLabel()
        self.dp_spin = QSpinBox()
        self.dp_spin.setObjectName("lessonDp")
        self.dp_spin.setRange(1, MAX_RANKS)
        self.dp_spin.setKeyboardTracking(False)  # a typed 64 is one change, not 6 then 64
        self.lang_combo = QComboBox()
        self.lang_combo.setObjectName("lessonLanguage")
        self.lang_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # follows presenter type
        for code, name in i18n.LANGUAGES.items():
            self.lang_combo.addItem(name, code)
        self.presenter_button = QPushButton()
        self.presenter_button.setObjectName("lessonPresenter")
        self.presenter_button.setCheckable(True)
        self.pdf_button = QPushButton()
        self.pdf_button.setObjectName("lessonExportPdf")
        self.png_button = QPushButton()
        self.png_button.setObjectName("lessonExportPng")
        row.addWidget(self.model_label)
        row.addWidget(self.model_combo, 10)  # the room goes to the model's label first, up to its whole length
        row.addWidget(self.dp_label)
        row.addWidget(self.dp_spin)
        row.addStretch(1)
        for w in (self.lang_combo, self.presenter_button, self.pdf_button, self.png_button):
            row.addWidget(w)
        self.retranslate()

    def apply_style(self, style) -> None:
        """Presenter mode: the model and Nd the room sees at the floor size; handouts wait for the desk."""
        font = style.font(self.font(), 9) if style.name == "presenter" else QFont()
        for w in (self.model_label, self.model_combo, self.dp_label, self.dp_spin, self.lang_combo, self.presenter_button):
            w.setFont(font)
        self._fit_model_combo()
        for w in (self.pdf_button, self.png_button):
            w.setVisible(style.name != "presenter")

    def inputs(self):
        return (self.model_combo, self.dp_spin, self.lang_combo, self.presenter_button, self.pdf_button, self.png_button)

    def fill_models(self, plan: Plan) -> None:
        """Every model preset; a plan that is no preset comes first, carrying itself as the choice."""
        self.model_combo.clear()
        for preset in model_presets():
            self.model_combo.addItem(i18n.preset_label(preset), preset.name)
        at = self.model_combo.findData(plan.model.name)
        if at < 0:
            self.model_combo.insertItem(0, i18n.model_label(plan.model.name) or f"P = {i18n.fmt_int(plan.params)}", plan)
            at = 0
        self.model_combo.setCurrentIndex(at)
        self._fit_model_combo()

    def _relabel_presets(self) -> None:
        """The presets' labels in the UI language (the catalog's `labels`), never their ids."""
        for i in range(self.model_combo.count()):
            name = self.model_combo.itemData(i)
            if isinstance(name, str):
                self.model_combo.setItemText(i, i18n.model_label(name) or name)
        self._fit_model_combo()

    def _fit_model_combo(self) -> None:
        """As wide as the longest label needs, no wider; narrower (elided) when the row is short."""
        c = self.model_combo
        longest = max((c.fontMetrics().horizontalAdvance(c.itemText(i)) for i in range(c.count())), default=0)
        c.setMaximumWidth(longest + 4 * c.fontMetrics().averageCharWidth() + 24)

    def retranslate(self) -> None:
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
        at = self.lang_combo.findData(i18n.current_language())
        if at >= 0:
            self.lang_combo.setCurrentIndex(at)
        self._relabel_presets()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class LessonNav(QWidget):
    def __init__(self, count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonNav")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.prev_button = QPushButton()
        self.prev_button.setObjectName("lessonPrev")
        self.next_button = QPushButton()
        self.next_button.setObjectName("lessonNext")
        row.addWidget(self.prev_button)
        row.addStretch(1)
        self.step_buttons: list[QToolButton] = []
        for i in range(count):
            b = QToolButton()
            b.setText(str(i + 1))
            b.setCheckable(True)
            b.setAutoRaise(True)
            row.addWidget(b)
            self.step_buttons.append(b)
        row.addStretch(1)
        row.addWidget(self.next_button)
        for w in (self.prev_button, self.next_button, *self.step_buttons):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys belong to the lesson, not to a button
        self.retranslate()

    def retranslate(self) -> None:
        self.prev_button.setText(self.tr("◀ Previous"))
        self.next_button.setText(self.tr("Next ▶"))
        self.prev_button.setToolTip(self.tr("Previous step (Page Up, ←)"))
        self.next_button.setToolTip(self.tr("Next step (Page Down, →, Space)"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
