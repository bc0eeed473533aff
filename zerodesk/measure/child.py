"""How every child Python of a run starts: isolated from the current folder, tied to its parent, plan off argv.

`python -I -u -c BOOT ROOT MODULE ARGS...`: -I keeps the current folder, PYTHONPATH and PYTHON*
variables off the import path, so a planted argparse.py or torch.py is never imported; BOOT puts
the folder holding this package first, explicitly, then runs MODULE as `python -m` would. The
plan travels in a private temporary file (`--plan-file`), read and deleted at once: argv is
readable by every local user in `ps` and limited in length.
"""

from __future__ import annotations

import atexit
import os
import runpy
import site
import sys
import tempfile
from pathlib import Path

from .interpreter import worker_root

PROJECT_ROOT = worker_root()  # the folder holding the zerodesk package (a frozen bundle ships a .py copy)
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from zerodesk.measure.child import main; main()"
PLAN_FILE_FLAG = "--plan-file"
_pending: set[str] = set()  # plan files written here that no child has taken yet


def python_command(python: str, module: str, args: list[str]) -> list[str]:
    """argv that runs `python -m module args` in isolated mode from our own package folder."""
    return [python, "-I", "-u", "-c", BOOT, PROJECT_ROOT, module, *args]


def torch_check_command(python: str, code: str) -> list[str]:
    """argv that runs a snippet in isolated mode (no planted torch.py from the current folder)."""
    return [python, "-I", "-c", f"import site, os; u = site.getusersitepackages(); "
                                f"os.path.isdir(u) and site.addsitedir(u)\n{code}"]


def write_plan_file(text: str) -> str:
    """A 0600 temporary file holding text; the child deletes it once read, and we do at exit if it never did."""
    fd, path = tempfile.mkstemp(prefix="zerodesk-plan-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    _pending.add(path)
    return path


def forget_plan_file(argv: list[str]) -> None:
    """Delete the plan file named in argv if the child has not (it failed to start)."""
    if PLAN_FILE_FLAG in argv[:-1]:
        path = argv[argv.index(PLAN_FILE_FLAG) + 1]
        if path in _pending:
            _pending.discard(path)
            try:
                os.unlink(path)
            except OSError:
                pass


@atexit.register
def _remove_pending() -> None:
    for path in list(_pending):
        try:
            os.unlink(path)
        except OSError:
            pass


def inline_plan(args: list[str]) -> list[str]:
    """`--plan-file PATH` replaced by `--plan-json TEXT` in an argv list (not the process's); PATH is left as it is."""
    if PLAN_FILE_FLAG not in args[:-1]:
        return args
    at = args.index(PLAN_FILE_FLAG)
    from ..core.plan import PlanError, read_file

    try:
        text = read_file(args[at + 1], "plan file").decode("utf-8", errors="replace")
    except PlanError as exc:
        text = f"<{exc}>"  # the worker then reports it as a bad plan, in one sentence
    return [*args[:at], "--plan-json", text, *args[at + 2:]]


def _take_plan_file(args: list[str]) -> list[str]:
    """inline_plan(), deleting the plan file."""
    try:
        return inline_plan(args)
    finally:
        if PLAN_FILE_FLAG in args[:-1]:
            try:
                os.unlink(args[args.index(PLAN_FILE_FLAG) + 1])
            except OSError:
                pass


def main() -> None:
    """The child side of BOOT: sys.argv is ['-c', ROOT, MODULE, ARGS...]."""
    from .lifeline import die_with_parent

    die_with_parent()
    user_site = site.getusersitepackages()  # -I also hides the user's own packages: torch may live there
    if os.path.isdir(user_site):
        site.addsitedir(user_site)
    run_module(sys.argv[2], sys.argv[3:])


def run_module(module: str, args: list[str]) -> int:
    """Run MODULE as `python -m MODULE ARGS` would, the plan file taken: here, or in a job forked by a warm worker."""
    sys.argv = [module, *_take_plan_file(args)]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0
