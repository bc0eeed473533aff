"""The form's Model group: a preset, or a parameter count, or an architecture whose count is exact.

It reads and shows only the plan's `model`; the form validates the whole plan. Texts keep the form's
translation context ("PlanForm").
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QButtonGroup, QCheckBox, QGroupBox, QHBoxLayout, QLabel, QRadioButton, QWidget

from ...core.architecture import FAMILY_KNOBS
from ...core.plan import ModelSpec, Plan, default_ffn
from . import texts
from ..base import i18n
from .field_grid import FieldGrid
from .field_set import FieldSet, form_layout, hint_label, select_data
from .fields import ARCH_CHOICES, ARCH_INT_FIELDS, ARCH_OPTIONAL, CUSTOM, MOE_FIELDS, count_text

translate = QCoreApplication.translate  # lupdate reads translate("PlanForm", "text")

# what a switch to an empty architecture starts from: a small GPT-2-like shape
STARTER_SHAPE = (("layers", 12), ("hidden", 768), ("heads", 12), ("ffn", 3072), ("vocab", 50257),
                 ("max_positions", 2048))
GRID = [("layers", "hidden"), ("heads", "kv_heads"), ("head_dim", "ffn"), ("vocab", "max_positions"),
        ("mlp", "norm"), ("positions", "bias"), ("family",), MOE_FIELDS]


class ModelSection(QGroupBox):
    """Preset, source (count or architecture), the fields of each, and what the core made of them."""

    def __init__(self, fields: FieldSet, presets: list, on_preset: Callable[[], None]) -> None:
        super().__init__()
        self._f = fields
        self._presets = presets
        self.model_name: str | None = None
        self._arch_extra: dict = {}  # layout knobs of the loaded architecture the form does not show
        self._tensor_model: dict = {}  # tensors + hf_config of a model read by transformers
        self._tensor_spec: ModelSpec | None = None  # that model, validated once (a list may hold a million tensors)
        self._tensor_count = 0
        self._build(on_preset)

    def _build(self, on_preset: Callable) -> None:
        f = self._f
        form = form_layout(self)
        self.preset = f.combo("model.preset", [("", CUSTOM)] + [(p.label, p.name) for p in self._presets],
                              min_chars=12, on_choice=on_preset)
        f.form_row(form, "model.preset", self.preset, wide=True)

        src = QWidget()
        h = QHBoxLayout(src)
        h.setContentsMargins(0, 0, 0, 0)
        self.by_params = QRadioButton()
        self.by_params.setObjectName("model.by_params")
        self.by_arch = QRadioButton()
        self.by_arch.setObjectName("model.by_architecture")
        self._source_group = QButtonGroup(self)
        self._source_group.addButton(self.by_params)
        self._source_group.addButton(self.by_arch)
        self.by_params.setChecked(True)
        self.by_params.toggled.connect(lambda _on: self._sync_source())  # shown plans switch it too
        self.by_params.toggled.connect(f.reacting(self.leave_preset))
        h.addWidget(self.by_params)
        h.addWidget(self.by_arch)
        h.addStretch(1)
        self._source_label = QLabel()
        form.addRow(self._source_label, src)

        self.params_hint = hint_label("paramsHint")
        self.params = f.edit("model.params", then=self.leave_preset)
        f.form_row(form, "model.params", self.params, self.params_hint)

        self.arch_box = FieldGrid()
        for r, names in enumerate(GRID):
            for c, name in enumerate(names):
                key = f"model.architecture.{name}"
                then = self._reaction(name)
                if name in ARCH_CHOICES:
                    w = f.combo(key, [(v, v) for v in ARCH_CHOICES[name]], min_chars=5, then=then)
                else:
                    w = f.edit(key, stepper=True, then=then)
                    w.setMinimumWidth(60)
                self.arch_box.add_cell(r, c, f.label(key, w), w, f.error_label(key))
        self.tied = f.button("model.architecture.tied_embeddings", QCheckBox(), then=self.leave_preset)
        self.arch_hint = hint_label("archHint")
        for w in (self.tied, f.error_label("model.architecture.tied_embeddings"), self.arch_hint):
            self.arch_box.add_footer(w)
        self.arch_box.arrange()
        form.addRow(self.arch_box)

    def _arch(self, name: str):
        return self._f.fields[f"model.architecture.{name}"]

    def _reaction(self, name: str):
        """What an edit of the architecture's field `name` changes besides the plan: it leaves the preset, and
        the placeholders, the position table's field or the experts' fields follow."""
        follow = {"hidden": self.sync_placeholders, "mlp": self.sync_placeholders, "positions": self.sync_positions,
                  "family": self.sync_family_fields}.get(name)

        def react() -> None:
            self.leave_preset()
            if follow is not None:
                follow()
        return react

    # -- texts ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.params.setPlaceholderText(translate("PlanForm", "for example 2e9, 7B, 350M"))
        for name in ARCH_CHOICES:
            combo = self._arch(name)
            for i in range(combo.count()):
                combo.setItemText(i, i18n.choice_label(combo.itemData(i)))
        self.preset.setItemText(0, translate("PlanForm", "Custom"))
        for i, p in enumerate(self._presets, start=1):
            self.preset.setItemText(i, i18n.preset_label(p))
        family = self._arch("family")
        family.setItemText(family.findData("custom"), translate("PlanForm", "ZeroDesk's own"))
        self.setTitle(translate("PlanForm", "Model"))
        self._source_label.setText(translate("PlanForm", "Given by"))
        self.by_params.setText(translate("PlanForm", "Parameter count"))
        self.by_params.setAccessibleName(translate("PlanForm", "Model given by parameter count"))
        self.by_arch.setText(translate("PlanForm", "Architecture"))
        self.by_arch.setAccessibleName(translate("PlanForm", "Model given by architecture"))
        self.tied.setText(translate("PlanForm", "Tied input/output embeddings"))
        self.tied.setAccessibleName(self.tied.text())
        self.sync_placeholders()
        self.sync_positions()
        self.arch_box.fit(self.arch_box.width())  # the new language's labels may no longer fit beside their fields

    def sync_placeholders(self) -> None:
        """Empty optional fields say what the core will use: the FFN width follows hidden and the MLP."""
        self._arch("kv_heads").setPlaceholderText(translate("PlanForm", "= heads"))
        self._arch("head_dim").setPlaceholderText(translate("PlanForm", "auto"))
        hidden = self._arch("hidden").text().strip()
        ffn = self._arch("ffn")
        if hidden.isdigit() and int(hidden) >= 1:
            n = default_ffn(int(hidden), self._arch("mlp").currentData() or "gated")
            ffn.setPlaceholderText(translate("PlanForm", "auto: {n}").format(n=n))
        else:
            ffn.setPlaceholderText(translate("PlanForm", "auto"))
        ffn.setToolTip(translate("PlanForm", "Empty: 4 × hidden for a plain MLP; 8/3 × hidden rounded up to a multiple "
                                             "of 256 for a gated one (Llama's rule)"))

    def sync_positions(self) -> None:
        """A rotary model has no position table: its size field is idle."""
        learned = self._arch("positions").currentData() == "learned"
        field = self._arch("max_positions")
        field.setEnabled(learned)
        field.setToolTip(translate("PlanForm", "Size of the learned position table (learned positions only)") if learned
                         else translate("PlanForm", "Rotary positions have no table: this size changes nothing"))

    def sync_family_fields(self) -> None:
        """Experts and top-k matter only for a mixture-of-experts layout: shown there, hidden elsewhere."""
        moe = self._arch("family").currentData() == "mixtral" or bool(self._arch("experts").text().strip())
        for name in MOE_FIELDS:
            self._arch(name).setVisible(moe)
            self._f.labels[f"model.architecture.{name}"].setVisible(moe)

    def show_hints(self, plan: Plan) -> None:
        """What the core made of the model: the exact count, and the loaded layout's knobs not shown."""
        self.params_hint.setText(texts.params_hint(plan))
        if plan.model.architecture is not None:
            self.arch_hint.setText(texts.arch_hint(plan, self._arch_extra))
            if self.by_arch.isChecked():  # the read-only count follows the architecture (no stale "2B" beside it)
                self.params.setText(count_text(plan.params))

    # -- reading and writing --------------------------------------------------------------------
    def raw(self) -> dict:
        """The model part of the form's dict; strings are left for the core to judge."""
        model: dict = {"name": self.model_name}
        if self.by_arch.isChecked():
            arch: dict = {}
            for name in ARCH_INT_FIELDS:
                text = self._arch(name).typed()
                arch[name] = None if (text == "" and name in ARCH_OPTIONAL) else text
            for name in ARCH_CHOICES:
                arch[name] = self._arch(name).currentData()
            arch["tied_embeddings"] = self.tied.isChecked()
            allowed = FAMILY_KNOBS.get(arch["family"], {})  # another layout drops the old one's knobs
            model["architecture"] = {**{k: v for k, v in self._arch_extra.items() if k in allowed}, **arch}
        elif self._tensor_model and self.params.text().strip() == count_text(self._tensor_count):
            model.update(self._tensor_model)  # a tensor list read by transformers, kept until the count is edited
        else:
            model["params"] = self.params.typed()  # 7,5B in Russian
        return model

    def kept_model(self, raw: dict) -> ModelSpec | None:
        """The validated model itself when `raw` (from raw()) keeps its tensor list: no edit revalidates the list."""
        spec = self._tensor_spec
        if spec is None or raw.get("tensors") is not spec.tensors:
            return None
        return spec if spec.name == raw.get("name") else spec.model_copy(update={"name": raw.get("name")})

    def show(self, plan: Plan, is_preset: bool) -> None:
        """Show the plan's model (the form holds its reactions off meanwhile)."""
        self.model_name = plan.model.name
        select_data(self.preset, plan.model.name if is_preset else CUSTOM)
        arch = plan.model.architecture
        shown = {*ARCH_INT_FIELDS, *ARCH_CHOICES, "tied_embeddings"}
        self._arch_extra = ({k: v for k, v in arch.model_dump(exclude_defaults=True).items() if k not in shown}
                            if arch is not None else {})
        self._tensor_model = ({"tensors": plan.model.tensors, "hf_config": plan.model.hf_config}
                              if plan.model.tensors else {})
        self._tensor_spec = plan.model if plan.model.tensors else None
        self._tensor_count = plan.params
        if arch is not None:
            self.by_arch.setChecked(True)
            for name in ARCH_INT_FIELDS:
                value = getattr(arch, name)
                self._arch(name).setText("" if value is None else str(value))
            for name in ARCH_CHOICES:
                select_data(self._arch(name), getattr(arch, name))
            self.tied.setChecked(arch.tied_embeddings)
        else:
            self.by_params.setChecked(True)
        self.params.setText(count_text(plan.params))  # a raw count, an architecture's or a tensor list's total
        self.sync_family_fields()
        self._sync_source()
        self.sync_placeholders()
        self.sync_positions()

    def leave_preset(self) -> None:
        """An edit of the model makes it the user's own."""
        if self.model_name is not None:
            self.model_name = None
            select_data(self.preset, CUSTOM)

    def _sync_source(self) -> None:
        """Count or architecture: the architecture's fields show, the count becomes read-only; an empty
        architecture starts from a small shape."""
        by_arch = self.by_arch.isChecked()
        self.arch_box.setVisible(by_arch)
        self.params.setReadOnly(by_arch)
        self.params.setFocusPolicy(Qt.FocusPolicy.ClickFocus if by_arch else Qt.FocusPolicy.StrongFocus)
        if by_arch and not self._arch("layers").text():
            for name, value in STARTER_SHAPE:
                self._arch(name).setText(str(value))
