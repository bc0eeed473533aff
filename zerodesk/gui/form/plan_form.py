"""The model/cluster form: it edits the plan model (zerodesk.core.plan_model).

Every field is free text (or a choice), so nothing the user types is ever rejected or lost.
Each edit reads the fields into a plain dict and validates it with the core's Plan; a valid plan is
set on the model, an invalid one marks each field with the core's own message (set on the model as its
errors) while the model keeps the last valid plan: the one the chart shows, as its banner says. A plan from outside (a file, New, a preset, the card
example) arrives as the model's `loaded` event: the form shows it and sets what its fields read back.
The groups are their own widgets (model_section, sections); the fields live by key in one FieldSet.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from ...core import catalog
from ...core.plan import Plan, PlanError
from ...core.plan_model import PlanModel
from ...core.record import validation_error
from ..base import i18n
from ..base.style import ERROR_COLOR
from . import texts
from .field_set import FieldSet, paint_as_error, select_data
from .fields import ERROR_ALIASES, card_example, default_plan, with_model_preset
from .memory_edit import MemoryEdit
from .messages import friendly_errors
from .hybrid_section import HybridSection, hybrid_texts
from .knobs_section import KnobsSection, knobs_texts
from .model_section import ModelSection
from .sections import ClusterSection, OffloadSection, TrainingSection


def nest(values: dict) -> dict:
    """{'cluster.nodes': 2} -> {'cluster': {'nodes': 2}}: the Plan's shape from dotted field keys."""
    out: dict = {}
    for key, value in values.items():
        *parents, leaf = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


class PlanForm(QWidget):
    def __init__(self, model: PlanModel | None = None, plan: Plan | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("planForm")
        self.model = model if model is not None else PlanModel()
        self._shown_unit = "GB"  # the unit the memory fields show their bytes in
        self._set = FieldSet(self._validate)
        try:
            self._model_presets = catalog.model_presets()
            self._gpu_presets = catalog.gpu_presets()
            self._networks = catalog.network_presets()
            self._catalog_error = ""
        except PlanError as exc:  # a broken catalog must not take the window down
            self._model_presets, self._gpu_presets, self._networks, self._catalog_error = [], [], [], str(exc)
        self._build()
        self.retranslate()
        self.model.events.loaded.connect(self._show)
        self.model.load(plan or default_plan())

    # -- construction ---------------------------------------------------------------------------
    def _build(self) -> None:
        f = self._set
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        self._general_error = QLabel()
        self._general_error.setObjectName("error:plan")
        self._general_error.setWordWrap(True)
        paint_as_error(self._general_error)
        self._general_error.hide()
        outer.addWidget(self._general_error)

        self.model_section = ModelSection(f, self._model_presets, self._on_model_preset)
        self.training = TrainingSection(f)
        self.cluster = ClusterSection(f, self._gpu_presets, on_units=self._units_changed)
        self.hybrid = HybridSection(f, self._networks)  # shard group and links (issue 24)
        self.cluster.on_gpu = self.hybrid.follow_gpu  # filled with the GPU's memory, before the one validation
        self.offload = OffloadSection(f)  # apart from the stages
        self.knobs = KnobsSection(f)  # mixed precision, FSDP2 units, recomputation per block (issue 30)
        for section in self._sections():
            outer.addWidget(section)
        # an action, so it comes after the fields it fills, where it cannot be read as the form's title
        self.card_button = QPushButton()
        self.card_button.setObjectName("cardExampleButton")
        self.card_button.clicked.connect(self.apply_card_example)
        outer.addWidget(self.card_button)
        outer.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def _sections(self) -> tuple:
        return self.model_section, self.training, self.cluster, self.hybrid, self.offload, self.knobs

    # -- texts ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self._label_fields()
        tips = {**texts.field_tips(), **{k: tip for k, (_, tip) in texts.offload_texts("").items()},
                **{k: tip for k, (_, tip) in hybrid_texts().items()},
                **{k: tip for k, (_, tip) in knobs_texts().items()}}
        for key, text in tips.items():
            self._set.fields[key].setToolTip(text)
            self._set.fields[key].setAccessibleDescription(text)
        for key, names in texts.choice_names().items():
            combo = self._set.fields[key]
            for i in range(combo.count()):
                combo.setItemText(i, names[combo.itemData(i)])
        for section in self._sections():
            section.retranslate()
        self.card_button.setText(self.tr("Load the card's example (P = 2·10⁹, Nd = 4)"))
        self.card_button.setToolTip(self.tr("The source card's worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)"))
        self.card_button.setAccessibleName(self.tr("Load the card example"))
        with self._set.quiet():
            for field in self._memory_fields():
                field.change_unit(self._shown_unit, self._shown_unit)  # the new language's decimal point
        if self._catalog_error:
            self._general_error.setText(self.tr("Presets unavailable: {error}").format(error=self._catalog_error))
            self._general_error.show()
        if self.model.plan is not None:
            self._show_hints(self.model.plan)

    def _label_fields(self) -> None:
        """Every field's label and accessible name; memory fields name the unit they are typed in."""
        unit = i18n.unit_label(self.cluster.unit())
        labels = {**texts.field_labels(unit), **{k: label for k, (label, _) in texts.offload_texts(unit).items()},
                  **{k: label for k, (label, _) in hybrid_texts().items()},
                  **{k: label for k, (label, _) in knobs_texts().items()}}
        accessible = texts.accessible_names()
        for key, text in labels.items():
            self._set.labels[key].setText(text)
            self._set.fields[key].setAccessibleName(accessible.get(key, text))

    def enterEvent(self, event) -> None:
        # The pointer on the form: an edit may follow. The core's validator (pydantic, core.record) is made now, while
        # the user reaches for a field, rather than on the first key (the start never needs it: ~0.1 s once)
        Plan.schema()
        super().enterEvent(event)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- the fields -----------------------------------------------------------------------------
    def last_in_tab_order(self) -> QWidget | None:
        """The form's last widget that Tab stops at (the window continues its tab order after it)."""
        last, widget = None, self.nextInFocusChain()
        while widget is not self and self.isAncestorOf(widget):
            if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
                last = widget
            widget = widget.nextInFocusChain()
        return last

    def field(self, key: str) -> QWidget:
        return self._set.fields[key]

    def label(self, key: str) -> QLabel:
        return self._set.labels[key]

    def field_keys(self) -> list[str]:
        return list(self._set.fields)

    def error_label(self, key: str) -> QLabel:
        return self._set.errors.get(key, self._general_error)

    def error_text(self, key: str) -> str:
        label = self.error_label(key)
        return label.text() if not label.isHidden() else ""

    def _memory_fields(self) -> list[MemoryEdit]:
        return [w for w in self._set.fields.values() if isinstance(w, MemoryEdit)]

    def raw(self) -> dict:
        """The fields as a plain dict in the Plan's shape; strings are left for the core to judge."""
        unit = self.cluster.unit()
        raw = nest({**self.training.values(), **self.cluster.values(unit), **self.hybrid.values(),
                    **self.offload.values(unit), **self.knobs.values(), "units": unit})
        raw["model"] = self.model_section.raw()
        return raw

    def _show(self, plan: Plan) -> None:
        """Show a plan in the fields (a file, New, a preset, the card example) and set what they read back."""
        with self._set.quiet():
            self.model_section.show(plan, self._has_model(plan.model.name))
            self.training.show(plan)
            self.cluster.show(plan)
            self.hybrid.show(plan)
            self.offload.show(plan)
            self.knobs.show(plan)
            self._shown_unit = plan.units
            self._label_fields()
        if plan == default_plan(plan.units):  # the fields read it back as itself (tests/test_shipped.py): no validation
            self._accept(plan)
        else:
            self._validate()

    def _has_model(self, name: str | None) -> bool:
        return bool(name) and any(p.name == name for p in self._model_presets)

    # -- commands -------------------------------------------------------------------------------
    def apply_model_preset(self, name: str) -> None:
        """Fill the model fields (and the preset's suggested seq_len and Nd) from a catalog preset."""
        self.model.load(with_model_preset(self.model.plan, name))

    def apply_card_example(self) -> None:
        """The card's worked example: P = 2e9, Nd = 4, the paper's mixed-precision Adam, GB."""
        self.model.load(card_example(self.model.plan))

    def toggle_units(self) -> None:
        """Switch GB and GiB as a choice in the Units field would (the fields keep their bytes)."""
        units = self.cluster.units
        select_data(units, "GiB" if units.currentData() == "GB" else "GB")
        self._units_changed()
        self._validate()

    # -- reactions ------------------------------------------------------------------------------
    def _on_model_preset(self) -> None:
        name = self.model_section.preset.currentData()
        if name:
            self.apply_model_preset(name)
        else:
            self.model_section.model_name = None
            self._validate()

    def _units_changed(self) -> None:
        """The memory fields keep their bytes and show them in the new unit; their labels say which."""
        old, self._shown_unit = self._shown_unit, self.cluster.unit()
        with self._set.quiet():
            for field in self._memory_fields():
                field.change_unit(old, self._shown_unit)
        self._label_fields()

    # -- validation -----------------------------------------------------------------------------
    def _validate(self) -> None:
        """Valid: set the plan on the model. Invalid: mark the fields; the model keeps the last valid plan, which
        every view goes on showing (a typo never swaps the chart for an older plan behind the banner's back)."""
        raw = self.raw()
        kept = self.model_section.kept_model(raw["model"])  # a tensor list is validated once, not per edit
        try:
            plan = Plan.model_validate({**raw, "model": kept} if kept is not None else raw)
        except validation_error() as exc:
            names = {k: label.text().replace("&", "") for k, label in self._set.labels.items()}
            self._show_errors(friendly_errors(exc, raw, names, self.cluster.unit(), ERROR_ALIASES))
            return
        except (ValueError, ArithmeticError, TypeError) as exc:  # the core raised instead of reporting a field
            self._show_errors({"plan": str(exc) or type(exc).__name__})
            return
        self._accept(plan)

    def _accept(self, plan: Plan) -> None:
        """What the fields say is valid: `plan`."""
        self._show_errors({})
        self._show_hints(plan)
        self.model.set_plan(plan)

    def _show_errors(self, errors: dict[str, str]) -> None:
        if errors == self.model.errors:
            return
        fields, labels = self._set.fields, self._set.errors
        for key in set(self.model.errors) | set(errors):
            label, widget, message = labels.get(key), fields.get(key), errors.get(key)
            if label is None:
                continue
            if message:
                label.setText("⚠ " + message)
                label.show()
            else:
                label.clear()
                label.hide()
            if widget is not None:
                widget.setProperty("invalid", bool(message))
                widget.setStyleSheet(f"border: 2px solid {ERROR_COLOR};" if message else "")
                widget.setAccessibleDescription(message or widget.toolTip())
        general = [f"{k}: {v}" for k, v in errors.items() if k not in labels]
        if general or self._catalog_error:
            self._general_error.setText("\n".join(["⚠ " + g for g in general] + ([self._catalog_error] if self._catalog_error else [])))
            self._general_error.show()
        else:
            self._general_error.hide()
        self.model.set_errors(errors)

    def _show_hints(self, plan: Plan) -> None:
        """What the core made of the fields: the exact count, the layout's knobs, Nd."""
        self.model_section.show_hints(plan)
        self.training.show_hint(plan)
        self.cluster.show_hint(plan)
        self.hybrid.show_hint(plan)
