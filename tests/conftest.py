"""Shared test setup: Qt renders offscreen, and GUI tests never touch the user's settings.

A widget test builds the widget it checks (`form`, `plan_tab`, `table_tab`, `glossary`, all on one plan
model when a test asks for several); `window` builds the whole main window for what needs it.
"""

from __future__ import annotations

import os
import resource
import signal
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

import zerodesk.gui  # noqa: F401  (guards PySide6 6.12 on CPython 3.11 before any Qt call)

# The slow tier, by module: real ranks, simulations, packaging and transformers models, and the modules
# that start fresh Pythons importing torch. `pytest -m "not slow"` is the everyday command (README).
SLOW_MODULES = frozenset({
    "test_family_measure", "test_gpu_path", "test_gui_measure", "test_hf_families", "test_hf_transformers_path",
    "test_interpreter", "test_lifeline", "test_measure", "test_offload_run", "test_packaging", "test_simulate",
    "test_fit_verify", "test_torch_compat", "test_hsdp_ranks", "test_knobs_ranks", "test_gui_module_breakdown",
    "test_accumulation_ranks", "test_block_extrapolation", "test_job_server",
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__.rpartition(".")[2] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    # The longest modules first, then the other modules with slow tests, then the rest, each module's tests in their
    # order: README's full-suite command hands out whole modules to pytest-xdist's workers in this order (--dist
    # loadfile), so the long ones start at once and the short ones fill the end, rather than one worker starting a
    # long module as the others finish.
    slow = {item.module for item in items if item.get_closest_marker("slow")}

    def rank(item) -> tuple[int, bool]:
        name = item.module.__name__.rpartition(".")[2]
        return (LONGEST.index(name) if name in LONGEST else len(LONGEST), item.module not in slow)

    items.sort(key=rank)


# The longest modules, longest first (--cpu-table on 2 cores: block extrapolation's full simulations, the
# simulations, the lifeline's processes, the unseen model type's fit, the step templates' fits, the measure CLI's,
# the families' ranks: ~39 CPU-s, the Measure tab's: ~19).
LONGEST = ("test_block_extrapolation", "test_simulate", "test_lifeline", "test_hf_transformers_path",
           "test_step_template", "test_measure", "test_knobs_ranks", "test_family_measure", "test_gui_measure")


def pytest_configure(config):
    # pytest-xdist would hand out the modules with the most tests first (its --loadscope-reorder): the many quick
    # GUI and core tests, leaving the few long real-rank modules for the end; keep the order sorted above.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    # The lifeline tests signal the processes they start and expect what a terminal's signals do. An ignored signal
    # stays ignored across exec: run from `nohup` (SIGHUP) or as a background job of a non-interactive shell (SIGINT),
    # every zerodesk these tests start would ignore it too, as it should for the user who asked for that. Start them
    # with the default dispositions whatever launched the run.
    if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# ---------------------------------------------------------------- --cpu-table: where the suite's CPU goes

def pytest_addoption(parser):
    parser.addoption("--cpu-table", action="store_true",
                     help="print each module's CPU seconds (the test process and the processes it waited for)")


def _cpu_now() -> float:
    from zerodesk.measure.job_server import cpu_outside_children_rusage

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + cpu_outside_children_rusage()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report carries the CPU its phase took (user_properties travel from pytest-xdist's workers)."""
    report = (yield).get_result()
    if item.config.getoption("cpu_table"):
        report.user_properties = [*report.user_properties, ("cpu_s", _cpu_now() - item.stash.get(_CPU_START, 0.0)),
                                  ("wall_s", time.perf_counter() - item.stash.get(_WALL_START, 0.0))]


_CPU_START, _WALL_START = pytest.StashKey[float](), pytest.StashKey[float]()


def _phase_starts(item) -> None:
    item.stash[_CPU_START], item.stash[_WALL_START] = _cpu_now(), time.perf_counter()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _phase_starts(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    _phase_starts(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item):
    _phase_starts(item)


_BY_MODULE: dict[str, list[float]] = {}
_BY_TEST: dict[str, list[float]] = {}  # test id: [CPU s, wall s], its setup, call and teardown together
_BY_WORKER: dict[str, list[float]] = {}  # pytest-xdist worker: [its last report's time, its tests' wall s]
_SESSION_START = time.perf_counter()


def pytest_runtest_logreport(report):
    props = dict(report.user_properties)
    if "cpu_s" in props:
        row = _BY_MODULE.setdefault(report.nodeid.split("::")[0], [0.0, 0.0])
        row[0] += props["cpu_s"]
        row[1] += props["wall_s"]
        test = _BY_TEST.setdefault(report.nodeid, [0.0, 0.0])
        test[0] += props["cpu_s"]
        test[1] += props["wall_s"]
        worker = getattr(getattr(report, "node", None), "gateway", None)
        if worker is not None:  # the controller of a pytest-xdist run: when each worker last reported
            busy = _BY_WORKER.setdefault(worker.id, [0.0, 0.0])
            busy[0] = time.perf_counter() - _SESSION_START
            busy[1] += props["wall_s"]


def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("cpu_table") or not _BY_MODULE:
        return
    rows = sorted(_BY_MODULE.items(), key=lambda kv: -kv[1][0])
    terminalreporter.section("CPU by module (s: the test process and its waited-for children; wall s)")
    for path, (cpu, wall) in rows:
        terminalreporter.write_line(f"{cpu:9.1f} {wall:9.1f}  {path}")
    terminalreporter.write_line(f"{sum(r[0] for _, r in rows):9.1f} {sum(r[1] for _, r in rows):9.1f}  total")
    terminalreporter.write_line("the tests that took the most CPU (s; wall s):")
    count = int(os.environ.get("CPU_TABLE_ROWS", "25"))  # how many tests each list names
    for test, (cpu, wall) in sorted(_BY_TEST.items(), key=lambda kv: -kv[1][0])[:count]:
        terminalreporter.write_line(f"{cpu:9.1f} {wall:9.1f}  {test}")
    terminalreporter.write_line("the tests that waited the most (wall s less CPU s; CPU s):")
    for test, (cpu, wall) in sorted(_BY_TEST.items(), key=lambda kv: kv[1][0] - kv[1][1])[:count]:
        terminalreporter.write_line(f"{wall - cpu:9.1f} {cpu:9.1f}  {test}")
    end = time.perf_counter() - _SESSION_START
    for worker, (last, wall) in sorted(_BY_WORKER.items()):  # a worker done long before the end: a tail to balance
        terminalreporter.write_line(f"{worker}: {wall:.0f} s in tests, last report at {last:.0f} s, idle for the "
                                    f"last {end - last:.0f} s of {end:.0f} s")
    for server in _SERVERS:  # this process's (not pytest-xdist's workers')
        terminalreporter.write_line(f"warm worker: {server.started_workers} started, {server.forked} jobs forked, "
                                    f"{server.refused} refused (started as their own Pythons)")


@pytest.fixture(scope="session")
def job_server():
    """One warm worker for the session's simulations and measurements (zerodesk.measure.job_server): torch is
    imported once per test process, not once per job. pytest names the current test in the environment, which no
    library reads at import: a job may differ from the worker there."""
    from zerodesk.measure.job_server import JobServer

    with JobServer(neutral=("ZERODESK_", "PYTEST_CURRENT_TEST")) as server:
        _SERVERS.append(server)
        yield server


_SERVERS: list = []


@pytest.fixture
def gui_settings(tmp_path, qapp):
    """Isolated QSettings (INI files under tmp_path) and the English UI, restored afterwards."""
    from PySide6.QtCore import QSettings

    from zerodesk.gui.base import i18n
    from zerodesk.gui.base.settings import Settings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    i18n.set_language("en")
    yield Settings()
    i18n.set_language("en")


@pytest.fixture
def window(qtbot, gui_settings):
    """The real main window, shown offscreen, with modal dialogs turned into status-bar messages."""
    from zerodesk.gui.window.main_window import MainWindow

    w = MainWindow(gui_settings)
    w.quiet = True
    w.ask_save_changes = discard  # pytest-qt closes the window before fixtures tear down: no prompt then
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(w.startup.is_done, timeout=3000)  # and what follows the first paint (the Nd chart's lines)
    yield w


def type_in(field, text: str) -> None:
    """Text typed into a line edit, as the user's keystrokes report it (textEdited)."""
    field.setText(text)
    field.textEdited.emit(text)


def choose_index(combo, index: int) -> None:
    """A combo box entry chosen, as the user's choice reports it (activated)."""
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def discard():
    """An answer to "save the unsaved changes?" that drops them."""
    from PySide6.QtWidgets import QMessageBox

    return QMessageBox.StandardButton.Discard


@pytest.fixture
def model():
    """The plan model the widget fixtures below share (empty until a form or a view sets a plan)."""
    from zerodesk.core.plan_model import PlanModel

    return PlanModel()


def shown(qtbot, widget, size: tuple[int, int]):
    """A widget alone as a top-level window, laid out at `size` and exposed offscreen."""
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _with_a_plan(model) -> None:
    """A view shown alone starts on the card example (what a new window shows), unless a form set one."""
    from zerodesk.gui.form.fields import default_plan

    if model.plan is None:
        model.set_plan(default_plan())


@pytest.fixture
def form(qtbot, gui_settings, model):
    """The model/cluster form alone, editing `model` (it starts on the card example)."""
    from zerodesk.gui.form.plan_form import PlanForm

    return shown(qtbot, PlanForm(model), (420, 1000))


@pytest.fixture
def plan_tab(qtbot, gui_settings, model):
    """The Plan tab alone (stage bars and memory versus Nd), following `model`."""
    from zerodesk.gui.charts.plan_tab import PlanTab

    tab = PlanTab(model)
    _with_a_plan(model)
    return shown(qtbot, tab, (760, 800))


@pytest.fixture
def table_tab(qtbot, gui_settings, model):
    """The Table tab alone, following `model`."""
    from zerodesk.gui.table.table_tab import TableTab

    tab = TableTab(model)
    _with_a_plan(model)
    return shown(qtbot, tab, (900, 700))


@pytest.fixture
def glossary(qtbot, gui_settings, model):
    """The glossary dock alone (floating), following `model`'s profile and scheme."""
    from zerodesk.gui.glossary.dock import GlossaryDock

    dock = GlossaryDock(model)
    _with_a_plan(model)
    return shown(qtbot, dock, (420, 800))


@pytest.fixture
def measure_tab(qtbot, gui_settings, model):
    """The Measure tab alone with its own run controller, following `model` (nothing persisted)."""
    from zerodesk.gui.runs.controller import RunController
    from zerodesk.gui.runs.measure_tab import MeasureTab

    tab = MeasureTab(RunController(), gui_settings.measure(persist=False), model)
    _with_a_plan(model)
    yield shown(qtbot, tab, (1000, 800))
    if tab.is_running():
        tab.controller.kill_now()
