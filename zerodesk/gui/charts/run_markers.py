"""What the Plan chart shows beside its bars: simulated and measured steps, by series (Qt-free).

The chart draws these; this decides which series exist, where each marker sits, its colour and what
its states are compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.accounting import STAGES, Breakdown
from ...measure.rules import difference_pct
from ..base.style import SERIES_COLORS, TIER_COLORS

BAR_WIDTH = 0.6  # a stage's bar, in data units (the chart draws it; markers sit beside it)
MEASURE_X = BAR_WIDTH / 2 + 0.1  # first marker's offset right of its stage's bar centre
SERIES_STEP = 0.1  # each further series one step further right


@dataclass
class Measured:
    label: str
    stage: int
    peak_bytes: int
    states_bytes: int | None
    kind: str = "measured"  # or "simulated": its own marker shape and colour
    reference_bytes: int | None = None  # the torch profile's states for the same run; % compares with it


class MeasuredSeries:
    """Steps by (stage, series label); a series keeps its place and colour in the order it first came."""

    def __init__(self) -> None:
        self._items: list[Measured] = []
        self.step = SERIES_STEP  # between two series' markers, in data units (the chart widens it to its notes)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __iter__(self):
        return iter(list(self._items))

    def put(self, m: Measured) -> None:
        """Add a step; one per stage and series, so a second one for the same pair replaces it."""
        if m.stage not in STAGES:
            raise ValueError(f"stage must be 0-3, not {m.stage}")
        self._items = [x for x in self._items if not (x.stage == m.stage and x.label == m.label)]
        self._items.append(m)

    def clear(self, label: str | None = None) -> None:
        """Drop one series, or all of them."""
        self._items = [m for m in self._items if label is not None and m.label != label]

    def labels(self) -> list[str]:
        seen: list[str] = []
        for m in self._items:
            if m.label not in seen:
                seen.append(m.label)
        return seen

    def kind(self, label: str) -> str:
        return next(m.kind for m in self._items if m.label == label)

    def color(self, label: str) -> str:
        """A series' colour: its tier's for the first series of a tier; a later one takes the first colour
        no earlier series has, so two series never share a colour while the palette lasts."""
        taken: list[str] = []
        for other in self.labels():
            tier = TIER_COLORS.get(self.kind(other))
            if tier is None or tier in taken:
                free = [c for c in SERIES_COLORS if c not in taken and c not in TIER_COLORS.values()]
                tier = free[0] if free else SERIES_COLORS[len(taken) % len(SERIES_COLORS)]
            if other == label:
                return tier
            taken.append(tier)
        raise KeyError(label)

    def marker_x(self, m: Measured) -> float:
        return m.stage + MEASURE_X + self.step * self.labels().index(m.label)

    def right_edge(self) -> float:
        """Where the x axis should end so every series' markers show."""
        return 3 + MEASURE_X + self.step * len(self.labels()) + 0.2 if self._items else 3.5

    @staticmethod
    def difference(m: Measured, breakdown: Breakdown | None) -> float | None:
        """(states - reference) / reference in %: the torch profile's prediction when known, else the bar; or None."""
        if m.states_bytes is None:
            return None
        if m.reference_bytes is not None:
            reference = m.reference_bytes
        elif breakdown is not None:
            reference = breakdown.stage(m.stage).total_bytes
        else:
            return None
        return difference_pct(m.states_bytes, reference) if reference else None
