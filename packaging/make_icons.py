"""Render ZeroDesk's icon from resources/icons/zerodesk.svg: PNGs at 16-512 px, a Windows .ico, a macOS .icns.

    .venv/bin/pip install -e '.[package]' && .venv/bin/python packaging/make_icons.py

Qt's own SVG renderer draws each size (offscreen: no display needed), so the PNGs match what the
window shows from the SVG; Pillow packs them into .ico and .icns. Rerun after editing the SVG and
commit the outputs (the window, the desktop entry, the metainfo and the bundle use them).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # 256 is the largest a .ico holds
ICNS_SIZES = (16, 32, 64, 128, 256, 512)


def render_pngs(svg: Path, out: Path, sizes=SIZES) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: {svg} is not an SVG Qt can draw")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / f"zerodesk-{size}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"make_icons: cannot write {path}")
        written.append(path)
    return written


def pack(out: Path) -> None:
    from PIL import Image

    images = {size: Image.open(out / f"zerodesk-{size}.png").convert("RGBA") for size in SIZES}
    largest = images[max(ICO_SIZES)]
    largest.save(out / "zerodesk.ico", format="ICO", sizes=[(s, s) for s in ICO_SIZES],
                 append_images=[images[s] for s in ICO_SIZES if s != max(ICO_SIZES)])
    images[512].save(out / "zerodesk.icns", format="ICNS",
                     append_images=[images[s] for s in ICNS_SIZES if s != 512])


def main() -> int:
    svg = ICONS / "zerodesk.svg"
    pngs = render_pngs(svg, ICONS)
    pack(ICONS)
    for path in [*pngs, ICONS / "zerodesk.ico", ICONS / "zerodesk.icns"]:
        print(f"{path.relative_to(ICONS.parents[1])}  {path.stat().st_size:,} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
