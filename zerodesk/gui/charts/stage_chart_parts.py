"""The stage chart's answers about what it shows beside the bars: the segment under the mouse or the keyboard's
cursor (stage_hits) and the simulated and measured runs' markers (run_overlay). Mixed into StageChart, which owns
`hits`, `runs`, `_breakdown`, `_set_x_range`, `_redraw` and the `measuredChanged` signal."""

from __future__ import annotations

from .run_markers import Measured


class StageHitsMixin:
    """What is under the mouse or the keyboard's cursor (stage_hits)."""

    @property
    def hover_text(self) -> str:
        return self.hits.text

    @property
    def hovered(self) -> tuple[int, str] | None:
        return self.hits.hovered

    def segment_at(self, x: float, y: float) -> tuple[int, str] | None:
        return self.hits.segment_at(x, y)

    def segment_center(self, stage: int, key: str):
        return self.hits.center(stage, key)

    def segment_widget_pos(self, stage: int, key: str):
        return self.hits.widget_pos(stage, key)

    def segment_text(self, stage: int, key: str) -> str:
        return self.hits.segment_text(stage, key)


class StageRunsMixin:
    """Simulated and measured runs beside the bars (run_overlay; fed by the runs' records)."""

    def overlay_measured(self, stage: int, peak_bytes: int, states_bytes: int | None, label: str,
                         kind: str = "measured", reference_bytes: int | None = None) -> None:
        """Mark a measured or simulated step beside a stage's bar: states, peak, and % of the states.

        kind picks the marker (measured ▲◆, simulated ■●). reference_bytes is what the states are compared
        with: the torch profile's prediction for the run, whichever profile the bars show (the bars when None).
        One call per stage and series; a second call with the same stage and label replaces it.
        """
        self.runs.series.put(Measured(label, stage, int(peak_bytes), None if states_bytes is None else int(states_bytes),
                                      kind, None if reference_bytes is None else int(reference_bytes)))
        self._runs_changed()

    def clear_measured(self, label: str | None = None) -> None:
        self.runs.series.clear(label)
        self._runs_changed()

    def _runs_changed(self) -> None:
        self._set_x_range()
        self._redraw() if self._breakdown is not None else self._draw_runs()

    def _draw_runs(self) -> None:
        self.runs.draw()
        self.measuredChanged.emit()

    def measured(self) -> list[Measured]:
        return self.runs.markers()

    def measured_text(self, m: Measured) -> str:
        return self.runs.text(m)

    def measured_difference(self, m: Measured) -> float | None:
        return self.runs.difference(m)

    def measured_legend_html(self) -> str:
        return self.runs.legend_html()
