"""The glossary card laid out whole at the first idle turn after it is read: Qt lays a new text out in 10 ms steps,
and the first edit of the scheme (the section rewritten in place, card_patch) finished the rest itself, ~9 ms of
that edit."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication


def _laid_out(doc) -> bool:
    """Whether every block has its lines (asked without laying anything out)."""
    block = doc.lastBlock()
    while block.isValid() and not block.text():
        block = block.previous()
    return block.isValid() and block.layout().lineCount() > 0


def test_the_card_is_laid_out_whole_at_the_next_idle_turn(glossary):
    card = glossary.card.ensure_loaded()
    doc = card.browser.document()
    assert not _laid_out(doc)  # a long card: Qt lays its end out later, in steps
    QApplication.processEvents()  # one turn: no 10 ms step of Qt's has come yet
    assert _laid_out(doc)
