"""One lesson step on screen: title, the card's sentences with live figures, the claim's boundary,
the step's figure, and a line that shows the formula of whichever number was clicked."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from ...core.glossary import Glossary
from ...core.lesson import LessonFigures, Number
from ...core.lesson_text import PLACEHOLDER, LessonStep, agreeing_form, split_forms
from ..base import i18n
from . import numbers as fmt
from .bytes_figure import BytesFigure
from .checklist_figure import ChecklistFigure
from .peak_figure import PeakFigure
from .rank_figure import RankFigure
from .style import DESK, LessonStyle

RANK_STAGES = {"stage0": 0, "stage1": 1, "stage2": 2, "stage3": 3}


def _label(name: str, wrap: bool = True) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.RichText if name in ("lessonText", "lessonFormula") else Qt.TextFormat.PlainText)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class StepView(QWidget):
    numberShown = Signal(object)  # the Number whose formula is on screen

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonStepView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.style_ = DESK
        self.step: LessonStep | None = None
        self.figures: LessonFigures | None = None
        self.unit = "GB"
        self.index = 0
        self.count = 0
        self.shown_number: Number | None = None
        self.formula_hint = True  # the "click a number" line on the desk (not on paper, not on the projector)

        self.title = _label("lessonTitle")
        self.counter = _label("lessonCounter", wrap=False)
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.text = _label("lessonText")
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.text.linkActivated.connect(self._on_link)
        self.text.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.boundary_head = _label("lessonBoundaryHead")
        self.boundary = _label("lessonBoundary")
        # top-aligned: were the box ever short, the end would wait below, the first line never cut
        self.boundary.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.boundary_box = QFrame()
        self.boundary_box.setObjectName("lessonBoundaryBox")
        self.boundary_box.setFrameShape(QFrame.Shape.Box)
        box = QVBoxLayout(self.boundary_box)
        box.addWidget(self.boundary_head)
        box.addWidget(self.boundary)
        box.addStretch(1)

        self.bytes_figure = BytesFigure()
        self.rank_figure = RankFigure()
        self.peak_figure = PeakFigure()
        self.checklist_figure = ChecklistFigure()
        self.figure_stack = QStackedWidget()
        self.figure_stack.setObjectName("lessonFigureStack")
        for fig in self.all_figures():
            self.figure_stack.addWidget(fig)
            fig.numberClicked.connect(self.show_formula)
        self.formula = _label("lessonFormula")

        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.counter)
        middle = self.middle = QHBoxLayout()
        middle.addWidget(self.text, 3)
        middle.addWidget(self.boundary_box, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addLayout(middle)
        layout.addWidget(self.figure_stack, 1)
        layout.addWidget(self.formula)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.apply_style(DESK)

    def all_figures(self):
        return (self.bytes_figure, self.rank_figure, self.peak_figure, self.checklist_figure)

    def current_figure(self):
        return self.figure_stack.currentWidget()

    # -- style ---------------------------------------------------------------------------------------
    def apply_style(self, style: LessonStyle) -> None:
        self.style_ = style
        self.setPalette(style.palette(self.palette()))
        base = self.font()
        self.title.setFont(style.font(base, 19, True))
        self.counter.setFont(style.font(base, 11))
        self.text.setFont(style.font(base, 12.5))
        self.boundary_head.setFont(style.font(base, 10, True))
        self.boundary.setFont(style.font(base, 10))
        self.formula.setFont(style.font(base, 10))
        line = max(1, round(style.line(1.5)))
        # one sheet for the view: style sheets do not take colours from the palette, so name them
        self.setStyleSheet(
            f"#lessonStepView {{ background: {style.background}; }}"
            f"#lessonStepView QLabel {{ color: {style.text}; background: transparent; }}"
            f"#lessonBoundaryBox {{ border: {line}px solid {style.frame}; border-radius: {round(6 * style.scale)}px; }}"
            f"#lessonFormula {{ border-top: {line}px solid {style.muted}; padding-top: 4px; }}")
        for fig in self.all_figures():
            fig.set_style(style)
        self._refresh_texts()

    # -- content -----------------------------------------------------------------------------------
    def show_step(self, step: LessonStep, index: int, count: int, figures: LessonFigures, glossary: Glossary,
                  checklist: tuple[str, ...], unit: str, animate: bool = True) -> None:
        entering = self.step is None or step.kind != self.step.kind
        self.step, self.index, self.count, self.figures, self.unit = step, index, count, figures, unit
        self.glossary = glossary
        if step.kind == "bytes":
            self.bytes_figure.show_figures(figures, unit, animate, entering)
            fig = self.bytes_figure
        elif step.kind in RANK_STAGES:
            # stages 0-3 share one figure, so moving between them animates the slices
            was_rank = self.figure_stack.currentWidget() is self.rank_figure
            self.rank_figure.show_figures(figures, unit, RANK_STAGES[step.kind], animate, entering and not was_rank)
            fig = self.rank_figure
        elif step.kind == "peak":
            self.peak_figure.show_figures(figures, unit, animate, entering)
            fig = self.peak_figure
        else:
            self.checklist_figure.show_items(checklist, animate, entering)
            fig = self.checklist_figure
        self.figure_stack.setCurrentWidget(fig)
        if entering or (self.shown_number is not None and self.shown_number.key not in figures.numbers):
            self.shown_number = None
            for f in self.all_figures():
                f.set_selected(None)
        elif self.shown_number is not None:
            self.shown_number = figures.numbers[self.shown_number.key]  # the same number, new value
        self._refresh_texts()

    def _refresh_texts(self) -> None:
        step = self.step
        if step is None:
            return
        self.title.setText(step.title)
        self.counter.setText(self.tr("Step {i} of {n}").format(i=self.index + 1, n=self.count))
        self.text.setText(" ".join(self._rich(sentence) for sentence in step.text))
        try:
            boundary = self.glossary.claim(step.claim).boundary
        except KeyError:
            boundary = self.tr("The glossary has no claim for this step.")
        self.boundary_head.setText(self.tr("Where this holds"))
        self.boundary.setText(boundary)  # one size whatever its length: the row grows, the figure gives way
        if self.shown_number is not None:
            first, second = fmt.formula_lines(self.shown_number, self.figures, self.unit)
            self.formula.setText(f"<b>{html.escape(first)}</b><br>{html.escape(second)}")
        else:
            self.formula.setText(html.escape(self.tr("Click any highlighted number to see its formula.")))
        self.formula.setVisible(self.shown_number is not None or (self.formula_hint and self.style_.name == "desk"))
        self._balance()

    TEXT_SHARES = tuple(0.5 + 0.025 * i for i in range(11))  # the text's share of the row: 50% to 75%

    def _balance(self) -> None:
        """Split the row between the text and the boundary box so the taller of the two is as short as it can
        be (the figure keeps the rest): a long boundary gets a wider box, a long text a wider column."""
        row = self.middle
        margins = row.contentsMargins()
        width = self.contentsRect().width() - margins.left() - margins.right() - row.spacing()
        box = self.boundary_box.layout().contentsMargins()
        frame = 2 * self.boundary_box.frameWidth() + box.left() + box.right()
        head = self.boundary_head.sizeHint().height() + box.top() + box.bottom() + self.boundary_box.layout().spacing()
        if width <= 0:
            return

        def tallest(share: float) -> int:
            text_w, box_w = int(width * share), width - int(width * share)
            return max(self.text.heightForWidth(text_w), head + self.boundary.heightForWidth(max(1, box_w - frame)))

        share = min(self.TEXT_SHARES, key=lambda x: (tallest(x), abs(x - 0.6)))
        row.setStretch(0, round(1000 * share))
        row.setStretch(1, 1000 - round(1000 * share))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._balance()

    def _rich(self, sentence: str) -> str:
        """The sentence with each {key} replaced by its live figure, a link that shows the formula."""
        # a formula ('P = 7.5×10⁹', '4P + 12P/Nd') never breaks at its signs
        sentence = sentence.replace(" = ", "\u00a0=\u00a0").replace(" + ", "\u00a0+\u00a0").replace("/", "/\u2060")
        out, last = [], 0
        color = self.style_.highlight
        for m in PLACEHOLDER.finditer(sentence):
            out.append(html.escape(sentence[last:m.start()]))
            number = self.figures.numbers.get(m.group(1))
            if number is None:
                out.append(html.escape(m.group(0)))
            else:
                shown = fmt.fmt_value(number, self.unit)
                value = html.escape(shown).replace(" ", "&nbsp;")
                out.append(f'<a href="num:{number.key}" style="color:{color}; text-decoration:none"><b>{value}</b></a>')
                if forms := split_forms(m.group(2)):  # the noun after the figure agrees with it («64 раза»)
                    out.append("&nbsp;" + html.escape(agreeing_form(i18n.current_language(), shown, forms)))
            last = m.end()
        out.append(html.escape(sentence[last:]))
        return "".join(out)

    def _on_link(self, link: str) -> None:
        key = link.removeprefix("num:")
        if self.figures is not None and key in self.figures.numbers:
            self.show_formula(self.figures.numbers[key])

    def show_formula(self, number: Number) -> None:
        self.shown_number = number
        self._refresh_texts()
        for fig in self.all_figures():
            fig.set_selected(number.key)
        self.numberShown.emit(number)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh_texts()
        super().changeEvent(event)
