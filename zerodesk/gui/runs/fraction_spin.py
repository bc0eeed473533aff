"""A spin box for a scale-down fraction in (0, 1]."""

from __future__ import annotations

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox


class FractionSpin(QDoubleSpinBox):
    """A scale in (0, 1]: shows 0.03125 or 1 without trailing zeros, and accepts a typed fraction such as 1/32."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDecimals(8)
        self.setRange(0.0001, 1.0)
        self.setSingleStep(0.05)

    def textFromValue(self, value: float) -> str:
        return f"{value:.6g}".replace(".", self.locale().decimalPoint())

    def _parse(self, text: str) -> float | None:
        text = text.strip().replace(self.locale().decimalPoint(), ".").replace(",", ".")
        try:
            if "/" in text:
                num, den = text.split("/", 1)
                return float(num) / float(den)
            return float(text)
        except (ValueError, ZeroDivisionError):
            return None

    def valueFromText(self, text: str) -> float:
        value = self._parse(text)
        return self.value() if value is None else value

    def validate(self, text: str, pos: int):
        value = self._parse(text)
        if value is not None and 0 < value <= 1:
            return QValidator.State.Acceptable, text, pos
        if all(c in "0123456789./," + self.locale().decimalPoint() for c in text.strip()):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos
