"""The stage chart under the mouse: which state segment, peak layer or run marker a point is on, the
hover text that says what it holds, and the click that asks for the claim it rests on."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt

from ...core.accounting import STAGES
from ...core.units import UNIT_BYTES
from . import stage_texts as texts
from .run_markers import BAR_WIDTH
from .tools import widget_rect_of

PEAK_KEY = "predicted_peak"  # the hatched layer's key in hover and click signals


class SegmentHits:
    """Hit-testing and hover of one StageChart (its breakdown, predicted peaks, value axis and run markers)."""

    def __init__(self, chart) -> None:
        self.chart = chart
        self.hovered: tuple[int, str] | None = None  # (stage, component key or PEAK_KEY) under the mouse
        self.text = ""  # what the tooltip says about it
        chart.scene().sigMouseMoved.connect(self._on_mouse_moved)
        chart.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    # -- geometry, in data coordinates -----------------------------------------------------------
    def spans(self, stage: int) -> dict[str, tuple[float, float]]:
        """Each component's (bottom, top) as drawn."""
        chart = self.chart
        scale = UNIT_BYTES[chart.unit]
        out, bottom = {}, 0.0
        for key, nbytes in chart.breakdown.stage(stage).components.items():
            top = bottom + nbytes / scale
            out[key] = (chart._ty(bottom), chart._ty(top))
            bottom = top
        return out

    def peak_span(self, stage: int) -> tuple[float, float]:
        """The hatched layer's (bottom, top): from the states' top to the predicted peak."""
        low = max((high for _, high in self.spans(stage).values()), default=0.0)
        return low, self.chart._ty(self.chart.peaks[stage].total_bytes / UNIT_BYTES[self.chart.unit])

    def segment_at(self, x: float, y: float) -> tuple[int, str] | None:
        """The (stage, component) under a point in data coordinates, or None."""
        chart = self.chart
        if chart.breakdown is None:
            return None
        stage = round(x)
        if stage not in STAGES or abs(x - stage) > BAR_WIDTH / 2:
            return None
        for key, (low, high) in self.spans(stage).items():
            if low <= y <= high and high > low:
                return stage, key
        if chart.peaks:
            low, high = self.peak_span(stage)
            if low < y <= high:
                return stage, PEAK_KEY
        return None

    def center(self, stage: int, key: str) -> QPointF:
        """Data coordinates of a segment's middle (tests click there)."""
        low, high = self.spans(stage)[key]
        return QPointF(stage, (low + high) / 2)

    def widget_pos(self, stage: int, key: str):
        """Widget (viewport) coordinates of a segment's middle."""
        scene_pos = self.chart.getPlotItem().vb.mapViewToScene(self.center(stage, key))
        return self.chart.mapFromScene(scene_pos)

    def segment_text(self, stage: int, key: str) -> str:
        """The hover text: component, bytes in the unit and exactly, its formula, where it comes from;
        or, on the peak layer, the predicted peak, its phase and what fills memory then."""
        chart = self.chart
        if key == PEAK_KEY:
            return texts.peak_text(chart.peaks[stage], stage, chart.unit, chart.plan.cluster.gpu_memory_bytes)
        return texts.segment_text(chart.breakdown, stage, key, chart.specs.get(key), chart.unit)

    def _from_scene(self, scene_pos) -> tuple[int, str] | None:
        vb = self.chart.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        return self.segment_at(p.x(), p.y())

    # -- the mouse -----------------------------------------------------------------------------------
    def _on_mouse_moved(self, scene_pos) -> None:
        chart = self.chart
        m = chart.runs.at(scene_pos) if chart.runs else None
        if m is not None:
            self.hovered = None
            self.text = chart.runs.text(m)
            chart.tip.show(self.text)
            return
        hit = self._from_scene(scene_pos)
        if hit == self.hovered:
            return
        self.hovered = hit
        if hit is None:
            self.text = ""
            chart.setCursor(Qt.CursorShape.ArrowCursor)
            chart.tip.show("")
            return
        stage, key = hit
        self.text = self.segment_text(stage, key)
        chart.setCursor(Qt.CursorShape.PointingHandCursor)
        low, high = self.peak_span(stage) if key == PEAK_KEY else self.spans(stage)[key]
        chart.tip.show(self.text, widget_rect_of(chart, stage - BAR_WIDTH / 2, low, stage + BAR_WIDTH / 2, high))
        if key != PEAK_KEY:  # listeners read the hovered state's bytes from the breakdown
            chart.segmentHovered.emit(stage, key)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._from_scene(event.scenePos())
        if hit is not None:
            event.accept()
            self.chart.segmentClicked.emit(*hit)
