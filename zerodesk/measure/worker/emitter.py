"""Protocol lines out of a worker process, and nothing else on its stdout.

The Emitter keeps the real stdout for itself and points fd 1 at stderr, so a stray print from torch,
transformers or our own code cannot corrupt the stream a reader decodes.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from ..protocol import encode


class Emitter:
    """Writes protocol lines to the real stdout (rank 0's, unless every_rank); fd 1 itself now goes to stderr."""

    def __init__(self, rank: int) -> None:
        sys.stdout.flush()
        self.fd = os.dup(1)
        os.dup2(2, 1)
        self.rank = rank
        self._lock = threading.Lock()

    def __call__(self, msg: Any, every_rank: bool = False) -> None:
        if self.rank != 0 and not every_rank:
            return
        data = (encode(msg) + "\n").encode()
        with self._lock:
            while data:  # a pipe may take a long line in pieces
                data = data[os.write(self.fd, data):]
