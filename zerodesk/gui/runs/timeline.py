"""Live memory of each rank through the measured step: one curve per (stage, rank), bytes against seconds."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer

from ...measure.protocol import Sample
from ...measure.rules import UNIT_BYTES, table_unit
from ..charts.grid import apply_axis_palette
from ..base.style import stage_color
from .fmt import unit_text

RANK_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)


class TimelineChart(pg.PlotWidget):
    """Live memory of each rank through the measured step: one curve per (stage, rank), bytes vs seconds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measureTimeline")
        self.family = "GB"
        self.unit = "B"
        self.stopped_empty = False  # a run ended before any sample: say so instead of the invitation
        self.simulated = False  # the run was a simulation: it has no timeline to draw
        self.data: dict[tuple[int, int], tuple[list[float], list[int]]] = {}
        self._curves: dict[tuple[int, int], pg.PlotDataItem] = {}
        self._dirty = False
        pi = self.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        pi.showGrid(x=True, y=True, alpha=0.25)
        for name in ("left", "bottom"):
            pi.getAxis(name).enableAutoSIPrefix(False)
        self.setMouseEnabled(x=False, y=False)
        self.legend = pi.addLegend(offset=(-10, 10), labelTextSize="8pt")
        self.empty = pg.TextItem("", anchor=(0.5, 0.5))
        self.addItem(self.empty)
        self._timer = QTimer(self)
        self._timer.setInterval(100)  # redraw at most 10 times a second, whatever the sample rate
        self._timer.timeout.connect(self._redraw)
        self._apply_palette()
        self.clear_data()
        self.retranslate()

    def _apply_palette(self) -> None:
        base, text = apply_axis_palette(self)
        self.empty.setColor(text)
        self.legend.setLabelTextColor(text)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "empty"):
            self._apply_palette()
        elif event.type() == QEvent.Type.LanguageChange and hasattr(self, "empty"):
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        pi = self.getPlotItem()
        pi.setLabel("bottom", QCoreApplication.translate("Timeline", "Time since the measured step began, s"))
        pi.setLabel("left", QCoreApplication.translate("Timeline", "Rank memory, {unit}").format(unit=unit_text(self.unit)))
        if self.stopped_empty and self.simulated:
            text = QCoreApplication.translate("Timeline", "A simulation draws no timeline: it records each phase's peak under "
                                                          "fake tensors, not memory over time. Measure draws one here.")
        elif self.stopped_empty:
            text = QCoreApplication.translate("Timeline", "No memory samples arrived before the run stopped.")
        else:
            text = QCoreApplication.translate("Timeline", "The memory of each rank through the measured step is drawn here during a run.")
        self.empty.setText(text)
        self._wrap_empty()
        for (stage, rank), curve in self._curves.items():
            self.legend.removeItem(curve)
            self.legend.addItem(curve, self._curve_name(stage, rank))

    def _wrap_empty(self) -> None:
        """The note wraps to the plot's width (one long line ran past both sides of a narrow chart)."""
        self.empty.setTextWidth(max(120.0, self.getPlotItem().vb.width() * 0.9))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if hasattr(self, "empty"):
            self._wrap_empty()

    @staticmethod
    def _curve_name(stage: int, rank: int) -> str:
        return QCoreApplication.translate("Timeline", "stage {s} · rank {r}").format(s=stage, r=rank)

    def clear_data(self) -> None:
        for curve in self._curves.values():
            self.removeItem(curve)
        self.legend.clear()
        self._curves.clear()
        self.data.clear()
        self.unit = self.family  # until samples arrive: the plan's unit
        self.stopped_empty = self.simulated = False
        self.empty.show()
        self.empty.setPos(0.5, 0.5)
        self.getPlotItem().vb.disableAutoRange()
        self.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.getPlotItem().getAxis("left").setStyle(showValues=False)
        self.getPlotItem().getAxis("bottom").setStyle(showValues=False)
        self.retranslate()

    def add(self, msg: Sample) -> None:
        xs, ys = self.data.setdefault((msg.stage, msg.rank), ([], []))
        xs.append(msg.t)
        ys.append(msg.bytes)
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Draw what has arrived (the timer does this; tests and the end of a run call it directly)."""
        self._dirty = True
        self._redraw()

    def stop(self, simulated: bool = False) -> None:
        """The run ended; `simulated`: it was a simulation, which sends no samples (nothing went wrong)."""
        self._timer.stop()
        self.flush()
        if not self.data and not self.stopped_empty:
            self.stopped_empty, self.simulated = True, simulated
            self.retranslate()

    def _redraw(self) -> None:
        if not self._dirty or not self.data:
            return
        self._dirty = False
        largest = max(max(ys) for _, ys in self.data.values())
        unit = table_unit(largest, self.family)
        if unit != self.unit:
            self.unit = unit
            self.retranslate()
        scale = UNIT_BYTES[unit]
        if self.empty.isVisible():
            self.empty.hide()
            for name in ("left", "bottom"):
                self.getPlotItem().getAxis(name).setStyle(showValues=True)
        for key in sorted(self.data):
            xs, ys = self.data[key]
            curve = self._curves.get(key)
            if curve is None:
                stage, rank = key
                pen = pg.mkPen(stage_color(stage), width=2, style=RANK_STYLES[rank % len(RANK_STYLES)])
                curve = self.plot([], [], pen=pen, name=self._curve_name(stage, rank))
                self._curves[key] = curve
            curve.setData(xs, [y / scale for y in ys])
        right = max(max(xs) for xs, _ in self.data.values())
        self.setRange(xRange=(0, right or 1.0), yRange=(0, largest / scale * 1.08 or 1.0), padding=0.02)  # from zero

    def curve_keys(self) -> list[tuple[int, int]]:
        return sorted(self._curves)
