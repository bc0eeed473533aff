"""The self-check registry every torch_compat module declares its private pieces through."""

from __future__ import annotations

import inspect
import sys
from typing import Any, Callable

import torch

TORCH_FLOOR = "2.13"  # the oldest torch CI runs and pyproject.toml's measure extra allows
CHECKS: dict[str, Callable[[], None]] = {}  # name -> self-check, in the order they are declared


class TorchInternalsMoved(RuntimeError):
    """A private piece ZeroDesk relies on is gone or changed; str() is one sentence. code: the protocol's error code."""

    def __init__(self, library: str, what: str, detail: str, code: str) -> None:
        version = torch.__version__ if library == "torch" else getattr(sys.modules.get(library), "__version__", "?")
        super().__init__(f"{library} {version} no longer has {what} as ZeroDesk uses it ({detail}); "
                         f"ZeroDesk is tested with torch {TORCH_FLOOR}")
        self.what, self.detail, self.code = what, detail, code


class _Missing(Exception):
    """What a check found not as expected."""


def _need(condition: Any, detail: str) -> None:
    if not condition:
        raise _Missing(detail)


def _self_check(name: str, what: str, code: str = "unsupported", library: str = "torch") -> Callable:
    """Register a check: its body raises (_Missing, or the ImportError/AttributeError/... of a moved piece)."""

    def register(body: Callable[[], None]) -> Callable[[], None]:
        def check() -> None:
            try:
                body()
            except (_Missing, ImportError, AttributeError, KeyError, TypeError, ValueError) as exc:
                detail = str(exc) if isinstance(exc, _Missing) else f"{type(exc).__name__}: {exc}"
                raise TorchInternalsMoved(library, what, detail, code) from None

        CHECKS[name] = check
        return check

    return register


def check(name: str) -> None:
    """Run one self-check (CHECKS' keys)."""
    CHECKS[name]()


def _code_names(*owners: Any) -> set[str]:
    """Every global and attribute name the functions of these modules or classes use (nested code included):
    whether torch still calls what a patch replaces, read without its source."""
    names: set[str] = set()

    def walk(code: Any) -> None:
        names.update(code.co_names)
        for const in code.co_consts:
            if inspect.iscode(const):
                walk(const)

    for owner in owners:
        members = vars(owner).values()
        if inspect.ismodule(owner):
            members = [m for m in members if getattr(m, "__module__", None) == owner.__name__]
        for member in members:
            for fn in (vars(member).values() if inspect.isclass(member) else [member]):
                fn = getattr(fn, "__func__", getattr(fn, "fget", fn))  # classmethod, staticmethod, property
                if inspect.isfunction(fn):
                    walk(inspect.unwrap(fn).__code__)
    return names
