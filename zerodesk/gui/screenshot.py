"""Offscreen pictures of the window (`zerodesk --screenshot out.png`) and the files they go to.

The lesson's steps are rendered by lesson/render.py and written here too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

MIN_SCREENSHOT = (1280, 800)
SCREENSHOT_SIZE = (1440, 900)


def render_window(window, path: Path, size: tuple[int, int] | None = None) -> int:
    """The main window at `size` (else 1440x900, at least 1280x800), laid out as the event loop would, as a PNG."""
    window.resize(*(size or SCREENSHOT_SIZE))
    window.show()
    QApplication.processEvents()
    window.startup.flush()  # what follows the first paint is in the picture too
    QApplication.processEvents()  # and laid out, as the event loop would
    window.fit_docks()  # once shown: docks take their widths from the laid-out window
    window.glossary.flush()
    for _ in range(3):
        QApplication.processEvents()
    pixmap = window.grab()
    if size is None and (pixmap.width() < MIN_SCREENSHOT[0] or pixmap.height() < MIN_SCREENSHOT[1]):
        pixmap = pixmap.scaled(max(pixmap.width(), MIN_SCREENSHOT[0]), max(pixmap.height(), MIN_SCREENSHOT[1]))
    return save_screenshot(pixmap, Path(path))


def save_screenshot(pixmap, path: Path, what: str = "") -> int:
    """Write a PNG; 0, or 1 with one sentence on stderr when it cannot be written."""
    if path.parent and not path.parent.exists():
        print(f"zerodesk: cannot write screenshot {path}: folder {path.parent} does not exist", file=sys.stderr)
        return 1
    if not pixmap.save(str(path), "PNG"):
        print(f"zerodesk: cannot write screenshot {path}", file=sys.stderr)
        return 1
    print(f"zerodesk: wrote {path} ({pixmap.width()}x{pixmap.height()}{what})")
    return 0
