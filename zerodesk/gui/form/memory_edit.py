"""A field holding an amount of memory, typed in the form's unit (GB or GiB) and kept in exact bytes."""

from __future__ import annotations

from ...core.units import UNIT_BYTES
from .fields import FieldEdit, memory_bytes, number_text


class MemoryEdit(FieldEdit):
    """Shows bytes rounded to 4 decimals, yet means exactly those bytes while its text is unedited
    (a preset's 85.8993 GB is still 80 GiB). A unit change re-shows the same bytes in the new unit."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._shown: tuple[str, int] | None = None  # (text shown, the exact bytes it stands for)

    def show_bytes(self, nbytes: int | None, unit: str) -> None:
        """Show `nbytes` in `unit`; None leaves the field empty."""
        text = "" if nbytes is None else number_text(nbytes / UNIT_BYTES[unit])
        self.setText(text)
        self._shown = None if nbytes is None else (text, nbytes)

    def value(self, unit: str):
        """The bytes meant (int), None when empty, or the text itself when it is not a number (the core judges)."""
        return memory_bytes(self.text(), self._shown, unit)

    def change_unit(self, old: str, new: str) -> None:
        """Re-show what the field meant in `old` in `new`; text that is not a number stays as typed."""
        value = self.value(old)
        if isinstance(value, int):
            self.show_bytes(value, new)
