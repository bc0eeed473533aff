"""How the lesson looks: the desk palette, and the presenter palette for a washed-out beamer.

Presenter mode scales fonts and lines up and switches to white on black with saturated fills,
which keeps its contrast when a projector lifts the blacks and bleaches the colours. It also sets a
floor under every text, boundary boxes and figure labels included: no type smaller than 1/40 of the
screen height (27 px at 1080 lines, 20 px at 800), so what a figure shrinks to fit stays legible from
the back of a room; a layout that cannot fit at the floor drops detail, never size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont, QPalette

from ..base.style import component_color

PRESENTER_COLORS = {  # brighter variants of the chart's Okabe-Ito colours, legible on black
    "params": "#56B4FF",
    "grads": "#FFB000",
    "master": "#00E5A0",
    "adam_m": "#FF7AD9",
    "adam_v": "#FF6A2B",
}


@dataclass(frozen=True)
class LessonStyle:
    name: str
    scale: float  # fonts and lines
    background: str
    text: str
    muted: str
    frame: str
    empty: str  # the part of a split state that lives on other ranks
    highlight: str
    on_top: str
    button: str = "#EFEFEF"
    colors: dict[str, str] = field(default_factory=dict)
    min_points: float = 0.0  # no text smaller than this (presenter mode's floor)

    def color(self, key: str) -> QColor:
        return QColor(self.colors.get(key) or component_color(key))

    def qcolor(self, name: str) -> QColor:
        return QColor(getattr(self, name))

    def font(self, base: QFont, points: float, bold: bool = False) -> QFont:
        f = QFont(base)
        f.setPointSizeF(max(points * self.scale, self.min_points))
        f.setBold(bold)
        return f

    def line(self, width: float = 1.0) -> float:
        return width * self.scale

    def palette(self, base: QPalette) -> QPalette:
        p = QPalette(base)
        for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
            p.setColor(role, QColor(self.background))
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
            p.setColor(role, QColor(self.text))
        p.setColor(QPalette.ColorRole.Button, QColor(self.button))
        p.setColor(QPalette.ColorRole.Highlight, QColor(self.highlight))
        p.setColor(QPalette.ColorRole.HighlightedText, QColor(self.background))
        p.setColor(QPalette.ColorRole.Link, QColor(self.highlight))
        p.setColor(QPalette.ColorRole.LinkVisited, QColor(self.highlight))
        return p


DESK = LessonStyle("desk", 1.0, background="#FFFFFF", text="#1A1A1A", muted="#5A5A5A", frame="#404040",
                   empty="#E6E6E6", highlight="#0B5CAD", on_top="#9A9A9A")


FLOOR_SHARE = 1 / 40  # presenter mode: the smallest type, as a share of the screen height


def presenter(width: int, height: int, dpi: float = 96.0) -> LessonStyle:
    """White on black, fonts and lines scaled to the screen (1.3x at 1280x800, more on larger screens),
    no text under FLOOR_SHARE of the screen height (`dpi`: the screen's logical dots per inch)."""
    scale = 1.3 * max(1.0, min(width / 1280, height / 800))
    floor = height * FLOOR_SHARE * 72 / dpi
    return LessonStyle("presenter", round(scale, 2), background="#000000", text="#FFFFFF", muted="#E0E0E0",
                       frame="#FFFFFF", empty="#3A3A3A", highlight="#FFE500", on_top="#BDBDBD", button="#262626",
                       colors=PRESENTER_COLORS, min_points=round(floor, 2))
