"""A run's processes live no longer than whoever started them; signals to the CLI end the run cleanly.

All POSIX specifics of stopping live here (Windows tears its process tree down elsewhere).
"""

from __future__ import annotations

import os
import signal
import sys
import time

PARENT_ENV = "ZERODESK_PARENT_PID"  # set by the runner: the process a run's launcher must not outlive
_PR_SET_PDEATHSIG = 1
_parent_at_start: int | None = None
REPEAT_EXIT_S = 5.0  # a repeated signal this long after the first ends the process without waiting


def die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process the moment its parent exits, and leave now if it already has.

    Called first thing in every child Python of a run and in every rank, so a SIGKILLed CLI or window
    takes the launcher with it, and the launcher its ranks. Elsewhere parent_gone() is polled instead."""
    global _parent_at_start
    _parent_at_start = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if parent_gone():
        os._exit(1)


def parent_gone() -> bool:
    """Whether the process that started us has exited (we were re-parented, or the runner's pid is gone)."""
    if _parent_at_start is not None and os.getppid() != _parent_at_start:
        return True
    wanted = os.environ.get(PARENT_ENV, "")
    if wanted.isdigit() and os.name == "posix":  # on Windows os.kill(pid, 0) would terminate pid
        try:
            os.kill(int(wanted), 0)
        except ProcessLookupError:
            return True
        except (PermissionError, OSError):
            pass
    return False


def exit_on_hangup() -> None:
    """SIGTERM and SIGHUP (the terminal closed) raise SystemExit(128 + n) as Ctrl+C raises KeyboardInterrupt.

    The run's cleanup (kill the process group, wait for it) then runs in `finally`, instead of the CLI
    vanishing and leaving its launcher behind. Only the first of these three signals raises: the exit
    is then under way, and a repeat would cut its cleanup short or land in the interpreter's shutdown
    ("Exception ignored ... SystemExit"). A repeat more than REPEAT_EXIT_S later ends the process at
    once, so it can always be stopped. A signal the CLI was started ignoring (nohup, `&`) stays ignored."""
    first: list[float] = []

    def leave(signum, _frame):
        if first:
            if time.monotonic() - first[0] > REPEAT_EXIT_S:
                os._exit(128 + signum)
            return
        first.append(time.monotonic())
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, leave)
        except (ValueError, OSError):  # not the main thread
            pass
