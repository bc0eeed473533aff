"""Typed access to the persistent settings (QSettings, INI format, per user).

One place names every key and its type, so the rest of the GUI reads `settings.units`
instead of juggling strings and QVariant conversions (Picard's typed-options habit). Every key
lives here, in one store: the window's (ui/, window/, files/) and the Measure tab's (measure/).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings

from ... import APP_NAME
from ...core.options import LANGUAGE, UNITS as UNIT_OPTION
from .theme import THEMES

if TYPE_CHECKING:
    from ...measure.protocol import Scale

ORGANIZATION = "ZeroDesk"
MAX_RECENT = 8
LANGUAGES = LANGUAGE.values
UNITS = UNIT_OPTION.values


class Settings:
    """A thin typed wrapper; pass a QSettings to use another store (tests do)."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._s = store if store is not None else QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APP_NAME)

    # -- raw helpers -------------------------------------------------------------------------
    def _str(self, key: str, default: str) -> str:
        value = self._s.value(key, default)
        return value if isinstance(value, str) else default

    def _bytes(self, key: str) -> QByteArray | None:
        value = self._s.value(key)
        if isinstance(value, QByteArray) and not value.isEmpty():
            return value
        if isinstance(value, (bytes, bytearray)) and value:
            return QByteArray(bytes(value))
        return None

    def sync(self) -> None:
        self._s.sync()

    def measure(self, persist: bool = True) -> MeasureSettings:
        """The Measure tab's remembered choices, in the same store."""
        return MeasureSettings(self._s, persist)

    # -- typed options -------------------------------------------------------------------------
    @property
    def language(self) -> str | None:
        """'en' or 'ru'; None until the user picks one (then the system locale decides)."""
        value = self._str("ui/language", "")
        return value if value in LANGUAGES else None

    @language.setter
    def language(self, value: str) -> None:
        if value not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {value!r}")
        self._s.setValue("ui/language", value)

    @property
    def theme(self) -> str:
        """'system' (follow the system's light or dark), 'light' or 'dark'."""
        value = self._str("ui/theme", "system")
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        if value not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}, not {value!r}")
        self._s.setValue("ui/theme", value)

    @property
    def units(self) -> str:
        value = self._str("ui/units", "GB")
        return value if value in UNITS else "GB"

    @units.setter
    def units(self, value: str) -> None:
        if value not in UNITS:
            raise ValueError(f"units must be GB or GiB, not {value!r}")
        self._s.setValue("ui/units", value)

    @property
    def geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._s.setValue("window/geometry", value)

    @property
    def window_state(self) -> QByteArray | None:
        """QMainWindow.saveState(): dock and toolbar layout."""
        return self._bytes("window/state")

    @window_state.setter
    def window_state(self, value: QByteArray) -> None:
        self._s.setValue("window/state", value)

    @property
    def last_directory(self) -> str:
        return self._str("files/last_directory", str(Path.home()))

    @last_directory.setter
    def last_directory(self, value: str) -> None:
        self._s.setValue("files/last_directory", value)

    @property
    def recent_files(self) -> list[str]:
        value = self._s.value("files/recent", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        if not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str) and v][:MAX_RECENT]

    @recent_files.setter
    def recent_files(self, paths: list[str]) -> None:
        self._s.setValue("files/recent", list(paths)[:MAX_RECENT])

    def add_recent(self, path: str | Path) -> list[str]:
        """Put a file at the top of the list (moving it if already there) and return the list."""
        text = str(Path(path).resolve())
        paths = [text] + [p for p in self.recent_files if p != text]
        self.recent_files = paths[:MAX_RECENT]
        return self.recent_files

    def remove_recent(self, path: str | Path) -> list[str]:
        text = str(Path(path).resolve())
        self.recent_files = [p for p in self.recent_files if p != text]
        return self.recent_files


def default_python() -> str:
    """The running interpreter, unless this is a frozen bundle (its executable is not a Python with torch)."""
    return "" if getattr(sys, "frozen", False) else sys.executable


class MeasureSettings:
    """The Measure tab's remembered choices, under "measure/..." in the window's store (Settings.measure()
    gives them; persist=False: read, never write)."""

    DEFAULT_TIMEOUT_S = 600

    def __init__(self, store: QSettings, persist: bool = True) -> None:
        self._s = store
        self._persist = persist

    def _get(self, key: str, default):
        return self._s.value(f"measure/{key}", default)

    def _set(self, key: str, value) -> None:
        if self._persist:
            self._s.setValue(f"measure/{key}", value)

    @property
    def device(self) -> str:
        value = self._get("device", "auto")
        return value if value in ("auto", "cuda", "cpu") else "auto"

    @device.setter
    def device(self, value: str) -> None:
        self._set("device", value)

    @property
    def ranks(self) -> int | None:
        """None until the user picks a number (then the plan's Nd decides)."""
        try:
            value = int(self._get("ranks", 0))
        except (TypeError, ValueError):
            return None
        return value if value >= 1 else None

    @ranks.setter
    def ranks(self, value: int) -> None:
        self._set("ranks", int(value))

    @property
    def stages(self) -> list[int]:
        text = self._get("stages", "0,1,2,3")
        try:
            stages = sorted({int(s) for s in str(text).split(",") if s.strip()} & {0, 1, 2, 3})
        except ValueError:
            stages = []
        return stages or [0, 1, 2, 3]

    @stages.setter
    def stages(self, value: list[int]) -> None:
        self._set("stages", ",".join(str(s) for s in value))

    @property
    def scale(self) -> Scale:
        from ...measure.protocol import Scale  # pydantic models: loaded with the Measure tab, not at start-up

        try:
            return Scale.model_validate_json(str(self._get("scale", "{}")))
        except ValueError:
            return Scale()

    @scale.setter
    def scale(self, value: Scale) -> None:
        self._set("scale", value.model_dump_json())

    @property
    def python(self) -> str:
        value = self._get("python", "")
        return value if isinstance(value, str) and value else default_python()

    @python.setter
    def python(self, value: str) -> None:
        self._set("python", value)

    @property
    def timeout_s(self) -> int:
        try:
            return max(5, int(self._get("timeout_s", self.DEFAULT_TIMEOUT_S)))
        except (TypeError, ValueError):
            return self.DEFAULT_TIMEOUT_S

    @timeout_s.setter
    def timeout_s(self, value: int) -> None:
        self._set("timeout_s", int(value))
