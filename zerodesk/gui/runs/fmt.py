"""Figures of the Measure tab in the UI language: a byte figure always carries its unit."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...measure.rules import UNIT_BYTES, table_unit
from ..base import i18n


def unit_text(unit: str) -> str:
    return i18n.unit_label(unit)


def fmt_in(nbytes: float, unit: str) -> str:
    """'1.23 MB': the unit always travels with the figure, in the UI language's number format."""
    if unit == "B":
        return f"{i18n.fmt_int(int(nbytes))} {unit_text(unit)}"
    return f"{i18n.fmt_number(nbytes / UNIT_BYTES[unit])} {unit_text(unit)}"


def fmt_auto(nbytes: float, family: str) -> str:
    return fmt_in(nbytes, table_unit(nbytes, family))


def fmt_percent(value: float | None) -> str:
    if value is None:
        return "—"
    sign = "−" if value < 0 else "+"
    return f"{sign}{i18n.fmt_number(abs(value))}%"


def fmt_duration(seconds: float) -> str:
    if seconds < 90:
        return QCoreApplication.translate("Units", "{n} s").format(n=max(1, round(seconds)))
    if seconds < 5400:
        return QCoreApplication.translate("Units", "{n} min").format(n=round(seconds / 60))
    return QCoreApplication.translate("Units", "{n} h").format(n=i18n.fmt_number(seconds / 3600, 1))
