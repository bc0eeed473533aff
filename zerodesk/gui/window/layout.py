"""The main window's size and dock widths: restored from the settings, or fitted to the screen."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from ...resources import resource

DEFAULT_SIZE = QSize(1440, 900)


def app_icon() -> QIcon:
    icon = QIcon()
    for name in ("zerodesk.svg", "zerodesk-256.png", "zerodesk-64.png"):
        try:
            path = resource("icons", name)
        except FileNotFoundError:
            continue
        if path.is_file():
            icon.addFile(str(path))
    return icon


class WindowLayout:
    """Geometry, dock widths and their saving, for MainWindow."""

    def _restore_layout(self) -> None:
        geometry = self.settings.geometry if self._persist else None
        if geometry is None or not self.restoreGeometry(geometry):
            screen = QApplication.primaryScreen()
            size = DEFAULT_SIZE
            if screen is not None:
                avail = screen.availableGeometry().size()
                size = QSize(min(size.width(), avail.width()), min(size.height(), avail.height()))
            self.resize(size)
            QTimer.singleShot(0, self.fit_docks)  # after the first layout: a dock resized before it is ignored
        state = self.settings.window_state if self._persist else None
        if state is not None:
            self.restoreState(state)

    def form_width_needed(self) -> int:
        """The form dock's width that shows every field whole (labels grow in Russian)."""
        scroll = self.form_dock.widget()
        bar = scroll.verticalScrollBar().sizeHint().width() if scroll is not None else 16
        return self.form.minimumSizeHint().width() + bar + 6

    def fit_docks(self) -> None:
        """Dock widths for the window's width: the form whole if the window allows (at most 40% of it),
        the glossary about a quarter; the charts keep the rest."""
        width = self.width()
        form = max(320, min(self.form_width_needed(), round(width * 0.4)))
        glossary = max(260, min(420, round(width * 0.25)))
        self.resizeDocks([self.form_dock, self.glossary], [form, glossary], Qt.Orientation.Horizontal)

    def save_layout(self) -> None:
        if not self._persist:
            return
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.sync()
