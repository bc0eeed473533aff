"""Saving a file atomically: written beside its target, synced, then renamed over it; never half a file."""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import stat
import time
from pathlib import Path

TEMP_PREFIX = ".zerodesk-save-"  # short and fixed: the temp name fits beside a 255-byte file name
STALE_TEMP_S = 600.0  # a temp this old is left by a crash wherever it came from
_HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]  # whose pids a temp name speaks of


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write beside the target, fsync, then rename over it: never a half-written file.

    A symlink is written through to its target. An existing file keeps its permission bits; a new one
    gets the usual 0666 less the umask. On Linux the data goes into an unnamed file (O_TMPFILE) that
    is given a name only for the instant of the rename, so a kill mid-save leaves nothing behind.
    Where that is not possible the temp's name carries this host and pid, and every save (and the
    window's open) sweeps the temps of processes that no longer exist (sweep_stale_temps)."""
    target = Path(os.path.realpath(path))
    folder = target.parent
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    sweep_stale_temps(folder)
    tmp = folder / f"{TEMP_PREFIX}{_HOST_TAG}-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    data = text.encode("utf-8")
    try:
        if not _write_unnamed(folder, tmp, data, mode):
            _write_named(tmp, data, mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def _write_all(fd: int, tmp: Path, data: bytes, mode: int | None) -> None:
    if mode is not None:
        _chmod(fd, tmp, mode)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def _write_unnamed(folder: Path, tmp: Path, data: bytes, mode: int | None) -> bool:
    """Write an O_TMPFILE and name it tmp; False where the system or file system cannot (then use a named temp)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        fd = os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, 0o666)  # the kernel applies the umask
    except OSError:
        return False
    try:
        _write_all(fd, tmp, data, mode)
        os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
        return True
    except OSError:  # e.g. EXDEV where /proc cannot link into this file system
        return False
    finally:
        os.close(fd)


def _write_named(tmp: Path, data: bytes, mode: int | None) -> None:
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0),
                 0o666)  # the kernel applies the umask
    try:
        _write_all(fd, tmp, data, mode)
    finally:
        os.close(fd)


def _chmod(fd: int, tmp: Path, mode: int) -> None:
    if os.chmod in os.supports_fd:
        os.chmod(fd, mode)
    else:  # Windows: only the read-only bit exists, set by name
        os.chmod(tmp, mode)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sweep_stale_temps(folder: str | os.PathLike) -> None:
    """Remove save temps in folder whose writer is gone: a dead process of this host, or older than STALE_TEMP_S."""
    try:
        entries = list(os.scandir(folder))
    except (OSError, ValueError):
        return
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(".tmp")):
            continue
        host, _, rest = entry.name[len(TEMP_PREFIX):].partition("-")
        pid = rest.partition("-")[0]
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            writer_gone = host == _HOST_TAG and pid.isdigit() and not _process_exists(int(pid))
            if writer_gone or now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_S:
                os.unlink(entry.path)
        except OSError:
            pass


def _process_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":  # os.kill(pid, 0) would terminate it on Windows: rely on the age instead
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, another user's
        return True
    return True

