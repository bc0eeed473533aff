"""Ask a Python interpreter, without blocking, for its torch version and GPUs.

One function the Measure tab calls; zerodesk.measure.interpreter (finding and probing Pythons) can
replace its body without the tab changing.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject, QProcess, QTimer

PROBE = "import torch; c = torch.cuda.is_available(); print(torch.__version__, torch.cuda.device_count() if c else 0)"
PROBE_TIMEOUT_MS = 60_000

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")



def probe_interpreter(parent: QObject, path: str, done: Callable[[str], None]) -> QProcess:
    """Start the probe; `done` gets one sentence (torch version and GPUs, or why not). Returns the process."""
    proc = QProcess(parent)
    proc.setProgram(path)
    proc.setArguments(["-c", PROBE])
    proc.setStandardInputFile(QProcess.nullDevice())
    answered = []

    def finished(*_args) -> None:
        if answered:
            return
        answered.append(True)
        out = bytes(proc.readAllStandardOutput()).decode("utf-8", "replace").split()
        err = [line for line in bytes(proc.readAllStandardError()).decode("utf-8", "replace").splitlines() if line.strip()]
        if proc.exitStatus() == QProcess.ExitStatus.NormalExit and proc.exitCode() == 0 and len(out) >= 2:
            gpus = int(out[1]) if out[1].isdigit() else 0
            where = translate("Interpreter", "{n} GPU(s) visible").format(n=gpus) if gpus else translate("Interpreter", "no GPU visible: CPU ranks only")
            text = translate("Interpreter", "torch {version}; {where}.").format(version=out[0], where=where)
        elif proc.error() == QProcess.ProcessError.FailedToStart:
            text = translate("Interpreter", "Cannot start {path}: {reason}.").format(path=path, reason=proc.errorString())
        else:
            text = translate("Interpreter", "This interpreter cannot import torch: {reason}").format(
                reason=(err[-1].strip() if err else translate("Interpreter", "exit status {code}").format(code=proc.exitCode())))
        done(text)
        proc.deleteLater()

    proc.finished.connect(finished)
    proc.errorOccurred.connect(lambda e: finished() if e == QProcess.ProcessError.FailedToStart else None)
    QTimer.singleShot(PROBE_TIMEOUT_MS, proc, proc.kill)
    proc.start()
    return proc
