"""The glossary card updated in place: an edit of the profile or scheme rewrites only the section on them, and the
card then looks exactly like one laid out anew; unchanged inputs change nothing; a card out of sight waits."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QTextDocument

from zerodesk.core.plan import Profile, Scheme
from zerodesk.gui.base import i18n


def _picture(doc: QTextDocument, width: int) -> QImage:
    """The whole document drawn at `width` (every line of it, not only what the browser shows)."""
    doc = doc.clone()
    doc.setTextWidth(width)
    image = QImage(width, int(doc.size().height()) + 1, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    doc.drawContents(painter)
    painter.end()
    return image


def _laid_out_anew(card) -> QTextDocument:
    """The card's current HTML parsed into a fresh document, as a first render does."""
    card._shown = None
    card._render()
    return card.browser.document().clone()


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("selected", [None, "profile-torch"])
def test_a_section_rewritten_in_place_looks_like_the_card_laid_out_anew(glossary, lang, selected):
    card = glossary.card.ensure_loaded()
    card.set_language(lang)
    if selected:
        card.select_claim(selected)
    width = card.browser.viewport().width()
    page = card.browser.document()
    contexts = [(p, s) for p in Profile for s in Scheme]
    for profile, scheme in contexts[1:] + contexts[:2]:
        card.set_context(profile, scheme)
        card.flush()
        assert card.browser.document() is page  # rewritten in place, not parsed anew
        patched = _picture(page, width)
        fresh = _laid_out_anew(card)
        assert patched == _picture(fresh, width), (lang, profile, scheme)
        assert page.toPlainText() == fresh.toPlainText()
        page = card.browser.document()
    card.set_language(i18n.current_language())


def test_inputs_already_shown_change_nothing(glossary):
    card = glossary.card.ensure_loaded()
    doc = card.browser.document()
    revision = doc.revision()
    card._render()  # the same plan, filter, language and colours
    card.set_context(*card.context())
    card.flush()
    assert card.browser.document() is doc and doc.revision() == revision
    card.set_context(Profile.TORCH, Scheme.FP32_ADAM)
    card.flush()
    assert doc.revision() > revision  # a real change is written


def test_a_card_out_of_sight_waits_until_it_is_shown(glossary, qtbot):
    card = glossary.card.ensure_loaded()
    torch = card.glossary.claim("profile-torch").boundary[:50]
    scroll = card.browser.verticalScrollBar()
    scroll.setValue(scroll.maximum() // 3)
    where = scroll.value()
    glossary.hide()
    card.set_context(Profile.TORCH, card.context()[1])
    qtbot.wait(120)  # the card's delay passes: hidden, it writes nothing
    in_use = card.browser.toPlainText().split(card.glossary.claims[0].text[:30])[0]
    assert torch not in in_use
    glossary.show()
    qtbot.waitUntil(lambda: torch in card.browser.toPlainText().split(card.glossary.claims[0].text[:30])[0])
    assert scroll.value() == where  # the reader's place is kept
