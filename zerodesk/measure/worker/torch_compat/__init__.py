"""Every private torch API ZeroDesk uses, in one place, each behind a self-check that fails loudly.

torch promises nothing about these: the memory trackers of torch.distributed._tools and their fields,
FSDP2's and DDP's internals, the SDPA dispatcher, the fake process group and fake tensors, a cuBLAS
clean-up, and the functions the simulation replaces to run faster. Each has a check in CHECKS that
raises TorchInternalsMoved, naming this torch's version and what moved, and each accessor here runs
its check before relying on it: a moved field stops the run with one sentence, never a patch that
switches itself off or a figure that changes without a word. tests/test_torch_compat.py runs every
check on the installed torch. The one transformers internal the simulation patches lives here too.
Outside this module the worker uses public torch only (a test scans for underscores).
"""

from ._registry import CHECKS, TORCH_FLOOR, TorchInternalsMoved, check
from .trackers import *  # noqa: F401,F403 - one namespace for the worker, the order its checks are declared in
from .fsdp import *  # noqa: F401,F403
from .faster import *  # noqa: F401,F403
from .tensors import *  # noqa: F401,F403
from .fake_world import *  # noqa: F401,F403
from .fake_world import _KeyFallback, _direct_key_walk  # noqa: F401 - tests compare the direct key with torch's


def check_all() -> None:
    """Every self-check, in order: what a new torch must pass before ZeroDesk runs on it."""
    for run in CHECKS.values():
        run()
