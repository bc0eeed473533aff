"""The glossary's card: the source card as data (zerodesk.core.glossary), in the UI's language.

Definition, what is confirmed (the card's own claims, each with its applicability boundary set
apart from the claim), then what ZeroDesk adds from the paper, PyTorch and its own accounting,
the accounting profile and scheme in use with their own boundaries, what to check (a real
checklist), primary sources with their sections, related concepts. Every claim and checklist item
carries a tag saying where it comes from, so a trainer can tell the card's words from the tool's;
internal claim ids are never shown. The search box filters claims; select_claim() highlights one.

The widgets are made at once; the card's text (read from data, laid out as one long document) waits
until the card is first painted, so the window's first frame never waits for it, or until something
asks for it (a claim selected, a search typed, the text read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...core.plan import PlanError, Profile, Scheme
from ..base import i18n
from ..base.first_paint import after_first_paint
from .card_html import CardColors, CardHtml, error_html
from .card_patch import patch_in_use
from .card_words import card_words, checklist_text, claims_in_use, origin_label

if TYPE_CHECKING:
    from ...core.glossary import Glossary


class CardBrowser(QTextBrowser):
    """The card's text: Tab moves on to the checklist and the window instead of walking every link.

    Links stay clickable; the search box (Ctrl+F) reaches any claim from the keyboard. Its scroll bar is always
    there: the card is taller than the dock, and a bar appearing with the text narrowed the page and had Qt lay the
    whole card out a second time."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)

    def focusNextPrevChild(self, next: bool) -> bool:
        return QWidget.focusNextPrevChild(self, next)


class GlossaryCard(QWidget):
    claimSelected = Signal(str)

    def __init__(self, lang: str, profile: Profile = Profile.PAPER, scheme: Scheme = Scheme.MIXED_ADAM, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("glossaryCard")
        self._lang = lang
        self._glossary: Glossary | None = None
        self._loaded = False
        self._error = ""
        self._selected: str | None = None
        self._profile, self._scheme = profile, scheme
        self._checked: dict[int, bool] = {}
        self._shown_query = ""  # the filter the card was last laid out for
        self._shown: tuple | None = None  # what the text shown was laid out from (_render's key), None: nothing yet
        self._stale = False  # a change waits for the card to be shown
        self._render_later = QTimer(self)
        self._render_later.setSingleShot(True)
        self._render_later.setInterval(40)
        self._render_later.timeout.connect(self._render_if_seen)

        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setObjectName("glossarySearch")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search)
        row.addWidget(self.search, 1)
        self._count = QLabel()
        self._count.setObjectName("glossaryCount")
        row.addWidget(self._count)
        v.addLayout(row)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        self.browser = CardBrowser()
        self.browser.setObjectName("glossaryBrowser")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_anchor)
        split.addWidget(self.browser)
        checks = QWidget()
        cv = QVBoxLayout(checks)
        cv.setContentsMargins(0, 4, 0, 0)
        self._check_title = QLabel()
        self._check_title.setObjectName("checklistTitle")
        cv.addWidget(self._check_title)
        self.checklist = QListWidget()
        self.checklist.setObjectName("glossaryChecklist")
        self.checklist.setWordWrap(True)
        self.checklist.itemChanged.connect(self._on_check)
        self._check_title.setBuddy(self.checklist)
        cv.addWidget(self.checklist)
        split.addWidget(checks)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        v.addWidget(split, 1)
        self.retranslate()
        after_first_paint(self.browser.viewport(), self.ensure_loaded)

    # -- public API ------------------------------------------------------------------------------
    def ensure_loaded(self) -> GlossaryCard:
        """Read the card and lay it out now, if that has not happened yet."""
        if not self._loaded:
            self._loaded = True
            self._load()
        return self

    def is_loaded(self) -> bool:
        """Whether the card's text is in (asking for it loads it; this does not)."""
        return self._loaded

    @property
    def glossary(self) -> Glossary | None:
        self.ensure_loaded()
        return self._glossary

    @property
    def selected_claim_id(self) -> str | None:
        return self._selected

    def visible_claim_ids(self) -> list[str]:
        self.ensure_loaded()
        if self._glossary is None:
            return []
        return [c.id for c in self._glossary.search(self.search.text())]

    def has_claim(self, claim_id: str) -> bool:
        self.ensure_loaded()
        return self._glossary is not None and any(c.id == claim_id for c in self._glossary.claims)

    def select_claim(self, claim_id: str) -> bool:
        """Highlight a claim and scroll to it (clearing a filter that hides it). False if unknown."""
        if not self.has_claim(claim_id):
            return False
        self._selected = claim_id
        if claim_id not in self.visible_claim_ids():
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
        self._render()
        self.browser.scrollToAnchor(claim_id)
        self.claimSelected.emit(claim_id)
        return True

    def set_context(self, profile: Profile, scheme: Scheme) -> None:
        """The accounting profile and scheme in use; their boundaries are shown at the top.

        The card is updated a moment later, so that a burst of edits updates it once, and only its section on
        them is rewritten (card_patch.py); a card out of sight waits until it is shown.
        """
        if (profile, scheme) == (self._profile, self._scheme):
            return
        self._profile, self._scheme = profile, scheme
        if self._loaded:
            self._render_later.start()

    def context(self) -> tuple[Profile, Scheme]:
        return self._profile, self._scheme

    def flush(self) -> None:
        """Load the card, and lay out a pending change, now (tests, screenshots)."""
        self.ensure_loaded()
        if self._render_later.isActive() or self._stale:
            self._render()

    def set_language(self, lang: str) -> None:
        if lang != self._lang:
            self._lang = lang
            if self._loaded:
                self._load()

    def checklist_state(self) -> list[tuple[str, bool]]:
        self.ensure_loaded()
        return [(self.checklist.item(i).text(), self.checklist.item(i).checkState() == Qt.CheckState.Checked)
                for i in range(self.checklist.count())]

    # -- texts ------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.search.setPlaceholderText(self.tr("Filter claims…"))
        self.search.setAccessibleName(self.tr("Filter glossary claims"))
        self.browser.setAccessibleName(self.tr("Glossary card"))
        self._check_title.setText(self.tr("What to check"))
        self.checklist.setAccessibleName(self.tr("What to check (checklist)"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.set_language(i18n.current_language())
            if self._loaded:
                self._render()
        elif event.type() == QEvent.Type.PaletteChange and self._loaded:
            self._render()
        super().changeEvent(event)

    def _load(self) -> None:
        from ...core.glossary import load_glossary

        try:
            self._glossary = load_glossary(self._lang)
            self._error = ""
        except PlanError as exc:
            self._glossary, self._error = None, str(exc)
        self.checklist.blockSignals(True)
        self.checklist.clear()
        if self._glossary is not None:
            for i, entry in enumerate(self._glossary.checklist):
                item = QListWidgetItem(checklist_text(entry))
                item.setToolTip(origin_label(entry.origin, advice=True))
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if self._checked.get(i) else Qt.CheckState.Unchecked)
                self.checklist.addItem(item)
        self.checklist.blockSignals(False)
        self._render()

    def _on_search(self, _text: str) -> None:
        if self._loaded:
            self._render()
        else:
            self.ensure_loaded()  # a search typed before the card was read: reading it lays it out

    def _on_check(self, item: QListWidgetItem) -> None:
        self._checked[self.checklist.row(item)] = item.checkState() == Qt.CheckState.Checked

    def _on_anchor(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https"):
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)
        elif url.hasFragment():
            fragment = url.fragment()
            if self.has_claim(fragment):
                self.select_claim(fragment)
            else:
                self.browser.scrollToAnchor(fragment)

    # -- rendering --------------------------------------------------------------------------------
    def _colors(self) -> CardColors:
        pal = self.palette()
        base = pal.color(QPalette.ColorRole.Base)
        return CardColors.from_palette(base.name(), pal.color(QPalette.ColorRole.Text).name(),
                                       pal.color(QPalette.ColorRole.Highlight).name(),
                                       pal.color(QPalette.ColorRole.Link).name(), dark=base.lightness() < 128)

    def _render_if_seen(self) -> None:
        if self.isVisible():
            self._render()
        else:
            self._stale = True  # a hidden dock or a tab behind the form: laid out when shown (showEvent)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale and self._loaded:
            self._render()

    def _finish_layout(self) -> None:
        self.browser.document().documentLayout().documentSize()  # the whole card laid out (nothing once it is)

    def _render(self, *_args) -> None:
        """Show the card for its inputs: nothing when they are those shown, the section on the profile and scheme
        rewritten in place when only it changed, else the whole card laid out anew (keeping the scroll position)."""
        self._render_later.stop()
        self._stale = False
        g = self._glossary
        if g is None:
            self.browser.setHtml(error_html(self._error))
            self._shown = None
            self._count.setText("")
            return
        query = self.search.text()
        claims = g.search(query)
        self._count.setText(self.tr("{shown} of {total}").format(shown=len(claims), total=len(g.claims)))
        self._count.setAccessibleName(self.tr("{shown} of {total} claims shown").format(shown=len(claims), total=len(g.claims)))
        note = self.tr("Filtered by “{q}”: {n} of {total} claims.").format(q=query.strip(), n=len(claims), total=len(g.claims))
        colors, words, in_use = self._colors(), card_words(), claims_in_use(g, self._profile, self._scheme)
        # the inputs the HTML reads: the claims in use apart, as they alone can be rewritten in place
        base = (self._lang, id(g), colors, tuple(words.values()), note, query, self._selected, self.browser.font().key())
        uses = tuple((title, claim.id) for title, claim in in_use)
        if self._shown == (base, uses):
            return
        page = CardHtml(g, colors, words, origin_label)
        shown, self._shown = self._shown, (base, uses)
        if (shown is not None and shown[0] == base and len(shown[1]) == len(uses) and uses
                and patch_in_use(self.browser.document(), page, in_use, self._selected)):
            return
        scroll = self.browser.verticalScrollBar().value()
        self.browser.setHtml(page.document(claims, query, self._selected, in_use, note))
        # Qt lays the rest out in 10 ms steps, and an edit of the scheme that comes first finishes it (patch_in_use:
        # ~9 ms on that edit): finish it at the next idle turn instead
        QTimer.singleShot(0, self, self._finish_layout)
        if query.strip() and query != self._shown_query and claims:
            self.browser.scrollToAnchor(claims[0].id)  # a new filter: show its first match
        else:
            self.browser.verticalScrollBar().setValue(scroll)
        self._shown_query = query
