"""The main window's size and dock widths: restored from the settings, or fitted to the screen."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QComboBox, QLayout, QStyle, QStyleOptionComboBox

from ...resources import resource
from ..charts.draw_once import drawing_held

DEFAULT_SIZE = QSize(1440, 900)
NARROW_WINDOW = 1200  # px: below this the glossary shares the form's dock (tabs), the charts keep the middle


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
            self._fit_docks_on_show = True  # once laid out: a dock resized before it is ignored (setVisible)
        state = self.settings.window_state if self._persist else None
        if state is not None:
            self.restoreState(state)

    def form_width_needed(self) -> int:
        """The form dock's width that shows every field whole (labels grow in Russian)."""
        scroll = self.form_dock.widget()
        bar = scroll.verticalScrollBar().sizeHint().width() if scroll is not None else 16
        return self.form.minimumSizeHint().width() + bar + 6

    def form_width_wanted(self) -> int:
        """The form dock's width that shows every field and every combo box's choice whole (no "Mixed-precision
        Adan"): the boxes elide a long choice rather than widen the dock, so their own hints do not say this.
        The boxes grow with the dock, so what the widest lacks now is what the dock lacks."""
        lacking = 0
        for layout in [self.form.layout(), *self.form.findChildren(QLayout)]:  # labels just retranslated: geometry now
            if layout is not None:
                layout.activate()
        for combo in self.form.findChildren(QComboBox):
            if combo.isVisibleTo(self.form) and combo.currentText():
                option = QStyleOptionComboBox()
                combo.initStyleOption(option)
                text = QSize(combo.fontMetrics().horizontalAdvance(combo.currentText()), combo.height())
                whole = combo.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, text, combo).width()
                lacking = max(lacking, whole - combo.width())
        return max(self.form_width_needed(), self.form_dock.width() + lacking)

    def fit_docks(self) -> None:
        """Dock widths for the window's width: the form with every field whole, and every choice too where that
        takes at most 38% of the window; the glossary a fifth to a quarter, or, in a narrow window, in a tab
        behind the form (F1 or a click on a bar brings it forward), so the charts keep half the window."""
        width, wanted, needed = self.width(), self.form_width_wanted(), self.form_width_needed()
        narrow = self._place_glossary()
        form = max(300, min(needed, round(width * 0.4)), min(wanted, round(width * 0.38)))
        if narrow:
            self.resizeDocks([self.form_dock], [form], Qt.Orientation.Horizontal)
        else:
            glossary = max(260, min(420, round(width * (0.22 if form > width * 0.3 else 0.25))))
            self.resizeDocks([self.form_dock, self.glossary], [form, glossary], Qt.Orientation.Horizontal)

    def _place_glossary(self) -> bool:
        """The glossary beside the charts, or in a narrow window in a tab behind the form; True when narrow."""
        narrow = self.width() < NARROW_WINDOW
        tabbed = self.tabifiedDockWidgets(self.form_dock)
        if narrow and self.glossary not in tabbed:
            self.tabifyDockWidget(self.form_dock, self.glossary)
            self.form_dock.raise_()
        elif not narrow and self.glossary in tabbed:
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.glossary)
        return narrow

    _fit_docks_on_show = False

    def setVisible(self, visible: bool) -> None:
        """The first show of a window not restored from the settings fits the docks at once, inside show(): the window
        is laid out at the docks' final widths before its first frame, and the stage chart (self.chart), held through
        it, is drawn at its final size only (fitted a turn later, the first frame was laid out and painted at the docks'
        first widths, and the chart drawn four times: at those, after its axis grew, at the fitted size, and once more
        as the Nd chart came)."""
        if not (visible and self._fit_docks_on_show):
            super().setVisible(visible)
            return
        self._fit_docks_on_show = False
        self._place_glossary()  # before the show: a dock tabbed while shown has its tab bar shown a turn later
        with drawing_held(self.chart):
            super().setVisible(True)
            self.fit_docks()
            self.layout().activate()

    keep_layout = True  # False: this run's size came from --size, and is not the user's to keep

    def save_layout(self) -> None:
        if not self._persist or not self.keep_layout:
            return
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.sync()
