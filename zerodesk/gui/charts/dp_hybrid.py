"""The Nd chart's hybrid-sharding curves (issue 24): the plan's shard group N kept while Nd grows, beside the flat
curves (every state among all Nd).

Drawn at Nd = N, 2N, 4N, ... (where N divides Nd), dotted, in each stage's colour with hollow markers: with HSDP a
stage's memory stops falling at N (only the replicas grow); with hpZ stage 3 keeps falling, its second parameter
shard does not. Nothing is drawn without a group smaller than Nd.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt

from ...core.accounting import STAGES, sweep_hybrid
from ...core.plan import Plan
from ..base.style import STAGE_COLORS
from .markers import MarkedCurve

HOLLOW = ("o", "s", "t", "d")


def hybrid_grid(plan: Plan, top: int) -> list[int]:
    """N, 2N, 4N, ... up to `top` (the flat grid's last Nd), for a shard group smaller than Nd; else []."""
    n = plan.cluster.shard_size
    if n >= plan.dp:
        return []
    out, nd = [], n
    while nd <= max(top, plan.dp):
        out.append(nd)
        nd *= 2
    return out


def hybrid_name(plan: Plan) -> str:
    """'HSDP, N = 8' or 'hpZ, N = 8', for the legend and the tooltips."""
    kind = "hpZ" if plan.hybrid.value == "hpz" else "HSDP"
    return QCoreApplication.translate("DpHybrid", "{kind}, N = {n}").format(kind=kind, n=plan.cluster.shard_size)


def hybrid_legend_html(plan: Plan) -> str:
    """'┄○ HSDP, N = 8 (shard group kept as Nd grows)', or '' without a group."""
    if plan.cluster.shard_size >= plan.dp:
        return ""
    return ("&nbsp;&nbsp; ┄○&nbsp;" + hybrid_name(plan) + " "
            + QCoreApplication.translate("DpHybrid", "(shard group kept as Nd grows)"))


class HybridCurves:
    """One dotted curve per stage on a DpChart; the chart asks for values and draws through `ty` (its y transform)."""

    def __init__(self, chart: pg.PlotWidget) -> None:
        self.grid: list[int] = []
        self.sweep: dict[int, list[int | None]] = {s: [] for s in STAGES}
        self._key: tuple | None = None
        self._chart = chart
        self.curves: list[MarkedCurve] = []  # made for the first plan with a group (most plans have none)

    def _make_curves(self) -> None:
        hollow = pg.mkBrush(None)  # one brush object: pyqtgraph's symbol atlas keys by identity (None made one per drawing)
        for s in STAGES:
            self.curves.append(MarkedCurve(self._chart, 4, pen=pg.mkPen(STAGE_COLORS[s], width=1.6, style=Qt.PenStyle.DotLine),
                                           symbol=HOLLOW[s], symbolSize=7, symbolBrush=hollow,
                                           symbolPen=pg.mkPen(STAGE_COLORS[s], width=1.5), connect="finite"))

    def update(self, plan: Plan, top: int) -> None:
        """Recompute when what the curves depend on changed (model, scheme, profile, group, its meaning, the grid)."""
        grid = hybrid_grid(plan, top)
        # the model by equality, not by its JSON (a long tensor list was serialised on every edit); the grid starts at
        # the group's N (and is empty without a group), so Nd alone changes nothing here
        key = (plan.model, plan.scheme, plan.profile, plan.shard_placement, plan.hybrid, tuple(grid))
        if key != self._key:
            self._key, self.grid = key, grid
            self.sweep = sweep_hybrid(plan, grid) if grid else {s: [] for s in STAGES}

    @property
    def key(self) -> tuple | None:
        """What the curves were computed for (the chart redraws them when it changes)."""
        return self._key

    def values(self) -> list[int]:
        return [v for s in STAGES for v in self.sweep[s] if v is not None]

    def draw(self, ty, scale: float) -> None:
        if not self.curves:
            if not self.grid:
                return  # nothing to draw, nothing drawn before
            self._make_curves()
        xs = [math.log2(n) for n in self.grid]
        for s in STAGES:
            ys = [ty(v / scale) if v is not None else math.nan for v in self.sweep[s]]
            self.curves[s].setData(xs, ys)

    def points(self) -> list[tuple[int, int, int]]:
        """(stage, Nd, bytes) of every drawn point, for the chart's hover."""
        return [(s, n, v) for s in STAGES for n, v in zip(self.grid, self.sweep[s]) if v is not None]
