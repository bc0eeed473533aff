"""A view with pyqtgraph charts in it, written to a PNG or a portable SVG as it looks on screen (its captions and
tables included). The Fit view uses it, and the Plan tab (plan_export) draws for a file through `exporting`."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable
from xml.etree.ElementTree import ParseError

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QWidget

from .svg_export import portable_svg


@contextmanager
def exporting(plots: list[pg.PlotWidget]):
    """Draw for a file: vector symbols (no pixmap atlas), no cached axis pixmaps, the background as a rectangle."""
    axes, items, views = [], [], []
    for plot in plots:
        views.append((plot, plot.cacheMode()))
        plot.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        pi = plot.getPlotItem()
        for name in ("left", "bottom"):
            axis = pi.getAxis(name)
            axes.append((axis, axis.cacheMode()))
            axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        for item in plot.scene().items():
            if hasattr(item, "setExportMode"):
                item.setExportMode(True, {"antialias": True})
                items.append(item)
    try:
        yield
    finally:
        for item in items:
            item.setExportMode(False)
        for axis, mode in axes:
            axis.setCacheMode(mode)
        for plot, mode in views:
            plot.setCacheMode(mode)


def save_png(view: QWidget, plots: list[pg.PlotWidget], path: Path, scale: float = 2.0) -> bool:
    """The view at `scale` x its size on screen, on its own background."""
    def draw(painter: QPainter) -> None:
        with exporting(plots):
            view.render(painter, QPoint())

    return write_png(view, path, scale, draw)


def write_png(view: QWidget, path: Path, scale: float, draw: Callable[[QPainter], None]) -> bool:
    """What `draw` paints over the view's own background, at `scale` x the view's size on screen, as a PNG."""
    size = view.size()
    image = QImage(QSize(round(size.width() * scale), round(size.height() * scale)), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(view.palette().color(view.backgroundRole()))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    draw(painter)
    painter.end()
    return image.save(str(path), "PNG")


def save_svg(view: QWidget, plots: list[pg.PlotWidget], path: Path, title: str, description: str) -> bool:
    """The view as an SVG whose shapes are in page coordinates (svg_export), so every viewer draws what Qt draws."""
    from PySide6.QtSvg import QSvgGenerator

    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(view.size())
    gen.setViewBox(QRect(0, 0, view.width(), view.height()))
    gen.setTitle(title)
    gen.setDescription(description)
    painter = QPainter()
    if not painter.begin(gen):
        return False
    with exporting(plots):
        view.render(painter, QPoint())
    painter.end()
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return False
    try:
        path.write_text(portable_svg(path.read_text(encoding="utf-8")), encoding="utf-8")
    except (OSError, ParseError):  # Qt's own file stays: right in Qt, if not everywhere
        pass
    return True
