"""Rewrites the card's section on the plan's profile and scheme in place, in the document already laid out.

Laying the whole card out again is its cost (setHtml parses ~110 KB and lays out 73 tables; even a document laid out
before is laid out again when the browser shows it), while an edit of the profile or the scheme changes only the
section at the top: each claim in use is a title line and a one-cell table. Writing the new titles and cells into
those blocks has Qt lay out just them and move the rest, in about a millisecond. The pixels are those of the whole
card parsed anew (tests/test_gui_glossary_card.py compares them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QTextBlock, QTextCursor, QTextDocument

from .card_html import IN_USE

if TYPE_CHECKING:
    from ...core.glossary import Claim
    from .card_html import CardHtml


def _named_block(doc: QTextDocument, name: str) -> QTextBlock | None:
    """The block holding the anchor `name` (the parser puts a name on the block or on its first characters)."""
    block = doc.firstBlock()
    while block.isValid():
        if name in block.charFormat().anchorNames():
            return block
        it = block.begin()
        if not it.atEnd() and name in it.fragment().charFormat().anchorNames():
            return block
        block = block.next()
    return None


def patch_in_use(doc: QTextDocument, page: CardHtml, in_use: list[tuple[str, Claim]], selected: str | None) -> bool:
    """Write `in_use` over the section shown in `doc` (built by `page` with as many claims in use); False, with
    nothing changed, when the document does not hold that section as CardHtml.in_use lays it out."""
    heading = _named_block(doc, IN_USE)
    if heading is None:
        return False
    # find every (title block, one-cell table) first: nothing is written unless the whole section is there
    spots, block = [], heading.next()
    for _ in in_use:
        if not block.isValid() or QTextCursor(block).currentTable() is not None:
            return False
        table = QTextCursor(block.next()).currentTable() if block.next().isValid() else None
        if table is None or (table.rows(), table.columns()) != (1, 1):
            return False
        spots.append((block.position(), table))
        block = doc.findBlock(table.lastPosition() + 1)  # the empty block Qt keeps after a table, then the next
        if not block.text():
            block = block.next()
    # Qt lays a document out in steps after a full change (a new text, a new width); an edit in between has the
    # blocks after it kept at their old width for good: finish those steps first (nothing to do once done)
    doc.documentLayout().documentSize()
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()  # one change: Qt lays out the changed blocks once
    # from the last claim up, so that the positions found above still hold
    for (title_at, table), (title, claim) in reversed(list(zip(spots, in_use))):
        cell = table.cellAt(0, 0)
        first = doc.findBlock(cell.firstPosition())
        block_format, block_char_format = first.blockFormat(), first.charFormat()
        cursor.setPosition(cell.firstPosition())
        cursor.setPosition(cell.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        # the emptied cell keeps its last paragraph's format (the boundary's shade); its first paragraph's is wanted
        cursor.setBlockFormat(block_format)
        cursor.setBlockCharFormat(block_char_format)
        cursor.insertHtml(page.claim_cell(claim, compact=True, anchor=True))
        background = QColor(page.claim_background(claim.id == selected))
        fmt = table.format()
        if fmt.background().color() != background:
            fmt.setBackground(background)
            table.setFormat(fmt)
        title_block = doc.findBlock(title_at)
        cursor.setPosition(title_at)
        cursor.setPosition(title_at + title_block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertHtml(page.in_use_title(title, claim))
    cursor.endEditBlock()
    return True
