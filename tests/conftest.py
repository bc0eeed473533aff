"""Shared test setup: Qt renders offscreen, and GUI tests never touch the user's settings."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

import zerodesk.gui  # noqa: F401  (guards PySide6 6.12 on CPython 3.11 before any Qt call)


@pytest.fixture
def gui_settings(tmp_path, qapp):
    """Isolated QSettings (INI files under tmp_path) and the English UI, restored afterwards."""
    from PySide6.QtCore import QSettings

    from zerodesk.gui.base import i18n
    from zerodesk.gui.base.settings import Settings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    i18n.set_language("en")
    yield Settings()
    i18n.set_language("en")


@pytest.fixture
def window(qtbot, gui_settings):
    """The real main window, shown offscreen, with modal dialogs turned into status-bar messages."""
    from zerodesk.gui.window.main_window import MainWindow

    w = MainWindow(gui_settings)
    w.quiet = True
    w.ask_save_changes = discard  # pytest-qt closes the window before fixtures tear down: no prompt then
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(w.startup.is_done, timeout=3000)  # and what follows the first paint (the Nd chart's lines)
    yield w


def discard():
    """An answer to "save the unsaved changes?" that drops them."""
    from PySide6.QtWidgets import QMessageBox

    return QMessageBox.StandardButton.Discard
