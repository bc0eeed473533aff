"""A font's key (QFont.key(): its description as a string) for keying what was measured in it, asked often, made once.

QFont.key() writes the whole description out on every call (a few microseconds each); an edit asks it near a hundred
times (each tick label's measured box, each label's trial texts) for the same two or three fonts. Fonts compare by
value quickly: the last fonts asked about keep their keys.
"""

from __future__ import annotations

from PySide6.QtGui import QFont

_KEPT = 8
_recent: list[tuple[QFont, str]] = []


def font_key(font: QFont) -> str:
    for known, key in _recent:
        if known == font:
            return key
    key = font.key()
    _recent.insert(0, (QFont(font), key))  # a copy: the caller's font may change after
    del _recent[_KEPT:]
    return key
