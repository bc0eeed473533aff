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
