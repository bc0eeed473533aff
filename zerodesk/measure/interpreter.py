"""Which Python runs the measuring ranks: find ones that have torch, and say what a chosen one lacks.

Qt-free and torch-free. ZeroDesk itself may run without torch (a planner-only install, or the
frozen bundle, whose executable is not a Python at all), so the ranks run in another interpreter.
Every question goes to that interpreter in an isolated child (`python -I`: no PYTHONPATH, no user
site, no current folder on sys.path), so a torch.py lying in the working folder is never taken
for torch. The answers come from package metadata and import specs, not imports: fast enough to
ask a dozen interpreters; `probe(..., gpus=True)` also imports torch to count the GPUs.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..core.text import shorten

CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's own index of CPU-only builds
MIN_PYTHON = (3, 11)  # as pyproject's requires-python: the worker shares the core's code
WORKER_DIR = "zerodesk-worker"  # in a frozen bundle: the folder holding the worker's .py sources
# module -> (what pip installs, why the worker needs it)
NEEDS = {"torch": ("torch", "it runs the training step"),
         "pydantic": ("pydantic>=2.5,<3", "the worker reads the plan and writes its results with it")}

_PROBE = r"""
import importlib.metadata as md, importlib.util as iu, json, sys
out = {"executable": sys.executable, "version": list(sys.version_info[:3]), "modules": {}}
for name in %(names)r:
    try:
        spec = iu.find_spec(name)
    except Exception:
        spec = None
    try:
        version = md.version(name) if spec else None
    except Exception:
        version = "?"
    out["modules"][name] = version
if %(gpus)r and out["modules"].get("torch"):
    try:
        import torch
        out["gpus"] = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception as exc:
        out["torch_error"] = "%%s: %%s" %% (type(exc).__name__, exc)
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Probe:
    """What one interpreter has for the worker. problems: one sentence per missing thing (empty: ready)."""

    python: str
    version: tuple[int, ...] = ()
    modules: dict[str, str | None] = field(default_factory=dict)  # module -> version, None when missing
    gpus: int | None = None  # only when asked (imports torch)
    problems: tuple[str, ...] = ()
    lacking: tuple[str, ...] = ()  # modules of NEEDS missing or too old (install_command() installs them)
    detail: str = ""  # why a child that did not answer failed (its last stderr line or exit status)
    torch_error: str = ""  # torch is there but importing it failed (only when gpus were asked)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def torch(self) -> str | None:
        return self.modules.get("torch")

    @property
    def missing(self) -> list[str]:
        return [name for name, version in self.modules.items() if version is None]

    @property
    def too_old(self) -> bool:
        return bool(self.version) and self.version[:2] < MIN_PYTHON


def worker_root() -> str:
    """The folder that must be on the worker's sys.path: the one holding this zerodesk package, or in a
    frozen bundle the .py copy of the worker it ships (its own modules are compiled into an archive)."""
    if getattr(sys, "frozen", False):
        return os.path.join(getattr(sys, "_MEIPASS", os.path.dirname(sys.executable)), WORKER_DIR)
    return str(Path(__file__).resolve().parents[2])


def restore_frozen_environment(env=None) -> None:
    """In a PyInstaller bundle, give child processes the environment the user started it with.

    The bootloader points LD_LIBRARY_PATH (DYLD_LIBRARY_PATH on macOS) at the bundle's own libraries
    and adds _PYI_* markers; an external Python would load the bundle's libstdc++ under its torch.
    The bundle itself is unaffected: the loader read the variable when the process started."""
    if not getattr(sys, "frozen", False):
        return
    env = os.environ if env is None else env
    for name in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        original = env.pop(f"{name}_ORIG", None)
        if original is not None:
            env[name] = original
        else:
            env.pop(name, None)
    for name in [key for key in env if key.startswith("_PYI_")]:
        del env[name]


def install_command(python: str, missing: list[str]) -> list[str]:
    """argv that installs what `python` lacks for the worker (torch: the default build of the index)."""
    return [python, "-m", "pip", "install", *(NEEDS[name][0] for name in missing if name in NEEDS)]


def probe_argv(python: str, gpus: bool = False) -> list[str]:
    """argv of the isolated question; hand it to QProcess and parse_probe() its output."""
    return [python, "-I", "-c", _PROBE % {"names": tuple(NEEDS), "gpus": gpus}]


_PROBE_LINES = [line.strip() for line in _PROBE.splitlines() if len(line.strip()) >= 16]


def _echoes_probe(line: str) -> bool:
    """A program that is no Python may quote its arguments back (ls: cannot access '...'): never repeat our script."""
    return any(probe_line in line for probe_line in _PROBE_LINES)


def parse_probe(python: str, returncode: int | None, stdout: str, stderr: str = "") -> Probe:
    """The Probe from the child's exit status and output; a child that failed is one problem sentence."""
    try:
        answer = json.loads(stdout.strip().splitlines()[-1]) if returncode == 0 and stdout.strip() else None
    except (ValueError, IndexError):
        answer = None
    if not isinstance(answer, dict):
        why = [line for line in stderr.splitlines() if line.strip() and not _echoes_probe(line)]
        detail = shorten(why[-1].strip().rstrip("."), 120) if why else (
            f"exit status {returncode}" if returncode is not None else "no answer")
        return Probe(python, problems=(f"{python} does not answer as a Python 3 interpreter ({detail}).",),
                     detail=detail)
    version = tuple(answer.get("version") or ())
    modules = dict(answer.get("modules") or {})
    pydantic = modules.get("pydantic") or ""
    old_pydantic = pydantic.split(".")[0].isdigit() and int(pydantic.split(".")[0]) < 2
    lacking = tuple(name for name in NEEDS if modules.get(name) is None or (name == "pydantic" and old_pydantic))
    torch_error = str(answer.get("torch_error") or "")
    problems: list[str] = []
    if version and version[:2] < MIN_PYTHON:  # as Probe.too_old
        problems.append(f"{python} is Python {'.'.join(map(str, version))}; the worker needs Python "
                        f"{'.'.join(map(str, MIN_PYTHON))} or newer.")
    for name in lacking:
        requirement, why = NEEDS[name]
        has = f"has {name} {modules[name]}, too old" if modules.get(name) else f"has no {name}"
        problems.append(f"{python} {has}, which the worker needs ({why}): install it with "
                        f"`{python} -m pip install '{requirement}'`.")
    if torch_error:
        problems.append(f"{python} has torch {modules.get('torch')}, but importing it fails: {torch_error}.")
    return Probe(python, version, modules, answer.get("gpus"), tuple(problems), lacking, torch_error=torch_error)


def probe(python: str, gpus: bool = False, timeout: float = 60.0) -> Probe:
    """Ask `python` (isolated, from a neutral folder) what it has for the worker; blocks until it answers."""
    if not python:
        return Probe(python, problems=("No Python interpreter was chosen for the ranks.",))
    try:
        done = subprocess.run(probe_argv(python, gpus), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, cwd=_neutral_folder())
    except FileNotFoundError:
        return Probe(python, problems=(f"{python} does not exist.",))
    except PermissionError:
        return Probe(python, problems=(f"{python} cannot be run (not an executable file).",))
    except OSError as exc:
        return Probe(python, problems=(f"{python} cannot be started: {exc.strerror or exc}.",))
    except subprocess.TimeoutExpired:
        return Probe(python, problems=(f"{python} did not answer within {timeout:g} s.",))
    return parse_probe(python, done.returncode, done.stdout, done.stderr)


def _neutral_folder() -> str:
    """Where the children run: not the user's working folder (belt and braces besides -I)."""
    import tempfile

    return tempfile.gettempdir()


def _interpreters_in(prefix: str) -> list[str]:
    """The Python of an environment folder (venv or conda), POSIX or Windows layout."""
    names = ("Scripts/python.exe", "python.exe") if os.name == "nt" else ("bin/python", "bin/python3")
    for name in names:
        path = os.path.join(prefix, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return [path]
    return []


def candidate_pythons(cwd: str | None = None, home: str | None = None, env: dict[str, str] | None = None) -> list[str]:
    """Interpreters worth asking, most likely first: the running one (unless frozen), the active venv
    or conda env, ./.venv, common venv and conda folders in the home, then python3/python on PATH."""
    env = os.environ if env is None else env
    home = home or os.path.expanduser("~")
    cwd = cwd or os.getcwd()
    found: list[str] = []
    if not getattr(sys, "frozen", False):
        found.append(sys.executable)
    prefixes = [env.get("VIRTUAL_ENV", ""), env.get("CONDA_PREFIX", ""), os.path.join(cwd, ".venv"),
                os.path.join(cwd, "venv")]
    prefixes += [os.path.join(home, name) for name in (".venv", "venv", ".virtualenvs/*", "venvs/*", "envs/*",
                                                       ".local/share/virtualenvs/*", ".cache/pypoetry/virtualenvs/*",
                                                       ".pyenv/versions/*")]
    for conda in ("miniconda3", "anaconda3", "miniforge3", "mambaforge", ".conda", "micromamba"):
        prefixes += [os.path.join(home, conda), os.path.join(home, conda, "envs", "*")]
    prefixes += ["/opt/conda", "/opt/conda/envs/*"] if os.name != "nt" else []
    for pattern in prefixes:
        for prefix in sorted(glob.glob(pattern)) if pattern else []:
            found += _interpreters_in(prefix)
    for name in ("python3", "python"):
        path = shutil.which(name, path=env.get("PATH"))
        if path:
            found.append(path)
    seen: set[str] = set()
    unique = []
    for path in found:  # a venv's python links to its base: compare the paths, not their targets
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def find_pythons(candidates: list[str] | None = None, timeout: float = 20.0) -> list[Probe]:
    """Probes of the candidates that have torch, in the candidates' order; ready ones (nothing missing) first."""
    candidates = candidate_pythons() if candidates is None else candidates
    with ThreadPoolExecutor(max_workers=4) as pool:
        probes = list(pool.map(lambda python: probe(python, timeout=timeout), candidates))
    with_torch = [p for p in probes if p.torch]
    return sorted(with_torch, key=lambda p: not p.ok)  # stable: keeps the order within each group


@cache
def default_python() -> str | None:
    """The interpreter that runs the ranks when none was chosen: the first found with torch, or None (once a session)."""
    found = find_pythons()
    return found[0].python if found else None


def located(python: str) -> str:
    """The absolute path that `python`, as the user typed it, names from the current folder.

    Taken once, so the check (run from a neutral folder) and the run start the same file: a relative
    `venv/bin/python` is the user's, never a same-named file under the temporary folder; a bare name
    (python3) is looked up on PATH. One not found is returned as typed, for the check to name."""
    if os.sep in python or (os.altsep and os.altsep in python):
        return os.path.abspath(python)
    found = shutil.which(python)
    return os.path.abspath(found) if found else python


def resolve_python(chosen: str | None) -> tuple[str | None, str | None]:
    """(interpreter for the ranks, None) or (None, what is wrong in sentences) for `zerodesk measure/simulate`.

    A chosen one is probed (as an absolute path: located()); without one, the running Python serves when
    it has torch (not in a frozen bundle, whose executable is not a Python), else the first interpreter
    found with torch."""
    if chosen:
        chosen = located(chosen)
        found = probe(chosen)
        return (chosen, None) if found.ok else (None, " ".join(found.problems))
    if not getattr(sys, "frozen", False):
        import importlib.util

        if importlib.util.find_spec("torch") is not None:
            return sys.executable, None
    candidates = candidate_pythons()
    found = find_pythons(candidates)
    if found and found[0].ok:
        return found[0].python, None
    if found:
        return None, " ".join(found[0].problems)
    how = ("make one with `python3 -m venv ~/.venv && ~/.venv/bin/python -m pip install torch 'pydantic>=2.5,<3'`"
           if getattr(sys, "frozen", False) else f"install torch into this Python with `{sys.executable} -m pip "
           f"install torch` (on Linux add `--index-url {CPU_TORCH_INDEX}` for the CPU build, not the multi-GB CUDA "
           "one)")
    return None, (f"no Python with torch was found (asked {len(candidates)}: the active and common venv and conda "
                  f"folders, python3 and python on PATH); {how}, or pass --python PATH")
