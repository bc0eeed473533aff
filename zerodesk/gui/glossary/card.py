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

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QPalette
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
from .dock import profile_claim_id, scheme_claim_ids
from ..base.style import BOUNDARY_COLOR, DARK_LINK_COLOR, ERROR_COLOR

if TYPE_CHECKING:
    from ...core.glossary import Glossary, Origin

# One colour per origin (Okabe-Ito, readable for colour-blind readers), used for the tag's bar.
ORIGIN_COLORS = {"card": "#0072B2", "paper": "#009E73", "pytorch": "#D55E00", "zerodesk": "#CC79A7"}


def _blend(a: QColor, b: QColor, t: float) -> str:
    """a mixed with b by t (0 = a), as #rrggbb: Qt's rich text has no alpha blending."""
    return QColor(round(a.red() * (1 - t) + b.red() * t), round(a.green() * (1 - t) + b.green() * t),
                  round(a.blue() * (1 - t) + b.blue() * t)).name()


class CardBrowser(QTextBrowser):
    """The card's text: Tab moves on to the checklist and the window instead of walking every link.

    Links stay clickable; the search box (Ctrl+F) reaches any claim from the keyboard."""

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
        self._render_later = QTimer(self)
        self._render_later.setSingleShot(True)
        self._render_later.setInterval(40)
        self._render_later.timeout.connect(self._render)

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

        The card is re-laid out a moment later (setHtml takes ~10 ms): an edit redraws the chart
        within its frame, and a burst of edits lays the card out once.
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
        if self._render_later.isActive():
            self._render_later.stop()
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
                item = QListWidgetItem(self._checklist_text(entry))
                item.setToolTip(self.origin_label(entry.origin, advice=True))
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if self._checked.get(i) else Qt.CheckState.Unchecked)
                self.checklist.addItem(item)
        self.checklist.blockSignals(False)
        self._render()

    def _checklist_text(self, entry) -> str:
        # ZeroDesk's own advice says so in the item itself: the list is read without tooltips too
        if entry.origin.kind == "card":
            return entry.text
        return self.tr("{origin}: {text}").format(origin=self.origin_label(entry.origin, advice=True), text=entry.text)

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
    def _colors(self) -> dict[str, str]:
        pal = self.palette()
        base = pal.color(QPalette.ColorRole.Base)
        text = pal.color(QPalette.ColorRole.Text)
        dark = base.lightness() < 128
        return {
            "text": text.name(),
            "muted": _blend(text, base, 0.35),
            "claim_bg": _blend(base, text, 0.05),
            "boundary_bg": _blend(base, QColor(BOUNDARY_COLOR), 0.22 if dark else 0.14),
            "boundary_bar": BOUNDARY_COLOR,
            "selected_bg": _blend(base, pal.color(QPalette.ColorRole.Highlight), 0.30),
            "selected_bar": pal.color(QPalette.ColorRole.Highlight).name(),
            "claim_bar": _blend(base, text, 0.30),
            "link": pal.color(QPalette.ColorRole.Link).name() if not dark else DARK_LINK_COLOR,
        }

    def origin_label(self, origin: Origin, advice: bool = False) -> str:
        """'Card', 'ZeRO paper §3.1', 'PyTorch: DDP', "ZeroDesk's modelling" (or "ZeroDesk's advice"), translated."""
        refs = ", ".join(origin.refs)
        if origin.kind == "card":
            return self.tr("Card")
        if origin.kind == "paper":
            return self.tr("ZeRO paper {sections}").format(sections=refs)
        if origin.kind == "pytorch":
            return self.tr("PyTorch: {apis}").format(apis=refs)
        return self.tr("ZeroDesk's advice") if advice else self.tr("ZeroDesk's modelling")

    def _origin_tag(self, origin: Origin, c: dict[str, str]) -> str:
        color = ORIGIN_COLORS[origin.kind]
        return (f'<span style="color:{color}; font-weight:bold">▍</span>'
                f'<small><b>{html.escape(self.origin_label(origin))}</b></small>')

    def _source_label(self, ref: str) -> str:
        g = self._glossary
        source_id, _, section = ref.partition(" ")
        try:
            source = g.source(source_id)
            title = source.short or source.title.split(":")[0]
        except KeyError:
            title = source_id
        return f'<a href="#src-{html.escape(source_id)}">{html.escape(title)}{(" " + html.escape(section)) if section else ""}</a>'

    @staticmethod
    def _table_html(rows: tuple[tuple[str, ...], ...], c: dict[str, str]) -> str:
        if not rows:
            return ""
        head, *body = rows
        cells = "".join(f"<th align='left'><small>{html.escape(x)}</small></th>" for x in head)
        out = [f"<table cellspacing='0' cellpadding='3' border='1' style='margin-top:4px; border-color:{c['claim_bar']};"
               f" border-collapse:collapse'><tr>{cells}</tr>"]
        for row in body:
            out.append("<tr>" + "".join(f"<td><small>{html.escape(x)}</small></td>" for x in row) + "</tr>")
        return "".join(out) + "</table>"

    def _claim_html(self, claim, c: dict[str, str], compact: bool = False) -> str:
        selected = claim.id == self._selected
        bg = c["selected_bg"] if selected else c["claim_bg"]
        bar = c["selected_bar"] if selected else c["claim_bar"]
        sources = ", ".join(self._source_label(r) for r in claim.sources)
        boundary_title = html.escape(self.tr("Boundary"))
        sources_title = html.escape(self.tr("Sources"))
        return (
            f'<a name="{html.escape(claim.id)}"></a>'
            f'<table width="100%" cellspacing="0" cellpadding="5" style="margin-top:6px; background-color:{bg};">'
            f'<tr><td width="4" style="background-color:{bar};"></td><td>'
            f'<p style="margin:0 0 2px 0">{self._origin_tag(claim.origin, c)}</p>'
            f'<p style="margin:0">{html.escape(claim.text)}</p>'
            + self._table_html(claim.table, c) +
            f'<table width="100%" cellspacing="0" cellpadding="4" style="margin-top:4px; background-color:{c["boundary_bg"]};">'
            f'<tr><td width="3" style="background-color:{c["boundary_bar"]};"></td>'
            f'<td><small><b>{boundary_title}:</b> <i>{html.escape(claim.boundary)}</i></small></td></tr></table>'
            + ("" if compact else f'<p style="margin:2px 0 0 0; color:{c["muted"]}"><small>{sources_title}: {sources}'
               '</small></p>')
            + "</td></tr></table>"
        )

    def _render(self, *_args) -> None:
        self._render_later.stop()
        c = self._colors()
        g = self._glossary
        if g is None:
            self.browser.setHtml(f"<p style='color:{ERROR_COLOR}'>⚠ {html.escape(self._error)}</p>")
            self._count.setText("")
            return
        query = self.search.text()
        claims = g.search(query)
        self._count.setText(self.tr("{shown} of {total}").format(shown=len(claims), total=len(g.claims)))
        self._count.setAccessibleName(self.tr("{shown} of {total} claims shown").format(shown=len(claims), total=len(g.claims)))
        t = {k: html.escape(v) for k, v in {
            "aka": self.tr("Also known as"),
            "definition": self.tr("Definition"),
            "why": self.tr("Why it matters"),
            "in_use": self.tr("In use in this plan"),
            "confirmed": self.tr("What is confirmed"),
            "confirmed_note": self.tr("The card's own claims."),
            "added": self.tr("Added by ZeroDesk"),
            "added_note": self.tr("From the ZeRO paper, PyTorch's engines and ZeroDesk's own accounting, beyond the card; "
                                  "each claim's tag says which."),
            "see_claim": self.tr("see the claim"),
            "no_match": self.tr("No claim matches the filter."),
            "sources": self.tr("Primary sources"),
            "related": self.tr("Related concepts"),
        }.items()}
        h = [f'<html><body style="color:{c["text"]}">']
        h.append(f"<h2 style='margin-bottom:2px'>{html.escape(g.title)}</h2>")
        if g.also_known_as:
            h.append(f"<p style='margin-top:0; color:{c['muted']}'><small>{t['aka']}: "
                     f"{html.escape(' · '.join(g.also_known_as))}</small></p>")
        from ...core.glossary import Origin

        card_tag = self._origin_tag(Origin(kind="card"), c)
        h.append(f"<h3>{t['definition']}</h3><p style='margin:0'>{card_tag}</p><p>{html.escape(g.definition)}</p>")
        h.append(f"<h3>{t['why']}</h3><p style='margin:0'>{card_tag}</p><p>{html.escape(g.why)}</p>")

        in_use = []
        pid = profile_claim_id(self._profile)
        if self.has_claim(pid):
            in_use.append((self.tr("Accounting profile: {name}").format(name=i18n.profile_label(self._profile.value)), g.claim(pid)))
        for sid in scheme_claim_ids(self._scheme):
            if self.has_claim(sid):
                in_use.append((self.tr("Scheme: {name}").format(name=i18n.scheme_label(self._scheme.value)), g.claim(sid)))
                break
        if in_use:
            h.append(f"<h3>{t['in_use']}</h3>")
            for title, claim in in_use:
                h.append(f"<p style='margin:6px 0 0 0'><b>{html.escape(title)}</b> "
                         f"(<a href='#{html.escape(claim.id)}'>{t['see_claim']}</a>)</p>")
                h.append(self._claim_html(claim, c, compact=True))

        if query.strip():
            h.append(f"<p style='color:{c['muted']}'><small>"
                     + html.escape(self.tr("Filtered by “{q}”: {n} of {total} claims.").format(q=query.strip(), n=len(claims), total=len(g.claims)))
                     + "</small></p>")
        if not claims:
            h.append(f"<p><i>{t['no_match']}</i></p>")
        # The card's own claims apart from what ZeroDesk adds (the card is the authority for its words).
        for title, note, group in ((t["confirmed"], t["confirmed_note"], [x for x in claims if x.from_card]),
                                   (t["added"], t["added_note"], [x for x in claims if not x.from_card])):
            if group or not query.strip():
                h.append(f"<h3>{title}</h3><p style='margin-top:0; color:{c['muted']}'><small>{note}</small></p>")
            for claim in group:
                h.append(self._claim_html(claim, c))

        h.append(f"<h3>{t['sources']}</h3>")
        for s in g.sources:
            who = ", ".join(x for x in (s.authors, str(s.year) if s.year else None) if x)
            title = html.escape(s.title)
            if s.url:
                title = f"<a href='{html.escape(s.url)}' style='color:{c['link']}'>{title}</a>"
            h.append(f"<a name='src-{html.escape(s.id)}'></a><p style='margin-bottom:2px'><b>{title}</b>"
                     + (f" <small>({html.escape(who)})</small>" if who else "") + "</p>")
            if s.sections:
                h.append("<ul style='margin-top:0'>" + "".join(
                    f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in s.sections.items()) + "</ul>")
            if s.note:
                h.append(f"<p style='margin-top:0; color:{c['muted']}'><small>{html.escape(s.note)}</small></p>")
        if g.related:
            h.append(f"<h3>{t['related']}</h3><ul>")
            for r in g.related:
                h.append(f"<li><b>{html.escape(r.title)}</b> — {html.escape(r.text)}</li>")
            h.append("</ul>")
        h.append("</body></html>")
        scroll = self.browser.verticalScrollBar().value()
        self.browser.setHtml("".join(h))
        if query.strip() and query != self._shown_query and claims:
            self.browser.scrollToAnchor(claims[0].id)  # a new filter: show its first match
        else:
            self.browser.verticalScrollBar().setValue(scroll)
        self._shown_query = query
