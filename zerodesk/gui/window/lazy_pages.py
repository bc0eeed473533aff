"""Central tabs whose page is built the first time it is shown: a hidden tab costs nothing at start."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QTabWidget, QWidget


class LazyPages(QObject):
    """Holds an empty slot in `tabs` for each lazy page, and swaps the built page in when the slot is
    shown or the page is asked for. Connect to tabs.currentChanged after this is made: by then the
    tab in view holds its real page."""

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(tabs)
        self._tabs = tabs
        self._builders: dict[QWidget, Callable[[], QWidget]] = {}  # slot -> builder, until built
        self._pages: dict[QWidget, QWidget] = {}  # slot -> its page, once built
        tabs.currentChanged.connect(self._on_current)

    def add(self, build: Callable[[], QWidget], name: str) -> QWidget:
        """A tab (title set later with setTabText) whose page `build()` makes when first needed; returns its slot."""
        slot = QWidget()
        slot.setObjectName(name)
        self._builders[slot] = build
        self._tabs.addTab(slot, "")
        return slot

    def built(self, slot: QWidget) -> QWidget | None:
        """The page of `slot`, or None while it is not built."""
        return self._pages.get(slot)

    def index(self, slot: QWidget) -> int:
        return self._tabs.indexOf(self._pages.get(slot, slot))

    def page(self, slot: QWidget) -> QWidget:
        """The page of `slot`, built now if it is not yet (the tab in view stays in view)."""
        page = self._pages.get(slot)
        if page is not None:
            return page
        page = self._builders.pop(slot)()
        tabs = self._tabs
        index, title = tabs.indexOf(slot), tabs.tabText(tabs.indexOf(slot))
        blocked = tabs.blockSignals(True)  # the same tab stays current: nothing to tell
        current = tabs.currentIndex()
        tabs.removeTab(index)
        tabs.insertTab(index, page, title)
        tabs.setCurrentIndex(current)
        tabs.blockSignals(blocked)
        slot.deleteLater()
        self._pages[slot] = page
        return page

    def _on_current(self, index: int) -> None:
        widget = self._tabs.widget(index)
        if widget in self._builders:
            self.page(widget)
