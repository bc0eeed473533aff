"""Where the Plan and Table tabs' figures come from, in the UI language: the profile and scheme, which
component specs the plan's profile counts, and the standing warning that states are not the peak."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...core.accounting import SCHEMES, TORCH_COMPONENTS, Breakdown, ComponentSpec
from ...core.plan import Plan, Profile
from . import i18n

translate = QCoreApplication.translate  # lupdate reads translate("Provenance", "text")


def component_specs(plan: Plan) -> dict[str, ComponentSpec]:
    """The plan's components by key: PyTorch's engines under the torch profile, else the scheme's."""
    specs = TORCH_COMPONENTS if plan.profile == Profile.TORCH else SCHEMES[plan.scheme].components
    return {c.key: c for c in specs}


def provenance(plan: Plan, b: Breakdown) -> str:
    """'Computed · paper profile (ZeRO paper (§3.1, §5)) · scheme …' in the UI language."""
    if b.profile == Profile.TORCH:  # the engines keep their own scheme (fp32 states, bf16 compute): no scheme choice
        return translate("Provenance", "Computed (closed form), {profile}: {source}; "
                                       "AdamW with fp32 states and bf16 compute").format(
            profile=i18n.profile_short(b.profile.value), source=i18n.profile_label(b.profile.value))
    return translate("Provenance", "Computed (closed form), {profile}: {source}; scheme: {scheme}").format(
        profile=i18n.profile_short(b.profile.value), source=i18n.profile_label(b.profile.value),
        scheme=i18n.scheme_label(b.scheme.value))


def peak_warning() -> str:
    return translate(
        "Provenance",
        "Model states only. Fitting them in GPU memory is not the peak: activations, temporary buffers and "
        "fragmentation come on top (ZeRO §3.2). Measure the full step.")
