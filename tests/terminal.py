"""Run a command with its stderr on a pseudo-terminal, as a person at a terminal sees it (POSIX only)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import threading
import time
from pathlib import Path


def terminal_stderr(argv: list[str], root: Path, timeout: float = 180) -> tuple[int, str, str]:
    """Run argv with stderr on a pseudo-terminal (stdout on a pipe): (status, stdout, what the terminal got)."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("ZERODESK_MEASURE_FAULT", None)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=terminal, env=env, cwd=root)
    os.close(terminal)
    seen, deadline = bytearray(), time.monotonic() + timeout
    chunks: list[bytes] = []
    stdout_reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    stdout_reader.start()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.2)
        if ready:
            try:
                data = os.read(controller, 65536)
            except OSError:  # the terminal's other end is closed: the process has gone
                break
            if not data:
                break
            seen.extend(data)
        elif proc.poll() is not None:
            break
    os.close(controller)
    proc.wait(timeout=10)
    stdout_reader.join(timeout=10)
    return proc.returncode, b"".join(chunks).decode(), seen.decode(errors="replace")
