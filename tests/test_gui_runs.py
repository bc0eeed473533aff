"""Simulate and measure in the window, without torch: the real tab, controller and chart, a fake child process.

The Measure tab's "Python with torch" is a small script that plays a scripted protocol stream
(tests/fake_worker.py), so every ending a real run can have is reproduced byte for byte and in
time: a last line without newline, a child that lingers after Done, one that survives SIGKILL, a
crash, and plan or language switches in the middle of a run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from zerodesk.core.architecture_tensors import tensor_shapes
from zerodesk.core.evidence import run_key
from zerodesk.core.plan import Plan, Profile, load_plan
from zerodesk.core.torch_profile import rank_states
from zerodesk.gui.runs import process as run_process
from zerodesk.measure import rules
from zerodesk.measure.interpreter import parse_probe, probe_argv
from zerodesk.measure.protocol import Done, PhaseMsg, Result, Started, States, encode

FAKE = Path(__file__).with_name("fake_worker.py")
TINY = Plan.model_validate({
    "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
    "seq_len": 16, "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": 2}})
RUN_MS = 20_000


def stream(plan: Plan, stages=(0, 3), ranks=2, source="measured", extra=0) -> list[str]:
    """Protocol lines of a run whose states equal the torch profile's (plus `extra` bytes on rank 0)."""
    shapes = [s for _, s in tensor_shapes(plan.model.architecture)]
    reporting = 1 if source == "simulated" else ranks
    out = [encode(Started(torch="2.13.0", device="cpu", ranks=ranks, stages=list(stages),
                          architecture=plan.model.architecture, params=plan.params, seq_len=plan.seq_len,
                          micro_batch=plan.micro_batch, source=source))]
    for s in stages:
        pred = rank_states(shapes, plan.params, s, ranks)
        out.append(encode(PhaseMsg(stage=s, rank=0, phase="forward", progress=0.5)))
        for r in range(reporting):
            p = pred[r]
            states = States(params=p["params"] + (extra if r == 0 else 0), grads=p["grads"], optimizer=p["optimizer"])
            out.append(encode(Result(
                stage=s, rank=r, peak_bytes=3 * sum(p.values()), peak={"params": p["params"]}, states=states,
                predicted_states=States(params=p["params"], grads=p["grads"], optimizer=p["optimizer"]),
                comm_buffers=p["comm_buffers"] or None, predicted_comm_buffers=p["comm_buffers"] or None,
                source=source)))
    return out


@pytest.fixture(scope="session")
def interpreter_answer(tmp_path_factory):
    """This Python's real answer to the interpreter check, asked once: without the GPU count, which imports torch
    (seconds of CPU a check). The protocol allows it (`gpus` only when asked); these tests run on the CPU."""
    path = tmp_path_factory.mktemp("interpreter") / "answer.json"
    done = subprocess.run(probe_argv(sys.executable), capture_output=True, text=True, timeout=60, check=True)
    assert parse_probe(sys.executable, done.returncode, done.stdout, done.stderr).ok, done.stdout + done.stderr
    path.write_text(done.stdout)
    return path


def fake_python_at(path: Path, check: str) -> str:
    """A script the tab takes for a Python with torch: `check` answers the interpreter check (`-I -c PROBE`),
    and a run gets tests/fake_worker.py."""
    path.write_text(f'#!/bin/sh\nif [ "$1" = "-I" ] && [ "$2" = "-c" ]; then {check}; fi\n'
                    f'exec "{sys.executable}" "{FAKE}" "$@"\n')
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def fake_python(tmp_path, interpreter_answer):
    """The check answered with this Python's recorded answer (tests not about the check itself)."""
    return fake_python_at(tmp_path / "python-with-torch", f'exec cat "{interpreter_answer}"')


@pytest.fixture
def checked_python(tmp_path):
    """The check answered by this Python itself, GPU count and all (imports torch)."""
    return fake_python_at(tmp_path / "python-with-torch", f'exec "{sys.executable}" "$@"')


def set_up(tab, fake_python) -> None:
    """CPU, stages 0 and 3, 2 ranks, the fake Python."""
    c = tab.controls
    c.device.setCurrentIndex(c.device.findData("cpu"))
    for s, box in c.stage_boxes.items():
        box.setChecked(s in (0, 3))
    c.ranks.setValue(2)
    c.python.setText(fake_python)
    c.python.editingFinished.emit()


@pytest.fixture
def tab(window, fake_python):
    """The window's Measure tab, in view, on TINY: its runs land on the Plan chart and in the plan file."""
    window.load_plan(TINY)
    t = window.measure_tab
    window.tabs.setCurrentWidget(t)
    set_up(t, fake_python)
    yield t
    if t.is_running():
        t.controller.kill_now()


@pytest.fixture
def lone_tab(model, measure_tab, fake_python):
    """The Measure tab alone with its own controller, on TINY: for what the tab and its process do by themselves."""
    model.set_plan(TINY)
    set_up(measure_tab, fake_python)
    return measure_tab


def script(tab, *steps) -> None:
    tab.extra_env = {"ZERODESK_FAKE_SCRIPT": json.dumps(list(steps))}


def run(qtbot, tab, button) -> bool:
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert tab.is_running()
    return blocker.args[0]


def test_the_last_line_without_newline_completes_the_run_and_marks_the_chart(window, tab, qtbot):
    lines = stream(TINY)
    script(tab, {"out": "\n".join(lines) + "\n" + encode(Done(wall_s=1.5))})  # Done has no newline
    assert run(qtbot, tab, tab.bar.start_button)
    assert "✓" in tab.status.text() and "Measured on CPU, 2 ranks, torch 2.13.0" in tab.status.text()
    assert [m.kind for m in window.chart.measured()] == ["measured", "measured"]
    assert {m.stage for m in window.chart.measured()} == {0, 3}
    assert all(window.chart.measured_difference(m) == 0 for m in window.chart.measured())
    rows = tab.comparison.table
    assert rows.item(3, 7).text().endswith("\n+0.00%") and rows.item(1, 7).text() == "—"
    assert tab.bar.progress.value() == 1000
    assert [tab.bar.phase_labels[s].text() for s in (0, 3)] == ["Stage 0: done ✓", "Stage 3: done ✓"]


def test_markers_compare_with_the_torch_profile_whatever_profile_the_chart_shows(window, tab, qtbot):
    script(tab, {"out": "\n".join(stream(TINY, extra=1000)) + "\n" + encode(Done()) + "\n"})
    assert run(qtbot, tab, tab.bar.start_button)
    form_plan = TINY.model_copy(update={"profile": Profile.PAPER})
    window.load_plan(form_plan)  # same run key: the evidence stays, the bars change
    assert window.chart.breakdown.profile.value == "torch"  # the Plan tab is out of sight: it catches up when shown
    window.tabs.setCurrentIndex(0)
    assert window.chart.breakdown.profile.value == "paper"
    for m in window.chart.measured():
        want = 100 * 1000 / m.reference_bytes
        assert window.chart.measured_difference(m) == pytest.approx(want)  # not vs the paper's bars


def test_after_done_a_child_that_leaves_by_itself_gets_no_signal(lone_tab, qtbot):
    script(lone_tab, {"out": "\n".join(stream(TINY)) + "\n" + encode(Done()) + "\n"}, {"sleep": 0.3})
    assert run(qtbot, lone_tab, lone_tab.bar.start_button)
    assert lone_tab.controller.process.stopped_in_s is None
    assert "Every process of the run has exited." in lone_tab.log.toPlainText()


def test_a_child_that_lingers_after_done_is_stopped_after_the_grace(lone_tab, qtbot):
    script(lone_tab, {"ignore_term": True}, {"out": "\n".join(stream(TINY)) + "\n" + encode(Done()) + "\n"}, {"sleep": 60})
    assert run(qtbot, lone_tab, lone_tab.bar.start_button)
    proc = lone_tab.controller.process
    assert proc.stopped_in_s is not None and proc.stopped_in_s >= run_process.KILL_AFTER_S * 0.9
    assert "stopped" in lone_tab.log.toPlainText()


def test_a_process_that_survives_sigkill_is_given_up_on(lone_tab, qtbot, monkeypatch):
    monkeypatch.setattr(run_process, "group_alive", lambda pgid: True)  # as if a rank sat in uninterruptible sleep
    monkeypatch.setattr(run_process, "GIVE_UP_S", 1.5)
    script(lone_tab, {"out": stream(TINY)[0] + "\n"}, {"sleep": 60})
    with qtbot.waitSignal(lone_tab.controller.runFinished, timeout=RUN_MS):
        lone_tab.start()
        qtbot.waitUntil(lambda: lone_tab.controller.state.started is not None, timeout=RUN_MS)
        lone_tab.controller.cancel()
    assert lone_tab.controller.process.gave_up
    assert "gave up after SIGKILL" in lone_tab.log.toPlainText()
    assert lone_tab.error_text() == "The run was cancelled; every process of it was stopped."
    assert not lone_tab.is_running() and lone_tab.bar.start_button.isEnabled()


def test_a_crash_is_one_sentence_with_the_last_error_line(lone_tab, qtbot):
    script(lone_tab, {"out": stream(TINY)[0] + "\n"}, {"err": "Traceback...\nRuntimeError: rank 1 fell over\n"}, {"exit": 3})
    assert not run(qtbot, lone_tab, lone_tab.bar.start_button)
    text = lone_tab.error_text()
    assert text.startswith("The measurement stopped before finishing (exit status 3)") and "rank 1 fell over" in text
    assert lone_tab.bar.phase_labels[0].text() == "Stage 0: stopped"


def test_a_model_the_host_cannot_hold_is_refused_and_simulate_is_offered(lone_tab, monkeypatch):
    monkeypatch.setattr(rules, "host_available_bytes", lambda: 10_000)
    lone_tab.controls.ranks.setValue(3)  # any edit re-checks
    assert not lone_tab.bar.start_button.isEnabled() and lone_tab.bar.simulate_button.isEnabled()
    assert "more than this machine can spare" in lone_tab.status.text() and "for models this machine cannot hold" in \
        lone_tab.status.text()
    assert not lone_tab.start()


def test_simulate_lands_as_its_own_markers_and_is_kept_in_the_plan_file(window, tab, qtbot, tmp_path):
    script(tab, {"out": "\n".join(stream(TINY, (2, 3), source="simulated")) + "\n" + encode(Done(wall_s=4)) + "\n"})
    assert run(qtbot, tab, tab.bar.simulate_button)
    assert "Simulated rank 0 of 2 under fake tensors, torch 2.13.0" in tab.status.text()
    assert {(m.kind, m.stage) for m in window.chart.measured()} == {("simulated", 2), ("simulated", 3)}
    assert "■●" in window.chart.measured_legend_html()
    assert tab.comparison.table.item(2, 4).text() != "—" and tab.comparison.table.item(2, 5).text().endswith("\n+0.00%")
    assert "simulated · rank 0 of 2" in tab.comparison.table.horizontalHeaderItem(4).toolTip()
    assert window.is_modified()  # new evidence is a change to save

    path = tmp_path / "tiny.zerodesk.json"
    assert window.save_to(path)
    saved = load_plan(path)
    (record,) = saved.evidence
    assert (record.kind, record.torch, record.device, record.key) == ("simulated", "2.13.0", "cpu", run_key(TINY))
    assert record.date[:4].isdigit() and [s.stage for s in record.stages] == [2, 3]

    window.new_plan()
    assert window.chart.measured() == []
    assert window.open_plan_file(path, ask=False)
    assert {m.kind for m in window.chart.measured()} == {"simulated"} and not window.is_modified()


def test_evidence_is_set_aside_when_the_plan_changes_and_back_when_it_changes_back(window, tab, qtbot):
    script(tab, {"out": "\n".join(stream(TINY)) + "\n" + encode(Done()) + "\n"})
    assert run(qtbot, tab, tab.bar.start_button)
    assert len(window.chart.measured()) == 2
    window.model.load(TINY.model_copy(update={"seq_len": 32}))
    assert window.chart.measured() == []
    assert "no longer match" in window.statusBar().currentMessage()
    assert window.document_plan().evidence is None  # the file would not claim it
    window.model.load(TINY)
    assert len(window.chart.measured()) == 2 and "back on the chart" in window.statusBar().currentMessage()


def during_a_run(qtbot, tab, action) -> None:
    """Start a run that pauses a second after Started, do `action` in that pause, and wait for the run's end."""
    lines = stream(TINY)
    script(tab, {"out": lines[0] + "\n"}, {"sleep": 1.0}, {"out": "\n".join(lines[1:]) + "\n" + encode(Done()) + "\n"})
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        assert tab.start()
        qtbot.waitUntil(lambda: tab.controller.state.started is not None, timeout=RUN_MS)
        action()
        assert tab.is_running()


def test_switching_the_plan_during_a_run_keeps_its_results_with_their_own_plan(window, tab, qtbot):
    during_a_run(qtbot, tab, lambda: window.model.load(TINY.model_copy(update={"micro_batch": 4})))
    assert window.chart.measured() == []  # the run's plan is not on screen
    assert "The plan has changed since this run" in tab.status.text()
    window.model.load(TINY)
    assert len(window.chart.measured()) == 2


def test_the_interpreter_check_answering_during_a_run_leaves_its_report(lone_tab, qtbot):
    """The controls are locked while a run is under way; a change then (the interpreter check answering, the
    plan's default ranks) must not replace the run's report with what Start would do next."""
    during_a_run(qtbot, lone_tab, lone_tab.controls.changed.emit)
    assert "✓" in lone_tab.status.text() and "Measured on CPU, 2 ranks" in lone_tab.status.text()


def test_switching_the_language_during_a_run(window, tab, qtbot):
    def to_russian() -> None:
        window.set_language("ru")
        assert tab.bar.cancel_button.text() == "&Отмена" and window.tabs.tabText(2) == "Измерение"
        assert "Измерение стадии" in tab.status.text() or "Измерение…" in tab.status.text()

    during_a_run(qtbot, tab, to_russian)
    assert "✓" in tab.status.text() and "Измерено" in tab.status.text()
    assert all("измерено" in m.label for m in window.chart.measured())


def test_the_tab_waits_until_it_is_needed_and_status_keeps_the_buttons_still(window, qtbot, checked_python):
    assert window.pages.built(window._measure_slot) is None  # nothing of it was built to paint the first window
    window.tabs.setCurrentIndex(2)
    tab = window.measure_tab
    assert window.tabs.currentWidget() is tab and window.tabs.tabText(2) == "Measure"
    window.load_plan(TINY)
    tab.controls.python.setText(checked_python)  # the real check, torch and GPU count included
    tab.controls.python.editingFinished.emit()
    qtbot.waitUntil(lambda: tab.controls.interpreter_field.gpus() is not None, timeout=RUN_MS)  # counted by torch
    qtbot.wait(50)  # laid out
    y = tab.bar.cancel_button.mapTo(tab, tab.bar.cancel_button.rect().topLeft()).y()
    script(tab, {"out": stream(TINY)[0] + "\n"}, {"sleep": 60})
    tab.start()
    qtbot.waitUntil(lambda: tab.controller.state.started is not None, timeout=RUN_MS)
    qtbot.wait(50)
    assert tab.bar.cancel_button.mapTo(tab, tab.bar.cancel_button.rect().topLeft()).y() == y
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        qtbot.mouseClick(tab.bar.cancel_button, Qt.MouseButton.LeftButton)
    assert "cancelled" in tab.status.text()
    tab.controls.ranks.setValue(1)  # new settings: the estimate is back
    assert "Expect about" in tab.status.text()


def test_the_window_with_its_measure_tab_stays_torch_free():
    code = ("import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen'; import zerodesk.gui; "
            "from PySide6.QtWidgets import QApplication; app = QApplication([]); "
            "from zerodesk.gui.window.main_window import MainWindow; w = MainWindow(persist=False); w.measure_tab; "
            "assert 'torch' not in sys.modules; print('no torch')")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0 and "no torch" in out.stdout, out.stderr


def test_a_cuda_run_says_its_kernels_and_what_the_tracker_does_not_see(lone_tab, qtbot):
    lines = stream(TINY, stages=(3,))
    started = json.loads(lines[0])
    started.update(device="cuda", device_name="NVIDIA H200", optimizer_impl="fused", attention="CUDNN_ATTENTION")
    results = []
    for line in lines[1:]:
        msg = json.loads(line)
        if msg["kind"] == "result":
            msg.update(max_allocated_bytes=msg["peak_bytes"] + 67_108_864, max_reserved_bytes=msg["peak_bytes"] + 71_303_168,
                       untracked_bytes=67_108_864, device_overhead_bytes=1_389_000_000)
        results.append(json.dumps(msg))
    script(lone_tab, {"out": "\n".join([json.dumps(started), *results, encode(Done(wall_s=2))]) + "\n"})
    assert run(qtbot, lone_tab, lone_tab.bar.start_button)
    text = lone_tab.status.text()
    assert "Measured on CUDA (NVIDIA H200)" in text
    assert "AdamW kernels: fused; attention kernel: CUDNN_ATTENTION." in text
    assert "67.11 MB above the tracked peak" in text and "reserved but not allocated 4.19 MB (measured; an upper bound on fragmentation" in text
    assert "outside torch's allocator 1.39 GB" in text or "outside torch&#x27;s allocator 1.39 GB" in text
