"""The form's plain groups: Training, Cluster and Offload (the Model group is model_section.py).

Each group builds its fields in the shared FieldSet, reads them as {dotted Plan key: raw value} for the
form to validate, and shows a plan's values. Texts keep the form's translation context ("PlanForm").
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGroupBox

from ...core import catalog
from ...core.options import ACCUM_SYNC, OFFLOAD_TARGET, UNITS
from ...core.plan import Offload, Plan, Profile, Scheme
from ..base import i18n
from .field_set import FieldSet, form_layout, hint_label, select_data
from .fields import CUSTOM, OPTIMIZER_IMPLS, RECOMPUTE_CHOICES
from .memory_edit import MemoryEdit

translate = QCoreApplication.translate  # lupdate reads translate("PlanForm", "text")


class TrainingSection(QGroupBox):
    """Scheme, accounting profile, sequence, micro-batch and accumulation (the global batch below), recompute,
    AdamW's kernels."""

    def __init__(self, f: FieldSet) -> None:
        super().__init__()
        form = form_layout(self)
        self.scheme = f.combo("scheme", [("", s.value) for s in Scheme], min_chars=12)
        f.form_row(form, "scheme", self.scheme, wide=True)
        self.profile = f.combo("profile", [("", p.value) for p in Profile], min_chars=12)
        f.form_row(form, "profile", self.profile, wide=True)
        self.profile.currentIndexChanged.connect(self._sync_scheme_enabled)  # shown plans change it too
        self.seq = f.edit("seq_len", stepper=True)
        f.form_row(form, "seq_len", self.seq)
        self.mb = f.edit("micro_batch", stepper=True)
        f.form_row(form, "micro_batch", self.mb)
        self.batch_hint = hint_label("globalBatchHint")
        self.accum = f.edit("accum_steps", stepper=True)
        f.form_row(form, "accum_steps", self.accum, self.batch_hint)
        self.accum_sync = f.combo("accum_sync", [("", v) for v in ACCUM_SYNC.values], min_chars=12)
        f.form_row(form, "accum_sync", self.accum_sync, wide=True)
        self.recompute = f.combo("recompute", [("", m) for m in RECOMPUTE_CHOICES], min_chars=12)
        f.form_row(form, "recompute", self.recompute)
        self.optimizer_impl = f.combo("optimizer_impl", [("", m) for m in OPTIMIZER_IMPLS], min_chars=12)
        f.form_row(form, "optimizer_impl", self.optimizer_impl)

    def retranslate(self) -> None:
        self.setTitle(translate("PlanForm", "Training"))
        for combo, label in ((self.scheme, i18n.scheme_label), (self.profile, i18n.profile_label)):
            for i in range(combo.count()):
                combo.setItemText(i, label(combo.itemData(i)))
                combo.setItemData(i, combo.itemText(i), Qt.ItemDataRole.ToolTipRole)
        self._sync_scheme_enabled()

    def _sync_scheme_enabled(self) -> None:
        """The torch profile models the engines' own scheme (fp32 states, bf16 compute): the choice is idle."""
        idle = self.profile.currentData() == Profile.TORCH.value
        self.scheme.setEnabled(not idle)
        self.scheme.setToolTip(translate("PlanForm", "The torch profile counts what PyTorch's engines keep: fp32 "
                                                     "parameters, gradients and AdamW states, bf16 compute.") if idle else "")

    def values(self) -> dict:
        return {"scheme": self.scheme.currentData(), "profile": self.profile.currentData(),
                "seq_len": self.seq.typed(), "micro_batch": self.mb.typed(), "accum_steps": self.accum.typed(),
                "accum_sync": self.accum_sync.currentData(),
                "recompute": self.recompute.currentData(), "optimizer_impl": self.optimizer_impl.currentData()}

    def show(self, plan: Plan) -> None:
        select_data(self.scheme, plan.scheme.value)
        select_data(self.profile, plan.profile.value)
        self._sync_scheme_enabled()
        self.seq.setText(str(plan.seq_len))
        self.mb.setText(str(plan.micro_batch))
        self.accum.setText(str(plan.accum_steps))
        select_data(self.accum_sync, plan.accum_sync)
        select_data(self.recompute, plan.recompute)
        select_data(self.optimizer_impl, plan.optimizer_impl)


    def show_hint(self, plan: Plan) -> None:
        """The global batch the plan makes: micro-batch × accumulation steps × Nd."""
        self.batch_hint.setText(translate("PlanForm", "Global batch {g} = {mb} × {k} × Nd {nd}").format(
            g=i18n.fmt_int(plan.global_batch), mb=i18n.fmt_int(plan.micro_batch), k=i18n.fmt_int(plan.accum_steps),
            nd=i18n.fmt_int(plan.dp)))


class ClusterSection(QGroupBox):
    """GPU preset and memory, nodes × GPUs and Nd, bandwidth, the CUDA allowance, and the form's unit."""

    def __init__(self, f: FieldSet, gpu_presets: list, on_units: Callable[[], None]) -> None:
        super().__init__()
        self._f = f
        self._presets = gpu_presets
        self.on_gpu: Callable[[str], None] | None = None  # a GPU chosen: other sections fill their fields (quietly)
        form = form_layout(self)
        gpus = [("", CUSTOM)] + [(g.label, g.name) for g in gpu_presets]
        self.gpu_preset = f.combo("cluster.gpu", gpus, min_chars=12, on_choice=self._on_gpu_preset)
        f.form_row(form, "cluster.gpu", self.gpu_preset, wide=True)
        self.gpu_mem: MemoryEdit = f.edit("cluster.gpu_memory_bytes", memory=True, then=self._leave_gpu_preset)
        f.form_row(form, "cluster.gpu_memory_bytes", self.gpu_mem)
        self.nodes = f.edit("cluster.nodes", stepper=True)
        f.form_row(form, "cluster.nodes", self.nodes)
        self.gpn = f.edit("cluster.gpus_per_node", stepper=True)
        f.form_row(form, "cluster.gpus_per_node", self.gpn)
        self.dp_hint = hint_label("dpHint")
        self.dp = f.edit("cluster.dp", stepper=True)
        f.form_row(form, "cluster.dp", self.dp, self.dp_hint)
        self.bw = f.edit("bandwidth_gbps")
        f.form_row(form, "bandwidth_gbps", self.bw)
        self.cuda: MemoryEdit = f.edit("cuda_allowance_bytes", memory=True)
        f.form_row(form, "cuda_allowance_bytes", self.cuda)
        self.units = f.combo("units", [(u, u) for u in UNITS.values], then=on_units)
        f.form_row(form, "units", self.units)

    def unit(self) -> str:
        return self.units.currentData() or "GB"

    def retranslate(self) -> None:
        self.setTitle(translate("PlanForm", "Cluster"))
        for i, g in enumerate(self._presets, start=1):
            self.gpu_preset.setItemText(i, i18n.preset_label(g))
        self.gpu_preset.setItemText(0, translate("PlanForm", "Custom / none"))
        self.dp.setPlaceholderText(translate("PlanForm", "auto"))
        self.gpu_mem.setPlaceholderText(translate("PlanForm", "none"))
        self.cuda.setPlaceholderText("0")
        for i in range(self.units.count()):
            u = self.units.itemData(i)
            self.units.setItemText(i, f"{i18n.unit_label(u)} ({i18n.unit_note(u)})")

    def values(self, unit: str) -> dict:
        return {"cluster.nodes": self.nodes.typed(), "cluster.gpus_per_node": self.gpn.typed(),
                "cluster.dp": self.dp.typed() or None, "cluster.gpu": self.gpu_preset.currentData() or None,
                "cluster.gpu_memory_bytes": self.gpu_mem.value(unit), "bandwidth_gbps": self.bw.typed(),
                "cuda_allowance_bytes": self.cuda.value(unit) or 0}  # empty: no allowance

    def show(self, plan: Plan) -> None:
        c = plan.cluster
        select_data(self.units, plan.units)
        select_data(self.gpu_preset, c.gpu if self._has_gpu(c.gpu) else CUSTOM)
        self.gpu_mem.show_bytes(c.gpu_memory_bytes, plan.units)
        self.nodes.setText(str(c.nodes))
        self.gpn.setText(str(c.gpus_per_node))
        self.dp.setText("" if c.dp is None else str(c.dp))
        self.bw.setText(f"{plan.bandwidth_gbps:g}")
        self.cuda.show_bytes(plan.cuda_allowance_bytes or None, plan.units)

    def show_hint(self, plan: Plan) -> None:
        c = plan.cluster
        self.dp_hint.setText(translate("PlanForm", "Nd = {nd} ({nodes} × {gpn} GPUs)").format(
            nd=plan.dp, nodes=c.nodes, gpn=c.gpus_per_node))

    def _has_gpu(self, name: str | None) -> bool:
        return bool(name) and any(g.name == name for g in self._presets)

    def _leave_gpu_preset(self) -> None:
        """Typed GPU memory is the user's own GPU."""
        if self.gpu_preset.currentData():
            select_data(self.gpu_preset, CUSTOM)

    def _on_gpu_preset(self) -> None:
        name = self.gpu_preset.currentData()
        if name:
            if self.on_gpu is not None:
                with self._f.quiet():
                    self.on_gpu(name)
            self.apply_gpu_preset(name)  # one validation for the whole choice: one new plan, one redraw
        else:
            self._f.validate()

    def apply_gpu_preset(self, name: str) -> None:
        """Select a GPU preset and show its memory (in the form's unit)."""
        gpu = catalog.find_gpu(name)
        with self._f.quiet():
            select_data(self.gpu_preset, gpu.name)
            self.gpu_mem.show_bytes(gpu.memory_bytes, self.unit())
        self._f.validate()


class OffloadSection(QGroupBox):
    """Offload, apart from the stage: what leaves the GPU, where to, the host link and the host's memory."""

    def __init__(self, f: FieldSet) -> None:
        super().__init__()
        form = form_layout(self)
        self.offload = f.combo("offload", [(o.value, o.value) for o in Offload], min_chars=12, then=self.sync_target)
        f.form_row(form, "offload", self.offload)
        self.target = f.combo("offload_target", [(t, t) for t in OFFLOAD_TARGET.values], min_chars=12)
        f.form_row(form, "offload_target", self.target)
        self.pcie = f.edit("pcie_gbps")
        f.form_row(form, "pcie_gbps", self.pcie)
        self.host_mem: MemoryEdit = f.edit("cluster.host_memory_bytes", memory=True)
        f.form_row(form, "cluster.host_memory_bytes", self.host_mem)

    def retranslate(self) -> None:
        self.setTitle(translate("PlanForm", "Offload (apart from the stages)"))
        self.host_mem.setPlaceholderText(translate("PlanForm", "none"))
        self.sync_target()

    def sync_target(self) -> None:
        """Where to offload matters only when something is offloaded."""
        self.target.setEnabled(self.offload.currentData() != Offload.NONE.value)

    def values(self, unit: str) -> dict:
        return {"offload": self.offload.currentData(), "offload_target": self.target.currentData(),
                "pcie_gbps": self.pcie.typed(), "cluster.host_memory_bytes": self.host_mem.value(unit)}

    def show(self, plan: Plan) -> None:
        select_data(self.offload, plan.offload.value)
        select_data(self.target, plan.offload_target)
        self.sync_target()
        self.pcie.setText(f"{plan.pcie_gbps:g}")
        self.host_mem.show_bytes(plan.cluster.host_memory_bytes, plan.units)
