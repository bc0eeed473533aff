"""The glossary panel: a dock holding the card (glossary_card.py), and the claims the window points at.

The card's widgets are there from the start; its text is read and laid out right after the card is
first painted (or at once when something asks for it: a clicked segment, a search, the card example),
so the window's first frame never waits for it. A dock hidden at start reads nothing until it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QDockWidget

from ...core.plan import Profile, Scheme
from ..base import i18n

if TYPE_CHECKING:
    from ...core.glossary import Glossary

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


class GlossaryDock(QDockWidget):
    claimSelected = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        from .card import GlossaryCard  # here: the card imports this module's claim ids

        self.setObjectName("glossaryDock")
        self.card = GlossaryCard(i18n.current_language())
        self.card.claimSelected.connect(self.claimSelected)
        self.setWidget(self.card)
        self.retranslate()

    def is_loaded(self) -> bool:
        """Whether the card's text is in yet (asking for it reads it; this does not)."""
        return self.card.is_loaded()

    @property
    def search(self):
        return self.card.search

    @property
    def browser(self):
        """The card's text (read now if it was not yet)."""
        return self.card.ensure_loaded().browser

    @property
    def checklist(self):
        return self.card.ensure_loaded().checklist

    # -- public API ------------------------------------------------------------------------------
    @property
    def glossary(self) -> Glossary | None:
        return self.card.glossary

    @property
    def selected_claim_id(self) -> str | None:
        return self.card.selected_claim_id

    def visible_claim_ids(self) -> list[str]:
        return self.card.visible_claim_ids()

    def has_claim(self, claim_id: str) -> bool:
        return self.card.has_claim(claim_id)

    def select_claim(self, claim_id: str) -> bool:
        """Highlight a claim and scroll to it (clearing a filter that hides it). False if unknown."""
        return self.card.select_claim(claim_id)

    def set_context(self, profile: Profile, scheme: Scheme) -> None:
        """The accounting profile and scheme in use; their boundaries are shown at the top of the card."""
        self.card.set_context(profile, scheme)

    def context(self) -> tuple[Profile, Scheme]:
        return self.card.context()

    def flush(self) -> None:
        """Read the card and lay out a pending change now (tests, screenshots)."""
        self.card.flush()

    def set_language(self, lang: str) -> None:
        self.card.set_language(lang)

    def checklist_state(self) -> list[tuple[str, bool]]:
        return self.card.checklist_state()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Glossary"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()  # the card follows the language change on its own
        super().changeEvent(event)
