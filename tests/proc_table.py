"""The live processes as /proc lists them, for tests that check no process is left behind."""

from __future__ import annotations

import os
from pathlib import Path


def live_processes() -> list[tuple[int, int, int]]:
    """(pid, parent pid, process group) of every live (non-zombie) process, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp ...
            if fields[0] not in "ZX":
                found.append((int(entry), int(fields[1]), int(fields[2])))
    return found
