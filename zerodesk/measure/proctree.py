"""Start a child as the head of its own process tree, and stop the whole tree: POSIX and Windows.

POSIX: the child starts a new session (setsid), so its pid is the process group of every rank it
forks; signals go to the group with killpg, and "alive" reads the group from /proc (or asks the
kernel where there is no /proc, as on macOS). Windows has no process groups of that kind and no
SIGKILL: the child starts in a new console process group and `taskkill /T` walks its descendants
(without /F it asks, with /F it terminates). Nothing here is evaluated at import that a platform lacks.
Stdlib only: the GUI, the CLI and the worker's launcher all import it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

POSIX = hasattr(os, "killpg") and hasattr(os, "setsid")
SIGTERM = signal.SIGTERM
SIGKILL = getattr(signal, "SIGKILL", 9)  # 9 where the name is missing (Windows): the "force" request below
CREATE_NEW_PROCESS_GROUP = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)


def popen_kwargs() -> dict:
    """subprocess.Popen arguments that make the child the head of its own tree."""
    if POSIX:
        return {"start_new_session": True}
    return {"creationflags": CREATE_NEW_PROCESS_GROUP}


def rank_start_method(device: str) -> str:
    """multiprocessing start method for local ranks: fork on CPU where it exists (fast), else spawn."""
    return "fork" if device != "cuda" and hasattr(os, "fork") else "spawn"


def signal_tree(pid: int, sig: int = SIGKILL) -> None:
    """Ask (SIGTERM) or force (SIGKILL) every process of the tree headed by pid to stop; quiet if it is gone."""
    if POSIX:
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        return
    argv = ["taskkill", "/T", "/PID", str(pid)]
    if sig != SIGTERM:
        argv.insert(1, "/F")
    try:
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        pass


def tree_alive(pid: int) -> bool:
    """Whether any non-zombie process of the tree headed by pid is left."""
    if not POSIX:
        return _windows_pid_alive(pid)
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(pid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp ...
        if int(fields[2]) == pid and fields[0] not in "ZX":
            return True
    return False


def _windows_pid_alive(pid: int) -> bool:
    """The tree's head still runs (taskkill /T took its descendants with it). Never os.kill(pid, 0) on
    Windows: that terminates the process."""
    if sys.platform != "win32":  # a POSIX machine pretending (tests): the kernel can tell
        try:
            os.kill(pid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)
