"""Which glossary claims the window points at: by component, accounting profile and scheme (Qt-free ids)."""

from __future__ import annotations

from ...core.plan import Plan, Profile, Scheme

CARD_CLAIM = "card-example"
STAGES_CLAIM = "stages"
COMM_CLAIM = "comm-volume"
RESIDUALS_CLAIM = "residuals"


def component_claim_id(key: str) -> str:
    return "component-" + key.replace("_", "-")


def profile_claim_id(profile: Profile | str) -> str:
    return f"profile-{Profile(profile).value}"


def scheme_claim_ids(scheme: Scheme | str) -> list[str]:
    """The claims a scheme rests on, most specific first (the paper's Adam rests on mixed-adam-16p)."""
    value = Scheme(scheme).value
    ids = [f"scheme-{value}"]
    if value == Scheme.MIXED_ADAM.value:
        ids.insert(0, "mixed-adam-16p")
    return ids


def segment_claim_ids(component: str, plan: Plan) -> list[str]:
    """The claims a chart segment rests on, most specific first: its component, the scheme, the profile, the stages."""
    return [component_claim_id(component), *scheme_claim_ids(plan.scheme), profile_claim_id(plan.profile), STAGES_CLAIM]
