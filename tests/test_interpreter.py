"""Which Python runs the ranks: real interpreters are asked, in isolation, what they lack; common places are searched."""

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from zerodesk.measure import interpreter
from zerodesk.measure.interpreter import candidate_pythons, find_pythons, parse_probe, probe, probe_argv, resolve_python

ROOT = Path(__file__).resolve().parents[1]
BIN = "Scripts" if os.name == "nt" else "bin"


def make_venv(path: Path, with_packages_of_this_python: bool = False) -> str:
    """A real venv with the stdlib only, or seeing this interpreter's packages (torch, pydantic) through a .pth."""
    venv.create(path, with_pip=False)
    python = str(path / BIN / ("python.exe" if os.name == "nt" else "python"))
    if with_packages_of_this_python:
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        Path(site, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    return make_venv(tmp_path_factory.mktemp("bare") / "env")


def test_a_python_without_torch_or_pydantic_gets_one_sentence_each_with_the_command(bare_python):
    found = probe(bare_python)
    assert not found.ok and found.torch is None and found.missing == ["torch", "pydantic"]
    assert found.version[:2] == sys.version_info[:2]
    torch_line, pydantic_line = found.problems
    assert torch_line == (f"{bare_python} has no torch, which the worker needs (it runs the training step): "
                          f"install it with `{bare_python} -m pip install 'torch'`.")
    assert "has no pydantic" in pydantic_line and f"`{bare_python} -m pip install 'pydantic>=2.5,<3'`" in pydantic_line
    assert interpreter.install_command(bare_python, found.missing) == [bare_python, "-m", "pip", "install", "torch",
                                                                       "pydantic>=2.5,<3"]


def test_a_planted_torch_in_the_working_folder_or_pythonpath_is_not_torch(bare_python, tmp_path):
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "torch.py").write_text("print('PLANTED'); __version__ = '99.0'\n")
    (planted / "pydantic.py").write_text("print('PLANTED'); VERSION = '2.99'\n")
    env = {**os.environ, "PYTHONPATH": str(planted)}
    done = subprocess.run(probe_argv(bare_python, gpus=True), capture_output=True, text=True, cwd=planted, env=env,
                          timeout=60)
    assert "PLANTED" not in done.stdout + done.stderr
    found = parse_probe(bare_python, done.returncode, done.stdout, done.stderr)
    assert found.torch is None and found.missing == ["torch", "pydantic"]
    # without isolation the same child would have taken the planted file for torch
    naive = subprocess.run([bare_python, "-c", "import torch"], capture_output=True, text=True, cwd=planted, env=env)
    assert "PLANTED" in naive.stdout


def test_this_python_is_ready_and_counts_its_gpus():
    found = probe(sys.executable, gpus=True)
    assert found.ok, found.problems
    assert found.torch == importlib.metadata.version("torch")
    assert found.modules["pydantic"] == importlib.metadata.version("pydantic")
    assert isinstance(found.gpus, int) and found.gpus >= 0


def test_what_is_not_a_python_is_one_sentence(tmp_path):
    assert probe(str(tmp_path / "nowhere" / "python")).problems == (f"{tmp_path / 'nowhere' / 'python'} does not exist.",)
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\necho 'something else' >&2\nexit 3\n")
    script.chmod(0o755)
    (line,) = probe(str(script)).problems
    assert line == f"{script} does not answer as a Python 3 interpreter (something else)."
    assert probe("").problems == ("No Python interpreter was chosen for the ranks.",)


def test_common_places_are_searched_and_only_pythons_with_torch_are_offered(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    with_torch = make_venv(home / "miniconda3" / "envs" / "train", with_packages_of_this_python=True)
    bare = make_venv(home / ".virtualenvs" / "docs")
    local = make_venv(work / ".venv")
    env = {"PATH": str(tmp_path / "empty")}
    candidates = candidate_pythons(cwd=str(work), home=str(home), env=env)
    for python in (with_torch, bare, local):
        assert python in candidates
    assert candidates.index(local) < candidates.index(bare)  # the working folder's venv before the home's
    found = find_pythons([c for c in candidates if c != sys.executable])
    assert [p.python for p in found] == [with_torch] and found[0].ok
    # the active environment comes first, right after the running interpreter
    active = candidate_pythons(cwd=str(work), home=str(home), env={**env, "VIRTUAL_ENV": str(home / ".virtualenvs" / "docs")})
    assert active.index(bare) < active.index(local)


def test_resolve_python_for_the_cli(bare_python, tmp_path):
    assert resolve_python(None) == (sys.executable, None)  # this Python has torch
    assert resolve_python(sys.executable) == (sys.executable, None)
    python, problem = resolve_python(bare_python)
    assert python is None and problem.startswith(f"{bare_python} has no torch") and "has no pydantic" in problem


def test_measure_with_a_python_that_lacks_torch_says_so_before_starting(bare_python):
    done = subprocess.run([sys.executable, "-m", "zerodesk", "measure", "--preset", "gpt2", "--stage", "0",
                           "--python", bare_python], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"zerodesk measure: {bare_python} has no torch") and "Traceback" not in done.stderr


def test_the_frozen_bundle_gives_children_the_users_library_path(monkeypatch):
    env = {"LD_LIBRARY_PATH": "/bundle/_internal", "LD_LIBRARY_PATH_ORIG": "/opt/cuda/lib64", "_PYI_ARCHIVE_FILE": "x",
           "DYLD_LIBRARY_PATH": "/bundle/_internal", "HOME": "/home/u"}
    interpreter.restore_frozen_environment(env)  # not frozen: nothing changes
    assert env["LD_LIBRARY_PATH"] == "/bundle/_internal"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", "/bundle/_internal", raising=False)
    interpreter.restore_frozen_environment(env)
    assert env == {"LD_LIBRARY_PATH": "/opt/cuda/lib64", "HOME": "/home/u"}
    assert interpreter.worker_root() == os.path.join("/bundle/_internal", interpreter.WORKER_DIR)


def test_the_measure_tab_says_what_a_chosen_python_lacks_before_start(model, measure_tab, qtbot, bare_python):
    from zerodesk.core.plan import Plan

    model.set_plan(Plan.model_validate({
        "model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
        "seq_len": 16, "micro_batch": 1, "profile": "torch", "cluster": {"nodes": 1, "gpus_per_node": 2}}))
    tab = measure_tab
    controls, bar = tab.controls, tab.bar
    controls.python.setText(sys.executable)
    controls.python.editingFinished.emit()
    qtbot.waitUntil(lambda: controls.python_note.text().startswith("torch "), timeout=60_000)
    qtbot.waitUntil(bar.start_button.isEnabled, timeout=5_000)  # this Python has torch

    controls.python.setText(bare_python)
    controls.python.editingFinished.emit()  # checked at once, not at Start
    qtbot.waitUntil(lambda: "lacks pydantic" in controls.python_note.text(), timeout=30_000)
    note = controls.python_note.text()
    assert f"{bare_python} lacks torch, which the worker needs; install it with: {bare_python} -m pip install torch" in note
    assert f"install it with: {bare_python} -m pip install 'pydantic>=2.5,<3'" in note
    qtbot.waitUntil(lambda: not bar.start_button.isEnabled(), timeout=5_000)
    assert not bar.simulate_button.isEnabled()
    assert "lacks torch" in tab.measure_problem()

    controls.python.setText(sys.executable)
    controls.python.editingFinished.emit()
    qtbot.waitUntil(lambda: controls.python_note.text().startswith("torch "), timeout=60_000)
    qtbot.waitUntil(bar.start_button.isEnabled, timeout=5_000)


def test_the_bundle_tab_searches_for_a_python_off_the_gui_thread(gui_settings, qtbot, tmp_path, monkeypatch):
    import threading

    from PySide6.QtCore import QSettings

    from zerodesk.gui.runs import controls as controls_module
    from zerodesk.gui.runs import interpreter_field
    from zerodesk.gui.base.settings import MeasureSettings

    searched_in = []

    def search():  # the search itself is tested above on real interpreters; here: where and when it runs
        searched_in.append(threading.current_thread() is threading.main_thread())
        return sys.executable

    monkeypatch.setattr(interpreter_field, "find_python_with_torch", search)
    controls = controls_module.MeasureControls(MeasureSettings(QSettings(str(tmp_path / "m.ini"),
                                                                         QSettings.Format.IniFormat)))
    qtbot.addWidget(controls)
    controls.python.setText("")  # as a bundle starts: no interpreter of its own
    controls.search_python()
    qtbot.waitUntil(lambda: controls.interpreter() == sys.executable, timeout=10_000)
    assert searched_in == [False]
    qtbot.waitUntil(lambda: controls.python_note.text().startswith("torch "), timeout=60_000)  # and checked at once


def test_a_relative_python_is_located_from_the_current_folder(tmp_path, monkeypatch):
    """`--python venv/bin/python` names the user's venv, from the folder the command was started in, taken once for
    the check (which runs from the temporary folder) and the run; a bare name is looked up on PATH. The commands'
    own runs with a relative Python (each command's check and run, and that the same path under the temporary
    folder never runs): tests/test_lifeline.py's test_no_child_runs_code_from_the_current_folder."""
    monkeypatch.chdir(tmp_path)
    assert interpreter.located(os.path.join("venv", BIN, "python")) == os.path.join(str(tmp_path), "venv", BIN, "python")
    assert interpreter.located(sys.executable) == sys.executable
    assert interpreter.located("no-such-python-here") == "no-such-python-here"
