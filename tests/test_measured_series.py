"""The Plan chart's simulated/measured series, decided without Qt: placement, colours, replacement, difference."""

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.plan import Plan
from zerodesk.gui.charts.run_markers import MEASURE_X, SERIES_STEP, Measured, MeasuredSeries
from zerodesk.gui.base.style import SERIES_COLORS, TIER_COLORS


def test_one_step_per_stage_and_series_in_arrival_order():
    s = MeasuredSeries()
    assert not s and s.right_edge() == 3.5
    s.put(Measured("run A", 2, 100, 80))
    s.put(Measured("sim B", 1, 90, 70, kind="simulated"))
    s.put(Measured("run A", 2, 120, 85))  # the same stage and series: replaced, not added
    assert [(m.label, m.stage, m.peak_bytes) for m in s] == [("sim B", 1, 90), ("run A", 2, 120)]
    assert s.labels() == ["sim B", "run A"]  # the order series first came in, after the replacement
    assert s.marker_x(next(m for m in s if m.label == "run A")) == pytest.approx(2 + MEASURE_X + SERIES_STEP)
    assert s.right_edge() == pytest.approx(3 + MEASURE_X + 2 * SERIES_STEP + 0.2)
    with pytest.raises(ValueError, match="stage must be 0-3"):
        s.put(Measured("x", 4, 1, 1))


def test_each_tier_keeps_its_colour_and_a_second_series_of_a_tier_gets_another():
    s = MeasuredSeries()
    s.put(Measured("measured 1", 0, 1, 1))
    s.put(Measured("simulated", 0, 1, 1, kind="simulated"))
    s.put(Measured("measured 2", 0, 1, 1))
    assert s.color("measured 1") == TIER_COLORS["measured"]
    assert s.color("simulated") == TIER_COLORS["simulated"]
    third = s.color("measured 2")  # neither tier's colour: a second measured series is not read as simulated
    assert third in SERIES_COLORS and third not in (TIER_COLORS["measured"], TIER_COLORS["simulated"])
    s.clear("measured 1")
    assert s.labels() == ["simulated", "measured 2"] and s.color("measured 2") == TIER_COLORS["measured"]
    s.clear()
    assert not s


def test_difference_is_against_the_torch_reference_when_known_else_the_bar():
    plan = Plan(model={"params": 2_000_000_000}, cluster={"nodes": 1, "gpus_per_node": 4})
    b = compute(plan)
    bar = b.stage(3).total_bytes  # 8 GB: the card's stage 3
    assert bar == 8_000_000_000
    m = Measured("run", 3, 9_000_000_000, 8_160_000_000)
    assert MeasuredSeries.difference(m, b) == pytest.approx(2.0)
    with_ref = Measured("run", 3, 9_000_000_000, 8_160_000_000, reference_bytes=8_160_000_000)
    assert MeasuredSeries.difference(with_ref, b) == pytest.approx(0.0)
    assert MeasuredSeries.difference(Measured("run", 3, 1, None), b) is None
    assert MeasuredSeries.difference(m, None) is None
