"""The form's fields by dotted Plan key: built here, each with its label, its error line and its reaction.

One FieldSet is shared by the form and its sections, so validation can mark any field by the key the
core reports, whichever section built it. Each field is wired when it is built: an edit runs the
field's own reaction (`then`), and the form then validates (each keystroke and choice: the chart follows
as you type, and keeps the last valid plan while a field is wrong). While the form shows a plan
(`quiet()`), edits run nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QAbstractButton, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from ..base.style import ERROR_COLOR
from .fields import FieldEdit
from .memory_edit import MemoryEdit

Reaction = Callable[[], object]


class FieldSet:
    """Builds fields wired to their reactions and keeps them, their labels and error lines by key."""

    def __init__(self, validate: Callable[[], None]) -> None:
        self.validate = validate  # after every edit
        self._quiet = 0
        self.fields: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.errors: dict[str, QLabel] = {}

    @contextmanager
    def quiet(self):
        """Fill fields without reacting (the form is showing a plan)."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def is_quiet(self) -> bool:
        return self._quiet > 0

    def reacting(self, then: Reaction | None = None) -> Callable[..., None]:
        """A slot for an edit: the field's reaction, then validation."""
        def slot(*_args) -> None:
            if self._quiet:
                return
            if then is not None:
                then()
            self.validate()
        return slot

    def edit(self, key: str, stepper: bool = False, memory: bool = False, then: Reaction | None = None) -> FieldEdit:
        """A free-text field (`memory`: an amount of bytes typed in the form's unit)."""
        w = MemoryEdit() if memory else FieldEdit()
        w.setObjectName(key)
        w.setProperty("stepper", stepper)
        w.setClearButtonEnabled(False)
        w.textEdited.connect(self.reacting(then))
        self.fields[key] = w
        return w

    def combo(self, key: str, items: list[tuple[str, str]], min_chars: int = 0, then: Reaction | None = None,
              on_choice: Callable[[], None] | None = None) -> QComboBox:
        """A choice; `on_choice` replaces the usual reaction and validation (a preset fills other fields)."""
        w = QComboBox()
        w.setObjectName(key)
        for text, data in items:
            w.addItem(text, data)
        w.activated.connect((lambda _i: None if self._quiet else on_choice()) if on_choice else self.reacting(then))
        if min_chars:  # long preset names elide instead of widening the dock
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(min_chars)
        self.fields[key] = w
        return w

    def button(self, key: str, button: QAbstractButton, then: Reaction | None = None) -> QAbstractButton:
        """A check box or radio button whose toggle is a choice."""
        button.setObjectName(key)
        button.toggled.connect(self.reacting(then))
        self.fields[key] = button
        return button

    def error_label(self, key: str) -> QLabel:
        e = QLabel()
        e.setObjectName(f"error:{key}")
        e.setWordWrap(True)
        paint_as_error(e)
        e.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        e.hide()
        self.errors[key] = e
        return e

    def form_row(self, layout: QFormLayout, key: str, widget: QWidget, hint: QLabel | None = None,
                 wide: bool = False) -> None:
        """Label, field, an optional hint below it, and the field's error line. `wide`: the label on its own line and
        the field under it across the whole group (a choice worded as a sentence shows whole in a narrow dock)."""
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(1)
        v.addWidget(widget)
        if hint is not None:
            v.addWidget(hint)
        v.addWidget(self.error_label(key))
        label = self.label(key, widget)
        label.setWordWrap(True)  # a long label (Russian) wraps instead of pushing the field out of the dock
        if wide:
            layout.addRow(label)
            layout.addRow(box)
        else:
            layout.addRow(label, box)

    def label(self, key: str, widget: QWidget) -> QLabel:
        """The field's label (its buddy: Alt+letter focuses the field), kept by key for texts and errors."""
        label = QLabel()
        label.setBuddy(widget)
        self.labels[key] = label
        return label


def paint_as_error(label: QLabel) -> None:
    """Error text colour from the label's palette: a style sheet on each of ~30 labels cost a quarter of the
    form's build (4-5 ms of the cold start); an explicit palette role survives a theme change."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(ERROR_COLOR))
    label.setPalette(palette)


def form_layout(box: QWidget) -> QFormLayout:
    """A group's form layout: fields grow, long rows wrap under their label."""
    form = QFormLayout(box)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    return form


def hint_label(name: str) -> QLabel:
    """A wrapped line under a field: what the core made of it."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


def select_data(combo: QComboBox, data) -> None:
    """Select the item carrying `data` (the first item when none does)."""
    combo.setCurrentIndex(max(combo.findData(data), 0))
