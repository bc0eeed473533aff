"""The Measure tab on real widgets with real gloo ranks: results, markers, cancel, failures, settings.

Every run is a real `python -m zerodesk.measure.worker.launcher` under QProcess, 2 CPU ranks, a tiny
model. Process checks walk /proc from the QProcess pid (the launcher, leader of its own
session) and require every descendant seen during the run to be gone afterwards.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer

from zerodesk.core.plan import Plan
from zerodesk.gui.runs.results import table_text

ROOT = Path(__file__).resolve().parents[1]
FAULT_ENV = "ZERODESK_MEASURE_FAULT"

# Tiny and even (no padding), planned with the torch profile on Nd = 2: a full-size run is "the plan".
TINY = Plan.model_validate({
    "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
    "seq_len": 16, "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": 2}})

RUN_TIMEOUT_MS = 90_000


def shown(label) -> str:
    """A rich-text label as the user reads it."""
    return html.unescape(re.sub(r"<br\s*/?>", "\n", re.sub(r"<(?!br)[^>]+>", "", label.text())))


def _needs_torch():
    pytest.importorskip("torch")


# -- /proc helpers ----------------------------------------------------------------------------------
def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # state ppid pgrp session ...


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in "ZX"


def descendants(root: int) -> set[int]:
    """Every live process below `root` in the process tree."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return {p for p in out if alive(p)}


def session_members(sid: int) -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and (f := _stat(int(e))) and int(f[3]) == sid
            and f[0] not in "ZX"]


class TreeWatch:
    """Polls the run's process tree every 50 ms (from the GUI thread's event loop) and keeps every pid seen."""

    def __init__(self, tab) -> None:
        self.tab, self.pids, self.leader = tab, set(), None
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    def poll(self) -> None:
        proc = self.tab.controller.process
        if proc is None or not proc.pid:
            return
        self.leader = proc.pid
        if alive(proc.pid):
            self.pids.add(proc.pid)
            self.pids |= descendants(proc.pid)

    def stop(self) -> None:
        self.timer.stop()

    def survivors(self) -> list[int]:
        return sorted(p for p in self.pids if alive(p)) + session_members(self.leader)


class Ticker:
    """A 20 ms QTimer on the GUI thread: the longest gap between ticks shows whether the window stayed responsive."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: self.times.append(time.monotonic()))
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        return max((b - a for a, b in zip(self.times, self.times[1:])), default=float("inf"))


# -- fixtures -----------------------------------------------------------------------------------------
@pytest.fixture
def tab(window, qtbot, monkeypatch, job_server):
    """The window's Measure tab on TINY, its runs forked from the session's warm worker (conftest's job_server),
    as the application's own warm worker forks them (gui/runs/warm.py): the launcher is the leader of its own
    session either way, so the process checks below hold for both starts."""
    monkeypatch.delenv(FAULT_ENV, raising=False)
    window.load_plan(TINY)
    window.runs.use_server(job_server)
    t = window.measure_tab  # the window installs its Measure tab itself
    window.tabs.setCurrentWidget(t)
    t.controls.device.setCurrentIndex(t.controls.device.findData("cpu"))
    for s, box in t.controls.stage_boxes.items():
        box.setChecked(s in (0, 3))
    yield t
    if t.is_running():  # a failed test must not leave ranks behind either
        t.controller.kill_now()
        qtbot.waitUntil(lambda: not t.is_running(), timeout=10_000)


def run_to_end(qtbot, tab) -> bool:
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        qtbot.mouseClick(tab.bar.start_button, Qt.MouseButton.LeftButton)
        assert tab.is_running()
    return blocker.args[0]


# -- a real run -----------------------------------------------------------------------------------------
def test_real_gloo_run_fills_the_tab_and_marks_the_plan_chart(window, tab, qtbot):
    _needs_torch()
    assert tab.controls.ranks.value() == 2  # min(plan Nd, 2)
    assert "Expect about" in shown(tab.status)
    watch, ticker = TreeWatch(tab), Ticker()
    ok = run_to_end(qtbot, tab)
    gap = ticker.stop()
    watch.stop()
    assert ok, tab.error_text()
    assert tab.controller.process.warm  # forked by the warm worker, whose start the GUI thread never waited for
    print(f"longest gap between 20 ms GUI ticks during the run: {gap * 1000:.0f} ms")
    assert gap < 1.0, f"the GUI thread stalled for {gap:.2f} s"

    # results in the table: every rank of stages 0 and 3, measured states == the torch profile's prediction
    assert sorted(tab.controller.state.results) == [(0, 0), (0, 1), (3, 0), (3, 1)]
    assert all(r.states == r.predicted_states for r in tab.controller.state.results.values())
    rows = table_text(tab.rank_results.table)
    assert rows[0][5].startswith("Difference") and "torch profile" in rows[0][5]
    assert [(r[0], r[1]) for r in rows[1:]] == [("0", "0"), ("0", "1"), ("3", "0"), ("3", "1")]
    assert all(r[5] == "+0.00%" for r in rows[1:])
    assert all(r[2].endswith(" MB") and r[3].endswith(" MB") for r in rows[1:])  # a tiny model: MB, as the CLI
    assert rows[1][6].count("MB") == 1 and " / " in rows[1][6] and rows[3][6] == "—"  # DDP buckets for stage 0 only
    assert "match the torch profile on every rank" in shown(tab.status)
    assert tab.bar.progress.value() == 1000
    assert all("done" in tab.bar.phase_labels[s].text() for s in (0, 3))
    assert "not measured" in tab.bar.phase_labels[1].text()

    # markers on the Plan tab's chart, largest rank per stage, states equal to the computed bar
    marks = {m.stage: m for m in window.chart.measured()}
    assert sorted(marks) == [0, 3]
    for stage, m in marks.items():
        ranks = [r for (s, _), r in tab.controller.state.results.items() if s == stage]
        assert m.peak_bytes == max(r.peak_bytes for r in ranks)
        assert window.chart.measured_difference(m) == pytest.approx(0.0, abs=1e-9)
        assert m.states_bytes == window.model.breakdown.stage(stage).total_bytes
    assert window.chart.redraw_pending  # out of view: drawn (and its legend named) when it is seen, not before
    window.show_tab("plan")
    qtbot.waitUntil(lambda: "measured · CPU, 2 ranks" in window.plan_tab.legend.text(), timeout=5_000)
    window.show_tab("measure")

    # the live timeline: rank 0's memory through each stage's measured step
    tab.timeline.flush()
    assert {(0, 0), (3, 0)} <= set(tab.timeline.curve_keys())
    assert tab.timeline.unit == "MB"
    assert "MB" in tab.timeline.getPlotItem().getAxis("left").labelText

    # nothing left behind
    assert watch.pids and watch.survivors() == []
    assert "Every process of the run" in tab.log.toPlainText()

    # a plan edit that changes the model takes the markers off the chart (they would mislead)
    window.load_plan(TINY.model_copy(update={"seq_len": 32}))
    assert window.chart.measured() == []


def test_scaled_run_is_compared_in_the_tab_only(window, tab, qtbot):
    _needs_torch()
    for s, box in tab.controls.stage_boxes.items():
        box.setChecked(s == 3)
    field = tab.controls.scale_fields["layers"]
    field.lineEdit().setText("1/2")  # a typed fraction
    field.interpretText()
    assert tab.controls.scale().layers == 0.5
    assert "1 of 2 layers" in tab.model_note.text()
    assert "scaled run is compared here only" in shown(tab.status)
    assert run_to_end(qtbot, tab), tab.error_text()
    assert sorted(tab.controller.state.results) == [(3, 0), (3, 1)]
    assert all(r.states == r.predicted_states for r in tab.controller.state.results.values())
    assert window.chart.measured() == []  # the full-size bars get no markers from a scaled model
    status = shown(tab.status)
    assert "Measured on a scaled model: 1 of 2 layers" in status and "no markers" in status
    assert all(r[5] == "+0.00%" for r in table_text(tab.rank_results.table)[1:])


# -- cancel ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["warm-worker", "own-python"])
def test_cancel_stops_every_rank_within_2_s_and_leaves_no_process(tab, qtbot, start):
    _needs_torch()
    if start == "own-python":  # the launcher as a fresh Python under QProcess, as without a warm worker
        tab.controller.use_server(None)
        tab.controller.warm = False
    for box in tab.controls.stage_boxes.values():
        box.setChecked(True)
    watch = TreeWatch(tab)
    qtbot.mouseClick(tab.bar.start_button, Qt.MouseButton.LeftButton)
    assert not tab.bar.cancel_button.isEnabled() or tab.is_running()
    # wait until both ranks are up (Started comes after init_process_group) and seen in the tree
    qtbot.waitUntil(lambda: tab.controller.state.started is not None and len(watch.pids) >= 3, timeout=RUN_TIMEOUT_MS)
    ranks = set(watch.pids)
    assert tab.bar.cancel_button.isEnabled()
    t0 = time.monotonic()
    with qtbot.waitSignal(tab.controller.runFinished, timeout=10_000) as blocker:
        qtbot.mouseClick(tab.bar.cancel_button, Qt.MouseButton.LeftButton)
    elapsed = time.monotonic() - t0
    watch.stop()
    print(f"cancel: every process gone {elapsed:.3f} s after the click")
    assert blocker.args == [False] and tab.controller.process.warm == (start == "warm-worker")
    assert elapsed < 2.0
    assert [p for p in ranks if alive(p)] == [] and watch.survivors() == []
    assert tab.error_text() == "The run was cancelled; every process of it was stopped."
    assert tab.bar.start_button.isEnabled() and not tab.bar.cancel_button.isEnabled()


def test_closing_the_window_during_a_run_leaves_no_process(window, tab, qtbot):
    _needs_torch()
    watch = TreeWatch(tab)
    qtbot.mouseClick(tab.bar.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.controller.state.started is not None and len(watch.pids) >= 3, timeout=RUN_TIMEOUT_MS)
    window.close()
    qtbot.waitUntil(lambda: not tab.is_running(), timeout=2_000)
    watch.stop()
    assert watch.survivors() == []


# -- failures ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fault, timeout_s, expect", [
    ("crash:1", 600, ("The run failed: rank 1 was killed by SIGKILL",)),
    ("hang:1", 5, ("The measurement did not finish within 5 s and was stopped.",)),
    ("garbage:0", 600, ("The measurement printed a line that is not JSON: 'this is not a protocol line'.",)),
])
def test_a_failing_worker_gives_one_clear_sentence_and_no_process(tab, qtbot, fault, timeout_s, expect):
    _needs_torch()
    for s, box in tab.controls.stage_boxes.items():
        box.setChecked(s == 0)
    tab.extra_env = {FAULT_ENV: fault}
    tab.controls.timeout.setValue(timeout_s)
    watch = TreeWatch(tab)
    assert run_to_end(qtbot, tab) is False
    watch.stop()
    text = tab.error_text()
    assert text.startswith("The ") and text.endswith(".") and "\n" not in text
    assert text.count(". ") == 0  # one sentence
    for part in expect:
        assert part in text
    assert text in shown(tab.status)
    assert "Error (" in tab.log.toPlainText()
    assert watch.pids and watch.survivors() == []
    assert tab.bar.start_button.isEnabled() and not tab.is_running()
    assert "stopped" in tab.bar.phase_labels[0].text()


def test_a_python_without_torch_is_a_clear_error(tab, qtbot, tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n")
    fake.chmod(0o755)
    tab.controls.python.setText(str(fake))
    tab.controls.python.editingFinished.emit()
    assert run_to_end(qtbot, tab) is False
    text = tab.error_text()
    assert text == "The measurement could not start (exit status 1): ModuleNotFoundError: No module named torch."
    # the Check button asks the same interpreter, asynchronously, and says what it found
    with qtbot.waitSignal(tab.controls.check_python.clicked, timeout=1000):
        qtbot.mouseClick(tab.controls.check_python, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "does not answer as a Python" in tab.controls.python_note.text(), timeout=10_000)
    assert "No module named torch" in tab.controls.python_note.text()


# -- before a run, settings, language -------------------------------------------------------------------------
def test_before_a_run_the_tab_says_what_it_will_do(window, qtbot):
    tab = window.measure_tab  # the default plan: a bare parameter count, nothing to build
    window.tabs.setCurrentWidget(tab)  # a hidden tab renders when it is shown
    assert window.tabs.tabText(window.tabs.indexOf(tab)) == "Measure"
    assert not tab.bar.start_button.isEnabled() and "needs the model's architecture" in shown(tab.status)
    window.load_plan(TINY)
    assert tab.bar.start_button.isEnabled() and not tab.bar.cancel_button.isEnabled()
    status = shown(tab.status)
    assert "Expect about" in status and "stage(s) 0, 1, 2, 3 on 2 local" in status
    assert "Results also land on the Plan tab's chart" in status
    assert "P = 115,008" in tab.model_note.text() and "MB" in tab.model_note.text()
    tab.controls.ranks.setValue(1)
    assert "bars are for Nd = 2" in shown(tab.status)
    for box in tab.controls.stage_boxes.values():
        box.setChecked(False)
    assert not tab.bar.start_button.isEnabled() and "at least one stage" in shown(tab.status)
    assert "drawn here during a run" in tab.timeline.empty.textItem.toPlainText()
    assert [h.split("\n")[0] for h in table_text(tab.rank_results.table)[0]][:3] == ["Stage", "Rank", "Peak"]


def test_choices_are_remembered(gui_settings, qtbot, tmp_path):
    from zerodesk.gui.runs.controller import RunController
    from zerodesk.gui.runs.measure_tab import MeasureTab
    from zerodesk.gui.base.settings import MeasureSettings

    store = QSettings(str(tmp_path / "m.ini"), QSettings.Format.IniFormat)
    tab = MeasureTab(RunController(), MeasureSettings(store))
    qtbot.addWidget(tab)
    tab.set_plan(Plan.model_validate({**TINY.model_dump(), "cluster": {"nodes": 1, "gpus_per_node": 8}}))
    assert tab.controls.ranks.value() == 2 and tab.controls.interpreter() == sys.executable  # defaults
    tab.controls.device.setCurrentIndex(tab.controls.device.findData("cpu"))
    tab.controls.ranks.setValue(3)
    tab.controls.stage_boxes[1].setChecked(False)
    tab.controls.scale_fields["hidden"].lineEdit().setText("1/32")
    tab.controls.scale_fields["hidden"].interpretText()
    tab.controls.python.setText("/opt/torch/bin/python3")
    tab.controls.python.editingFinished.emit()
    tab.controls.timeout.setValue(120)
    store.sync()
    again = MeasureTab(RunController(), MeasureSettings(QSettings(str(tmp_path / "m.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(again)
    again.set_plan(TINY)
    assert again.controls.device.currentData() == "cpu" and again.controls.ranks.value() == 3
    assert again.controls.selected_stages() == [0, 2, 3]
    assert again.controls.scale().hidden == 0.03125 and again.controls.scale_fields["hidden"].text() == "0.03125"
    assert again.controls.interpreter() == "/opt/torch/bin/python3" and again.controls.timeout.value() == 120


def test_the_tab_speaks_russian(window):
    window.load_plan(TINY)
    tab = window.measure_tab
    window.tabs.setCurrentWidget(tab)
    window.set_language("ru")
    index = window.tabs.indexOf(tab)
    assert window.tabs.tabText(index) == "Измерение"
    assert tab.bar.start_button.text() == "&Измерить" and tab.bar.cancel_button.text() == "&Отмена"
    assert tab.bar.simulate_button.text() == "Симу&лировать"
    status = shown(tab.status)
    assert "Симулировать: полноразмерный шаг" in status and "Измерить: разогревочный" in status
    assert "МБ" in tab.model_note.text()
    window.set_language("en")
    assert window.tabs.tabText(index) == "Measure"


def test_the_tab_does_not_import_torch():
    code = ("import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen'; import zerodesk.gui.runs.measure_tab, "
            "zerodesk.gui.runs.process; assert 'torch' not in sys.modules; print('no torch')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0 and "no torch" in out.stdout, out.stderr
