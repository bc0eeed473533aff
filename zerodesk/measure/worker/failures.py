"""How a worker process's failures read: one (code, sentence) per exception, or collateral; and deliberate ones.

A rank that only lost its peers is collateral (None): the rank that failed reports. FAULT_ENV makes a
rank fail on purpose at the start of its measured step, so the tests see every kind of ending.
"""

from __future__ import annotations

import os
import time

from ..devices import dist_failure
from ..protocol import WorkerError

FAULT_ENV = "ZERODESK_MEASURE_FAULT"  # test hook: "crash:R", "hang:R", "raise:R" or "garbage:R" (R = rank)


def classify(exc: BaseException, rank: int, stage: int | None, backend: str | None = None) -> tuple[str, str] | None:
    """(code, sentence) to report, or None when this rank only lost its peers (collateral)."""
    import torch
    import torch.distributed as dist

    from .torch_compat import TorchInternalsMoved

    if isinstance(exc, WorkerError):
        return exc.code, exc.message
    full = str(exc).strip()
    text = (full.splitlines() or [""])[0]
    where = f"rank {rank}" + (f" in stage {stage}" if stage is not None else "")
    if isinstance(exc, TorchInternalsMoved):
        return exc.code, f"{where}: {text}"
    if isinstance(exc, torch.OutOfMemoryError) or "can't allocate memory" in text or "out of memory" in text.lower():
        return "out_of_memory", f"{where} ran out of memory: {text[:200]}"
    if isinstance(exc, getattr(dist, "DistError", ())) or "nccl" in full.lower():
        verdict = dist_failure(full, backend)
        return None if verdict is None else (verdict[0], f"{where}: {verdict[1]}")
    if any(s in text for s in ("Connection closed by peer", "Connection reset by peer", "Broken pipe",
                               "Socket Timeout", "timed out")):
        return None
    return "internal", f"{where} failed: {type(exc).__name__}: {text[:300]}"


def inject_fault(rank: int) -> None:
    """The failure FAULT_ENV asks of this rank, if any: crash (SIGKILL), hang, raise, or a garbage stdout line."""
    spec = os.environ.get(FAULT_ENV, "")
    if not spec or spec.split(":")[-1] != str(rank):
        return
    kind = spec.split(":")[0]
    if kind == "crash":
        os.kill(os.getpid(), 9)
    elif kind == "hang":
        while True:
            time.sleep(1)
    elif kind == "raise":
        raise RuntimeError("deliberate failure for a test")
    elif kind == "garbage":
        os.write(int(os.environ.get("ZERODESK_PROTOCOL_FD", "1")), b"this is not a protocol line\n")
