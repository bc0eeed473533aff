"""Qt views over the planning core. Imports PySide6 and pyqtgraph, never torch.

Importing this package first works around a PySide6 6.12 defect on CPython 3.11: its abi3
bindings return None from every void method, and True from Signal.emit(), without taking a
reference (harmless on 3.12+, where these singletons are immortal, PEP 683). On 3.11 each such
call drops the singleton's reference count by one, and after a few thousand calls (a minute of
editing) the interpreter aborts with "Fatal Python error: none_dealloc" (or bool_dealloc).
We give None, True and False the same huge reference count that 3.12 gives them, before any
Qt call runs. tests/test_gui_runtime.py guards it.
"""

from __future__ import annotations

import sys

IMMORTAL_REFCOUNT_BOOST = 1 << 60


def _keep_singletons_alive() -> bool:
    """Raise the reference counts of None, True, False out of reach on CPython < 3.12.

    Returns True if it changed anything. The count lives in the object's first word (ob_refcnt).
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    import ctypes

    changed = False
    for singleton in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))
        if refcount.value < IMMORTAL_REFCOUNT_BOOST // 2:
            refcount.value += IMMORTAL_REFCOUNT_BOOST
            changed = True
    return changed


_keep_singletons_alive()
