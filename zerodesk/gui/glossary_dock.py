"""The glossary panel: a dock that holds the card (glossary_card.py), built when it is first needed.

The window paints first: the dock starts empty and fills itself right after its first paint (or at
once when something asks for the card: a clicked segment, Ctrl+F, the card example), so reading
and laying out the card never delays the first frame. A dock hidden at start builds nothing until
it is shown. What the window tells it before then (the language, the profile and scheme in use) is
kept and handed to the card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QDockWidget, QWidget

from ..core.plan import Profile, Scheme
from . import i18n
from .first_paint import after_first_paint

if TYPE_CHECKING:
    from ..core.glossary import Glossary
    from .glossary_card import GlossaryCard

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
        self.setObjectName("glossaryDock")
        self._lang = i18n.current_language()
        self._context = (Profile.PAPER, Scheme.MIXED_ADAM)
        self._card: GlossaryCard | None = None
        placeholder = QWidget()
        placeholder.setObjectName("glossaryPending")
        after_first_paint(placeholder, lambda: self.card)
        self.setWidget(placeholder)
        self.retranslate()

    # -- the card, built once ------------------------------------------------------------------
    @property
    def card(self) -> GlossaryCard:
        """The card (search, text, checklist); built here on first use."""
        if self._card is None:
            from .glossary_card import GlossaryCard

            card = GlossaryCard(self._lang, *self._context)
            card.claimSelected.connect(self.claimSelected)
            placeholder = self.widget()
            self.setWidget(card)
            if placeholder is not None:
                placeholder.deleteLater()
            self._card = card
        return self._card

    def is_built(self) -> bool:
        """Whether the card exists yet (asking for it builds it; this does not)."""
        return self._card is not None

    @property
    def search(self):
        return self.card.search

    @property
    def browser(self):
        return self.card.browser

    @property
    def checklist(self):
        return self.card.checklist

    # -- public API ------------------------------------------------------------------------------
    @property
    def glossary(self) -> Glossary | None:
        return self.card.glossary

    @property
    def selected_claim_id(self) -> str | None:
        return self._card.selected_claim_id if self._card is not None else None

    def visible_claim_ids(self) -> list[str]:
        return self.card.visible_claim_ids()

    def has_claim(self, claim_id: str) -> bool:
        return self.card.has_claim(claim_id)

    def select_claim(self, claim_id: str) -> bool:
        """Highlight a claim and scroll to it (clearing a filter that hides it). False if unknown."""
        return self.card.select_claim(claim_id)

    def set_context(self, profile: Profile, scheme: Scheme) -> None:
        """The accounting profile and scheme in use; their boundaries are shown at the top of the card."""
        self._context = (profile, scheme)
        if self._card is not None:
            self._card.set_context(profile, scheme)

    def context(self) -> tuple[Profile, Scheme]:
        return self._context

    def flush(self) -> None:
        """Build the card and lay out a pending change now (tests, screenshots)."""
        self.card.flush()

    def set_language(self, lang: str) -> None:
        self._lang = lang
        if self._card is not None:
            self._card.set_language(lang)

    def checklist_state(self) -> list[tuple[str, bool]]:
        return self.card.checklist_state()

    # -- texts ------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Glossary"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._lang = i18n.current_language()  # the card follows the language change on its own
        super().changeEvent(event)
