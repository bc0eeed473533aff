"""Python's cyclic garbage collector, held back while the window starts, then told to leave the start-up alone.

Opening the window makes some 300,000 objects the collector tracks, nearly all of which live as long as the
process does (modules, classes, Qt's wrappers, the plan's figures). With the default thresholds the collector
ran about 200 times during the start, walking them again and again and finding next to nothing: 75-85 ms of
CPU time on a busy 2-core machine, a tenth of the start. While the window starts, the young generation is
collected only past START_THRESHOLD objects (so garbage stays bounded, unlike with gc.disable(); the start
stays below it and is never collected); once everything is in place the survivors are frozen (gc.freeze():
later collections, such as those during edits, never scan them again) and the usual thresholds come back.

Qt-free and import-free, so the entry points can hold the collector before anything heavy is imported.

PySide6 reads the source of every module imported after it (inspect.getsource, looking for its __feature__ switches),
which leaves each file's lines in linecache: ~300 lists of ~110,000 lines by the end of the start, kept for nothing
(a traceback reads a file again when it needs it). Release empties that cache before freezing: ~10 MB not kept, and
in a process that never freezes (a test run, a tool) every full collection walked those lists too.
"""

from __future__ import annotations

import gc

START_THRESHOLD = 300_000  # tracked objects between two young collections while the window starts (default: 700)

_saved: tuple[int, ...] | None = None  # the thresholds to restore, while held


def hold() -> None:
    """Collect the young generation rarely until release(); does nothing when already held."""
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(max(START_THRESHOLD, _saved[0]), *_saved[1:])


def release() -> None:
    """The start is over: freeze what it made and restore the thresholds; does nothing unless held."""
    global _saved
    if _saved is not None:
        import linecache  # imported long before (traceback, PySide6): a lookup

        linecache.clearcache()  # the sources PySide6 read while the window started (see above)
        gc.freeze()
        gc.set_threshold(*_saved)
        _saved = None


def held() -> bool:
    return _saved is not None
