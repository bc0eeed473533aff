"""The glossary card's laid-out pages, kept by their HTML.

Laying the card out is its cost (~15-25 ms here for the whole document; building its HTML takes ~1.5 ms), and
an edit of the plan's profile or scheme changes only the part about them: a page already laid out for the same
HTML (a scheme chosen again, a profile toggled back) is shown again as it is, in ~2 ms.
"""

from __future__ import annotations

from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser

PAGES_KEPT = 10  # every scheme under each profile


class CardPages:
    """Shows an HTML page in a browser, from a document of its own laid out once per HTML and browser font."""

    def __init__(self, browser: QTextBrowser, kept: int = PAGES_KEPT) -> None:
        self._browser = browser
        self._kept = kept
        self._blank: QTextDocument | None = None  # the browser's own document's settings, without its text
        self._pages: list[tuple[tuple[str, str], QTextDocument]] = []

    def show(self, html: str) -> None:
        browser = self._browser
        key = (html, browser.font().key())
        for i, (known, doc) in enumerate(self._pages):
            if known == key:
                self._pages.insert(0, self._pages.pop(i))
                if browser.document() is not doc:
                    browser.setDocument(doc)
                return
        if self._blank is None:
            self._blank = browser.document().clone(browser)
            self._blank.clear()
        doc = self._blank.clone(browser)
        doc.setDefaultFont(browser.font())
        doc.setHtml(html)
        browser.setDocument(doc)
        self._pages.insert(0, (key, doc))
        for _, old in self._pages[self._kept:]:
            old.deleteLater()
        del self._pages[self._kept:]
