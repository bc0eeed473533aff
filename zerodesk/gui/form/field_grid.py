"""Short fields two to a row, each with its label beside it, or above it when the row would not fit.

The architecture's fields sit two to a row. In English a label and its field fit twice in a narrow
dock; Russian labels ("Нормализация", "Размер головы") do not, and a fixed grid was clipped at the
dock's edge. So the grid measures what side-by-side needs and, when its width is less, puts each
label above its field: as many rows of fields, twice the lines, nothing cut off.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

SPACING = 6
HYSTERESIS = 8  # px: a width right at the threshold does not flip the layout back and forth


class FieldGrid(QWidget):
    """Cells of (label, field, error line), two per row; `footer` widgets span the whole width below."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(SPACING)
        self._grid.setVerticalSpacing(1)
        self._cells: list[tuple[int, int, QLabel, QWidget, QLabel]] = []
        self._footer: list[QWidget] = []
        self.stacked = False

    def add_cell(self, row: int, col: int, label: QLabel, field: QWidget, error: QLabel) -> None:
        self._cells.append((row, col, label, field, error))

    def add_footer(self, widget: QWidget) -> None:
        self._footer.append(widget)

    def arrange(self, stacked: bool | None = None) -> None:
        """Place every cell: label beside its field, or (stacked) above it."""
        self.stacked = self.stacked if stacked is None else stacked
        g = self._grid
        for _, _, label, field, error in self._cells:
            for w in (label, field, error):
                g.removeWidget(w)
        for w in self._footer:
            g.removeWidget(w)
        per_row = 3 if self.stacked else 2  # grid lines per row of cells
        for row, col, label, field, error in self._cells:
            if self.stacked:
                g.addWidget(label, row * per_row, col)
                g.addWidget(field, row * per_row + 1, col)
                g.addWidget(error, row * per_row + 2, col)
            else:
                g.addWidget(label, row * per_row, col * 2)
                g.addWidget(field, row * per_row, col * 2 + 1)
                g.addWidget(error, row * per_row + 1, col * 2, 1, 2)
        below = (max((r for r, *_ in self._cells), default=-1) + 1) * per_row
        for i, w in enumerate(self._footer):
            g.addWidget(w, below + i, 0, 1, 2 if self.stacked else 4)
        for c, stretch in enumerate((1, 1, 0, 0) if self.stacked else (0, 1, 0, 1)):  # the fields take the room
            g.setColumnStretch(c, stretch)

    def side_by_side_width(self) -> int:
        """The narrowest width at which every label fits beside its field."""
        columns = [0, 0, 0, 0]
        for _, col, label, field, _ in self._cells:
            if label.isHidden() and field.isHidden():
                continue
            columns[col * 2] = max(columns[col * 2], label.sizeHint().width())
            columns[col * 2 + 1] = max(columns[col * 2 + 1], field.minimumSizeHint().width())
        return sum(columns) + SPACING * 3

    def fit(self, width: int) -> None:
        """Choose the layout for `width`."""
        need = self.side_by_side_width()
        stacked = width < need if not self.stacked else width < need + HYSTERESIS
        if stacked != self.stacked:
            self.arrange(stacked)

    def sizeHint(self) -> QSize:
        """Preferred: room for labels beside their fields (a dock sized from hints keeps it); the minimum
        stays the stacked one, so a narrow dock stacks instead of clipping."""
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.side_by_side_width()), hint.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit(event.size().width())
