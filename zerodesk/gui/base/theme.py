"""Light or dark window: follow the system's colour scheme, or the user's explicit choice.

Qt's Fusion style paints every widget from the palette; the charts and the glossary read the
palette too (PaletteChange), so switching is one call.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("system", "light", "dark")  # the choice is remembered as Settings.theme
_system_palette: QPalette | None = None


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else Qt.ColorScheme.Unknown
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    base = (_system_palette or QGuiApplication.palette()).color(QPalette.ColorRole.Window)
    return base.lightness() < 128


def dark_palette() -> QPalette:
    p = QPalette()
    # the window clearly lighter than fields and boxes: Fusion outlines are the window colour darkened,
    # so unchecked check boxes and radio buttons stay visible as dark squares on a lighter panel
    window, base, text = QColor("#383838"), QColor("#1e1e1e"), QColor("#e6e6e6")
    disabled = QColor("#7f7f7f")
    roles = {
        QPalette.ColorRole.Window: window, QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base, QPalette.ColorRole.AlternateBase: QColor("#282828"),
        QPalette.ColorRole.ToolTipBase: QColor("#3a3a3a"), QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor("#9a9a9a"), QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#454545"), QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"), QPalette.ColorRole.Highlight: QColor("#2f65ca"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"), QPalette.ColorRole.Link: QColor("#7fb8ff"),
        QPalette.ColorRole.LinkVisited: QColor("#c59cff"), QPalette.ColorRole.Light: QColor("#5c5c5c"),
        QPalette.ColorRole.Midlight: QColor("#4a4a4a"), QPalette.ColorRole.Mid: QColor("#2c2c2c"),
        QPalette.ColorRole.Dark: QColor("#181818"), QPalette.ColorRole.Shadow: QColor("#000000"),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def light_palette() -> QPalette:
    from PySide6.QtWidgets import QStyleFactory

    style = QStyleFactory.create("Fusion")
    return style.standardPalette() if style is not None else QPalette()


def is_dark(theme: str) -> bool:
    return theme == "dark" or (theme == "system" and system_is_dark())


def apply_theme(theme: str) -> bool:
    """Paint the application light or dark; returns True when dark."""
    global _system_palette
    app = QApplication.instance()
    if _system_palette is None:
        _system_palette = QPalette(app.palette())
    dark = is_dark(theme)
    if dark:
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(light_palette())
    else:  # the system's own light look
        app.setPalette(_system_palette)
    return dark


def follow_system(callback) -> None:
    """Call `callback()` when the system switches between light and dark."""
    hints = QGuiApplication.styleHints()
    if hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(lambda _scheme: callback())
