"""font_key gives QFont.key() for the font asked about, kept for the last few fonts: never a stale key."""

from __future__ import annotations

from PySide6.QtGui import QFont

from zerodesk.gui.base.font_key import font_key


def test_a_fonts_key_is_qts_key_for_it_as_it_is_now(qapp):
    font = QFont()
    assert font_key(font) == font.key()
    font.setPointSize(font.pointSize() + 3)  # the same object, changed: a new key, not the kept one
    assert font_key(font) == font.key()
    bold = QFont(font)
    bold.setBold(True)
    keys = {font_key(f) for f in (font, bold, QFont(font), QFont(bold))}
    assert keys == {font.key(), bold.key()} and len(keys) == 2
    for size in range(6, 30):  # more fonts than are kept: each still answered right
        f = QFont(font)
        f.setPointSize(size)
        assert font_key(f) == f.key()
