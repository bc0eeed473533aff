"""Where a rank runs and how its failures read: rank discovery, the device decision, NCCL errors.

Torch-free, so the rules are unit-tested on any machine: a rank learns who it is from its launcher's
environment (env_rank), the launcher decides the device once (decide_device), each rank finds its GPU
(cuda_index), and a failed collective becomes one sentence or, when only a peer is gone, collateral
(dist_failure). Also AdamW's kernel flags (adamw_kwargs), which the ranks pass to torch.
"""

from __future__ import annotations

import os
import socket
from typing import Mapping

from ..core.options import OPTIMIZER_IMPL

# Launchers' names for a process's index on its own node, most specific first: torchrun and our
# launcher, SLURM's srun, Open MPI, MPICH/Intel MPI.
LOCAL_RANK_VARS = ("LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID")


def local_rank(env: Mapping[str, str] | None = None) -> int | None:
    """This process's index on its node, from the launcher's environment; None when no launcher says."""
    env = os.environ if env is None else env
    for name in LOCAL_RANK_VARS:
        value = env.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


def env_rank() -> tuple[int, int, int | None]:
    """RANK, WORLD_SIZE and the node-local rank (None where no launcher says) from torchrun, SLURM, MPI or our
    launcher; a lone process becomes rank 0 of 1 (on a free loopback port)."""
    if "RANK" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "1"))
    return rank, world, local_rank()


def cuda_index(local: int | None, rank: int, visible: int) -> int:
    """The GPU a rank uses, among the `visible` ones.

    - one visible GPU: that one, whatever the rank (SLURM --gpus-per-task=1, one-GPU containers);
    - local rank known: that GPU (torchrun, our launcher), refused when there are fewer;
    - no local rank: the global rank modulo the GPUs visible (ranks filled node by node).
    Raises ValueError with one sentence when the rank has no GPU of its own."""
    if visible < 1:
        raise ValueError("no GPU is visible to this process")
    if visible == 1:
        return 0
    if local is None:
        return rank % visible
    if local >= visible:
        raise ValueError(f"local rank {local} needs GPU {local}, but only {visible} are visible "
                         "(start one rank per GPU, or give each rank its own GPU with CUDA_VISIBLE_DEVICES)")
    return local


def decide_device(asked: str, cuda_available: bool) -> str:
    """The one device decision: 'auto' is CUDA when this torch sees a usable GPU, else CPU."""
    if asked == "auto":
        return "cuda" if cuda_available else "cpu"
    return asked


def default_ranks(dp: int, device: str, gpus: int, most: int) -> int:
    """Ranks when the user has not chosen: the plan's Nd, at most `most`, and on CUDA at most one per GPU."""
    ranks = max(1, min(dp, most))
    return max(1, min(ranks, gpus)) if device == "cuda" else ranks


# What a failed collective says when only a peer went away: this rank is collateral, the peer reports.
PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "Broken pipe", "remote process exited",
             "ncclRemoteError", "Socket Timeout", "communicator was aborted")
TIMED_OUT = ("Watchdog caught collective operation timeout", "timed out", "Timed out")


def dist_failure(text: str, backend: str | None) -> tuple[str, str] | None:
    """(code, reason) for a failure in torch.distributed, or None when only a peer is gone (collateral).

    text: the exception's message. Outside NCCL (gloo, the store) a failed collective means a peer or the rendezvous went away: collateral."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if any(s in text for s in PEER_GONE):
        return None
    if any(s in text for s in TIMED_OUT):
        return "timeout", f"a collective timed out ({first[:200]})"
    nccl = backend == "nccl" or "NCCL" in text or "nccl" in text
    if nccl:
        # NCCL's own words: 'ncclSystemError: ...' then 'Last error:' and the reason on the next line
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        reason = next((lines[i + 1] for i, ln in enumerate(lines[:-1]) if ln.startswith("Last error")), "")
        kind = next((ln.split(":")[0] for ln in lines if ln.startswith("nccl") and ":" in ln), "")
        said = "; ".join(x for x in (kind, reason) if x) or first
        return "nccl", f"NCCL failed: {said[:300]}"
    return None


def adamw_kwargs(impl: str) -> dict[str, bool]:
    OPTIMIZER_IMPL.check(impl)
    return {"foreach": impl == "foreach", "fused": impl == "fused"}
