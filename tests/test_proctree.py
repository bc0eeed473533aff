"""Process trees: a run's ranks stop together on POSIX, and without the POSIX names (Windows) the window still
starts and a run's tree is stopped with taskkill."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from zerodesk.measure import proctree

ROOT = Path(__file__).resolve().parents[1]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


@pytest.mark.skipif(not proctree.POSIX or not os.path.isdir("/proc/self"), reason="POSIX process groups")
def test_the_whole_tree_stops_and_nothing_outlives_it(tmp_path):
    grandchild = tmp_path / "grandchild.pid"
    code = ("import subprocess, sys, time; "
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            f"open({str(grandchild)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code], **proctree.popen_kwargs())
    deadline = time.monotonic() + 10
    while not (grandchild.exists() and grandchild.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    grand_pid = int(grandchild.read_text())
    assert os.getpgid(child.pid) == child.pid and os.getpgid(grand_pid) == child.pid  # a group of its own
    assert proctree.tree_alive(child.pid)

    proctree.signal_tree(child.pid, proctree.SIGKILL)
    child.wait(timeout=5)
    deadline = time.monotonic() + 5
    while proctree.tree_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not proctree.tree_alive(child.pid) and not _alive(grand_pid)
    proctree.signal_tree(child.pid, proctree.SIGTERM)  # a tree already gone: quiet


def test_rank_start_method_never_asks_for_fork_where_there_is_none():
    assert proctree.rank_start_method("cuda") == "spawn"
    assert proctree.rank_start_method("cpu") == ("fork" if hasattr(os, "fork") else "spawn")


# Run in a fresh interpreter that lacks what Windows lacks: the POSIX process calls and signal.SIGKILL.
WITHOUT_POSIX = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    for name in ("killpg", "setsid", "getpgid", "fork", "forkpty"):
        if hasattr(os, name):
            delattr(os, name)
    del signal.SIGKILL
    os.environ["QT_QPA_PLATFORM"] = "offscreen"

    from zerodesk.measure import proctree
    assert not proctree.POSIX and proctree.SIGKILL == 9
    assert proctree.popen_kwargs() == {"creationflags": 0x200}
    assert proctree.rank_start_method("cpu") == "spawn"
    import zerodesk.measure.runner, zerodesk.measure.worker.launcher, zerodesk.measure.command  # noqa: F401
    from zerodesk.gui.app import create_window
    window = create_window(headless=True)  # the main window, with its Measure tab
    window.show()
    assert window.measure_tab is not None
    print("window", window.windowTitle())

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    assert proctree.tree_alive(child.pid)
    proctree.signal_tree(child.pid, signal.SIGTERM)   # taskkill /T: asks the tree to close
    proctree.signal_tree(child.pid, proctree.SIGKILL)  # taskkill /F /T: terminates it
    child.wait(timeout=5)
    assert not proctree.tree_alive(child.pid)
    print("stopped", child.pid)
""")


def test_without_posix_names_the_window_starts_and_runs_are_stopped_with_taskkill(tmp_path):
    # The real taskkill is Windows-only; this one records its arguments and does what /F /T asks.
    calls = tmp_path / "taskkill.log"
    taskkill = tmp_path / "bin" / "taskkill"
    taskkill.parent.mkdir()
    taskkill.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n'
                        'case "$1" in /F) kill -9 "$4";; esac\n')
    taskkill.chmod(0o755)
    env = {**os.environ, "PATH": f"{taskkill.parent}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}  # the user's settings stay untouched
    done = subprocess.run([sys.executable, "-c", WITHOUT_POSIX], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("window ") and "ZeroDesk" in done.stdout.splitlines()[0]
    pid = done.stdout.split("stopped ")[1].split()[0]
    assert calls.read_text().splitlines() == [f"/T /PID {pid}", f"/F /T /PID {pid}"]
