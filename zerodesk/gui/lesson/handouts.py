"""Handouts: the lesson as a PDF (one step a page, through Qt's QPdfWriter) and as PNG slides.

Both render a separate, hidden step view at a fixed size with animations off, so the lesson on
screen is left where it is. The PDF uses the desk palette (it gets printed); the slides use the
window's current palette (presenter mode gives projector slides).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QMarginsF, QPoint, QSize, Qt
from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter, QPixmap
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from ...core.glossary import load_glossary
from ..base import i18n
from .checklist_figure import card_checklist
from .step_view import StepView
from .style import DESK, LessonStyle, presenter

# the step view's logical size on a PDF page: A4 landscape's proportions, as wide as the lesson window, so the
# page is filled and printed type stays readable (the boundary's 10 pt prints at about 8 pt)
PAGE_VIEW = QSize(1280, 905)
SLIDE = QSize(1920, 1080)


def _view(window, style: LessonStyle, size: QSize) -> StepView:
    """A step view laid out as on screen but never shown there: a widget that was never shown does not lay out
    its nested layouts (the boundary box kept a stale height and cut its first and last lines)."""
    view = StepView()
    view.formula_hint = False  # "click a number" means nothing on paper
    view.apply_style(style)
    view.resize(size)
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    view.show()
    return view


def settle(view: StepView, rounds: int = 8) -> None:
    """Let every layout of `view` follow its new texts: a label's new height reaches the top layout one
    level per round of posted layout requests."""
    for _ in range(rounds):
        before = [w.geometry() for w in view.findChildren(QWidget)]
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        view.layout().activate()
        QApplication.processEvents()
        if before == [w.geometry() for w in view.findChildren(QWidget)]:
            return


def _steps(window, view: StepView):
    """Show every step in `view`, settled, and yield its index."""
    glossary = load_glossary(i18n.current_language())
    for i, step in enumerate(window.lesson.steps):
        view.show_step(step, i, window.count, window.figures, glossary, card_checklist(glossary), window.plan.units, animate=False)
        settle(view)
        yield i


def export_pdf(window, path: str | Path) -> Path:
    """One page per step, A4 landscape; raises OSError when the file cannot be written."""
    path = Path(path)
    writer = QPdfWriter(str(path))
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Landscape, QMarginsF(10, 10, 10, 10)))
    writer.setResolution(150)
    writer.setTitle(window.lesson.title)
    writer.setCreator("ZeroDesk")
    view = _view(window, DESK, PAGE_VIEW)
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write {path}")
    try:
        page = writer.pageLayout().paintRectPixels(writer.resolution())
        scale = min(page.width() / PAGE_VIEW.width(), page.height() / PAGE_VIEW.height())
        for i in _steps(window, view):
            if i:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            view.render(painter, QPoint(0, 0))
            painter.restore()
    finally:
        painter.end()
        view.close()
        view.deleteLater()
    if not path.is_file():
        raise OSError(f"cannot write {path}")
    return path


def export_slides(window, folder: str | Path, size: QSize = SLIDE) -> list[Path]:
    """lesson-01.png … one slide per step in `folder` (created if missing)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    style = presenter(size.width(), size.height(), window.logicalDpiY()) if window.presenting else DESK
    view = _view(window, style, size)
    out = []
    try:
        for i in _steps(window, view):
            pixmap = QPixmap(size)
            view.render(pixmap)
            target = folder / f"lesson-{i + 1:02d}.png"
            if not pixmap.save(str(target), "PNG"):
                raise OSError(f"cannot write {target}")
            out.append(target)
    finally:
        view.close()
        view.deleteLater()
    return out


def export_dialog(window, kind: str) -> None:
    try:
        if kind == "pdf":
            path, _ = QFileDialog.getSaveFileName(window, QCoreApplication.translate("Handouts", "Export the lesson as PDF"), "zerodesk-lesson.pdf",
                                                  QCoreApplication.translate("Handouts", "PDF files (*.pdf)"))
            if path:
                export_pdf(window, path if path.lower().endswith(".pdf") else path + ".pdf")
        else:
            folder = QFileDialog.getExistingDirectory(window, QCoreApplication.translate("Handouts", "Choose a folder for the PNG slides"))
            if folder:
                export_slides(window, folder)
    except OSError as exc:
        QMessageBox.warning(window, QCoreApplication.translate("Handouts", "Cannot export the lesson"), str(exc))
