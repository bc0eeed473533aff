"""Light or dark window: follow the system's colour scheme, or the user's explicit choice.

Qt's Fusion style paints every widget from the palette; the charts and the glossary read the
palette too (PaletteChange), so switching is one call.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory

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


class VisibleIndicators(QProxyStyle):
    """Fusion, with check boxes and radio buttons outlined in a colour that stands out from a dark panel.

    Fusion outlines an indicator in the window colour darkened, and fills it with the base colour: on a dark
    palette both are near black, and an unchecked box all but vanished (the Log scale boxes, the glossary's
    checklist). A light palette is drawn as Fusion draws it."""

    INDICATORS = (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorRadioButton)

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        palette = option.palette
        if element not in self.INDICATORS or palette.color(QPalette.ColorRole.Window).lightness() >= 128:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = QColor(palette.color(QPalette.ColorRole.Text))
        color.setAlpha(150 if option.state & QStyle.StateFlag.State_Enabled else 70)
        painter.setPen(QPen(color, 1.2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        rect = QRectF(option.rect).adjusted(1, 1, -1, -1)
        if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
            painter.drawEllipse(rect)
        else:
            painter.drawRoundedRect(rect, 1.5, 1.5)
        painter.restore()


_style: QProxyStyle | None = None  # the application's style object (Qt takes it; Python must keep it alive)


def _fusion() -> QProxyStyle:
    global _style
    if _style is None:
        _style = VisibleIndicators(QStyleFactory.create("Fusion"))
    return _style


def light_palette() -> QPalette:
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
        if app.style() is not _style:
            app.setStyle(_fusion())
        app.setPalette(dark_palette())
    elif theme == "light":
        if app.style() is not _style:
            app.setStyle(_fusion())
        app.setPalette(light_palette())
    else:  # the system's own light look
        app.setPalette(_system_palette)
    return dark


def follow_system(callback) -> None:
    """Call `callback()` when the system switches between light and dark."""
    hints = QGuiApplication.styleHints()
    if hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(lambda _scheme: callback())
