"""The Plan tab written to a file: its captions, charts and notes as on screen, to a PNG or a portable SVG."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QPainter, QRegion
from PySide6.QtWidgets import QWidget

from .chart_export import exporting, write_png


class PlanTabExport:
    """PlanTab's export: what a file holds (export_parts) drawn for a file (_exporting)."""

    @contextmanager
    def _exporting(self):
        """Draw for a file (chart_export.exporting: vector symbols, no cached axis pixmaps), both charts, the peak
        layer's hatch as lines."""
        self.release_nd_chart()  # a file has both charts
        with exporting([self.chart, self.dp_chart]):
            self.chart.hatch_as_lines(True)
            try:
                yield
            finally:
                self.chart.hatch_as_lines(False)

    def export_parts(self) -> list[QWidget]:
        """What a file holds: the captions, the charts and their notes; not the Log scale boxes or the splitter."""
        parts = [self.caption, self.stale, self.legend, self.chart, self.offload_chart, self.warning, self.dp_caption,
                 self.dp_chart]
        return [w for w in parts if w is not None and w.isVisible()]

    def _render_parts(self, painter: QPainter) -> None:
        for widget in self.export_parts():
            # QWidget's render (a chart, a graphics view, has its own with another signature)
            QWidget.render(widget, painter, widget.mapTo(self, QPoint(0, 0)), QRegion(), QWidget.RenderFlag.DrawChildren)

    def export_png(self, path: Path, scale: float = 2.0) -> bool:
        """Both charts with their captions, rendered at `scale` x the on-screen size."""
        self.catch_up()

        def draw(painter: QPainter) -> None:
            with self._exporting():
                self._render_parts(painter)

        return write_png(self, path, scale, draw)

    def export_svg(self, path: Path) -> bool:
        from PySide6.QtSvg import QSvgGenerator

        self.catch_up()
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(self.size())
        gen.setViewBox(QRect(0, 0, self.width(), self.height()))
        gen.setResolution(self.logicalDpiX())  # the layout's own: text keeps the size it was measured at
        gen.setTitle("ZeroDesk chart")
        gen.setDescription(self.caption.text())
        painter = QPainter()
        if not painter.begin(gen):
            return False
        with self._exporting():
            self._render_parts(painter)
        painter.end()
        path = Path(path)
        if not path.is_file() or path.stat().st_size == 0:
            return False
        from .svg_export import portable_svg, svg_fonts, svg_text_width

        from xml.etree.ElementTree import ParseError

        try:  # shapes in page coordinates, text in Qt's font and length: librsvg, ImageMagick and browsers draw what Qt draws
            text = path.read_text(encoding="utf-8")
            path.write_text(portable_svg(text, svg_fonts(text), svg_text_width), encoding="utf-8")
        except (OSError, ParseError):  # Qt's own file stays: right in Qt, if not everywhere
            pass
        return True
