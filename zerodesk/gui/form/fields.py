"""The form's building blocks that hold no form: field constants, text <-> number helpers, the
default plan, and a line edit that steps whole numbers."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit

from ...core import catalog
from ...core.architecture import FAMILIES
from ...core.options import OPTIMIZER_IMPL, RECOMPUTE, UNITS
from ...core.plan import Cluster, Plan, PlanError, Profile, Scheme
from ...core.units import UNIT_BYTES, parse_count
from ..base.i18n import number_typed

CUSTOM = ""  # item data of the "custom" entry in the preset combos

# error keys the core reports at a model level, shown beside the field that most likely causes them
ERROR_ALIASES = {
    "model": "model.params",
    "model.architecture": "model.architecture.heads",
    "cluster": "cluster.dp",
}
ARCH_INT_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "max_positions",
                   "experts", "top_k")
ARCH_OPTIONAL = ("kv_heads", "head_dim", "ffn", "experts", "top_k")  # empty: the core's default
RECOMPUTE_CHOICES = RECOMPUTE.values
OPTIMIZER_IMPLS = OPTIMIZER_IMPL.values  # AdamW's kernels (plan.optimizer_impl)
ARCH_CHOICES = {
    "mlp": ("gated", "plain"),
    "norm": ("rmsnorm", "layernorm", "nonparametric"),
    "positions": ("rotary", "learned", "alibi"),
    "bias": ("none", "qkv", "attention", "mlp", "all"),
    "family": FAMILIES,
}
MOE_FIELDS = ("experts", "top_k")  # shown only for a mixture-of-experts layout


def count_text(n: int) -> str:
    """A parameter count as the user would type it: 2B, 350M, 1.5T (7,5B in Russian); exact digits otherwise."""
    for div, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if n >= div:
            text = f"{n / div:g}{suffix}"
            try:
                if "e" not in text and parse_count(text) == n:
                    return text.replace(".", QLocale().decimalPoint())
            except ValueError:
                pass
    return str(n)


def number_text(value: float) -> str:
    """Up to 4 decimals, trailing zeros dropped, with the UI language's decimal point."""
    text = f"{value:.4f}".rstrip("0").rstrip(".") or "0"
    return text.replace(".", QLocale().decimalPoint())


def default_plan(units: str = "GB") -> Plan:
    """What a new window shows: the card's worked example (P = 2e9, Nd = 4, the paper's Adam)."""
    try:
        preset = catalog.find_model("card-example")
        model, dp, checked = preset.to_model_spec(), preset.dp or 4, preset.shipped
    except PlanError:
        model, dp, checked = {"name": None, "params": 2_000_000_000}, 4, False
    if checked and units in UNITS.values:  # a shipped preset, checked by the tests: built as validation would build it
        return Plan.model_construct(model=model, cluster=Cluster.model_construct(nodes=1, gpus_per_node=dp), units=units)
    return Plan(model=model, cluster={"nodes": 1, "gpus_per_node": dp}, units=units)


def card_example(base: Plan | None) -> Plan:
    """The card's worked example on top of `base`: P = 2e9, Nd = 4 on one node, the paper's mixed-precision Adam, GB."""
    base = base or Plan(model={"params": 1})
    try:
        preset = catalog.find_model("card-example")
        model, dp = preset.to_model_spec(), preset.dp or 4
    except PlanError:  # a broken catalog: the card's own figures
        model, dp = {"name": None, "params": 2_000_000_000}, 4
    cluster = base.cluster.model_copy(update={"nodes": 1, "gpus_per_node": dp, "dp": None})
    return with_update(base, {"model": model, "cluster": cluster, "scheme": Scheme.MIXED_ADAM,
                              "profile": Profile.PAPER, "units": "GB"})


def with_model_preset(base: Plan | None, name: str) -> Plan:
    """A catalog preset's model on top of `base`, with the preset's suggested sequence length and Nd."""
    preset = catalog.find_model(name)
    base = base or Plan(model={"params": 1})
    update: dict = {"model": preset.to_model_spec()}
    if base.recompute_blocks is not None and len(base.recompute_blocks) != update["model"].blocks:
        update["recompute_blocks"] = None  # a choice per block made for another model's blocks
    if preset.seq_len:
        update["seq_len"] = preset.seq_len
    if preset.dp:
        cluster = base.cluster
        gpn = cluster.gpus_per_node if preset.dp % cluster.gpus_per_node == 0 else preset.dp
        update["cluster"] = cluster.model_copy(update={"nodes": preset.dp // gpn, "gpus_per_node": gpn, "dp": None})
    return with_update(base, update)


def with_update(base: Plan, update: dict) -> Plan:
    """`base` with some fields replaced, validated as a whole (so a preset's model meets the plan's rules)."""
    data = base.model_dump()
    for key, value in update.items():
        data[key] = value.model_dump() if hasattr(value, "model_dump") else value
    return Plan.model_validate(data)


def memory_bytes(text: str, shown: tuple[str, int] | None, unit: str):
    """The bytes a memory field means: exactly the bytes shown while its text is unedited, else its number
    in `unit`; None when empty; text that is not a number (or nan, inf) is returned for the core to judge."""
    text = text.strip()
    if not text:
        return None
    if shown is not None and shown[0] == text:
        return shown[1]
    try:
        return round(float(number_typed(text)) * UNIT_BYTES[unit])
    except (ValueError, OverflowError):
        return text


class FieldEdit(QLineEdit):
    """A line edit that steps whole numbers with the Up/Down keys (PageUp/PageDown: x2, /2)."""

    def typed(self) -> str:
        """The text as the core reads numbers: the UI language's decimal comma and digit groups undone."""
        return number_typed(self.text())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown) and self.property("stepper"):
            try:
                value = int(self.text().strip() or 0)
            except ValueError:
                return super().keyPressEvent(event)
            if key == Qt.Key.Key_Up:
                value += 1
            elif key == Qt.Key.Key_Down:
                value = max(1, value - 1)
            elif key == Qt.Key.Key_PageUp:
                value *= 2
            else:
                value = max(1, value // 2)
            self.setText(str(value))
            self.textEdited.emit(self.text())
            return
        super().keyPressEvent(event)
