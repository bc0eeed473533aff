"""Bytes from a worker's stdout in, protocol messages out. Torch-free and Qt-free.

The CLI (runner.py, over a pipe) and the GUI (gui/runs/process.py, over QProcess) both feed the
bytes they read to one ProtocolReader. It splits lines, keeps a partial line until its newline
(or until finish() at end of output), and ends the run at the first Done or Error: whatever
comes after is noise from ranks being stopped. Each byte is scanned for a newline once, so a
long line fed in many small chunks stays linear; a line past MAX_LINE_BYTES ends the run at
once instead of growing without bound.
"""

from __future__ import annotations

from .protocol import Done, Error, Message, ProtocolError, decode

MAX_LINE_BYTES = 4 * 2**20  # a Result is a few kB; a line this long is not the protocol


class ProtocolReader:
    """Feed it bytes; it returns the messages they complete. `outcome` is the first Done or Error."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no newline
        self.outcome: Done | Error | None = None

    @property
    def pending(self) -> int:
        """Bytes of a line still waiting for its newline."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Message]:
        if self.outcome is not None:
            return []
        self._buffer += data
        out: list[Message] = []
        start = 0
        while self.outcome is None:
            end = self._buffer.find(b"\n", max(start, self._scanned))
            if end < 0:
                break
            self._take(bytes(self._buffer[start:end]), out)
            start = end + 1
        del self._buffer[:start]  # deleting a bytearray's head is O(1) in CPython
        self._scanned = len(self._buffer)
        if self.outcome is None and len(self._buffer) > MAX_LINE_BYTES:
            self._buffer.clear()
            self._conclude(Error(code="internal", message=(
                f"the measurement printed a line longer than {MAX_LINE_BYTES // 2**20} MiB without a newline, "
                "which is not a protocol message")), out)
        if self.outcome is not None:
            self._buffer.clear()
        return out

    def finish(self) -> list[Message]:
        """The output has ended: a last line without its newline still counts."""
        if self.outcome is not None or not self._buffer.strip():
            self._buffer.clear()
            return []
        line = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        out: list[Message] = []
        self._take(line, out)
        return out

    def _take(self, line: bytes, out: list[Message]) -> None:
        if not line.strip():
            return
        try:
            msg = decode(line)
        except ProtocolError as exc:
            self._conclude(Error(code="internal", message=str(exc)), out)
            return
        if isinstance(msg, (Done, Error)):
            self._conclude(msg, out)
        else:
            out.append(msg)

    def _conclude(self, msg: Done | Error, out: list[Message]) -> None:
        self.outcome = msg
        out.append(msg)
