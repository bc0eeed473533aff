"""Entry of the bundle's `zerodesk`: the CLI, and the window when no subcommand is given.

An absolute import (a relative one would hide the package from PyInstaller's analysis). On
Windows this is the console executable, so `zerodesk plan` prints where it was typed.
"""

import sys

from zerodesk.cli import main
from zerodesk.measure.interpreter import restore_frozen_environment

if __name__ == "__main__":
    restore_frozen_environment()  # children (the worker's Python) get the user's environment
    sys.exit(main())
