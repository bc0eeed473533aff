"""What the window's process is when it starts, beyond its widgets: the threads it runs, the environment it passes on."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts the process's threads through /proc (Linux)")
@pytest.mark.parametrize("preset", [None, "2"])
def test_the_window_loads_numpy_without_blas_threads_and_leaves_the_environment_as_it_was(preset):
    """OpenBLAS starts a thread per core as numpy loads; the window multiplies no matrices. The setting is put back at
    once (the worker the window starts keeps its BLAS threads), and a user's own setting is kept."""
    code = textwrap.dedent("""
        import os
        import zerodesk.gui.app
        import numpy
        print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS"))
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    threads, setting = out.stdout.split()
    assert setting == str(preset)  # None when there was none: nothing is left set for the processes it starts
    assert int(threads) == (1 if preset is None else int(preset))


def test_the_window_starts_without_loading_a_hashing_library(tmp_path):
    """hashlib (OpenSSL's library, a few milliseconds) and secrets load with the first file read or saved, not at the
    start of a window that has neither; the first save loads them and names its temp file as before."""
    code = textwrap.dedent(f"""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QSettings
        from zerodesk.gui.app import create_window
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, {str(tmp_path)!r})
        window = create_window(headless=True)
        print(sorted(m for m in ("hashlib", "_hashlib", "secrets", "hmac") if m in sys.modules))
        from zerodesk.core.plan import save_plan
        save_plan(window.model.plan, {str(tmp_path / "plan.json")!r})
        print("hashlib" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    before, after = out.stdout.split("\n")[:2]
    assert before == "[]" and after == "True"
    assert (tmp_path / "plan.json").is_file()
