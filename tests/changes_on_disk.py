"""Ways another program can change a plan file after ZeroDesk read it, by name: what the core's change check and
the window's save are tried against (tests/test_saving.py, tests/test_gui_files.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from zerodesk.core.disk_state import DELETED, EDITED, RELINKED, REPLACED
from zerodesk.core.plan import ModelSpec, Plan, plan_to_json

OTHER = Plan(model=ModelSpec(params=7 * 10**9))
OTHER_NAME = "other.zerodesk.json"  # the file a path is re-linked to
CHANGE_NAMES = ["bigger", "huge_sparse", "same_size", "smaller", "link_elsewhere", "fifo", "link_to_fifo", "folder",
                "deleted", "device"]


def _make_sparse(path: Path, size: int) -> None:
    with open(path, "wb") as fh:
        fh.truncate(size)


def changes_on_disk(folder: Path) -> dict:
    """{name: (change(path), the core's kind of change)}; `device` only as root (a node of our own, never a system one)."""
    other = folder / OTHER_NAME
    other.write_text(plan_to_json(OTHER))

    def bigger(p):  # 17.8 MB: past the 16 MiB a plan may be, the check still answers
        p.write_bytes(b" " * 17_800_000)

    def huge_sparse(p):  # 100 GB: answered from its size, never read
        p.unlink()
        _make_sparse(p, 100 * 10**9)

    def same_size(p):
        data = bytearray(p.read_bytes())
        data[-2:-1] = b" "
        p.write_bytes(bytes(data))

    def smaller(p):
        p.write_text("{}")

    def link_elsewhere(p):
        p.unlink()
        p.symlink_to(other)

    def fifo(p):
        p.unlink()
        os.mkfifo(p)

    def link_to_fifo(p):
        fifo_path = folder / "a.fifo"
        os.mkfifo(fifo_path)
        p.unlink()
        p.symlink_to(fifo_path)

    def as_folder(p):
        p.unlink()
        p.mkdir()

    def deleted(p):
        p.unlink()

    cases = {"bigger": (bigger, EDITED), "huge_sparse": (huge_sparse, EDITED), "same_size": (same_size, EDITED),
             "smaller": (smaller, EDITED), "link_elsewhere": (link_elsewhere, RELINKED), "fifo": (fifo, REPLACED),
             "link_to_fifo": (link_to_fifo, RELINKED), "folder": (as_folder, REPLACED), "deleted": (deleted, DELETED)}
    if os.geteuid() == 0:
        def device(p):
            p.unlink()
            os.mknod(p, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        cases["device"] = (device, REPLACED)
    return cases


def listing(folder: Path) -> dict:
    """Every entry in folder by name: (mode, size), not following links."""
    return {p.name: (os.lstat(p).st_mode, os.lstat(p).st_size) for p in folder.iterdir()}
