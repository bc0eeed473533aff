"""The command line's argparse parser: an error is one line that repeats little of what was typed, and the help
keeps its examples as written (cli_help.Formatter)."""

from __future__ import annotations

import argparse
import sys

from .cli_help import Formatter
from .core.text import shorten


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


ECHO_LIMIT = 40  # characters of anything the user typed that a message repeats


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line that repeats at most ECHO_LIMIT characters of any argument, and whose
    help keeps its examples as written (cli_help.Formatter)."""

    _typed: list[str] = []

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        self._typed = [a for a in (sys.argv[1:] if args is None else args) if isinstance(a, str)]
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # one line, no usage dump
        values = [t.partition("=")[2] for t in self._typed if t.startswith("-")]  # --flag=VALUE: VALUE alone too
        for text in sorted({t for t in self._typed + values if len(t) > ECHO_LIMIT}, key=len, reverse=True):
            short = shorten(text, ECHO_LIMIT)
            message = message.replace(repr(text), f"'{short}'").replace(text, short)
        raise CliError(f"{self.prog}: {message}")
