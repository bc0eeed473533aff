"""The glossary card updated in place: an edit of the profile or scheme rewrites only the section on them, and the
card then looks exactly like one laid out anew; unchanged inputs change nothing; a card out of sight waits."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication

from zerodesk.core.plan import Profile, Scheme
from zerodesk.gui.base import i18n
from zerodesk.gui.glossary.claims import profile_claim_id


def _picture(doc: QTextDocument) -> QImage:
    """The whole document drawn as the browser laid it out (every line of it, not only what the browser shows)."""
    size = doc.size()  # the layout Qt finishes in steps, finished
    image = QImage(int(size.width()) + 1, int(size.height()) + 1, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    doc.drawContents(painter)
    painter.end()
    return image


def _laid_out_anew(card) -> QImage:
    """The card's current HTML parsed and laid out anew, as a first render does."""
    card._shown = None
    card._render()
    return _picture(card.browser.document())


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("selected", [None, "profile-torch"])
def test_a_section_rewritten_in_place_looks_like_the_card_laid_out_anew(glossary, lang, selected):
    card = glossary.card.ensure_loaded()
    card.set_language(lang)
    if selected:
        card.select_claim(selected)
    page = card.browser.document()
    contexts = [(p, s) for p in Profile for s in Scheme]
    for i, (profile, scheme) in enumerate(contexts[1:] + contexts[:2]):
        if i % 3 == 1:  # a new width: Qt lays the card out again in steps, which an edit must not cut short
            glossary.resize(glossary.width() + 60 * (1 if i % 2 else -1), glossary.height())
            QApplication.processEvents()
            card.browser.scrollToAnchor(profile_claim_id(profile))  # the section in view, laid out first
        card.set_context(profile, scheme)
        card.flush()
        assert card.browser.document() is page  # rewritten in place, not parsed anew
        text, patched = page.toPlainText(), _picture(page)
        assert patched == _laid_out_anew(card), (lang, profile, scheme)
        assert text == card.browser.document().toPlainText()
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
