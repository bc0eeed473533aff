"""Lay a shown view out now, after an edit set its texts and before the frame is painted.

A label given new text asks for a layout by a posted event; Qt may paint the window before that event runs, lay it
out, and paint it again (here: three paints per edit of the scheme, and three more on the next turn). Running the
pending layout requests right after the texts are set gives the event loop one frame to paint, at the final size.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget


def settle_layout(view: QWidget) -> None:
    """Run the layout requests pending now (and those they post: a pane that grew, then its splitter), when `view` is
    on screen; a hidden view is laid out when shown, as before."""
    if view.isVisible():
        for _ in range(4):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
