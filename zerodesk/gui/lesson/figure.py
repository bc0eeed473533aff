"""The base of every lesson figure: animated values, clickable numbers, text that must fit.

A figure keeps a target state (named floats) and animates from what is on screen to it with a
QVariantAnimation, so bars grow and slices move instead of jumping. Every number it draws is
remembered with its rectangle: a click emits numberClicked with the core's Number (its formula).
Every text it draws is checked against the room it was given; `clipped` lists what did not fit.
"""

from __future__ import annotations

from PySide6.QtCore import QEasingCurve, QRectF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...core.lesson import LessonFigures, Number
from .style import DESK, LessonStyle

ANIMATION_MS = 650


class LessonFigure(QWidget):
    numberClicked = Signal(object)  # zerodesk.core.lesson.Number

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.style_ = DESK
        self._from: dict[str, float] = {}
        self._to: dict[str, float] = {}
        self._t = 1.0
        self._hits: list[tuple[QRectF, Number]] = []
        self.clipped: list[str] = []
        self.selected: str | None = None  # the number whose formula is on screen: framed
        self.drawn_texts: list[str] = []
        self.drawn_points: list[float] = []  # the size each drawn text got (presenter mode's floor included)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(0.0)
        self._anim.setEndValue(1.0)
        self._anim.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._anim.valueChanged.connect(self._on_tick)

    # -- state and animation ------------------------------------------------------------------------
    def set_style(self, style: LessonStyle) -> None:
        self.style_ = style
        self.update()

    def animate_to(self, state: dict[str, float], animate: bool = True, start: dict[str, float] | None = None) -> None:
        """Move from what is on screen (or `start`) to `state`; without animation, jump."""
        current = start if start is not None else {k: self.value(k) for k in set(self._to) | set(state)}
        self._anim.stop()
        self._from, self._to = current, dict(state)
        if animate:
            self._t = 0.0
            self._anim.setDuration(ANIMATION_MS)
            self._anim.start()
        else:
            self._t = 1.0
        self.update()

    def _on_tick(self, t) -> None:
        self._t = float(t)
        self.update()

    @property
    def animating(self) -> bool:
        return self._anim.state() == QVariantAnimation.State.Running

    def finish_animation(self) -> None:
        self._anim.stop()
        self._t = 1.0
        self.update()

    def value(self, key: str, default: float = 0.0) -> float:
        a = self._from.get(key, self._to.get(key, default))
        b = self._to.get(key, a)
        return a + (b - a) * self._t

    @property
    def progress(self) -> float:
        return self._t

    # -- painting helpers ---------------------------------------------------------------------------
    def begin_paint(self) -> QPainter:
        self._hits.clear()
        self.clipped.clear()
        self.drawn_texts.clear()
        self.drawn_points.clear()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), self.style_.qcolor("background"))
        return p

    def text(self, p: QPainter, rect: QRectF, text: str, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
             points: float = 10, bold: bool = False, color: str = "text", wrap: bool = False) -> QRectF:
        """Draw text in rect; note it in `clipped` when it does not fit. Returns the text's bounding box."""
        font = self.style_.font(self.font(), points, bold)
        p.setFont(font)
        p.setPen(self.style_.qcolor(color) if color in ("text", "muted", "frame", "highlight", "background") else QColor(color))
        flags = int(align) | (int(Qt.TextFlag.TextWordWrap) if wrap else 0)
        need = QFontMetricsF(font).boundingRect(rect, flags, text)
        if need.width() > rect.width() + 0.5 or need.height() > rect.height() + 0.5 or not self._inside(rect):
            self.clipped.append(text)
        p.drawText(rect, flags, text)
        self.drawn_texts.append(text)
        self.drawn_points.append(font.pointSizeF())
        return need

    def number(self, p: QPainter, rect: QRectF, text: str, number: Number, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
               points: float = 10, bold: bool = True) -> QRectF:
        """A clickable figure: drawn in the highlight colour, remembered for hit-testing."""
        box = self.text(p, rect, text, align, points, bold, color="highlight")
        self._hits.append((box.adjusted(-3, -3, 3, 3), number))
        if number.key == self.selected:
            p.setPen(QPen(self.style_.qcolor("highlight"), self.style_.line(1.5)))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(box.adjusted(-3, -1, 3, 1), 3, 3)
        return box

    def set_selected(self, key: str | None) -> None:
        self.selected = key
        self.update()

    @staticmethod
    def ink_on(fill: QColor) -> str:
        """Black or white, whichever reads better on `fill`."""
        return "#000000" if 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue() > 140 else "#FFFFFF"

    def text_width(self, text: str, points: float, bold: bool = False) -> float:
        return QFontMetricsF(self.style_.font(self.font(), points, bold)).horizontalAdvance(text)

    def _fit(self, text: str, points: float, width: float, bold: bool = False, smallest: float = 6) -> float:
        """The largest size up to `points` at which `text` fits `width` on one line."""
        while points > smallest and self.text_width(text, points, bold) > width:
            points -= 0.5
        return points

    def text_height(self, text: str, points: float, width: float, bold: bool = False) -> float:
        """Height of `text` wrapped to `width`."""
        metrics = QFontMetricsF(self.style_.font(self.font(), points, bold))
        return metrics.boundingRect(QRectF(0, 0, width, 1e6), int(Qt.TextFlag.TextWordWrap), text).height() + 1

    def line_height(self, points: float, bold: bool = False) -> float:
        return QFontMetricsF(self.style_.font(self.font(), points, bold)).height()

    def _inside(self, rect: QRectF) -> bool:
        return QRectF(self.rect()).adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect)

    # -- clicks ----------------------------------------------------------------------------------------
    def number_at(self, pos) -> Number | None:
        for rect, number in reversed(self._hits):
            if rect.contains(pos):
                return number
        return None

    def numbers_drawn(self) -> list[Number]:
        return [n for _, n in self._hits]

    def hit_rect(self, key: str) -> QRectF | None:
        for rect, number in self._hits:
            if number.key == key:
                return rect
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        over = self.number_at(event.position())
        self.setCursor(Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        number = self.number_at(event.position())
        if number is not None and event.button() == Qt.MouseButton.LeftButton:
            self.numberClicked.emit(number)
            event.accept()
            return
        super().mousePressEvent(event)


class GrowingFigure(LessonFigure):
    """A figure of the plan's LessonFigures that grows in from nothing (key GROW) on entering its step."""

    GROW = "grow"

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.figures: LessonFigures | None = None
        self.unit = "GB"
        self.setObjectName(name)

    def show_figures(self, figures: LessonFigures, unit: str, animate: bool, entering: bool) -> None:
        self.figures, self.unit = figures, unit
        self.animate_to({self.GROW: 1.0}, animate, start={self.GROW: 0.0} if entering and animate else None)
