"""The layers hold on the static import graph: pyproject.toml's import-linter contracts, imports in functions included.

measure's torch-free modules import neither its worker/ package nor torch; the window and the command line never
import torch (directly or through measure); the core imports neither Qt nor torch; the window's folders import only
the folders below them (app > window > runs, lesson > charts, table, glossary, form > base, screenshot). A runtime check of sys.modules
only sees the paths one run takes; the graph sees every import statement.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")


def lint(package_parent: Path) -> subprocess.CompletedProcess:
    """import-linter on the zerodesk package found in package_parent, with this checkout's contracts."""
    return subprocess.run([sys.executable, "-c", LINT, str(ROOT / "pyproject.toml")], capture_output=True, text=True,
                          timeout=120, cwd=package_parent, env={"PYTHONPATH": str(package_parent), "PATH": ""})


def test_the_contracts_are_kept():
    pytest.importorskip("importlinter")
    out = lint(ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "5 kept, 0 broken" in out.stdout


def test_the_graph_sees_imports_inside_functions():
    """The worker imports torch only inside its functions (so an import error is one protocol line): still an edge."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("zerodesk", include_external_packages=True, cache_dir=None)
    assert graph.direct_import_exists(importer="zerodesk.measure.worker.rank", imported="torch")
    assert graph.direct_import_exists(importer="zerodesk.gui.runs.measure_tab", imported="zerodesk.measure.protocol")


@pytest.mark.parametrize("module, line, broken", [
    ("measure/runner.py", "    from .worker import rank", "measure's torch-free modules"),
    ("measure/protocol.py", "    import torch", "measure's torch-free modules"),
    ("gui/__init__.py", "    from ..measure.worker import step", "the window and the command line"),
    ("core/__init__.py", "    from PySide6 import QtCore", "the core imports neither Qt"),
    ("gui/charts/plan_tab.py", "    from ..runs import records", "the window's folders in layers"),
    ("measure/module_report.py", "    from .worker import module_ledger", "measure's torch-free modules"),
    ("core/knobs.py", "    import torch", "the core imports neither Qt"),
], ids=["free-to-worker", "free-to-torch", "gui-through-measure", "core-to-qt", "gui-feature-upwards",
        "breakdown-reader-to-worker", "knobs-to-torch"])
def test_an_import_inside_a_function_breaks_its_contract(tmp_path, module, line, broken):
    """Each contract bites: one import added inside a function of a copy of the package breaks it (and any contract
    whose modules reach it indirectly), by name."""
    pytest.importorskip("importlinter")
    shutil.copytree(ROOT / "zerodesk", tmp_path / "zerodesk", ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "zerodesk" / module
    path.write_text(path.read_text() + f"\n\ndef _planted():\n{line}  # noqa\n")
    out = lint(tmp_path)
    assert out.returncode == 1, out.stdout[-3000:]
    text = " ".join(out.stdout.split())  # import-linter wraps long contract names
    status = re.search(r"\b(KEPT|BROKEN)\b", text.split(broken, 1)[1])  # the summary line of that contract
    assert status and status.group(1) == "BROKEN", out.stdout[-3000:]
