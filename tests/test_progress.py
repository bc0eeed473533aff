"""The terminal's progress line of measure and simulate (measure/progress.py) and its time estimate (rules.py)."""

from __future__ import annotations

import io

import pytest

from zerodesk.core.plan import Plan
from zerodesk.measure import rules
from zerodesk.measure.progress import ProgressLine, fmt_seconds, time_left
from zerodesk.measure.protocol import Done, PhaseMsg, Result, Started, States
from zerodesk.measure.run_state import RunState


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def started(ranks: int = 2, stages: list[int] | None = None, device: str = "cpu") -> Started:
    return Started(torch="2.13.0", device=device, ranks=ranks, stages=stages or [0, 1], params=1000, seq_len=8,
                   micro_batch=1)


def result(stage: int, rank: int) -> Result:
    s = States(params=1, grads=1, optimizer=1)
    return Result(stage=stage, rank=rank, peak_bytes=3, peak={"params": 1}, states=s, predicted_states=s)


def last_line(stream: io.StringIO) -> str:
    return stream.getvalue().split("\r")[-1]


def test_the_line_names_stage_rank_phase_elapsed_and_time_left():
    clock, out = Clock(), io.StringIO()
    asked = []
    line = ProgressLine(RunState([0, 1], 2), lambda device: asked.append(device) or 40.0, out, clock=clock)
    try:
        assert "starting the ranks" in last_line(out) and "about 40 s left" in last_line(out)
        clock.now += 5
        line.apply(started())
        assert asked == [None, "cpu"]  # asked again once the run says its device
        line.apply(PhaseMsg(stage=0, rank=0, phase="setup", progress=0.0))
        clock.now += 5
        line.apply(PhaseMsg(stage=0, rank=0, phase="backward", progress=0.5))
        text = last_line(out)
        assert "stage 0 (1 of 2), rank 0 of 2: backward" in text, text
        assert "10 s elapsed" in text and "left" in text
        for rank in (0, 1):
            line.apply(result(0, rank))
        line.apply(PhaseMsg(stage=1, rank=0, phase="warmup", progress=0.0))
        assert "stage 1 (2 of 2), rank 0 of 2: warmup" in last_line(out)
        assert " 55%|" in last_line(out)  # stage 0 done, stage 1 past its set-up (10%)
    finally:
        line.close()
    assert out.getvalue().endswith("\r") or out.getvalue().rstrip(" ").endswith("\r")  # the line is erased


def test_a_simulation_says_rank_0_of_its_nd():
    out = io.StringIO()
    line = ProgressLine(RunState([3], 64, kind="simulated"), lambda _d: 10.0, out, clock=Clock())
    try:
        line.apply(started(ranks=64, stages=[3]).model_copy(update={"source": "simulated"}))
        line.apply(PhaseMsg(stage=3, rank=0, phase="forward", progress=0.2))
        assert "stage 3 (1 of 1), rank 0 of 64 (simulated): forward" in last_line(out)
        line.apply(result(3, 0))
        line.apply(Done(wall_s=1.0))
    finally:
        line.close()


def test_time_left_moves_from_the_estimate_to_the_run_s_own_pace():
    assert time_left(60, 0, 0.0, None) == 60  # nothing known yet: the estimate
    assert time_left(60, 10, 0.0, 8.0) == 50
    # half done after 20 s of stages that began at 10 s: the pace says 40 s in all; halfway between both
    assert time_left(60, 30, 0.5, 10.0) == pytest.approx(0.5 * 60 + 0.5 * 50 - 30)
    # an estimate below the start-up already seen falls short of the elapsed time: the pace alone then
    assert time_left(5, 30, 0.5, 10.0) == pytest.approx(10 + 20 / 0.5 - 30)
    assert time_left(10, 300, 0.1, 1.0) == pytest.approx(0.9 * 10 + 0.1 * (1 + 299 / 0.1) - 300)  # still the blend
    assert time_left(10, 30, 0.0, None) is None  # overrun, and nothing to go on


def test_fmt_seconds_reads_as_a_person_says_it():
    assert fmt_seconds(0.4) == "0 s" and fmt_seconds(8.4) == "8 s" and fmt_seconds(89) == "89 s"
    assert fmt_seconds(95) == "1 min 35 s" and fmt_seconds(1500) == "25 min"
    assert fmt_seconds(3700) == "1 h 2 min"


def test_the_estimate_grows_with_parameters_tokens_stages_and_a_busy_machine(monkeypatch):
    small = Plan.model_validate({"model": {"architecture": {"layers": 1, "hidden": 64, "heads": 4, "ffn": 128,
                                                            "vocab": 256}}, "seq_len": 32})
    big = small.model_copy(update={"model": small.model.model_copy(update={"architecture": small.model.architecture
                                                                          .model_copy(update={"vocab": 50_000})})})
    big = Plan.model_validate(big.model_dump())
    monkeypatch.setattr(rules.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(rules.os, "cpu_count", lambda: 2)
    quick = rules.measure_seconds(small, 4, 2, "cpu")
    assert rules.START_S["cpu"] < quick < rules.START_S["cpu"] + 4 * 1.0
    assert rules.measure_seconds(big, 4, 2, "cpu") > quick
    assert rules.measure_seconds(small, 2, 2, "cpu") < quick
    longer = Plan.model_validate({**small.model_dump(), "seq_len": 4096})
    assert rules.measure_seconds(longer, 4, 2, "cpu") > quick
    assert rules.measure_seconds(small, 4, 4, "cpu") > quick  # 4 ranks on 2 cores
    monkeypatch.setattr(rules.os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    assert rules.measure_seconds(small, 4, 2, "cpu") == pytest.approx(
        rules.START_S["cpu"] * 3.5 + (quick - rules.START_S["cpu"]) * 4)  # (1 + 6) / 2 and (2 + 6) / 2
    assert rules.measure_seconds(small, 4, 2, "cuda") < rules.measure_seconds(big, 4, 2, "cuda")
