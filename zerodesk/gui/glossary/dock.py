"""The glossary panel: a dock holding the card (card.py), set to the plan's accounting profile and scheme.

The card's widgets are there from the start; its text is read and laid out right after the card is
first painted (or at once when something asks for it: a clicked segment, a search, the card example),
so the window's first frame never waits for it. A dock hidden at start reads nothing until it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QDockWidget

from ...core.plan import Plan, Profile, Scheme
from ...core.plan_model import PlanModel
from ..base import i18n
from .card import GlossaryCard

if TYPE_CHECKING:
    from ...core.glossary import Glossary


class GlossaryDock(QDockWidget):
    claimSelected = Signal(str)

    def __init__(self, model: PlanModel | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("glossaryDock")
        self.card = GlossaryCard(i18n.current_language())
        self.card.claimSelected.connect(self.claimSelected)
        self.setWidget(self.card)
        self.retranslate()
        if model is not None:  # the boundaries of the plan's profile and scheme lead the card
            model.events.plan.connect(self._follow_plan)
            if model.plan is not None:
                self._follow_plan(model.plan)

    def _follow_plan(self, plan: Plan, *_breakdown) -> None:
        self.card.set_context(plan.profile, plan.scheme)

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
