"""Ask a Python interpreter, without blocking, what it has for the worker: torch, pydantic, GPUs.

The question runs isolated (`python -I`, zerodesk.measure.interpreter.probe_argv), so a torch.py planted
in the current folder is never imported; the answer is one sentence, and what the interpreter lacks is
said with the command that installs it, before Start.
"""

from __future__ import annotations

import os
import shlex
from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject, QProcess, QTimer
from shiboken6 import Shiboken

from ...measure.interpreter import MIN_PYTHON, Probe, install_command, parse_probe, probe_argv

PROBE_TIMEOUT_MS = 60_000

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


def lacks_text(found: Probe) -> str:
    """What the interpreter lacks for the worker: one sentence per missing thing, with the command that installs it."""
    path = found.python
    if not found.version:
        return translate("Interpreter", "{path} does not answer as a Python 3 interpreter ({why}).").format(
            path=path, why=found.detail)
    lines = []
    if found.too_old:
        lines.append(translate("Interpreter", "{path} is Python {version}; the worker needs Python {minimum} or newer.").format(
            path=path, version=".".join(map(str, found.version)), minimum=".".join(map(str, MIN_PYTHON))))
    for name in found.lacking:
        lines.append(translate("Interpreter", "{path} lacks {module}, which the worker needs; install it with: {command}").format(
            path=path, module=name, command=shlex.join(install_command(path, [name]))))
    if found.torch_error:
        lines.append(translate("Interpreter", "{path} has torch, but importing it fails: {error}").format(
            path=path, error=found.torch_error))
    return " ".join(lines) or translate("Interpreter", "{path} cannot run the worker.").format(path=path)


def probe_interpreter(parent: QObject, path: str, done: Callable[..., None]) -> QProcess | None:
    """Start the check; `done(text, lacks, gpus)` gets the sentence shown under the field, what blocks Start
    ("" = ready) and the GPUs its torch sees (None when unknown).

    Returns the process, or None when the answer was given at once (no such executable file)."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        text = translate("Interpreter", "{path} is not an executable file.").format(path=path)
        done(text, text, None)
        return None
    proc = QProcess(parent)
    program, *arguments = probe_argv(path, gpus=True)
    proc.setProgram(program)
    proc.setArguments(arguments)
    proc.setStandardInputFile(QProcess.nullDevice())
    # The answer's callback, held only until it is called: proc's connections keep `finished` alive until proc is
    # deleted, and `done` reaches the widget that asked; had they kept it, a widget owned by Python alone could be
    # deleted from inside proc's own deferred delete (its last reference dropped there), which deletes proc a
    # second time (a segfault in ~QObject, seen in tests/test_interpreter.py).
    callback = [done]

    def finished(*_args) -> None:
        if not callback or not Shiboken.isValid(proc):  # answered already, or the tab is gone
            return
        answer = callback.pop()
        out = bytes(proc.readAllStandardOutput()).decode("utf-8", "replace")
        err = bytes(proc.readAllStandardError()).decode("utf-8", "replace")
        normal = proc.exitStatus() == QProcess.ExitStatus.NormalExit
        found = parse_probe(path, proc.exitCode() if normal else None, out, err)
        if proc.error() == QProcess.ProcessError.FailedToStart:
            text = translate("Interpreter", "Cannot start {path}: {reason}.").format(path=path, reason=proc.errorString())
            lacks = text
        elif found.ok:
            gpus = found.gpus or 0
            where = (translate("Interpreter", "{n} GPU(s) visible").format(n=gpus) if gpus
                     else translate("Interpreter", "no GPU visible: CPU ranks only"))
            text, lacks = translate("Interpreter", "torch {version}; {where}.").format(version=found.torch, where=where), ""
        else:
            text = lacks = lacks_text(found)
        proc.deleteLater()
        answer(text, lacks, found.gpus if found.ok else None)

    proc.finished.connect(finished)
    proc.errorOccurred.connect(lambda e: finished() if e == QProcess.ProcessError.FailedToStart else None)
    # A child timer, deleted with proc (QTimer.singleShot with a context makes a parentless timer in Python that
    # outlives proc by up to a minute and is deleted later still)
    deadline = QTimer(proc)
    deadline.setSingleShot(True)
    deadline.timeout.connect(proc.kill)
    deadline.start(PROBE_TIMEOUT_MS)
    proc.start()
    return proc
