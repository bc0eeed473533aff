"""What a file on disk is, remembered cheaply, and whether it changed since: the question before a save.

A save must not overwrite a file that someone else changed, whatever it changed into: other bytes of
any size, a symlink that leads elsewhere, a FIFO, a device, a folder, or nothing at all. The check
never reads a file whose size differs from what was remembered (a 10 GB file is compared by its size),
and reads a same-size file once, to a digest, never into the JSON parser. Qt-free: the window asks it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .errors import PlanError
from .json_files import read_file
from .text import shorten

# kinds of what a path leads to
MISSING, FILE, FOLDER, FIFO, DEVICE, SOCKET, OTHER = "missing", "file", "folder", "FIFO", "device", "socket", "other"
# kinds of change (Change.kind); the window words each in its own language
DELETED, CREATED, EDITED, RELINKED = "deleted", "created", "edited", "relinked"
REPLACED, UNREADABLE = "replaced", "unreadable"

_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISREG, FILE), (stat.S_ISDIR, FOLDER), (stat.S_ISFIFO, FIFO), (stat.S_ISCHR, DEVICE),
                       (stat.S_ISBLK, DEVICE), (stat.S_ISSOCK, SOCKET)):
        if test(mode):
            return kind
    return OTHER


@dataclass(frozen=True)
class DiskState:
    """What `path` led to when looked at: its kind, the real path it resolves to, size, identity, digest."""

    kind: str
    real: str = ""  # the path after every symlink: where a save through this path would write
    size: int = -1
    identity: tuple[int, ...] = ()  # (device, inode, mtime in ns)
    digest: str | None = None  # sha256 of a regular file's bytes, when they were read

    @property
    def exists(self) -> bool:
        return self.kind != MISSING


def _look(path: str | os.PathLike) -> DiskState:
    """Kind, real path, size and identity, reading nothing (a FIFO or a device is never opened)."""
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except (OSError, ValueError):  # gone, a dangling link, a name no file can have
        return DiskState(MISSING, real)
    return DiskState(_kind(info.st_mode), real, info.st_size, (info.st_dev, info.st_ino, info.st_mtime_ns))


def _digest(state: DiskState, limit: int) -> str | None:
    """sha256 of the regular file `state` describes, read to at most `limit` bytes; None if it cannot be read
    or is no longer that file (it was swapped between the look and the read)."""
    try:
        fd = os.open(state.real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != state.identity[:2]:
            return None
        import hashlib  # loaded with the first file read or saved (OpenSSL's library): not at the window's start

        h, left = hashlib.sha256(), limit + 1  # one byte past the limit tells a file that grew
        while left > 0:
            chunk = os.read(fd, min(_CHUNK, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
        return h.hexdigest() if left > 0 else None
    except OSError:
        return None
    finally:
        os.close(fd)


def observe(path: str | os.PathLike, data: bytes | None = None, read_limit: int = 64 * 2**20) -> DiskState:
    """Remember what path is now. `data`: the bytes just read from it or written to it (no second read);
    otherwise a regular file of at most read_limit bytes is read to its digest."""
    state = _look(path)
    if state.kind != FILE:
        return state
    if data is not None:
        import hashlib

        digest = hashlib.sha256(data).hexdigest() if len(data) == state.size else None
    else:
        digest = _digest(state, read_limit) if state.size <= read_limit else None
    return DiskState(state.kind, state.real, state.size, state.identity, digest)


@dataclass(frozen=True)
class Change:
    """How the file changed: kind (DELETED, CREATED, EDITED, RELINKED, REPLACED, UNREADABLE) and what it is now."""

    kind: str
    now: DiskState

    def words(self) -> str:
        """English words for the change, to follow the file's name: 'was deleted'."""
        return {
            DELETED: "was deleted",
            CREATED: "was created by another program",
            EDITED: "was changed by another program",
            RELINKED: f"now leads to another file ({shorten(self.now.real, 200)})",
            REPLACED: f"was replaced by a {self.now.kind}" if self.now.kind != OTHER else "is no longer a regular file",
            UNREADABLE: "was changed and can no longer be read",
        }[self.kind]


def change_since(path: str | os.PathLike, before: DiskState) -> Change | None:
    """None when path still holds what `before` saw (the same bytes at the same real path), else the Change.

    Equal bytes count as unchanged even when rewritten (another window saving the same plan). A file whose
    size differs is changed without being read; one of the same size is read once, to its digest."""
    now = _look(path)
    if not before.exists:
        return None if not now.exists else Change(CREATED, now)
    if not now.exists:
        return Change(DELETED, now)
    if now.real != before.real:  # became a symlink, a link re-pointed, a folder on the way swapped
        return Change(RELINKED, now)
    if now.kind != before.kind:
        return Change(REPLACED, now)
    if now.kind != FILE:
        return None if now.identity == before.identity else Change(REPLACED, now)
    if now.size != before.size:
        return Change(EDITED, now)
    digest = _digest(now, before.size)
    if digest is None or before.digest is None:  # what cannot be read is judged by its identity alone
        if now.identity == before.identity:
            return None
        return Change(UNREADABLE if digest is None else EDITED, now)
    return None if digest == before.digest else Change(EDITED, now)


def read_observed(path: str | os.PathLike, what: str) -> tuple[bytes, DiskState]:
    """A file's bytes (json_files.read_file) and the DiskState they came from, the digest of those very bytes.

    A file replaced between the read and the look is read again: a state that does not describe the bytes
    read would let a later save overwrite that replacement without asking."""
    for _ in range(3):
        data = read_file(path, what)
        state = observe(path, data)
        if state.digest is not None:
            return data, state
    raise PlanError(f"{what} {shorten(os.fspath(path), 200)} keeps changing while it is read; try again once it settles")


class FileChangedOnDisk(PlanError):
    """Saving would overwrite a change made on disk since the file was read or written here; nothing was written."""

    def __init__(self, path: str | os.PathLike, change: Change, what: str = "plan file") -> None:
        self.path, self.change = path, change
        super().__init__(f"{what} {shorten(os.fspath(path), 200)} {change.words()} since it was opened or saved here")

    @property
    def deleted(self) -> bool:
        return self.change.kind == DELETED
