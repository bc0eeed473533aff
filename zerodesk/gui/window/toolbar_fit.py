"""A toolbar that gives up its least needed buttons rather than hide the rest in an overflow.

Qt moves the buttons that do not fit into a "»" menu at the toolbar's end, which is easy to miss (and its
arrow is nearly black on a dark palette): in a Russian window of 1024 px the Lesson button went there.
This takes the buttons named as expendable off the toolbar, in their order, while the rest would not fit,
and puts them back when there is room; every one of them stays in its menu with its shortcut. Should even
that not fit, the "»" that remains is drawn in the palette's text colour.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QToolBar, QToolButton

SEPARATOR_PX = 8


class ToolbarFit(QObject):
    def __init__(self, toolbar: QToolBar, expendable: list[QAction]) -> None:
        super().__init__(toolbar)
        self.toolbar = toolbar
        self.expendable = list(expendable)  # the first is the first to go
        self._order = list(toolbar.actions())  # every action and separator, as built
        self._pending = False
        toolbar.installEventFilter(self)
        self._paint_extension()

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.Resize, QEvent.Type.LanguageChange, QEvent.Type.FontChange) and not self._pending:
            self._pending = True  # after the texts and sizes settle
            QTimer.singleShot(0, self, self.fit)  # not after the toolbar is gone
        elif kind == QEvent.Type.PaletteChange:
            self._paint_extension()
        return False

    def _width(self, action: QAction) -> int:
        if action.isSeparator():
            return SEPARATOR_PX
        button = QToolButton()
        button.setToolButtonStyle(self.toolbar.toolButtonStyle())
        button.setDefaultAction(action)
        return button.sizeHint().width() + self.toolbar.layout().spacing()

    def needed(self, hidden: set[QAction]) -> int:
        margins = self.toolbar.contentsMargins()
        handle = 12  # the toolbar's grip and the layout's own margins
        return sum(self._width(a) for a in self._order if a not in hidden) + margins.left() + margins.right() + handle

    def fit(self) -> None:
        """Show every action that fits, taking the expendable ones off first."""
        self._pending = False
        self._order += [a for a in self.toolbar.actions() if a not in self._order]  # added since (a tab's own)
        room = self.toolbar.width()
        hidden: set[QAction] = set()
        for action in self.expendable:
            if self.needed(hidden) <= room:
                break
            hidden.add(action)
        current = self.toolbar.actions()
        for action in self.expendable:
            if action in hidden and action in current:
                self.toolbar.removeAction(action)  # still in its menu, with its shortcut
            elif action not in hidden and action not in current:
                later = self._order[self._order.index(action) + 1:]
                before = next((a for a in later if a in self.toolbar.actions()), None)
                self.toolbar.insertAction(before, action)

    def hidden(self) -> list[QAction]:
        return [a for a in self._order if a not in self.toolbar.actions()]

    def _paint_extension(self) -> None:
        """The overflow's "»" in the palette's text colour (Fusion's arrow is dark on a dark palette)."""
        button = self.toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
        if button is None:
            return
        size = button.iconSize() if button.iconSize().isValid() else button.size()
        pixmap = QPixmap(max(size.width(), 12), max(size.height(), 12))
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setPen(self.toolbar.palette().color(QPalette.ColorRole.ButtonText))
        painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, "»")
        painter.end()
        button.setIcon(QIcon(pixmap))
