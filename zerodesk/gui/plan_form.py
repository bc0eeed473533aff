"""The model/cluster form, bound to the core's Plan.

Every field is free text (or a choice), so nothing the user types is ever rejected or lost.
Each edit builds a plain dict from the widgets and validates it with the core's Plan; a valid
plan is emitted (planChanged), an invalid one marks each field with the core's own message
(zerodesk.core.plan.field_errors) and the window keeps showing the last valid plan.
"""

from __future__ import annotations

from pydantic import ValidationError
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..core import catalog
from ..core.architecture import FAMILY_KNOBS
from ..core.plan import Offload, Plan, PlanError, Profile, Scheme, default_ffn
from ..core.units import UNIT_BYTES
from . import i18n
from .form_fields import (  # noqa: F401  (count_text, default_plan, memory_bytes, number_text: also the form's API)
    ARCH_CHOICES,
    ARCH_INT_FIELDS,
    ARCH_OPTIONAL,
    CUSTOM,
    ERROR_ALIASES,
    MOE_FIELDS,
    OPTIMIZER_IMPLS,
    RECOMPUTE_CHOICES,
    FieldEdit,
    count_text,
    default_plan,
    memory_bytes,
    number_text,
)
from . import form_texts as texts
from .form_messages import friendly_errors
from .style import ERROR_COLOR

class PlanForm(QWidget):
    planChanged = Signal(object)  # a valid Plan
    errorsChanged = Signal(dict)  # {dotted field: message}; empty when the form is valid
    edited = Signal()  # the user changed something (for "unsaved changes")

    def __init__(self, plan: Plan | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("planForm")
        self._plan: Plan | None = None  # what the chart shows
        self._committed: Plan | None = None  # the last valid plan the user committed (Enter, focus out, a choice)
        self._errors: dict[str, str] = {}
        self._loading = False
        self._model_name: str | None = None
        self._gpu_shown: tuple[str, int] | None = None  # (text shown, exact bytes) of the GPU memory field
        self._cuda_shown: tuple[str, int] | None = None  # the same for the CUDA allowance
        self._fields: dict[str, QWidget] = {}
        self._error_labels: dict[str, QLabel] = {}
        self._field_labels: dict[str, QLabel] = {}
        self._arch_extra: dict = {}  # layout knobs of the loaded architecture the form does not show
        self._tensor_model: dict = {}  # tensors + hf_config of a model read by transformers
        self._tensor_count = 0
        try:
            self._model_presets = catalog.model_presets()
            self._gpu_presets = catalog.gpu_presets()
            self._catalog_error = ""
        except PlanError as exc:  # a broken catalog must not take the window down
            self._model_presets, self._gpu_presets, self._catalog_error = [], [], str(exc)
        self._build()
        self.retranslate()
        self.set_plan(plan or default_plan())

    # -- construction ---------------------------------------------------------------------------
    def _edit(self, key: str, stepper: bool = False) -> FieldEdit:
        w = FieldEdit()
        w.setObjectName(key)
        w.setProperty("stepper", stepper)
        w.setClearButtonEnabled(False)
        w.textEdited.connect(self._user_edit)
        w.editingFinished.connect(self._commit)
        self._fields[key] = w
        return w

    def _combo(self, key: str, items: list[tuple[str, str]]) -> QComboBox:
        w = QComboBox()
        w.setObjectName(key)
        for text, data in items:
            w.addItem(text, data)
        w.activated.connect(self._user_edit)
        self._fields[key] = w
        return w

    def _error_label(self, key: str) -> QLabel:
        e = QLabel()
        e.setObjectName(f"error:{key}")
        e.setWordWrap(True)
        e.setStyleSheet(f"color: {ERROR_COLOR};")
        e.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        e.hide()
        self._error_labels[key] = e
        return e

    def _form_row(self, layout: QFormLayout, key: str, widget: QWidget, hint: QLabel | None = None) -> None:
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(1)
        v.addWidget(widget)
        if hint is not None:
            v.addWidget(hint)
        v.addWidget(self._error_label(key))
        label = QLabel()
        label.setWordWrap(True)  # a long label (Russian) wraps instead of pushing the field out of the dock
        label.setBuddy(widget)
        self._field_labels[key] = label
        layout.addRow(label, box)

    def _grid_cell(self, grid: QGridLayout, row: int, col: int, key: str, widget: QWidget) -> None:
        label = QLabel()
        label.setBuddy(widget)
        self._field_labels[key] = label
        grid.addWidget(label, row * 2, col * 2)
        grid.addWidget(widget, row * 2, col * 2 + 1)
        grid.addWidget(self._error_label(key), row * 2 + 1, col * 2, 1, 2)

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        self._general_error = QLabel()
        self._general_error.setObjectName("error:plan")
        self._general_error.setWordWrap(True)
        self._general_error.setStyleSheet(f"color: {ERROR_COLOR};")
        self._general_error.hide()
        outer.addWidget(self._general_error)

        self._card_button = QPushButton()
        self._card_button.setObjectName("cardExampleButton")
        self._card_button.clicked.connect(self.apply_card_example)
        outer.addWidget(self._card_button)

        # model
        self._model_box = QGroupBox()
        mform = QFormLayout(self._model_box)
        mform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        mform.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        presets = [("", CUSTOM)] + [(p.label, p.name) for p in self._model_presets]
        self._model_preset = self._combo("model.preset", presets)
        self._model_preset.activated.disconnect(self._user_edit)
        self._model_preset.activated.connect(self._on_model_preset)
        self._model_preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._model_preset.setMinimumContentsLength(12)
        self._form_row(mform, "model.preset", self._model_preset)

        src = QWidget()
        h = QHBoxLayout(src)
        h.setContentsMargins(0, 0, 0, 0)
        self._by_params = QRadioButton()
        self._by_params.setObjectName("model.by_params")
        self._by_arch = QRadioButton()
        self._by_arch.setObjectName("model.by_architecture")
        self._source_group = QButtonGroup(self)
        self._source_group.addButton(self._by_params)
        self._source_group.addButton(self._by_arch)
        self._by_params.setChecked(True)
        self._by_params.toggled.connect(self._on_source_toggled)
        h.addWidget(self._by_params)
        h.addWidget(self._by_arch)
        h.addStretch(1)
        self._source_label = QLabel()
        mform.addRow(self._source_label, src)

        self._params_hint = QLabel()
        self._params_hint.setObjectName("paramsHint")
        self._params_hint.setWordWrap(True)
        self._params = self._edit("model.params")
        self._form_row(mform, "model.params", self._params, self._params_hint)

        self._arch_box = QWidget()
        grid = QGridLayout(self._arch_box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(1)
        cells = [("layers", "hidden"), ("heads", "kv_heads"), ("head_dim", "ffn"), ("vocab", "max_positions"),
                 ("mlp", "norm"), ("positions", "bias"), ("family",), MOE_FIELDS]
        for r, pair in enumerate(cells):
            for c, name in enumerate(pair):
                key = f"model.architecture.{name}"
                if name in ARCH_CHOICES:
                    w = self._combo(key, [(v, v) for v in ARCH_CHOICES[name]])
                    if name == "family":
                        w.activated.connect(lambda _=None: self._sync_family_fields())
                    w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                    w.setMinimumContentsLength(6)
                else:
                    w = self._edit(key, stepper=True)
                    w.setMinimumWidth(60)
                self._grid_cell(grid, r, c, key, w)
        self._tied = QCheckBox()
        self._tied.setObjectName("model.architecture.tied_embeddings")
        self._tied.toggled.connect(lambda _=None: self._user_edit())
        self._fields["model.architecture.tied_embeddings"] = self._tied
        grid.addWidget(self._tied, len(cells) * 2, 0, 1, 4)
        grid.addWidget(self._error_label("model.architecture.tied_embeddings"), len(cells) * 2 + 1, 0, 1, 4)
        self._arch_hint = QLabel()
        self._arch_hint.setObjectName("archHint")
        self._arch_hint.setWordWrap(True)
        grid.addWidget(self._arch_hint, len(cells) * 2 + 2, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        mform.addRow(self._arch_box)
        outer.addWidget(self._model_box)

        # training
        self._train_box = QGroupBox()
        tform = QFormLayout(self._train_box)
        tform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        tform.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._scheme = self._combo("scheme", [("", s.value) for s in Scheme])
        self._scheme.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._scheme.setMinimumContentsLength(12)
        self._form_row(tform, "scheme", self._scheme)
        self._profile = self._combo("profile", [("", p.value) for p in Profile])
        self._profile.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._profile.setMinimumContentsLength(12)
        self._form_row(tform, "profile", self._profile)
        self._profile.currentIndexChanged.connect(self._sync_scheme_enabled)
        self._seq = self._edit("seq_len", stepper=True)
        self._form_row(tform, "seq_len", self._seq)
        self._mb = self._edit("micro_batch", stepper=True)
        self._form_row(tform, "micro_batch", self._mb)
        self._recompute = self._combo("recompute", [("", m) for m in RECOMPUTE_CHOICES])
        self._form_row(tform, "recompute", self._recompute)
        self._optimizer_impl = self._combo("optimizer_impl", [("", m) for m in OPTIMIZER_IMPLS])
        self._form_row(tform, "optimizer_impl", self._optimizer_impl)
        outer.addWidget(self._train_box)

        # cluster
        self._cluster_box = QGroupBox()
        cform = QFormLayout(self._cluster_box)
        cform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        cform.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        gpus = [("", CUSTOM)] + [(g.label, g.name) for g in self._gpu_presets]
        self._gpu_preset = self._combo("cluster.gpu", gpus)
        self._gpu_preset.activated.disconnect(self._user_edit)
        self._gpu_preset.activated.connect(self._on_gpu_preset)
        self._gpu_preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._gpu_preset.setMinimumContentsLength(12)
        self._form_row(cform, "cluster.gpu", self._gpu_preset)
        self._gpu_mem = self._edit("cluster.gpu_memory_bytes")
        self._form_row(cform, "cluster.gpu_memory_bytes", self._gpu_mem)
        self._nodes = self._edit("cluster.nodes", stepper=True)
        self._form_row(cform, "cluster.nodes", self._nodes)
        self._gpn = self._edit("cluster.gpus_per_node", stepper=True)
        self._form_row(cform, "cluster.gpus_per_node", self._gpn)
        self._dp_hint = QLabel()
        self._dp_hint.setObjectName("dpHint")
        self._dp_hint.setWordWrap(True)
        self._dp = self._edit("cluster.dp", stepper=True)
        self._form_row(cform, "cluster.dp", self._dp, self._dp_hint)
        self._bw = self._edit("bandwidth_gbps")
        self._form_row(cform, "bandwidth_gbps", self._bw)
        self._cuda = self._edit("cuda_allowance_bytes")
        self._form_row(cform, "cuda_allowance_bytes", self._cuda)
        self._units = self._combo("units", [("GB", "GB"), ("GiB", "GiB")])
        self._form_row(cform, "units", self._units)
        outer.addWidget(self._cluster_box)
        self._build_offload(outer)
        outer.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def _build_offload(self, outer: QVBoxLayout) -> None:
        """Offload, apart from the stage: what leaves the GPU, where to, and the host link and memory."""
        self._offload_box = QGroupBox()
        oform = QFormLayout(self._offload_box)
        oform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        oform.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._offload = self._combo("offload", [(o.value, o.value) for o in Offload])
        self._form_row(oform, "offload", self._offload)
        self._offload_target = self._combo("offload_target", [("cpu", "cpu"), ("nvme", "nvme")])
        self._form_row(oform, "offload_target", self._offload_target)
        self._pcie = self._edit("pcie_gbps")
        self._form_row(oform, "pcie_gbps", self._pcie)
        self._host_mem = self._edit("cluster.host_memory_bytes")
        self._host_shown: tuple[str, int] | None = None
        self._form_row(oform, "cluster.host_memory_bytes", self._host_mem)
        outer.addWidget(self._offload_box)

    def _retranslate_offload(self) -> None:
        offload_texts = texts.offload_texts(i18n.unit_label(self._unit()))
        for key, (label, tip) in offload_texts.items():
            self._field_labels[key].setText(label)
            self._fields[key].setAccessibleName(label)
            self._fields[key].setToolTip(tip)
            self._fields[key].setAccessibleDescription(tip)
        names = {Offload.NONE.value: self.tr("none"), Offload.OPTIMIZER.value: self.tr("optimizer states + gradients"),
                 Offload.OPTIMIZER_PARAMS.value: self.tr("+ parameters")}
        for i in range(self._offload.count()):
            self._offload.setItemText(i, names[self._offload.itemData(i)])
        for i, text in enumerate((self.tr("host memory (CPU)"), self.tr("NVMe"))):
            self._offload_target.setItemText(i, text)
        self._host_mem.setPlaceholderText(self.tr("none"))
        self._offload_box.setTitle(self.tr("Offload (apart from the stages)"))
        self._offload_target.setEnabled(self._offload.currentData() != Offload.NONE.value)

    def _host_memory_value(self):
        return memory_bytes(self._host_mem.text(), self._host_shown, self._unit())

    def _show_host_memory(self, nbytes: int | None) -> None:
        text = "" if nbytes is None else number_text(nbytes / UNIT_BYTES[self._unit()])
        self._host_mem.setText(text)
        self._host_shown = None if nbytes is None else (text, nbytes)

    # -- texts ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        labels = texts.field_labels(i18n.unit_label(self._unit()))
        accessible = texts.accessible_names()
        for key, text in labels.items():
            self._field_labels[key].setText(text)
            w = self._fields[key]
            w.setAccessibleName(accessible.get(key, text))
        tips = texts.field_tips()
        for key, text in tips.items():
            self._fields[key].setToolTip(text)
            self._fields[key].setAccessibleDescription(text)
        self._params.setPlaceholderText(self.tr("for example 2e9, 7B, 350M"))
        for name, values in ARCH_CHOICES.items():
            combo = self._fields[f"model.architecture.{name}"]
            for i in range(combo.count()):
                combo.setItemText(i, i18n.choice_label(combo.itemData(i)))
        for i, p in enumerate(self._model_presets, start=1):
            self._model_preset.setItemText(i, i18n.preset_label(p))
        for i, g in enumerate(self._gpu_presets, start=1):
            self._gpu_preset.setItemText(i, i18n.preset_label(g))
        self._dp.setPlaceholderText(self.tr("auto"))
        self._arch_fields_placeholders()
        self._sync_positions()
        self._gpu_mem.setPlaceholderText(self.tr("none"))
        self._cuda.setPlaceholderText("0")
        recompute_names = {"none": self.tr("none"), "selective": self.tr("selective (attention)"),
                           "full": self.tr("full (whole block)")}
        for i in range(self._recompute.count()):
            self._recompute.setItemText(i, recompute_names[self._recompute.itemData(i)])
        impl_names = {"foreach": self.tr("foreach (CUDA default)"), "fused": self.tr("fused"),
                      "for-loop": self.tr("for-loop")}
        for i in range(self._optimizer_impl.count()):
            self._optimizer_impl.setItemText(i, impl_names[self._optimizer_impl.itemData(i)])
        self._model_box.setTitle(self.tr("Model"))
        self._train_box.setTitle(self.tr("Training"))
        self._cluster_box.setTitle(self.tr("Cluster"))
        self._source_label.setText(self.tr("Given by"))
        self._by_params.setText(self.tr("Parameter count"))
        self._by_params.setAccessibleName(self.tr("Model given by parameter count"))
        self._by_arch.setText(self.tr("Architecture"))
        self._by_arch.setAccessibleName(self.tr("Model given by architecture"))
        self._tied.setText(self.tr("Tied input/output embeddings"))
        self._tied.setAccessibleName(self._tied.text())
        self._card_button.setText(self.tr("Card example: P = 2·10⁹, Nd = 4"))
        self._card_button.setToolTip(self.tr("The source card's worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)"))
        self._card_button.setAccessibleName(self.tr("Load the card example"))
        self._model_preset.setItemText(0, self.tr("Custom"))
        family = self._fields["model.architecture.family"]
        family.setItemText(family.findData("custom"), self.tr("ZeroDesk's own"))
        self._gpu_preset.setItemText(0, self.tr("Custom / none"))
        for i in range(self._scheme.count()):
            self._scheme.setItemText(i, i18n.scheme_label(self._scheme.itemData(i)))
            self._scheme.setItemData(i, self._scheme.itemText(i), Qt.ItemDataRole.ToolTipRole)
        for i in range(self._profile.count()):
            self._profile.setItemText(i, i18n.profile_label(self._profile.itemData(i)))
            self._profile.setItemData(i, self._profile.itemText(i), Qt.ItemDataRole.ToolTipRole)
        for i in range(self._units.count()):
            u = self._units.itemData(i)
            self._units.setItemText(i, f"{i18n.unit_label(u)} ({i18n.unit_note(u)})")
        if self._gpu_shown is not None and self._gpu_mem.text() == self._gpu_shown[0]:
            was, self._loading = self._loading, True
            self._show_gpu_memory(self._gpu_shown[1])  # the new language's decimal point
            self._loading = was
        if self._catalog_error:
            self._general_error.setText(self.tr("Presets unavailable: {error}").format(error=self._catalog_error))
            self._general_error.show()
        self._retranslate_offload()
        self._update_hints()

    def _arch_fields_placeholders(self) -> None:
        self._fields["model.architecture.kv_heads"].setPlaceholderText(self.tr("= heads"))
        self._fields["model.architecture.head_dim"].setPlaceholderText(self.tr("auto"))
        hidden = self._fields["model.architecture.hidden"].text().strip()
        mlp = self._fields["model.architecture.mlp"].currentData() or "gated"
        ffn = self._fields["model.architecture.ffn"]
        if hidden.isdigit() and int(hidden) >= 1:
            ffn.setPlaceholderText(self.tr("auto: {n}").format(n=default_ffn(int(hidden), mlp)))
        else:
            ffn.setPlaceholderText(self.tr("auto"))
        ffn.setToolTip(self.tr("Empty: 4 × hidden for a plain MLP; 8/3 × hidden rounded up to a multiple of 256 "
                               "for a gated one (Llama's rule)"))

    def _sync_positions(self) -> None:
        """A rotary model has no position table: its size field is idle."""
        learned = self._fields["model.architecture.positions"].currentData() == "learned"
        field = self._fields["model.architecture.max_positions"]
        field.setEnabled(learned)
        field.setToolTip(self.tr("Size of the learned position table (learned positions only)") if learned else
                         self.tr("Rotary positions have no table: this size changes nothing"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- reading and writing the widgets ----------------------------------------------------------
    def _unit(self) -> str:
        return self._units.currentData() or "GB"

    def field(self, key: str) -> QWidget:
        return self._fields[key]

    def error_label(self, key: str) -> QLabel:
        return self._error_labels.get(key, self._general_error)

    def error_text(self, key: str) -> str:
        label = self.error_label(key)
        return label.text() if not label.isHidden() else ""

    def plan(self) -> Plan | None:
        """The last valid plan (what the chart shows)."""
        return self._plan

    def errors(self) -> dict[str, str]:
        return dict(self._errors)

    def is_valid(self) -> bool:
        return not self._errors

    def raw(self) -> dict:
        """The widgets as a plain dict in the Plan's shape; strings are left for the core to judge."""
        model: dict = {"name": self._model_name}
        if self._by_arch.isChecked():
            arch: dict = {}
            for name in ARCH_INT_FIELDS:
                text = self._fields[f"model.architecture.{name}"].text().strip()
                arch[name] = None if (text == "" and name in ARCH_OPTIONAL) else text
            for name in ARCH_CHOICES:
                arch[name] = self._fields[f"model.architecture.{name}"].currentData()
            arch["tied_embeddings"] = self._tied.isChecked()
            allowed = FAMILY_KNOBS.get(arch["family"], {})  # another layout drops the old one's knobs
            model["architecture"] = {**{k: v for k, v in self._arch_extra.items() if k in allowed}, **arch}
        elif self._tensor_model and self._params.text().strip() == count_text(self._tensor_count):
            model.update(self._tensor_model)  # a tensor list read by transformers, kept until the count is edited
        else:
            model["params"] = self._params.text().strip()
        dp_text = self._dp.text().strip()
        cluster = {
            "nodes": self._nodes.text().strip(),
            "gpus_per_node": self._gpn.text().strip(),
            "dp": dp_text or None,
            "gpu": self._gpu_preset.currentData() or None,
            "gpu_memory_bytes": self._gpu_memory_value(),
            "host_memory_bytes": self._host_memory_value(),
        }
        return {
            "model": model,
            "scheme": self._scheme.currentData(),
            "profile": self._profile.currentData(),
            "cluster": cluster,
            "seq_len": self._seq.text().strip(),
            "micro_batch": self._mb.text().strip(),
            "units": self._unit(),
            "bandwidth_gbps": self._bw.text().strip().replace(",", "."),
            "recompute": self._recompute.currentData(),
            "optimizer_impl": self._optimizer_impl.currentData(),
            "cuda_allowance_bytes": self._cuda_allowance_value(),
            "offload": self._offload.currentData(),
            "offload_target": self._offload_target.currentData(),
            "pcie_gbps": self._pcie.text().strip().replace(",", "."),
        }

    def _cuda_allowance_value(self):
        """The allowance in bytes from the text in the plan's unit; empty means none."""
        value = memory_bytes(self._cuda.text(), self._cuda_shown, self._unit())
        if value is None:
            return 0
        if isinstance(value, int):
            self._cuda_shown = (self._cuda.text().strip(), value)  # a unit change re-shows these bytes
        return value

    def _sync_scheme_enabled(self) -> None:
        """The torch profile models the engines' own scheme (fp32 states, bf16 compute): the choice is idle."""
        idle = self._profile.currentData() == Profile.TORCH.value
        self._scheme.setEnabled(not idle)
        self._scheme.setToolTip(self.tr("The torch profile counts what PyTorch's engines keep: fp32 parameters, "
                                        "gradients and AdamW states, bf16 compute.") if idle else "")

    def _gpu_memory_value(self):
        return memory_bytes(self._gpu_mem.text(), self._gpu_shown, self._unit())

    def _show_gpu_memory(self, nbytes: int | None) -> None:
        if nbytes is None:
            self._gpu_mem.setText("")
            self._gpu_shown = None
            return
        text = number_text(nbytes / UNIT_BYTES[self._unit()])
        self._gpu_mem.setText(text)
        self._gpu_shown = (text, nbytes)

    def set_plan(self, plan: Plan) -> None:
        """Show a plan in the widgets (presets, file, command line) and emit it."""
        self._loading = True
        try:
            self._model_name = plan.model.name
            self._select_data(self._model_preset, plan.model.name if self._has_model(plan.model.name) else CUSTOM)
            arch = plan.model.architecture
            shown = {*ARCH_INT_FIELDS, *ARCH_CHOICES, "tied_embeddings"}
            self._arch_extra = {k: v for k, v in arch.model_dump(exclude_defaults=True).items()
                                if k not in shown} if arch is not None else {}
            self._tensor_model = ({"tensors": plan.model.tensors, "hf_config": plan.model.hf_config}
                                  if plan.model.tensors else {})
            self._tensor_count = plan.params
            if arch is not None:
                self._by_arch.setChecked(True)
                for name in ARCH_INT_FIELDS:
                    value = getattr(arch, name)
                    self._fields[f"model.architecture.{name}"].setText("" if value is None else str(value))
                for name in ARCH_CHOICES:
                    self._select_data(self._fields[f"model.architecture.{name}"], getattr(arch, name))
                self._tied.setChecked(arch.tied_embeddings)
                self._params.setText(count_text(plan.params))
            else:
                self._by_params.setChecked(True)
                self._params.setText(count_text(plan.params))  # a raw count, or a tensor list's total
            self._select_data(self._scheme, plan.scheme.value)
            self._select_data(self._profile, plan.profile.value)
            self._sync_scheme_enabled()
            self._select_data(self._units, plan.units)
            self._update_gpu_label()
            c = plan.cluster
            self._select_data(self._gpu_preset, c.gpu if self._has_gpu(c.gpu) else CUSTOM)
            self._show_gpu_memory(c.gpu_memory_bytes)
            self._nodes.setText(str(c.nodes))
            self._gpn.setText(str(c.gpus_per_node))
            self._dp.setText("" if c.dp is None else str(c.dp))
            self._seq.setText(str(plan.seq_len))
            self._mb.setText(str(plan.micro_batch))
            self._bw.setText(f"{plan.bandwidth_gbps:g}")
            self._sync_family_fields()
            self._select_data(self._recompute, plan.recompute)
            self._select_data(self._optimizer_impl, plan.optimizer_impl)
            allowance = plan.cuda_allowance_bytes
            text = number_text(allowance / UNIT_BYTES[self._unit()]) if allowance else ""
            self._cuda.setText(text)
            self._cuda_shown = (text, allowance) if allowance else None
            self._select_data(self._offload, plan.offload.value)
            self._select_data(self._offload_target, plan.offload_target)
            self._offload_target.setEnabled(plan.offload != Offload.NONE)
            self._pcie.setText(f"{plan.pcie_gbps:g}")
            self._show_host_memory(c.host_memory_bytes)
            self._on_source_toggled()
            self._arch_fields_placeholders()
            self._sync_positions()
        finally:
            self._loading = False
        self._validate(commit=True)

    def _sync_family_fields(self) -> None:
        """Experts and top-k matter only for a mixture-of-experts layout: shown there, hidden elsewhere."""
        family = self._fields["model.architecture.family"].currentData()
        moe = family == "mixtral" or bool(self._fields["model.architecture.experts"].text().strip())
        for name in MOE_FIELDS:
            key = f"model.architecture.{name}"
            self._fields[key].setVisible(moe)
            self._field_labels[key].setVisible(moe)

    def layout_details(self) -> list[str]:
        """The loaded layout's knobs the form does not show (kept as they are), in words."""
        x = self._arch_extra
        words = {
            "qk_norm": self.tr("q/k norms"), "parallel": self.tr("parallel attention + MLP"),
            "embed_norm": self.tr("embedding LayerNorm"), "head_bias": self.tr("head bias"),
            "final_norm": self.tr("no final norm"),
        }
        out = [text for key, text in words.items() if key in x]
        if "rotary_dim" in x:
            out.append(self.tr("rotary on {n} lanes per head").format(n=x["rotary_dim"]))
        if "position_offset" in x:
            out.append(self.tr("{n} extra position rows").format(n=x["position_offset"]))
        if "embed_dim" in x:
            out.append(self.tr("{n}-wide embeddings projected").format(n=x["embed_dim"]))
        if x.get("parallel_norms") == 2:
            out.append(self.tr("two norms per block"))
        if "activation" in x:
            out.append(self.tr("activation {name}").format(name=x["activation"]))
        return out

    @staticmethod
    def _select_data(combo: QComboBox, data) -> None:
        i = combo.findData(data)
        combo.setCurrentIndex(max(i, 0))

    def _has_model(self, name: str | None) -> bool:
        return bool(name) and any(p.name == name for p in self._model_presets)

    def _has_gpu(self, name: str | None) -> bool:
        return bool(name) and any(g.name == name for g in self._gpu_presets)

    # -- reactions ------------------------------------------------------------------------------
    def _on_source_toggled(self, _checked: bool | None = None) -> None:
        by_arch = self._by_arch.isChecked()
        self._arch_box.setVisible(by_arch)
        self._params.setReadOnly(by_arch)
        self._params.setFocusPolicy(Qt.FocusPolicy.ClickFocus if by_arch else Qt.FocusPolicy.StrongFocus)
        if by_arch and not self._fields["model.architecture.layers"].text():
            # switching to an empty architecture: start from a small GPT-2-like shape
            for name, value in (("layers", 12), ("hidden", 768), ("heads", 12), ("ffn", 3072), ("vocab", 50257),
                                ("max_positions", 2048)):
                self._fields[f"model.architecture.{name}"].setText(str(value))
        if not self._loading:
            self._user_edit(model_changed=True)

    def _user_edit(self, *_args, model_changed: bool | None = None) -> None:
        if self._loading:
            return
        sender = self.sender()
        name = sender.objectName() if sender is not None else ""
        leaves_preset = model_changed or (name.startswith("model.") and name != "model.preset")
        if leaves_preset and self._model_name is not None:
            self._model_name = None
            self._select_data(self._model_preset, CUSTOM)
        if name == "cluster.gpu_memory_bytes" and self._gpu_preset.currentData():
            self._select_data(self._gpu_preset, CUSTOM)
        if name == "units":
            self._units_changed()
        if name == "offload":
            self._offload_target.setEnabled(self._offload.currentData() != Offload.NONE.value)
        if name in ("model.architecture.hidden", "model.architecture.mlp"):
            self._arch_fields_placeholders()
        if name == "model.architecture.positions":
            self._sync_positions()
        # a choice is a commitment; typing is a preview until Enter or leaving the field
        self._validate(commit=not isinstance(sender, QLineEdit))
        self.edited.emit()

    def _commit(self) -> None:
        """Enter or focus out: the text typed so far is what the user means, if it is valid."""
        if not self._errors and self._plan is not None:
            self._committed = self._plan

    def _units_changed(self) -> None:
        if self._cuda_shown is not None and self._cuda.text().strip() == self._cuda_shown[0]:
            allowance = self._cuda_shown[1]
            text = number_text(allowance / UNIT_BYTES[self._unit()])
            self._cuda.setText(text)
            self._cuda_shown = (text, allowance)
        self._field_labels["cuda_allowance_bytes"].setText(
            self.tr("CUDA allowance, {unit}").format(unit=i18n.unit_label(self._unit())))
        nbytes, host = self._gpu_memory_value(), self._host_memory_value()
        self._loading = True  # re-show the same bytes in the new unit
        if isinstance(nbytes, int):
            self._show_gpu_memory(nbytes)
        if isinstance(host, int):
            self._show_host_memory(host)
        self._loading = False
        self._update_gpu_label()

    def _update_gpu_label(self) -> None:
        """The memory fields are typed in the current unit: their labels say which."""
        self._field_labels["cluster.host_memory_bytes"].setText(
            self.tr("Host memory per node, {unit}").format(unit=i18n.unit_label(self._unit())))
        self._field_labels["cluster.gpu_memory_bytes"].setText(
            self.tr("GPU memory, {unit}").format(unit=i18n.unit_label(self._unit())))
        self._fields["cluster.gpu_memory_bytes"].setAccessibleName(self._field_labels["cluster.gpu_memory_bytes"].text())

    def _on_model_preset(self, _index: int = 0) -> None:
        name = self._model_preset.currentData()
        if name:
            self.apply_model_preset(name)
        else:
            self._model_name = None
            self._validate(commit=True)
            self.edited.emit()

    def _on_gpu_preset(self, _index: int = 0) -> None:
        name = self._gpu_preset.currentData()
        if name:
            self.apply_gpu_preset(name)
        else:
            self._validate(commit=True)
            self.edited.emit()

    def apply_model_preset(self, name: str) -> None:
        """Fill the model fields (and the preset's suggested seq_len and Nd) from a catalog preset."""
        preset = catalog.find_model(name)
        base = self._plan or Plan(model={"params": 1})
        update: dict = {"model": preset.to_model_spec()}
        if preset.seq_len:
            update["seq_len"] = preset.seq_len
        cluster = base.cluster
        if preset.dp:
            gpn = cluster.gpus_per_node if preset.dp % cluster.gpus_per_node == 0 else preset.dp
            cluster = cluster.model_copy(update={"nodes": preset.dp // gpn, "gpus_per_node": gpn, "dp": None})
            update["cluster"] = cluster
        self._apply(base, update)

    def apply_gpu_preset(self, name: str) -> None:
        gpu = catalog.find_gpu(name)
        self._loading = True
        try:
            self._select_data(self._gpu_preset, gpu.name)
            self._show_gpu_memory(gpu.memory_bytes)
        finally:
            self._loading = False
        self._validate(commit=True)
        self.edited.emit()

    def apply_card_example(self) -> None:
        """The card's worked example: P = 2e9, Nd = 4, the paper's mixed-precision Adam, GB."""
        base = self._plan or Plan(model={"params": 1})
        preset = catalog.find_model("card-example") if self._has_model("card-example") else None
        model = preset.to_model_spec() if preset else {"name": None, "params": 2_000_000_000}
        dp = (preset.dp if preset and preset.dp else 4)
        cluster = base.cluster.model_copy(update={"nodes": 1, "gpus_per_node": dp, "dp": None})
        self._apply(base, {"model": model, "cluster": cluster, "scheme": Scheme.MIXED_ADAM,
                           "profile": Profile.PAPER, "units": "GB"})

    def _apply(self, base: Plan, update: dict) -> None:
        data = base.model_dump()
        for key, value in update.items():
            data[key] = value.model_dump() if hasattr(value, "model_dump") else value
        if self._gpu_preset.currentData() is None and not self._gpu_mem.text().strip():
            data["cluster"]["gpu_memory_bytes"] = None
        self.set_plan(Plan.model_validate(data))
        self.edited.emit()

    # -- validation -----------------------------------------------------------------------------
    def _validate(self, commit: bool = False) -> None:
        """Valid: show the plan (and keep it as committed when `commit`). Invalid: mark the fields and go
        back to the last committed plan, so a half-typed value (1e3 on the way to 1e30) never stays on screen."""
        raw = self.raw()
        try:
            plan = Plan.model_validate(raw)
        except ValidationError as exc:
            names = {k: label.text().replace("&", "") for k, label in self._field_labels.items()}
            self._show_errors(friendly_errors(exc, raw, names, self._unit(), ERROR_ALIASES))
            self._back_to_committed()
            return
        except (ValueError, ArithmeticError, TypeError) as exc:  # the core raised instead of reporting a field
            self._show_errors({"plan": str(exc) or type(exc).__name__})
            self._back_to_committed()
            return
        self._show_errors({})
        self._plan = plan
        if commit or self._committed is None:
            self._committed = plan
        self._update_hints()
        self.planChanged.emit(plan)

    def _back_to_committed(self) -> None:
        if self._committed is not None and self._plan is not self._committed:
            self._plan = self._committed
            self._update_hints()
            self.planChanged.emit(self._committed)

    def _show_errors(self, errors: dict[str, str]) -> None:
        if errors == self._errors:
            return
        for key in set(self._errors) | set(errors):
            label = self._error_labels.get(key)
            widget = self._fields.get(key)
            message = errors.get(key)
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
        general = [f"{k}: {v}" for k, v in errors.items() if k not in self._error_labels]
        if general or self._catalog_error:
            self._general_error.setText("\n".join(["⚠ " + g for g in general] + ([self._catalog_error] if self._catalog_error else [])))
            self._general_error.show()
        else:
            self._general_error.hide()
        self._errors = dict(errors)
        self.errorsChanged.emit(dict(errors))

    def _update_hints(self) -> None:
        plan = self._plan
        if plan is None:
            return
        if plan.model.architecture is not None:
            self._params_hint.setText(self.tr("= {n} parameters, exact from the architecture").format(n=i18n.fmt_int(plan.params)))
            self._arch_hint.setText(self.tr("P = {n} ({short})").format(n=i18n.fmt_int(plan.params), short=i18n.fmt_count(plan.params)))
            details = self.layout_details()
            if details:
                self._arch_hint.setText(self._arch_hint.text() + "\n" + self.tr("Layout also has: {list}").format(
                    list=", ".join(details)))
        elif plan.model.tensors:
            self._params_hint.setText(self.tr("= {n} parameters in {t} tensors, exact from transformers").format(
                n=i18n.fmt_int(plan.params), t=len(plan.model.tensors)))
        else:
            self._params_hint.setText(self.tr("= {n} parameters").format(n=i18n.fmt_int(plan.params)))
        c = plan.cluster
        self._dp_hint.setText(self.tr("Nd = {nd} ({nodes} × {gpn} GPUs)").format(nd=plan.dp, nodes=c.nodes, gpn=c.gpus_per_node))
