"""Locate the data folder that ships beside the code (wheel) or at the repo top (checkout)."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def resources_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "resources", here.parent / "resources"):
        if (candidate / "catalogs").is_dir():
            return candidate
    raise FileNotFoundError(
        f"ZeroDesk's resources folder is missing (looked in {here / 'resources'} and {here.parent / 'resources'})."
    )


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)
