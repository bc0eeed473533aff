"""Child Pythons of a run: isolated from the current folder, the plan off argv, and gone within 2 s of their parent.

Real processes throughout: the CLI and a Qt parent start real gloo ranks, and are then signalled.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zerodesk.core.plan import Architecture, Cluster, ModelSpec, Plan
from zerodesk.measure.child import torch_check_command
from zerodesk.measure.runner import MeasureRun, measure_command, measure_env, simulate_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; Linux process model")
ROOT = Path(__file__).resolve().parents[1]
ARCH = ["--layers", "4", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--vocab", "1000", "--seq", "512"]
PLAN = Plan(model=ModelSpec(name="life", architecture=Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab=100)),
            cluster=Cluster(nodes=1, gpus_per_node=2))


def descendants(pid: int) -> set[int]:
    """Live (non-zombie) descendants of pid, from /proc."""
    from proc_table import live_processes

    parents: dict[int, list[int]] = {}
    for child, parent, _group in live_processes():
        parents.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in "ZX":
            out.add(pid)
    return out


def wait_for_ranks(pid: int, count: int, timeout: float = 60.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = descendants(pid)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"only {descendants(pid)} started under {pid}")


def seconds_until_gone(pids: set[int], limit: float = 10.0) -> float:
    t0 = time.monotonic()
    while alive(pids) and time.monotonic() - t0 < limit:
        time.sleep(0.01)
    return time.monotonic() - t0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_signalling_zerodesk_measure_stops_every_rank_within_2_s(sig, tmp_path):
    cli = subprocess.Popen([sys.executable, "-m", "zerodesk", "measure", *ARCH, "--ranks", "2", "--device", "cpu"],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:
        family = wait_for_ranks(cli.pid, 3)  # the launcher and its two ranks
        os.kill(cli.pid, sig)
        cli.wait(timeout=10)
        assert seconds_until_gone(family) < 2.0, alive(family)
    finally:
        cli.kill()
        cli.wait()
    assert b"Traceback" not in cli.stderr.read()


QT_PARENT = """
import sys
from PySide6.QtCore import QCoreApplication, QTimer
from zerodesk.core.plan import plan_from_json
from zerodesk.gui.runs.process import RunProcess
from zerodesk.measure.job_server import JobServer
from zerodesk.measure.runner import measure_command
app = QCoreApplication([])
proc = RunProcess()
server = JobServer(transformers=False) if sys.argv[2] == "warm-worker" else None
proc.start(measure_command(plan_from_json(sys.argv[1]), [0, 1, 2, 3], 2, "cpu"), timeout_s=600, server=server)
print(proc.pid, flush=True)
assert "torch" not in sys.modules
app.exec()
"""


@pytest.mark.parametrize("start", ["own-python", "warm-worker"])
def test_sigterm_of_the_window_process_stops_every_rank_within_2_s(start):
    """The window starts runs through RunProcess: its launcher a fresh Python under QProcess, or forked by a warm
    worker (the worker, the launcher and its ranks then: 4 processes below the window). SIGTERM ends the window
    without any cleanup of its own, and every one of them goes with it."""
    bigger = PLAN.model_copy(update={"seq_len": 4096})
    parent = subprocess.Popen([sys.executable, "-c", QT_PARENT, bigger.model_dump_json(), start], cwd=ROOT,
                              stdout=subprocess.PIPE, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                           "QT_QPA_PLATFORM": "offscreen"})
    try:
        family = wait_for_ranks(parent.pid, 4 if start == "warm-worker" else 3)
        os.kill(parent.pid, signal.SIGTERM)
        parent.wait(timeout=10)
        assert seconds_until_gone(family) < 2.0, alive(family)
    finally:
        parent.kill()
        parent.wait()


PLANTED = ("json", "argparse", "runpy", "ctypes", "site", "torch", "transformers", "pydantic", "zerodesk")
CLI = Path(sys.executable).with_name("zerodesk")  # the CLI as installed: its own folder is on its path, not the current one
TINY_ARCH = ["--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "100"]
WINDOW_IMPORT = """
import sys
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[2])
from zerodesk.gui.window.main_window import MainWindow
window = MainWindow(persist=False)  # its settings: INI files under argv[2]
window.show_error = lambda title, message: (print("failed:", message, flush=True), app.exit(1))
window.hf_import.imported.connect(lambda plan: (print("imported", plan.params, flush=True), app.exit(0)))
window.hf_import.read(sys.argv[1], ask=False)
QTimer.singleShot(300_000, lambda: app.exit(3))
sys.exit(app.exec())
"""


def plant(folder: Path) -> None:
    """Modules a child would import from `folder` were the current folder on its path: each leaves a mark there."""
    for name in PLANTED:
        module = folder / name / "__init__.py" if name == "zerodesk" else folder / f"{name}.py"
        module.parent.mkdir(exist_ok=True)
        module.write_text(f"open({str(folder / f'PLANTED-{name}')!r}, 'w').close()\n")


def fit_verify_args() -> list[str]:
    from test_fit import TINY, peak, plan_of

    probe = plan_of({"architecture": TINY}, seq_len=32, profile="torch", micro_batch=4,
                    cluster={"nodes": 1, "gpus_per_node": 2})
    mid = (peak(probe, 2) + peak(probe, 2, micro_batch=5)) // 2  # the boundary at micro-batch 4 (tests/test_fit_verify.py)
    arch = [f"--{k.replace('_', '-')}={v}" for k, v in TINY.items() if k not in ("tied_embeddings", "kv_heads")]
    return ["fit", *arch, "--kv-heads", "2", "--no-tied", "--seq", "32", "--dp", "2", "--profile", "torch",
            "--gpu-memory", str(mid), "--verify", "--json"]


RELATIVE_PYTHON = os.path.join("venv", "bin", "python")  # --python as typed, relative to the folder started from
PATHS = {  # every way a command or the window starts a child Python
    # a config opened like a plan file: the config import of `plan --config` (the same plan_from_args, its tensor
    # list and step template children; seconds of torch and transformers each, so asked once), then the window's
    "--screenshot and plan --config": lambda: [str(CLI), "config.json", "--screenshot", "shot.png"],
    "the window's import": lambda: [sys.executable, "-P", "-c", WINDOW_IMPORT, "config.json", "settings"],
    # the commands that run the worker, each with a relative --python (a run's seconds of torch each: the one
    # run of each command proves both, tests/test_interpreter.py's relative Python and the planted modules)
    "simulate": lambda: [str(CLI), "simulate", *TINY_ARCH, "--dp", "2", "--stage", "0", "--json",
                         "--python", RELATIVE_PYTHON],
    "measure": lambda: [str(CLI), "measure", *TINY_ARCH, "--ranks", "2", "--device", "cpu", "--stage", "0", "--json",
                        "--python", RELATIVE_PYTHON],
    "fit --verify": lambda: [str(CLI), *fit_verify_args(), "--python", RELATIVE_PYTHON],
}


@pytest.mark.parametrize("path", PATHS)
def test_no_child_runs_code_from_the_current_folder(path, tmp_path):
    """json.py, torch.py, a zerodesk package... in the folder a command is started from are never imported,
    whichever child the command starts (the config import reads a model type ZeroDesk has no layout for).

    The worker's commands are given `--python venv/bin/python`: it names the user's venv, from the folder the
    command was started in, for both the check (which runs from the temporary folder) and the run; the same path
    under the temporary folder never runs."""
    from test_hf_transformers_path import GPT_NEO

    if not CLI.exists():
        pytest.skip("zerodesk is not installed as a console script beside this Python")
    (tmp_path / "config.json").write_text(json.dumps(GPT_NEO))
    plant(tmp_path)
    neutral = tmp_path / "tmp"
    for folder, mark in ((tmp_path, "USED"), (neutral, "WRONG-PYTHON")):  # real Pythons behind wrappers that leave a mark
        wrapper = folder / RELATIVE_PYTHON
        wrapper.parent.mkdir(parents=True)
        wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path / mark}"\nexec "{sys.executable}" "$@"\n')
        wrapper.chmod(0o755)
    done = subprocess.run(PATHS[path](), cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen",
                               "XDG_CONFIG_HOME": str(tmp_path / "config-home"), "TMPDIR": str(neutral)})
    assert sorted(p.name for p in tmp_path.glob("PLANTED-*")) == []
    assert not (tmp_path / "WRONG-PYTHON").exists(), (tmp_path / "WRONG-PYTHON").read_text()[:300]
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-2000:]
    if path == "the window's import":
        assert done.stdout.startswith("imported 10,136") or done.stdout.startswith("imported 10136"), done.stdout
    if RELATIVE_PYTHON in PATHS[path]():
        used = (tmp_path / "USED").read_text().splitlines()
        assert any("find_spec" in line for line in used) and any("zerodesk.measure.worker" in line for line in used)


def test_the_torch_check_runs_no_code_from_the_current_folder(tmp_path):
    """The snippet that checks a Python's torch (torch_check_command) is a child Python too: none of the planted
    modules runs, whichever command asks (one check: it does not depend on the command)."""
    plant(tmp_path)
    check = subprocess.run(torch_check_command(sys.executable, "import torch"),
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and not list(tmp_path.glob("PLANTED-*")), check.stderr[-2000:]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_the_config_import_child_dies_with_zerodesk_plan(sig, tmp_path):
    """`plan --config` reads a model type without a layout in a child Python (the warm worker its tensor list and
    step template are forked from): signalled, the CLI takes it along (and the worker its jobs: test_job_server)."""
    from test_hf_transformers_path import GPT_NEO

    (tmp_path / "config.json").write_text(json.dumps(GPT_NEO))
    cli = subprocess.Popen([sys.executable, "-m", "zerodesk", "plan", "--config", "config.json"], cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not (child := {p for p in descendants(cli.pid) if "zerodesk.measure.worker" in cmdline(p)}):
            assert time.monotonic() < deadline and cli.poll() is None, "the child never started"
            time.sleep(0.02)
        time.sleep(0.5)  # importing torch and transformers: seconds more
        assert alive(child)
        os.kill(cli.pid, sig)
        cli.wait(timeout=10)
        assert seconds_until_gone(child) < 2.0, cmdline(next(iter(child)))
    finally:
        cli.kill()
        cli.wait()
    assert b"Traceback" not in cli.stderr.read()


@pytest.mark.parametrize("layers", [1e9, 1_000_000_000], ids=["1e9", "10**9"])
def test_an_absurd_config_is_refused_before_anything_is_built(layers, tmp_path):
    """A billion layers of a model type without a layout: one sentence naming the field and the limit, at once
    (building it would have taken the 120 s timeout and gigabytes)."""
    config = {"model_type": "olmo2", "num_hidden_layers": layers, "hidden_size": 64, "num_attention_heads": 4,
              "intermediate_size": 128, "vocab_size": 100}
    (tmp_path / "config.json").write_text(json.dumps(config))
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "zerodesk", "plan", "--config", "config.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert time.monotonic() - t0 < 20  # no transformers started: the CLI's own start-up
    assert done.returncode == 2 and done.stderr == ("zerodesk: config.json: num_hidden_layers is 1,000,000,000, "
                                                    "above the 1,024 ZeroDesk allows for a model's layers\n")


ESCAPER = """#!/bin/sh
# answers the interpreter check as the real Python; as the run, leaves a process outside the run's group that
# holds stdout and stderr, then waits ignoring SIGTERM (the group needs SIGKILL)
case "$*" in *find_spec*) exec "{python}" "$@";; esac
trap '' TERM
"{python}" -c "import os, time; os.setsid(); open('{pid_file}', 'w').write(str(os.getpid())); time.sleep(20)" &
sleep 600
"""


@pytest.mark.parametrize("signals", [("SIGINT",), ("SIGTERM",), ("SIGHUP",), ("SIGTERM", "SIGTERM"),
                                     ("SIGINT", "SIGTERM", "SIGINT"), ("timeout",)], ids="+".join)
def test_signals_and_the_timeout_end_a_run_whose_escaped_process_holds_its_output(signals, tmp_path):
    """Within about a second (the group's SIGTERM grace), without a traceback, nothing of the group left."""
    pid_file = tmp_path / "escaped.pid"
    python = tmp_path / "escaper"
    python.write_text(ESCAPER.format(python=sys.executable, pid_file=pid_file))
    python.chmod(0o755)
    timeout = ["--timeout", "3"] if signals == ("timeout",) else []
    cli = subprocess.Popen([sys.executable, "-m", "zerodesk", "measure", *TINY_ARCH, "--device", "cpu", "--stage", "0",
                            "--python", str(python), *timeout], cwd=tmp_path, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline and cli.poll() is None, cli.stderr.read()
            time.sleep(0.02)
        run = descendants(cli.pid) - {int(pid_file.read_text())}  # the run's group: the escaper and its sleep
        t0 = time.monotonic()
        if signals == ("timeout",):
            cli.wait(timeout=30)
            took = time.monotonic() - t0 - 3  # the run's clock started just before the escaper wrote its pid
        else:
            for name in signals:
                os.kill(cli.pid, getattr(signal, name))
                time.sleep(0.3)
            cli.wait(timeout=30)
            took = time.monotonic() - t0
        err = cli.stderr.read().decode()
        assert took < 2.5, took  # a minute before: the escaped process held stdout
        assert "Traceback" not in err and "Exception ignored" not in err, err
        assert cli.returncode == {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129, "timeout": 1}[signals[0]], err
        assert not alive(run), [cmdline(p) for p in alive(run)]
    finally:
        cli.kill()
        cli.wait()
        if pid_file.exists() and pid_file.read_text():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_signal_as_the_run_starts_its_readers_still_stops_the_run():
    """A signal's exit that lands as the run starts the threads reading its pipes (each start waits until its thread
    runs: on a loaded machine the run's processes are up by then, and a signal sent once they appear lands there)
    still stops the run's group. The escaper test's SIGTERM case left the run behind under 3 test workers on 2 cores.
    The signal is real, sent at the first such start, its handler raising as the CLI's does (lifeline.py)."""
    import threading

    from zerodesk.measure import proctree, runner

    class Leave(BaseException):
        pass

    def leave(signum, frame):
        raise Leave

    start = threading.Thread.start.__code__

    def at_first_reader(frame, event, arg):
        if event == "call" and frame.f_code is start and frame.f_back.f_code.co_filename == runner.__file__:
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGUSR1)

    run = MeasureRun(["/bin/sh", "-c", "sleep 600"], timeout=60)
    before = signal.signal(signal.SIGUSR1, leave)
    try:
        sys.setprofile(at_first_reader)
        with pytest.raises(Leave):
            for _ in run:
                pass
        assert run.proc is not None and not proctree.tree_alive(run.proc.pid)
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGUSR1, before)
        if run.proc is not None:
            proctree.signal_tree(run.proc.pid, proctree.SIGKILL)
            run.proc.wait()


def test_the_plan_is_not_on_any_command_line_and_its_file_is_private_and_removed():
    big = PLAN.model_copy(update={"model": PLAN.model.model_copy(update={"name": "n" * 200_000})})
    argv = measure_command(big, [0], 2, "cpu", samples=False)
    plan_file = Path(argv[argv.index("--plan-file") + 1])
    assert sum(len(a) for a in argv) < 10_000 and "n" * 1000 not in " ".join(argv)
    assert (plan_file.stat().st_mode & 0o077) == 0  # readable by its owner only
    run = MeasureRun(argv, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})
    seen_cmdlines = []
    for msg in run:
        if run.pid and not seen_cmdlines:
            for pid in {run.pid, *descendants(run.pid)}:
                try:
                    seen_cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
                except OSError:
                    pass
        if msg.kind in ("done", "error"):
            assert msg.kind == "done", msg
    assert seen_cmdlines and not any(b"n" * 1000 in c for c in seen_cmdlines)
    assert not plan_file.exists()


def test_a_plan_file_is_removed_even_when_the_interpreter_cannot_start():
    argv = simulate_command(PLAN, [2], python="/nonexistent/python")
    plan_file = Path(argv[argv.index("--plan-file") + 1])
    (err,) = list(MeasureRun(argv, timeout=10))
    assert err.code == "launcher_failed" and not plan_file.exists()


def test_measure_env_names_the_parent():
    assert measure_env({})["ZERODESK_PARENT_PID"] == str(os.getpid())


EXCHANGE = """
import os, pickle, sys
import torch.distributed as dist
import torch.multiprocessing as mp
from zerodesk.measure.worker.exchange import gather_bytes

def rank(index, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=index, world_size=3)
    # rank 2 sends what gather_object would have unpickled and run: here it stays bytes
    payload = pickle.dumps(os.system) if index == 2 else ('{"rank": %d}' % index).encode() * (index + 1)
    got = gather_bytes(payload, index, 3, "cpu")
    if index == 0:
        print(repr(got), flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.start_processes(rank, args=(int(sys.argv[1]),), nprocs=3, start_method="fork")
"""


def test_ranks_exchange_results_as_bytes_never_unpickled(tmp_path):
    from zerodesk.measure.worker.launcher import free_port

    script = tmp_path / "exchange.py"
    script.write_text(EXCHANGE)
    out = subprocess.run([sys.executable, str(script), str(free_port())], capture_output=True, text=True, timeout=120,
                         cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    import ast
    import pickle

    got = ast.literal_eval(out.stdout.strip())  # a list of bytes literals
    assert got[:2] == [b'{"rank": 0}', b'{"rank": 1}' * 2] and got[2] == pickle.dumps(os.system)
    assert not [p for p in (ROOT / "zerodesk" / "measure").rglob("*.py") if "gather_object(" in p.read_text()]
