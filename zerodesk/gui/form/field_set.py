"""The form's fields by dotted Plan key: built here, each with its label and its error line.

One FieldSet is shared by the form and its sections, so validation can mark any field by the key the
core reports, whichever section built it.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from .fields import FieldEdit
from .memory_edit import MemoryEdit
from ..base.style import ERROR_COLOR


class FieldSet:
    """Builds fields wired to the form's reactions and keeps them, their labels and error lines by key."""

    def __init__(self, on_edit: Callable, on_commit: Callable) -> None:
        self._on_edit, self._on_commit = on_edit, on_commit
        self.fields: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.errors: dict[str, QLabel] = {}

    def edit(self, key: str, stepper: bool = False, memory: bool = False) -> FieldEdit:
        """A free-text field (`memory`: an amount of bytes typed in the form's unit)."""
        w = MemoryEdit() if memory else FieldEdit()
        w.setObjectName(key)
        w.setProperty("stepper", stepper)
        w.setClearButtonEnabled(False)
        w.textEdited.connect(self._on_edit)
        w.editingFinished.connect(self._on_commit)
        self.fields[key] = w
        return w

    def combo(self, key: str, items: list[tuple[str, str]], min_chars: int = 0,
              on_choice: Callable | None = None) -> QComboBox:
        w = QComboBox()
        w.setObjectName(key)
        for text, data in items:
            w.addItem(text, data)
        w.activated.connect(on_choice or self._on_edit)
        if min_chars:  # long preset names elide instead of widening the dock
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(min_chars)
        self.fields[key] = w
        return w

    def error_label(self, key: str) -> QLabel:
        e = QLabel()
        e.setObjectName(f"error:{key}")
        e.setWordWrap(True)
        paint_as_error(e)
        e.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        e.hide()
        self.errors[key] = e
        return e

    def form_row(self, layout: QFormLayout, key: str, widget: QWidget, hint: QLabel | None = None) -> None:
        """Label, field, an optional hint below it, and the field's error line."""
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
