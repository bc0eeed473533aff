"""A scroll area that fits its widget to the viewport and scrolls only below the widget's minimum.

QScrollArea's resizable mode sizes a widget with word-wrapped labels by its preferred height for the
width, which for a panel of charts is far taller than the window; this one gives it the viewport's
height, or the panel's minimum where the window is smaller, so texts never squeeze over the charts.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QWidget


class FitScrollArea(QScrollArea):
    def __init__(self, widget: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(widget)

    def fit(self) -> None:
        widget = self.widget()
        if widget is None:
            return
        # from the area's own size (no frame, no horizontal bar), not its viewport's: the viewport narrows
        # while the vertical bar shows, so fitting to it would fit (and redraw the charts) once more each
        # time the bar comes or goes
        width, height = self.width(), self.height()
        layout = widget.layout()
        least = layout.minimumHeightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        least = max(least, widget.minimumSizeHint().height())
        if least > height:  # the scroll bar takes room: fit the narrower width
            width = max(1, width - self.verticalScrollBar().sizeHint().width())
        widget.resize(width, max(height, least))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

