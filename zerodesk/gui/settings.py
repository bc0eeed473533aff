"""Typed access to the persistent settings (QSettings, INI format, per user).

One place names every key and its type, so the rest of the GUI reads `settings.units`
instead of juggling strings and QVariant conversions (Picard's typed-options habit).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from .. import APP_NAME

ORGANIZATION = "ZeroDesk"
MAX_RECENT = 8
LANGUAGES = ("en", "ru")
UNITS = ("GB", "GiB")


class Settings:
    """A thin typed wrapper; pass a QSettings to use another store (tests do)."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._s = store if store is not None else QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APP_NAME)

    @property
    def store(self) -> QSettings:
        """The underlying QSettings, for features that keep their own keys (the Measure tab)."""
        return self._s

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

    @property
    def file_name(self) -> str:
        return self._s.fileName()

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
