"""A scroll area that fits its widget to the viewport and scrolls only below the widget's minimum.

QScrollArea's resizable mode sizes a widget with word-wrapped labels by its preferred height for the
width, which for a panel of charts is far taller than the window; this one gives it the viewport's
height, or the panel's minimum where the window is smaller, so texts never squeeze over the charts.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QWidget


class FitScrollArea(QScrollArea):
    def __init__(self, widget: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(widget)
        self._fit_pending = False

    def fit_soon(self) -> None:
        """Fit once the texts that asked for it are all set: an edit that changes several texts (each says so) costs
        one fit, after them and before the frame is painted. It is a layout request: a view that settles its layout
        before it paints (base.layout_now) fits here too, as the posted events run ahead of the paint otherwise.
        Fitting asks the word-wrapped rich-text labels for their height at a width, which lays their text out again
        and repaints them: after the frame's paint that painted the captions twice per edit."""
        if not self._fit_pending:
            self._fit_pending = True
            QCoreApplication.postEvent(self, QEvent(QEvent.Type.LayoutRequest))

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest and self._fit_pending:
            self._fit_pending = False
            self.fit()
        return super().event(event)

    def fit(self) -> None:
        widget = self.widget()
        if widget is None:
            return
        width = self.width() - 2 * self.frameWidth()  # the viewport's width without a scroll bar, shown or not
        room = self.height() - 2 * self.frameWidth()
        least = self._least_height(widget, width)
        if least > room:  # the scroll bar takes room: the texts wrap at the narrower width and need more height
            width = max(1, width - self.verticalScrollBar().sizeHint().width())
            least = self._least_height(widget, width)
        widget.resize(width, max(room, least))

    @staticmethod
    def _least_height(widget: QWidget, width: int) -> int:
        layout = widget.layout()
        least = layout.minimumHeightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        return max(least, widget.minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()
        # the panel's wrapped texts answer for the new width once its layout has run: fit again then
        QTimer.singleShot(0, self, self.fit)

