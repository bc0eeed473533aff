"""Offscreen rendering of one lesson step: `zerodesk --lang ru --lesson 3 --screenshot step3.png`."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from ...core.plan import Plan
from ..screenshot import save_screenshot
from .window import LessonWindow

LESSON_SCREENSHOT = (1280, 800)


def render_step(window: LessonWindow, step: int, size: tuple[int, int] = LESSON_SCREENSHOT, presenter: bool | None = None):
    """The window at `size` showing step `step` (1-based), settled (no animation): a QPixmap. `presenter`
    switches presenter mode on or off first (None: as it is), styled for `size` as a screen of that size."""
    window.animate = False
    if presenter is not None:
        window.set_presenter(presenter, full_screen=False)
    window.resize(*size)
    window.go(step - 1, animate=False)
    window.show()
    for _ in range(3):
        QApplication.processEvents()
    window._apply_style()  # presenter mode's type follows the size now shown
    QApplication.processEvents()
    for fig in window.view.all_figures():
        fig.finish_animation()
    QApplication.processEvents()
    return window.grab()


def screenshot(path: Path, step: int, plan: Plan | None = None, size: tuple[int, int] = LESSON_SCREENSHOT,
               presenter: bool = False) -> int:
    """Write step `step` to a PNG (in presenter mode if asked); exit code 0, or 1 (with one sentence) when it
    cannot be written."""
    window = LessonWindow(plan)
    if not 1 <= step <= window.count:
        print(f"zerodesk: --lesson must be a step from 1 to {window.count}, not {step}", file=sys.stderr)
        return 2
    return save_screenshot(render_step(window, step, size, presenter), Path(path), f", lesson step {step}")
