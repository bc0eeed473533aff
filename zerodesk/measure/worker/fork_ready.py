"""Make the launcher cheap to fork: CPU ranks inherit an imported torch and a host allocator that keeps memory.

Two costs dominated a CPU measurement of a small model on a small machine (`zerodesk measure --preset gpt2
--layers-scale 0.1`, 2 ranks, 4 stages: about 36 s of CPU, a third of it in the kernel):

- glibc hands every block above 32 MiB (its largest dynamic threshold) out with mmap and returns it on free,
  so a rank asks the kernel for fresh zeroed pages for each gradient, Adam temporary and bucket of every
  step: 6.4 million page faults. Serving large blocks from the heap and keeping freed memory lets the
  second step reuse the first one's pages (3.0 million faults, kernel time 15 -> 8 s). The figures do not
  move: the trackers count tensor bytes, not pages, and CUDA ranks (spawned) allocate through CUDA.
- every forked rank's collector walks (and so copies, page by page) the launcher's objects: torch's and
  transformers' modules. gc.freeze() moves them to a generation the collector never visits.

Both are settings of this process, taken before the ranks fork; spawned ranks (CUDA) are left as they are.
"""

from __future__ import annotations

import ctypes
import gc
import platform

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
KEEP_BYTES = 1 << 30  # blocks up to this size come from the heap, and this much freed memory stays with the rank


def keep_freed_memory() -> bool:
    """glibc only: serve blocks up to KEEP_BYTES from the heap and keep freed memory; False where not glibc."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, KEEP_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, KEEP_BYTES))


def prepare_to_fork() -> None:
    """Call once, after the imports every rank shares and before the first fork."""
    gc.collect()
    gc.freeze()  # the imported modules' objects: never collected, so never touched (and copied) by a rank
    keep_freed_memory()
