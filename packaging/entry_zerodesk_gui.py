"""Entry of the bundle's `zerodesk-gui`: the window only (the desktop entry, Start menu and macOS app run it).

Windowed on Windows and macOS: no console opens, and there is no stdout or stderr to write to,
so messages that would go there are dropped instead of failing.
"""

import os
import sys

for _name in ("stdout", "stderr"):
    if getattr(sys, _name) is None:
        setattr(sys, _name, open(os.devnull, "w", encoding="utf-8"))

from zerodesk.gui.app import main
from zerodesk.measure.interpreter import restore_frozen_environment

if __name__ == "__main__":
    restore_frozen_environment()  # children (the worker's Python) get the user's environment
    sys.exit(main())
