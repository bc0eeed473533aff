"""The Qt-free run model: ProtocolReader, RunState, the shared measure rules, and the CLI runner on a fake child.

No torch: every message stream is scripted, byte for byte.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from zerodesk.core.plan import Architecture, Plan
from zerodesk.measure import rules
from zerodesk.measure.protocol import Done, Error, PhaseMsg, Result, Sample, Started, States, encode
from zerodesk.measure.reader import MAX_LINE_BYTES, ProtocolReader
from zerodesk.measure.run_state import RunState
from zerodesk.measure.runner import MeasureRun

FAKE = str(Path(__file__).with_name("fake_worker.py"))
ARCH = Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab=256)
TINY = Plan.model_validate({"model": {"architecture": ARCH.model_dump()}, "seq_len": 16, "micro_batch": 1,
                            "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": 2}})


def started(ranks=2, stages=(0, 3), source="measured") -> Started:
    return Started(torch="2.13.0", device="cpu", ranks=ranks, stages=list(stages), architecture=ARCH, params=1000,
                   seq_len=16, micro_batch=1, source=source)


def result(stage: int, rank: int, total: int = 300, predicted: int = 300, source="measured") -> Result:
    third = total // 3
    return Result(stage=stage, rank=rank, peak_bytes=total * 2, peak={"params": third},
                  states=States(params=third, grads=third, optimizer=total - 2 * third),
                  predicted_states=States(params=predicted // 3, grads=predicted // 3,
                                          optimizer=predicted - 2 * (predicted // 3)), source=source)


def lines(*msgs) -> bytes:
    return b"".join(encode(m).encode() + b"\n" for m in msgs)


# -- ProtocolReader --------------------------------------------------------------------------------------
def test_reader_splits_lines_across_any_chunking():
    data = lines(started(), PhaseMsg(stage=0, rank=0, phase="forward", progress=0.5), result(0, 0), Done(wall_s=1.0))
    for size in (1, 2, 7, 64, len(data)):
        reader, got = ProtocolReader(), []
        for i in range(0, len(data), size):
            got += reader.feed(data[i:i + size])
        assert [m.kind for m in got] == ["started", "phase", "result", "done"]
        assert isinstance(reader.outcome, Done) and reader.pending == 0


def test_reader_first_outcome_wins_and_the_rest_is_ignored():
    reader = ProtocolReader()
    got = reader.feed(lines(Error(code="out_of_memory", message="rank 1 ran out"), Done(), result(0, 0)))
    assert [m.kind for m in got] == ["error"] and reader.outcome.code == "out_of_memory"
    assert reader.feed(lines(Done())) == [] and reader.finish() == []


def test_reader_takes_a_last_line_without_newline_only_at_finish():
    reader = ProtocolReader()
    data = lines(started()) + encode(Done(wall_s=2.0)).encode()
    assert [m.kind for m in reader.feed(data)] == ["started"]
    assert reader.outcome is None and reader.pending > 0
    assert [m.kind for m in reader.finish()] == ["done"] and reader.outcome.wall_s == 2.0


def test_reader_garbage_becomes_one_internal_error():
    reader = ProtocolReader()
    got = reader.feed(b"\n  \nTraceback (most recent call last):\n" + lines(Done()))
    assert len(got) == 1 and got[0].code == "internal" and "not JSON" in got[0].message


def test_reader_is_linear_on_a_huge_line_without_newline():
    reader = ProtocolReader()
    chunk = b"x" * (1 << 16)
    t0 = time.process_time()  # CPU: the work itself, whatever else the machine runs
    got = []
    for _ in range(60 * 16):  # 60 MiB in 64 KiB reads, as a pipe delivers it
        got += reader.feed(chunk)
    elapsed = time.process_time() - t0
    assert len(got) == 1 and got[0].code == "internal" and f"{MAX_LINE_BYTES // 2**20} MiB" in got[0].message
    assert elapsed < 1.0, elapsed  # quadratic rescanning took minutes


def test_reader_long_valid_line_fed_bytewise_is_linear():
    big = result(0, 0).model_copy(update={"peak": {f"k{i}": i for i in range(20_000)}})
    data = lines(big)
    reader = ProtocolReader()
    t0 = time.perf_counter()
    got = [m for i in range(0, len(data), 16) for m in reader.feed(data[i:i + 16])]
    assert len(data) > 250_000 and [m.kind for m in got] == ["result"] and len(got[0].peak) == 20_000
    assert time.perf_counter() - t0 < 2.0


# -- RunState --------------------------------------------------------------------------------------------
def test_run_state_phases_progress_and_results():
    st = RunState([0, 3], 2)
    assert st.progress == 0 and st.stage_status(0).state == "waiting"
    st.apply(started())
    st.apply(PhaseMsg(stage=0, rank=0, phase="warmup", progress=0.5))
    assert st.current_stage() == 0 and st.stage_status(0).phase == "warmup"
    assert st.progress == pytest.approx((0.1 + 0.35 * 0.5) / 2)
    st.apply(result(0, 0))
    assert st.stage_status(0).state == "running"  # one of two ranks
    st.apply(result(0, 1))
    assert st.stage_status(0).state == "done" and st.progress == pytest.approx(0.5)
    assert not st.apply(PhaseMsg(stage=0, rank=1, phase="optimizer", progress=1.0))  # late phase of a done stage
    st.apply(PhaseMsg(stage=3, rank=0, phase="backward", progress=0.0))
    st.apply(Sample(stage=3, rank=0, t=0.1, bytes=10))
    assert st.current_stage() == 3 and st.samples == 1
    st.apply(result(3, 0)), st.apply(result(3, 1)), st.apply(Done(wall_s=3.0))
    assert st.succeeded and st.progress == 1.0 and [(r.stage, r.rank) for r in st.sorted_results()] == [
        (0, 0), (0, 1), (3, 0), (3, 1)]
    assert not st.apply(result(3, 1, total=1))  # nothing after the outcome


def test_run_state_error_stops_unfinished_stages():
    st = RunState([0, 3], 2)
    for m in (started(), result(0, 0), result(0, 1), PhaseMsg(stage=3, rank=0, phase="forward", progress=0.2),
              Error(code="cancelled", message="the measurement was cancelled")):
        st.apply(m)
    assert st.stage_status(0).state == "done" and st.stage_status(3).state == "stopped"
    assert not st.succeeded and st.error.code == "cancelled"


def test_run_state_simulation_expects_rank_zero_only():
    st = RunState([2, 3], 64, kind="simulated")
    st.apply(started(ranks=64, stages=(2, 3), source="simulated"))
    st.apply(result(2, 0, source="simulated"))
    assert st.stage_status(2).state == "done" and st.stage_status(3).state == "waiting"
    assert st.progress == pytest.approx(0.5)


# -- rules -----------------------------------------------------------------------------------------------
def test_unit_ladder_steps_down_within_the_family():
    assert rules.table_unit(32e9, "GB") == "GB" and rules.table_unit(5e6, "GB") == "MB"
    assert rules.table_unit(999, "GB") == "B" and rules.table_unit(2**31, "GiB") == "GiB"
    assert rules.table_unit(3 * 2**10, "GiB") == "KiB" and rules.table_unit(5e8, "GiB") == "MiB"


def test_difference_and_ranks_and_device():
    assert rules.difference_pct(125, 100) == 25.0 and rules.difference_pct(0, 0) == 0.0
    assert rules.difference_pct(5, 0) is None and rules.difference_pct(89, 100) == pytest.approx(-11.0)
    assert rules.default_ranks(TINY) == 2
    assert rules.default_ranks(TINY.model_copy(update={"cluster": TINY.cluster.model_copy(
        update={"gpus_per_node": 1})})) == 1
    assert rules.resolved_device("cpu") == "cpu" and rules.resolved_device("auto") == "auto"  # the launcher decides
    assert rules.resolved_device("auto", gpus=2) == "cuda" and rules.resolved_device("auto", gpus=0) == "cpu"


def test_host_fit_refuses_cpu_runs_past_the_share_of_free_memory():
    need = 2 * max(rules.predicted_states(TINY, [0, 3], 2).values())
    assert rules.host_fit(TINY, [0, 3], 2, "cpu", free=int(need / rules.HOST_SHARE) + 10) is None
    refusal = rules.host_fit(TINY, [0, 3], 2, "cpu", free=int(need / rules.HOST_SHARE) - 10)
    assert refusal is not None and refusal.need == need and refusal.ranks == 2
    assert rules.host_fit(TINY, [0, 3], 2, "cuda", free=1) is None  # GPU ranks do not use host memory for states


def test_cli_refuses_a_model_the_host_cannot_hold(monkeypatch, capsys, tmp_path):
    from zerodesk.cli import main

    monkeypatch.setattr(rules, "host_available_bytes", lambda: 1000)
    plan = tmp_path / "tiny.zerodesk.json"
    plan.write_text(TINY.model_dump_json())
    code = main(["measure", "--plan", str(plan), "--device", "cpu"])
    err = capsys.readouterr().err
    assert code == 2 and "more than this machine can spare" in err and "Traceback" not in err


# -- the CLI runner on a fake child ---------------------------------------------------------------------
def fake(*steps) -> list[str]:
    return [sys.executable, FAKE, json.dumps(list(steps))]


def test_runner_reads_a_newline_less_last_line():
    out = lines(started(), result(0, 0), result(0, 1)).decode() + encode(Done(wall_s=0.5))
    msgs = list(MeasureRun(fake({"out": out})))
    assert [m.kind for m in msgs] == ["started", "result", "result", "done"]


def test_runner_quotes_stderr_when_the_child_dies_without_done():
    msgs = list(MeasureRun(fake({"out": lines(started()).decode()}, {"err": "RuntimeError: boom\n"}, {"exit": 3})))
    assert msgs[-1].code == "worker_crashed" and "exit status 3" in msgs[-1].message and "boom" in msgs[-1].message


@pytest.mark.skipif(not hasattr(os, "setsid"), reason="POSIX sessions")
@pytest.mark.parametrize("leader", ["runs on", "exits"])
def test_a_process_that_left_the_group_holding_the_output_never_holds_the_run(leader, tmp_path):
    """It keeps stdout and stderr open for 20 s: the run still ends at its timeout, or 2 s after its leader exits."""
    pid_file = tmp_path / "escaped.pid"
    last = {"sleep": 60} if leader == "runs on" else {"exit": 0}
    run = MeasureRun(fake({"out": lines(started()).decode()}, {"escape": 20, "pid_file": str(pid_file)}, last),
                     timeout=2 if leader == "runs on" else 10)
    t0 = time.monotonic()
    try:
        msgs = list(run)
        took = time.monotonic() - t0
    finally:
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text():
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
                break
            time.sleep(0.05)
    assert msgs[-1].code == ("timeout" if leader == "runs on" else "worker_crashed"), msgs[-1]
    assert took < 4.5, took  # 20 s before: closing the pipes waited for the escaped process


@pytest.mark.skipif(not hasattr(os, "setsid"), reason="POSIX sessions")
def test_a_process_still_writing_after_the_run_meets_a_closed_pipe(tmp_path):
    """Its output is neither read nor kept once the run has ended: its next write fails and it leaves."""
    pid_file = tmp_path / "escaped.pid"
    run = MeasureRun(fake({"escape": 20, "pid_file": str(pid_file), "spew": True}, {"sleep": 60}), timeout=60)
    try:
        for msg in run:  # the spew is no protocol: the run ends at once with an error
            assert msg.kind == "error"
        while not pid_file.exists() or not pid_file.read_text():
            time.sleep(0.01)
        pid = int(pid_file.read_text())
        deadline = time.monotonic() + 5
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{pid}/cmdline").exists() or not Path(f"/proc/{pid}/cmdline").read_bytes()
    finally:
        if pid_file.exists() and pid_file.read_text():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_runner_ends_on_done_and_stops_a_lingering_child():
    t0 = time.monotonic()
    msgs = list(MeasureRun(fake({"out": lines(started(), Done()).decode()}, {"ignore_term": True}, {"sleep": 30})))
    assert msgs[-1].kind == "done" and time.monotonic() - t0 < 10


# -- evidence from a run, kept per plan -------------------------------------------------------------------
def test_a_run_leaves_a_record_per_finished_stage_and_the_shelf_follows_the_plan():
    from zerodesk.core.evidence import EvidenceShelf, run_key

    st = RunState([0, 3], 2)
    assert st.to_record("k", "2026-01-01T00:00:00+00:00") is None
    for m in (started(), result(0, 0, total=300, predicted=300), result(0, 1, total=330, predicted=300),
              result(3, 0)):
        st.apply(m)
    rec = st.to_record(run_key(TINY), "2026-01-01T00:00:00+00:00")
    assert [s.stage for s in rec.stages] == [0]  # stage 3 has one of two ranks
    assert (rec.stages[0].states_bytes, rec.stages[0].predicted_bytes, rec.stages[0].peak_bytes) == (330, 300, 660)
    assert (rec.kind, rec.torch, rec.device, rec.ranks) == ("measured", "2.13.0", "cpu", 2)

    shelf = EvidenceShelf()
    shelf.set_plan(TINY)
    shelf.put(rec)
    assert shelf.shown() == [rec]
    other = TINY.model_copy(update={"seq_len": 64})
    change = shelf.set_plan(other)
    assert change.set_aside == (rec,) and shelf.shown() == []
    assert shelf.set_plan(TINY.model_copy(update={"units": "GiB"})).restored == (rec,)  # units do not matter
    assert shelf.set_plan(TINY) == type(change)()  # same key: nothing to say

    saved = TINY.model_copy(update={"evidence": [rec]})
    again = Plan.model_validate_json(saved.model_dump_json())
    assert again.evidence == [rec]
