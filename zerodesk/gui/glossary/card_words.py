"""The glossary card's own words in the UI language: headings, origin tags, the section on the plan in use.

Kept in the context "GlossaryCard" (the card's class), so moving them here changed no translation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from ...core.plan import Profile, Scheme
from ..base import i18n
from .claims import profile_claim_id, scheme_claim_ids

if TYPE_CHECKING:
    from ...core.glossary import Claim, Glossary, Origin

translate = QCoreApplication.translate  # lupdate reads translate("GlossaryCard", "text")


def origin_label(origin: Origin, advice: bool = False) -> str:
    """'Card' (or 'Card, adapted' where ZeroDesk changed its words), 'ZeRO paper §3.1', 'PyTorch: DDP',
    "ZeroDesk's modelling" (or "ZeroDesk's advice"), translated."""
    refs = ", ".join(origin.refs)
    if origin.kind == "card":
        return translate("GlossaryCard", "Card, adapted") if origin.adapted else translate("GlossaryCard", "Card")
    if origin.kind == "paper":
        return translate("GlossaryCard", "ZeRO paper {sections}").format(sections=refs)
    if origin.kind == "pytorch":
        return translate("GlossaryCard", "PyTorch: {apis}").format(apis=refs)
    return translate("GlossaryCard", "ZeroDesk's advice") if advice else translate("GlossaryCard", "ZeroDesk's modelling")


def checklist_text(entry) -> str:
    """A checklist item; ZeroDesk's own advice says so in the item itself, as the list is read without tooltips too."""
    if entry.origin.kind == "card":
        return entry.text
    return translate("GlossaryCard", "{origin}: {text}").format(origin=origin_label(entry.origin, advice=True),
                                                                 text=entry.text)


def card_words() -> dict[str, str]:
    """The card's headings and notes in the UI language (card_html lays them out)."""
    return {
        "aka": translate("GlossaryCard", "Also known as"),
        "definition": translate("GlossaryCard", "Definition"),
        "why": translate("GlossaryCard", "Why it matters"),
        "in_use": translate("GlossaryCard", "In use in this plan"),
        "confirmed": translate("GlossaryCard", "What is confirmed"),
        "confirmed_note": translate("GlossaryCard", "The card's own claims."),
        "added": translate("GlossaryCard", "Added by ZeroDesk"),
        "added_note": translate("GlossaryCard", "From the ZeRO paper, PyTorch's engines and ZeroDesk's own accounting, "
                                                "beyond the card; each claim's tag says which."),
        "see_claim": translate("GlossaryCard", "see the claim"),
        "no_match": translate("GlossaryCard", "No claim matches the filter."),
        "sources": translate("GlossaryCard", "Primary sources"),
        "related": translate("GlossaryCard", "Related concepts"),
        "boundary": translate("GlossaryCard", "Boundary"),
        "sources_of": translate("GlossaryCard", "Sources"),
    }


def claims_in_use(glossary: Glossary, profile: Profile, scheme: Scheme) -> list[tuple[str, Claim]]:
    """The profile and the scheme in use, each titled, with the claim that bounds it."""
    ids = {c.id for c in glossary.claims}
    out = []
    pid = profile_claim_id(profile)
    if pid in ids:
        out.append((translate("GlossaryCard", "Accounting profile: {name}").format(name=i18n.profile_label(profile.value)),
                    glossary.claim(pid)))
    for sid in scheme_claim_ids(scheme):
        if sid in ids:
            out.append((translate("GlossaryCard", "Scheme: {name}").format(name=i18n.scheme_label(scheme.value)),
                        glossary.claim(sid)))
            break
    return out
