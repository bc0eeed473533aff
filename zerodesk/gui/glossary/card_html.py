"""The glossary card as one HTML document (Qt-free): what the card widget lays out in its text browser.

Definition and why it matters, the profile and scheme in use with their boundaries, the card's own
claims apart from what ZeroDesk adds (each with its origin tag, its table and its boundary set apart),
primary sources with their sections, related concepts. The widget hands in the words in the UI
language and the colours of its palette; nothing here knows Qt.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..base.style import BOUNDARY_COLOR, DARK_LINK_COLOR, ERROR_COLOR

if TYPE_CHECKING:
    from ...core.glossary import Claim, Glossary, Origin

# One colour per origin (Okabe-Ito, readable for colour-blind readers), used for the tag's bar.
# The name of the heading of the section on the plan's profile and scheme (never linked to: card_patch.py finds it).
IN_USE = "zd-in-use"

ORIGIN_COLORS = {"card": "#0072B2", "paper": "#009E73", "pytorch": "#D55E00", "zerodesk": "#CC79A7"}


def _rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return int(color[0:2], 16), int(color[2:4], 16), int(color[4:6], 16)


def blend(a: str, b: str, t: float) -> str:
    """Colour a mixed with b by t (0 = a), as #rrggbb: Qt's rich text has no alpha blending."""
    (ra, ga, ba), (rb, gb, bb) = _rgb(a), _rgb(b)
    return "#{:02x}{:02x}{:02x}".format(round(ra * (1 - t) + rb * t), round(ga * (1 - t) + gb * t),
                                         round(ba * (1 - t) + bb * t))


@dataclass(frozen=True)
class CardColors:
    text: str
    muted: str
    claim_bg: str
    boundary_bg: str
    boundary_bar: str
    selected_bg: str
    claim_bar: str
    link: str

    @classmethod
    def from_palette(cls, base: str, text: str, highlight: str, link: str, dark: bool) -> CardColors:
        """The card's colours from the palette's base, text, highlight and link colours (#rrggbb)."""
        return cls(text=text, muted=blend(text, base, 0.35), claim_bg=blend(base, text, 0.05),
                   boundary_bg=blend(base, BOUNDARY_COLOR, 0.22 if dark else 0.14), boundary_bar=BOUNDARY_COLOR,
                   selected_bg=blend(base, highlight, 0.30), claim_bar=blend(base, text, 0.30),
                   link=DARK_LINK_COLOR if dark else link)


def error_html(message: str) -> str:
    """What the card shows when the glossary cannot be read."""
    return f"<p style='color:{ERROR_COLOR}'>⚠ {html.escape(message)}</p>"


class CardHtml:
    """Lays out one glossary in one language: `words` are the card's headings and notes, already translated
    (keys as in card.py), `origin_label` names a claim's origin."""

    def __init__(self, glossary: Glossary, colors: CardColors, words: dict[str, str],
                 origin_label: Callable[[Origin], str]) -> None:
        self.g, self.c, self.origin_label = glossary, colors, origin_label
        self.w = {k: html.escape(v) for k, v in words.items()}

    def origin_tag(self, origin: Origin) -> str:
        """The origin's bar and name; the card's text that ZeroDesk adapted says what changed."""
        color = ORIGIN_COLORS[origin.kind]
        adapted = (f' <small style="color:{self.c.muted}">— {html.escape(origin.adapted)}</small>'
                   if origin.adapted else "")
        return (f'<span style="color:{color}; font-weight:bold">▍</span>'
                f'<small><b>{html.escape(self.origin_label(origin))}</b></small>{adapted}')

    def source_label(self, ref: str) -> str:
        source_id, _, section = ref.partition(" ")
        try:
            source = self.g.source(source_id)
            title = source.short or source.title.split(":")[0]
        except KeyError:
            title = source_id
        return f'<a href="#src-{html.escape(source_id)}">{html.escape(title)}{(" " + html.escape(section)) if section else ""}</a>'

    def table(self, rows: tuple[tuple[str, ...], ...]) -> str:
        if not rows:
            return ""
        head, *body = rows
        cells = "".join(f"<th align='left'><small>{html.escape(x)}</small></th>" for x in head)
        out = [f"<table cellspacing='0' cellpadding='3' border='1' style='margin-top:4px; border-color:{self.c.claim_bar};"
               f" border-collapse:collapse'><tr>{cells}</tr>"]
        for row in body:
            out.append("<tr>" + "".join(f"<td><small>{html.escape(x)}</small></td>" for x in row) + "</tr>")
        return "".join(out) + "</table>"

    def claim(self, claim: Claim, selected: bool, compact: bool = False) -> str:
        # One table cell per claim, its boundary a shaded paragraph in it: Qt lays out a table inside a table
        # several times over (the card with a bar column and a boundary table per claim took twice as long)
        return (f'<a name="{html.escape(claim.id)}"></a>'
                f'<table width="100%" cellspacing="0" cellpadding="5" style="margin-top:6px; '
                f'background-color:{self.claim_background(selected)};"><tr><td>'
                + self.claim_cell(claim, compact) + "</td></tr></table>")

    def claim_background(self, selected: bool) -> str:
        return self.c.selected_bg if selected else self.c.claim_bg

    def claim_cell(self, claim: Claim, compact: bool = False, anchor: bool = False) -> str:
        """What a claim's cell holds: its origin, text, table, boundary and (unless compact) sources; `anchor` puts the
        claim's name in it too (where the parser puts the name written before the cell's table)."""
        c = self.c
        sources = ", ".join(self.source_label(r) for r in claim.sources)
        name = f'<a name="{html.escape(claim.id)}"></a>' if anchor else ""
        return (
            f'<p style="margin:0 0 2px 0">{name}{self.origin_tag(claim.origin)}</p>'
            f'<p style="margin:0">{html.escape(claim.text)}</p>'
            + self.table(claim.table) +
            f'<p style="margin:4px 0 0 0; background-color:{c.boundary_bg};">'
            f'<span style="color:{c.boundary_bar}; font-weight:bold">▍</span>'
            f'<small><b>{self.w["boundary"]}:</b> <i>{html.escape(claim.boundary)}</i></small></p>'
            + ("" if compact else f'<p style="margin:2px 0 0 0; color:{c.muted}"><small>{self.w["sources_of"]}: {sources}'
               '</small></p>')
        )

    def in_use_title(self, title: str, claim: Claim) -> str:
        """The line above a claim in use: its title and a link to the claim among the others (inline HTML)."""
        return f"<b>{html.escape(title)}</b> (<a href='#{html.escape(claim.id)}'>{self.w['see_claim']}</a>)"

    def in_use(self, in_use: list[tuple[str, Claim]], selected: str | None) -> str:
        """The profile and scheme in use, each (title, claim) with its boundary: the part of the card an edit of the
        plan changes (card_patch.py rewrites it in place, from the heading named IN_USE on)."""
        if not in_use:
            return ""
        h = [f"<h3><a name='{IN_USE}'></a>{self.w['in_use']}</h3>"]
        for title, claim in in_use:
            h.append(f"<p style='margin:6px 0 0 0'>{self.in_use_title(title, claim)}</p>")
            h.append(self.claim(claim, claim.id == selected, compact=True))
        return "".join(h)

    def document(self, claims: list[Claim], query: str, selected: str | None,
                 in_use: list[tuple[str, Claim]], filtered_note: str) -> str:
        """The whole card: `claims` are those the filter `query` keeps; `in_use` the (title, claim) of the
        profile and scheme in use; `filtered_note` says how many claims the filter keeps."""
        g, c, t = self.g, self.c, self.w
        h = [f'<html><body style="color:{c.text}">']
        h.append(f"<h2 style='margin-bottom:2px'>{html.escape(g.title)}</h2>")
        if g.also_known_as:
            h.append(f"<p style='margin-top:0; color:{c.muted}'><small>{t['aka']}: "
                     f"{html.escape(' · '.join(g.also_known_as))}</small></p>")
        h.append(f"<h3>{t['definition']}</h3><p style='margin:0'>{self.origin_tag(g.definition_origin)}</p>"
                 f"<p>{html.escape(g.definition)}</p>")
        h.append(f"<h3>{t['why']}</h3><p style='margin:0'>{self.origin_tag(g.why_origin)}</p><p>{html.escape(g.why)}</p>")
        h.append(self.in_use(in_use, selected))
        if query.strip():
            h.append(f"<p style='color:{c.muted}'><small>" + html.escape(filtered_note) + "</small></p>")
        if not claims:
            h.append(f"<p><i>{t['no_match']}</i></p>")
        # The card's own claims apart from what ZeroDesk adds (the card is the authority for its words).
        for title, note, group in ((t["confirmed"], t["confirmed_note"], [x for x in claims if x.from_card]),
                                   (t["added"], t["added_note"], [x for x in claims if not x.from_card])):
            if group or not query.strip():
                h.append(f"<h3>{title}</h3><p style='margin-top:0; color:{c.muted}'><small>{note}</small></p>")
            for claim in group:
                h.append(self.claim(claim, claim.id == selected))
        h.append(f"<h3>{t['sources']}</h3>")
        for s in g.sources:
            who = ", ".join(x for x in (s.authors, str(s.year) if s.year else None) if x)
            title = html.escape(s.title)
            if s.url:
                title = f"<a href='{html.escape(s.url)}' style='color:{c.link}'>{title}</a>"
            h.append(f"<a name='src-{html.escape(s.id)}'></a><p style='margin-bottom:2px'><b>{title}</b>"
                     + (f" <small>({html.escape(who)})</small>" if who else "") + "</p>")
            if s.sections:
                h.append("<ul style='margin-top:0'>" + "".join(
                    f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in s.sections.items()) + "</ul>")
            if s.note:
                h.append(f"<p style='margin-top:0; color:{c.muted}'><small>{html.escape(s.note)}</small></p>")
        if g.related:
            h.append(f"<h3>{t['related']}</h3><ul>")
            for r in g.related:
                h.append(f"<li><b>{html.escape(r.title)}</b> — {html.escape(r.text)}</li>")
            h.append("</ul>")
        h.append("</body></html>")
        return "".join(h)
