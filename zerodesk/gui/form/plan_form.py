"""The model/cluster form, bound to the core's Plan.

Every field is free text (or a choice), so nothing the user types is ever rejected or lost.
Each edit builds a plain dict from the widgets and validates it with the core's Plan; a valid
plan is emitted (planChanged), an invalid one marks each field with the core's own message
(zerodesk.core.plan.field_errors) and the window keeps showing the last valid plan.
The Model group is its own widget (model_section); the fields are built and kept by key in a FieldSet.
"""

from __future__ import annotations

from pydantic import ValidationError
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QLabel, QLineEdit, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from ...core import catalog
from ...core.plan import Offload, Plan, PlanError, Profile, Scheme
from . import texts
from ..base import i18n
from .field_set import FieldSet, form_layout, hint_label, paint_as_error, select_data
from .fields import CUSTOM, ERROR_ALIASES, OPTIMIZER_IMPLS, RECOMPUTE_CHOICES, default_plan
from .messages import friendly_errors
from .memory_edit import MemoryEdit
from .model_section import ModelSection
from ..base.style import ERROR_COLOR


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
        self._shown_unit = "GB"  # the unit the memory fields show their bytes in
        self._set = FieldSet(self._user_edit, self._commit)
        self._fields, self._field_labels, self._error_labels = self._set.fields, self._set.labels, self._set.errors
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

        self._card_button = QPushButton()
        self._card_button.setObjectName("cardExampleButton")
        self._card_button.clicked.connect(self.apply_card_example)
        outer.addWidget(self._card_button)

        self._model = ModelSection(f, self._model_presets, self._on_model_preset,
                                   lambda: self._user_edit(model_changed=True))
        outer.addWidget(self._model)

        self._train_box = QGroupBox()
        tform = form_layout(self._train_box)
        self._scheme = f.combo("scheme", [("", s.value) for s in Scheme], min_chars=12)
        f.form_row(tform, "scheme", self._scheme)
        self._profile = f.combo("profile", [("", p.value) for p in Profile], min_chars=12)
        f.form_row(tform, "profile", self._profile)
        self._profile.currentIndexChanged.connect(self._sync_scheme_enabled)
        self._seq = f.edit("seq_len", stepper=True)
        f.form_row(tform, "seq_len", self._seq)
        self._mb = f.edit("micro_batch", stepper=True)
        f.form_row(tform, "micro_batch", self._mb)
        self._recompute = f.combo("recompute", [("", m) for m in RECOMPUTE_CHOICES], min_chars=12)
        f.form_row(tform, "recompute", self._recompute)
        self._optimizer_impl = f.combo("optimizer_impl", [("", m) for m in OPTIMIZER_IMPLS], min_chars=12)
        f.form_row(tform, "optimizer_impl", self._optimizer_impl)
        outer.addWidget(self._train_box)

        self._cluster_box = QGroupBox()
        cform = form_layout(self._cluster_box)
        gpus = [("", CUSTOM)] + [(g.label, g.name) for g in self._gpu_presets]
        self._gpu_preset = f.combo("cluster.gpu", gpus, min_chars=12, on_choice=self._on_gpu_preset)
        f.form_row(cform, "cluster.gpu", self._gpu_preset)
        self._gpu_mem: MemoryEdit = f.edit("cluster.gpu_memory_bytes", memory=True)
        f.form_row(cform, "cluster.gpu_memory_bytes", self._gpu_mem)
        self._nodes = f.edit("cluster.nodes", stepper=True)
        f.form_row(cform, "cluster.nodes", self._nodes)
        self._gpn = f.edit("cluster.gpus_per_node", stepper=True)
        f.form_row(cform, "cluster.gpus_per_node", self._gpn)
        self._dp_hint = hint_label("dpHint")
        self._dp = f.edit("cluster.dp", stepper=True)
        f.form_row(cform, "cluster.dp", self._dp, self._dp_hint)
        self._bw = f.edit("bandwidth_gbps")
        f.form_row(cform, "bandwidth_gbps", self._bw)
        self._cuda: MemoryEdit = f.edit("cuda_allowance_bytes", memory=True)
        f.form_row(cform, "cuda_allowance_bytes", self._cuda)
        self._units = f.combo("units", [("GB", "GB"), ("GiB", "GiB")])
        f.form_row(cform, "units", self._units)
        outer.addWidget(self._cluster_box)

        # offload, apart from the stage: what leaves the GPU, where to, and the host link and memory
        self._offload_box = QGroupBox()
        oform = form_layout(self._offload_box)
        self._offload = f.combo("offload", [(o.value, o.value) for o in Offload], min_chars=12)
        f.form_row(oform, "offload", self._offload)
        self._offload_target = f.combo("offload_target", [("cpu", "cpu"), ("nvme", "nvme")], min_chars=12)
        f.form_row(oform, "offload_target", self._offload_target)
        self._pcie = f.edit("pcie_gbps")
        f.form_row(oform, "pcie_gbps", self._pcie)
        self._host_mem: MemoryEdit = f.edit("cluster.host_memory_bytes", memory=True)
        f.form_row(oform, "cluster.host_memory_bytes", self._host_mem)
        outer.addWidget(self._offload_box)
        outer.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    # -- texts ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        unit = i18n.unit_label(self._unit())
        offload = texts.offload_texts(unit)
        labels = {**texts.field_labels(unit), **{k: label for k, (label, _) in offload.items()}}
        tips = {**texts.field_tips(), **{k: tip for k, (_, tip) in offload.items()}}
        accessible = texts.accessible_names()
        for key, text in labels.items():
            self._field_labels[key].setText(text)
            self._fields[key].setAccessibleName(accessible.get(key, text))
        for key, text in tips.items():
            self._fields[key].setToolTip(text)
            self._fields[key].setAccessibleDescription(text)
        for key, names in texts.choice_names().items():
            combo = self._fields[key]
            for i in range(combo.count()):
                combo.setItemText(i, names[combo.itemData(i)])
        self._model.retranslate()
        for i, g in enumerate(self._gpu_presets, start=1):
            self._gpu_preset.setItemText(i, i18n.preset_label(g))
        self._gpu_preset.setItemText(0, self.tr("Custom / none"))
        self._dp.setPlaceholderText(self.tr("auto"))
        self._gpu_mem.setPlaceholderText(self.tr("none"))
        self._host_mem.setPlaceholderText(self.tr("none"))
        self._cuda.setPlaceholderText("0")
        self._train_box.setTitle(self.tr("Training"))
        self._cluster_box.setTitle(self.tr("Cluster"))
        self._offload_box.setTitle(self.tr("Offload (apart from the stages)"))
        self._card_button.setText(self.tr("Card example: P = 2·10⁹, Nd = 4"))
        self._card_button.setToolTip(self.tr("The source card's worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)"))
        self._card_button.setAccessibleName(self.tr("Load the card example"))
        for combo, label in ((self._scheme, i18n.scheme_label), (self._profile, i18n.profile_label)):
            for i in range(combo.count()):
                combo.setItemText(i, label(combo.itemData(i)))
                combo.setItemData(i, combo.itemText(i), Qt.ItemDataRole.ToolTipRole)
        for i in range(self._units.count()):
            u = self._units.itemData(i)
            self._units.setItemText(i, f"{i18n.unit_label(u)} ({i18n.unit_note(u)})")
        was, self._loading = self._loading, True
        for field in (self._gpu_mem, self._cuda, self._host_mem):
            field.change_unit(self._shown_unit, self._shown_unit)  # the new language's decimal point
        self._loading = was
        if self._catalog_error:
            self._general_error.setText(self.tr("Presets unavailable: {error}").format(error=self._catalog_error))
            self._general_error.show()
        self._sync_offload_target()
        self._update_hints()

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
        unit = self._unit()
        cluster = {
            "nodes": self._nodes.text().strip(),
            "gpus_per_node": self._gpn.text().strip(),
            "dp": self._dp.text().strip() or None,
            "gpu": self._gpu_preset.currentData() or None,
            "gpu_memory_bytes": self._gpu_mem.value(unit),
            "host_memory_bytes": self._host_mem.value(unit),
        }
        return {
            "model": self._model.raw(),
            "scheme": self._scheme.currentData(),
            "profile": self._profile.currentData(),
            "cluster": cluster,
            "seq_len": self._seq.text().strip(),
            "micro_batch": self._mb.text().strip(),
            "units": unit,
            "bandwidth_gbps": self._bw.text().strip().replace(",", "."),
            "recompute": self._recompute.currentData(),
            "optimizer_impl": self._optimizer_impl.currentData(),
            "cuda_allowance_bytes": self._cuda.value(unit) or 0,  # empty: no allowance
            "offload": self._offload.currentData(),
            "offload_target": self._offload_target.currentData(),
            "pcie_gbps": self._pcie.text().strip().replace(",", "."),
        }

    def _sync_scheme_enabled(self) -> None:
        """The torch profile models the engines' own scheme (fp32 states, bf16 compute): the choice is idle."""
        idle = self._profile.currentData() == Profile.TORCH.value
        self._scheme.setEnabled(not idle)
        self._scheme.setToolTip(self.tr("The torch profile counts what PyTorch's engines keep: fp32 parameters, "
                                        "gradients and AdamW states, bf16 compute.") if idle else "")

    def _sync_offload_target(self) -> None:
        self._offload_target.setEnabled(self._offload.currentData() != Offload.NONE.value)

    def set_plan(self, plan: Plan) -> None:
        """Show a plan in the widgets (presets, file, command line) and emit it."""
        self._loading = True
        try:
            self._model.show(plan, self._has_model(plan.model.name))
            select_data(self._scheme, plan.scheme.value)
            select_data(self._profile, plan.profile.value)
            self._sync_scheme_enabled()
            select_data(self._units, plan.units)
            self._shown_unit = plan.units
            self._update_gpu_label()
            c = plan.cluster
            select_data(self._gpu_preset, c.gpu if self._has_gpu(c.gpu) else CUSTOM)
            self._gpu_mem.show_bytes(c.gpu_memory_bytes, plan.units)
            self._nodes.setText(str(c.nodes))
            self._gpn.setText(str(c.gpus_per_node))
            self._dp.setText("" if c.dp is None else str(c.dp))
            self._seq.setText(str(plan.seq_len))
            self._mb.setText(str(plan.micro_batch))
            self._bw.setText(f"{plan.bandwidth_gbps:g}")
            select_data(self._recompute, plan.recompute)
            select_data(self._optimizer_impl, plan.optimizer_impl)
            self._cuda.show_bytes(plan.cuda_allowance_bytes or None, plan.units)
            select_data(self._offload, plan.offload.value)
            select_data(self._offload_target, plan.offload_target)
            self._sync_offload_target()
            self._pcie.setText(f"{plan.pcie_gbps:g}")
            self._host_mem.show_bytes(c.host_memory_bytes, plan.units)
        finally:
            self._loading = False
        self._validate(commit=True)

    def _has_model(self, name: str | None) -> bool:
        return bool(name) and any(p.name == name for p in self._model_presets)

    def _has_gpu(self, name: str | None) -> bool:
        return bool(name) and any(g.name == name for g in self._gpu_presets)

    # -- reactions ------------------------------------------------------------------------------
    def _user_edit(self, *_args, model_changed: bool | None = None) -> None:
        if self._loading:
            return
        sender = self.sender()
        name = sender.objectName() if sender is not None else ""
        if model_changed or (name.startswith("model.") and name != "model.preset"):
            self._model.leave_preset()
        self._model.react(name)
        if name == "cluster.gpu_memory_bytes" and self._gpu_preset.currentData():
            select_data(self._gpu_preset, CUSTOM)
        if name == "units":
            self._units_changed()
        if name == "offload":
            self._sync_offload_target()
        # a choice is a commitment; typing is a preview until Enter or leaving the field
        self._validate(commit=not isinstance(sender, QLineEdit))
        self.edited.emit()

    def _commit(self) -> None:
        """Enter or focus out: the text typed so far is what the user means, if it is valid."""
        if not self._errors and self._plan is not None:
            self._committed = self._plan

    def _units_changed(self) -> None:
        """The memory fields keep their bytes and show them in the new unit; their labels say which."""
        old, self._shown_unit = self._shown_unit, self._unit()
        self._loading = True
        for field in (self._gpu_mem, self._cuda, self._host_mem):
            field.change_unit(old, self._shown_unit)
        self._loading = False
        self._update_gpu_label()

    def _update_gpu_label(self) -> None:
        """The memory fields are typed in the current unit: their labels say which."""
        unit = i18n.unit_label(self._unit())
        for key, text in (("cluster.host_memory_bytes", self.tr("Host memory per node, {unit}")),
                          ("cluster.gpu_memory_bytes", self.tr("GPU memory, {unit}")),
                          ("cuda_allowance_bytes", self.tr("CUDA allowance, {unit}"))):
            self._field_labels[key].setText(text.format(unit=unit))
            self._fields[key].setAccessibleName(self._field_labels[key].text())

    def _on_model_preset(self, _index: int = 0) -> None:
        name = self._model.preset.currentData()
        if name:
            self.apply_model_preset(name)
        else:
            self._model.model_name = None
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
            select_data(self._gpu_preset, gpu.name)
            self._gpu_mem.show_bytes(gpu.memory_bytes, self._unit())
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
        self._model.show_hints(plan)
        c = plan.cluster
        self._dp_hint.setText(self.tr("Nd = {nd} ({nodes} × {gpn} GPUs)").format(nd=plan.dp, nodes=c.nodes,
                                                                                gpn=c.gpus_per_node))
