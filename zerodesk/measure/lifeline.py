"""A run's processes live no longer than whoever started them; signals to the CLI end the run cleanly.

All POSIX specifics of stopping live here (Windows tears its process tree down elsewhere).
"""

from __future__ import annotations

import os
import signal
import sys

PARENT_ENV = "ZERODESK_PARENT_PID"  # set by the runner: the process a run's launcher must not outlive
_PR_SET_PDEATHSIG = 1
_parent_at_start: int | None = None


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
    """SIGTERM and SIGHUP (the terminal closed) raise SystemExit like Ctrl+C raises KeyboardInterrupt.

    The run's cleanup (kill the process group, wait for it) then runs in `finally` as it does for
    Ctrl+C, instead of the CLI vanishing and leaving its launcher behind."""
    def leave(signum, _frame):
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            try:
                signal.signal(sig, leave)
            except (ValueError, OSError):  # not the main thread
                pass
