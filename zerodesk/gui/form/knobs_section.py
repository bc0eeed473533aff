"""The form's group for the knobs FSDP users turn (issue 30, core.knobs): the mixed-precision policy under FSDP2's
MixedPrecisionPolicy names, autocast for DDP's stages, the FSDP2 units and backward prefetch, and recomputation on
every k-th block or a choice per block ('full*16,none*16', core.per_block). Texts keep the form's translation
context ("PlanForm").
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QGroupBox

from ...core.options import AUTOCAST, PARAM_DTYPE, PREFETCH, REDUCE_DTYPE, WRAP
from ...core.per_block import per_block_text
from ...core.plan import Plan
from ..base import i18n
from .field_set import FieldSet, form_layout, select_data

translate = QCoreApplication.translate  # lupdate reads translate("PlanForm", "text")

CHOICES = (PARAM_DTYPE, REDUCE_DTYPE, AUTOCAST, WRAP, PREFETCH)


def knobs_texts() -> dict[str, tuple[str, str]]:
    """The group's (label, tooltip) per field."""
    return {
        "param_dtype": (translate("PlanForm", "Parameter dtype"), translate(
            "PlanForm", "MixedPrecisionPolicy's param_dtype: FSDP2 gathers parameters and computes in it (stages 2-3); "
                        "autocast's dtype under DDP (stages 0-1). The states stay FP32 either way")),
        "reduce_dtype": (translate("PlanForm", "Reduce dtype"), translate(
            "PlanForm", "MixedPrecisionPolicy's reduce_dtype: FSDP2 reduce-scatters gradients in it (stages 2-3); "
                        "DDP all-reduces its FP32 gradients as they are")),
        "autocast": (translate("PlanForm", "Autocast (stages 0-1)"), translate(
            "PlanForm", "torch.autocast around DDP's forward, in the parameter dtype; off: FP32 compute")),
        "wrap": (translate("PlanForm", "FSDP2 units"), translate(
            "PlanForm", "Which modules fully_shard wraps before the root: each block, N consecutive blocks together, "
                        "or the root only (one unit: the whole model gathered at once)")),
        "wrap_blocks": (translate("PlanForm", "Blocks per unit N"), translate(
            "PlanForm", "Blocks in one FSDP2 unit when the units are N blocks")),
        "prefetch": (translate("PlanForm", "Backward prefetch"), translate(
            "PlanForm", "FSDP2 gathers the next unit while a unit's backward runs (its default), or each unit only "
                        "when its own backward starts")),
        "recompute_every": (translate("PlanForm", "Recompute every k-th block"), translate(
            "PlanForm", "The Recompute mode on the k-th, 2k-th, … block only (TorchTitan's ac_freq); 1: every block")),
        "recompute_blocks": (translate("PlanForm", "Recompute per block"), translate(
            "PlanForm", "One choice per block, in order, e.g. full*16,none*16 (none, selective, full, each optionally "
                        "×count); overrides Recompute and every k-th. Empty: not used")),
    }


class KnobsSection(QGroupBox):
    """Mixed precision, FSDP2 units and recomputation per block."""

    def __init__(self, f: FieldSet) -> None:
        super().__init__()
        form = form_layout(self)
        self.combos = {}
        for option in CHOICES:
            self.combos[option.key] = f.combo(option.key, [("", v) for v in option.values], min_chars=12)
        for key in ("param_dtype", "reduce_dtype", "autocast", "wrap"):
            f.form_row(form, key, self.combos[key])
        self.wrap_blocks = f.edit("wrap_blocks", stepper=True)
        f.form_row(form, "wrap_blocks", self.wrap_blocks)
        f.form_row(form, "prefetch", self.combos["prefetch"])
        self.recompute_every = f.edit("recompute_every", stepper=True)
        f.form_row(form, "recompute_every", self.recompute_every)
        self.recompute_blocks = f.edit("recompute_blocks")
        f.form_row(form, "recompute_blocks", self.recompute_blocks)
        self.combos["wrap"].currentIndexChanged.connect(self._sync_enabled)

    def retranslate(self) -> None:
        self.setTitle(translate("PlanForm", "Precision, FSDP2 units, recompute"))
        for option in CHOICES:
            combo = self.combos[option.key]
            for i in range(combo.count()):
                combo.setItemText(i, i18n.option_label(option, combo.itemData(i)))
        self.recompute_blocks.setPlaceholderText(translate("PlanForm", "e.g. full*16,none*16"))

    def _sync_enabled(self) -> None:
        """N means something only when the units are N blocks."""
        self.wrap_blocks.setEnabled(self.combos["wrap"].currentData() == "blocks")

    def values(self) -> dict:
        out = {key: combo.currentData() for key, combo in self.combos.items()}
        out.update(wrap_blocks=self.wrap_blocks.typed(), recompute_every=self.recompute_every.typed(),
                   recompute_blocks=self.recompute_blocks.text().strip() or None)
        return out

    def show(self, plan: Plan) -> None:
        for key, combo in self.combos.items():
            select_data(combo, getattr(plan, key))
        self.wrap_blocks.setText(str(plan.wrap_blocks))
        self.recompute_every.setText(str(plan.recompute_every))
        self.recompute_blocks.setText(per_block_text(plan.recompute_blocks) if plan.recompute_blocks else "")
        self._sync_enabled()
