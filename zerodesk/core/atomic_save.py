"""Saving a file atomically: written beside its target, synced, then renamed over it; never half a file.

What a save keeps and refuses:
- a symlink is written through to its target, but only to a regular file (or none yet): a link to a
  FIFO or a device is refused, never replaced by a regular file;
- the file's permission bits, and its owner and group where the system permits (root saving a
  user's file leaves it theirs); SaveReport says when they could not be kept, and when the file had
  other hard links, which a rename necessarily leaves holding the old bytes;
- `expect`: the DiskState the caller last saw; a file changed since (whatever it changed into) is
  not overwritten (FileChangedOnDisk), checked again just before the rename;
- temps: on Linux the data goes into an unnamed file (O_TMPFILE) named only for the instant of the
  rename; elsewhere it is named. Either way a temp is marked as ours (an extended attribute holding
  its name's token, and its name carrying its content's digest), and the sweep of stale temps deletes
  only a marked one, owned by us, whose writer is gone.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .disk_state import FILE, DiskState, FileChangedOnDisk, _kind, change_since

TEMP_PREFIX = ".zerodesk-save-"  # short and fixed: the temp name fits beside a 255-byte file name
STALE_TEMP_S = 600.0  # a temp this old is left by a crash wherever it came from
MARK_XATTR = "user.zerodesk.save-temp"  # holds the temp name's token
# .zerodesk-save-HOST-PID-TOKEN-DIGEST.tmp: DIGEST is the first 16 hex digits of the content's sha256
_TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"([0-9a-f]{6})-([0-9]{1,10})-([0-9a-f]{8})-([0-9a-f]{16})\.tmp",
                        re.ASCII)


class NotARegularFile(OSError):
    """The save's target exists but is not a regular file (a FIFO, a device, a folder, a socket)."""


@dataclass(frozen=True)
class SaveReport:
    """What a save could not keep. split_links: the file had this many other hard links, which still hold the
    old bytes; owner_kept: False when the old file's owner or group could not be given to the new one.
    written: the DiskState of the file just written, taken from the written file itself (not looked up again by
    name, which another program may already have changed): what the next save's `expect` should be."""

    path: Path
    split_links: int = 0
    owner_kept: bool = True
    written: DiskState | None = None


@cache
def host_tag() -> str:
    """Whose pids a temp name speaks of: this host's name, hashed. Made on the first save (hashlib loads OpenSSL's
    library: a few milliseconds the window's start does not need)."""
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _token() -> str:
    return os.urandom(4).hex()  # as secrets.token_hex(4), without importing secrets (and hashlib, hmac) at start


def temp_name(data: bytes, token: str | None = None) -> str:
    return f"{TEMP_PREFIX}{host_tag()}-{os.getpid()}-{token or _token()}-{_sha256(data)[:16]}.tmp"


def atomic_write_text(path: str | os.PathLike, text: str, expect: DiskState | None = None) -> SaveReport:
    """Write beside the target, fsync, then rename over it: never a half-written file (see the module's notes).

    OSError (NotARegularFile among them) or FileChangedOnDisk when it cannot or must not; the old file is
    then untouched and no temp is left."""
    data = text.encode("utf-8")
    target = Path(os.path.realpath(path))
    folder = target.parent
    if expect is not None:
        _refuse_changed(path, expect)
    old = _regular_or_none(target)
    sweep_stale_temps(folder)
    token = _token()
    tmp = folder / temp_name(data, token)
    fd, owner_kept = _write_temp(folder, tmp, data, token, old)
    try:
        try:
            if expect is not None:  # once more, as close to the rename as a check can be
                _refuse_changed(path, expect)
            _regular_or_none(target)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _unmark(fd)
        info = os.fstat(fd)
    finally:
        os.close(fd)
    _fsync_folder(folder)
    written = DiskState(FILE, str(target), len(data), (info.st_dev, info.st_ino, info.st_mtime_ns),
                        _sha256(data))
    return SaveReport(target, split_links=max(0, old.st_nlink - 1) if old is not None else 0, owner_kept=owner_kept,
                      written=written)


def _write_temp(folder: Path, tmp: Path, data: bytes, token: str, old: os.stat_result | None) -> tuple[int, bool]:
    """The complete temp, synced and named tmp: (its open descriptor, whether the owner was kept)."""
    fd = _open_unnamed(folder)
    if fd is not None:
        try:
            owner_kept = _fill(fd, tmp, data, token, old)
            if _name_unnamed(fd, tmp):
                return fd, owner_kept
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # e.g. EXDEV where /proc cannot link into this file system: a named temp after all
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0),
                 0o666)  # the kernel applies the umask
    try:
        return fd, _fill(fd, tmp, data, token, old)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise


def _fill(fd: int, tmp: Path, data: bytes, token: str, old: os.stat_result | None) -> bool:
    """Mark, own, chmod, write and sync the temp; whether the old file's owner was kept."""
    _mark(fd, token)
    owner_kept = _keep_owner(fd, old)
    if old is not None:
        _chmod(fd, tmp, stat.S_IMODE(old.st_mode))  # after the chown, which may clear set-id bits
    _write_all(fd, data)
    return owner_kept


def _regular_or_none(target: Path) -> os.stat_result | None:
    """The target's stat if it is a regular file, None if there is none yet; NotARegularFile otherwise."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise NotARegularFile(errno.EEXIST, f"it leads to a {_kind(info.st_mode)}, not a regular file")
    return info


def _refuse_changed(path: str | os.PathLike, expect: DiskState) -> None:
    change = change_since(path, expect)
    if change is not None:
        raise FileChangedOnDisk(path, change)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def _open_unnamed(folder: Path) -> int | None:
    """An O_TMPFILE in folder, or None where the system or file system cannot (then the temp is named)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, 0o666)  # the kernel applies the umask
    except OSError:
        return None


def _name_unnamed(fd: int, tmp: Path) -> bool:
    try:
        os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
        return True
    except OSError:
        return False


def _mark(fd: int, token: str) -> None:
    """Mark the temp as ours where the file system keeps extended attributes (else its name's digest marks it)."""
    try:
        os.setxattr(fd, MARK_XATTR, token.encode())
    except (AttributeError, OSError):
        pass


def _unmark(fd: int) -> None:
    """The saved file is no temp: take the mark off (harmless if a crash leaves it, the sweep reads names first)."""
    try:
        os.removexattr(fd, MARK_XATTR)
    except (AttributeError, OSError):
        pass


def _keep_owner(fd: int, old: os.stat_result | None) -> bool:
    """Give the new file the old one's owner and group, or at least its group, as far as permitted."""
    if old is None or not hasattr(os, "fchown"):
        return True
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) == (old.st_uid, old.st_gid):
        return True
    for uid in (old.st_uid, -1):
        try:
            os.fchown(fd, uid, old.st_gid)
            return uid != -1 or now.st_uid == old.st_uid
        except OSError:
            continue
    return False


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


def is_our_temp(path: str | os.PathLike) -> bool:
    """Whether path is provably a temp a ZeroDesk save left: its name has our pattern, we own it, and it carries our
    mark (the extended attribute holding the name's token) or bytes whose digest is the one its name carries."""
    name = os.path.basename(path)
    m = _TEMP_NAME.fullmatch(name)
    if m is None:
        return False
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "geteuid") and info.st_uid != os.geteuid()):
            return False
        try:
            if os.getxattr(path, MARK_XATTR, follow_symlinks=False) == m.group(3).encode():
                return True
        except (AttributeError, OSError):
            pass
        return info.st_size <= 64 * 2**20 and _content_digest(path, info) == m.group(4)
    except (OSError, ValueError):
        return False


def _content_digest(path: str | os.PathLike, seen: os.stat_result) -> str | None:
    """The first 16 hex digits of the sha256 of the regular file lstat saw as `seen` (never a FIFO swapped in)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            return None
        import hashlib

        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()[:16]
    finally:
        os.close(fd)


def sweep_stale_temps(folder: str | os.PathLike) -> None:
    """Remove save temps in folder that are provably ours (is_our_temp) and whose writer is gone: a dead process
    of this host, or older than STALE_TEMP_S."""
    try:
        entries = list(os.scandir(folder))
    except (OSError, ValueError):
        return
    now = time.time()
    for entry in entries:
        m = _TEMP_NAME.fullmatch(entry.name)
        if m is None:
            continue
        host, pid = m.group(1), int(m.group(2))
        try:
            writer_gone = host == host_tag() and not _process_exists(pid)
            stale = writer_gone or now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_S
            if stale and is_our_temp(entry.path):
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
    except (OSError, OverflowError):  # EPERM: it exists, another user's
        return True
    return True
