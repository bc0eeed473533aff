"""A run's leader (the process whose group holds its ranks), as RunProcess starts it: a fresh Python under
QProcess, or a job forked by a warm worker (zerodesk.measure.job_server: torch already imported, the start takes
milliseconds instead of seconds). Both report on the GUI thread through the same signals and never block it:

  stdout(bytes), stderr(bytes)  what the run writes, as it comes
  exited(int)                   the leader's exit status (negative: killed by that signal; -1: by a signal)
  failedToStart(str)            why it could not be started at all

`pid` is the leader's pid, also its session and process group (None until known); `running()` says whether the
leader itself is still there. The ranks are in its group: RunProcess stops them and waits for them itself.
Torch-free: the warm worker imports torch in its own process.
"""

from __future__ import annotations

import os
import shutil

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QSocketNotifier, QTimer, Signal

from ...measure.job_server import JobServer, ServerJob

POLL_MS = 50  # how often a warm job's start and exit (reported to the server's thread) are looked at


class FreshPython(QObject):
    """The run's launcher as its own Python under QProcess, in a session of its own."""

    stdout = Signal(bytes)
    stderr = Signal(bytes)
    exited = Signal(int)
    failedToStart = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pid: int | None = None
        self.proc = QProcess(self)
        self.proc.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        self.proc.setStandardInputFile(QProcess.nullDevice())
        self.proc.readyReadStandardOutput.connect(self._read_stdout)
        self.proc.readyReadStandardError.connect(self._read_stderr)
        self.proc.finished.connect(self._on_exit)
        self.proc.errorOccurred.connect(self._on_error)

    def start(self, argv: list[str], env: dict[str, str]) -> None:
        program, args = argv[0], argv[1:]
        penv = QProcessEnvironment()
        for key, value in env.items():
            penv.insert(key, value)
        self.proc.setProcessEnvironment(penv)
        if hasattr(self.proc, "setUnixProcessParameters"):  # Qt 6.7+: setsid() in the child
            flags = QProcess.UnixProcessFlag.CreateNewSession | QProcess.UnixProcessFlag.ResetSignalHandlers
            self.proc.setUnixProcessParameters(flags)
        elif shutil.which("setsid"):  # older Qt: the setsid tool execs the launcher as a session leader
            program, args = shutil.which("setsid"), [program, *args]
        self.proc.setProgram(program)
        self.proc.setArguments(args)
        self.proc.start()
        self.pid = self.proc.processId() or None

    def running(self) -> bool:
        return self.proc.state() != QProcess.ProcessState.NotRunning

    def forget(self) -> bool:
        """Nothing to drop before a start (QProcess knows its pid at once); False: stop it by its group."""
        return False

    def close(self) -> None:
        pass  # QProcess closes its own channels

    def _read_stdout(self) -> None:
        self.stdout.emit(bytes(self.proc.readAllStandardOutput()))

    def _read_stderr(self) -> None:
        self.stderr.emit(bytes(self.proc.readAllStandardError()))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.failedToStart.emit(self.proc.errorString())

    def _on_exit(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_stderr()
        self._read_stdout()
        self.exited.emit(-1 if status == QProcess.ExitStatus.CrashExit else code)


class WarmJob(QObject):
    """The run's launcher forked by a warm worker. Submitted at once, started when the worker gets to it (the first
    job waits for the worker's imports); `notTaken` if it never starts there (the worker refused its environment,
    or died): the caller then starts it as its own Python."""

    stdout = Signal(bytes)
    stderr = Signal(bytes)
    exited = Signal(int)
    failedToStart = Signal(str)
    forked = Signal(int)  # its pid: the worker started it
    notTaken = Signal()

    def __init__(self, server: JobServer, job: ServerJob, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server, self.job = server, job
        self.pid: int | None = None
        self._dropped = False
        self._pipes = {}  # fd -> (file, notifier, signal)
        for pipe, out in ((job.stdout, self.stdout), (job.stderr, self.stderr)):
            os.set_blocking(pipe.fileno(), False)
            notifier = QSocketNotifier(pipe.fileno(), QSocketNotifier.Type.Read, self)
            notifier.activated.connect(lambda *_, fd=pipe.fileno(): self._read(fd))
            self._pipes[pipe.fileno()] = (pipe, notifier, out)
        self._watch = QTimer(self)
        self._watch.setInterval(POLL_MS)
        self._watch.timeout.connect(self._look)
        self._watch.start()

    def running(self) -> bool:
        return not self._dropped and not self.job.exited.is_set()

    def forget(self) -> bool:
        """Drop a job that has not started yet (the server kills it the moment it does); False once it has a pid."""
        self._look()
        if self.pid is not None or not self.running():
            return False
        self._watch.stop()
        self._dropped = True
        self.close()
        self.server.abandon(self.job)
        return True

    def close(self) -> None:
        """Stop reading: the notifiers first, then their descriptors."""
        for fd in list(self._pipes):
            pipe, notifier, _ = self._pipes.pop(fd)
            notifier.setEnabled(False)
            notifier.deleteLater()
            pipe.close()

    def _look(self) -> None:
        job = self.job
        if self._dropped:
            return
        if self.pid is None and job.pid is not None:
            self.pid = job.pid
            self.server.took(job)
            self.forked.emit(job.pid)
        if not job.exited.is_set():
            return
        self._watch.stop()
        if self.pid is None:  # it never started: refused, or its worker died before forking it
            self._dropped = True
            self.close()
            self.server.abandon(job)
            self.notTaken.emit()
            return
        for fd in list(self._pipes):  # what it wrote before it left
            self._read(fd)
        self.exited.emit(job.returncode if job.returncode is not None else -1)

    def _read(self, fd: int) -> None:
        if fd not in self._pipes:
            return
        pipe, notifier, out = self._pipes[fd]
        chunks = []
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:  # its end: every writer (the launcher, its ranks) has closed it
                del self._pipes[fd]
                notifier.setEnabled(False)
                notifier.deleteLater()
                pipe.close()
                break
            chunks.append(chunk)
        if chunks:
            out.emit(b"".join(chunks))
