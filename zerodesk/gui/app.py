"""Entry points of the window: run_gui() for `zerodesk` / `python -m zerodesk`, main() for `zerodesk-gui`.

Never imports torch (the measure worker runs in its own process).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import APP_ID, APP_NAME, __version__
from ..core.plan import Plan, PlanError, load_plan

MIN_SCREENSHOT = (1280, 800)
SCREENSHOT_SIZE = (1440, 900)


def _application(offscreen: bool):
    """The QApplication (created once; offscreen when rendering a screenshot without a display)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0] if sys.argv else APP_NAME])
    app.setOrganizationName("ZeroDesk")
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    return app


def _render_screenshot(window, path: Path) -> int:
    from PySide6.QtWidgets import QApplication

    window.resize(*SCREENSHOT_SIZE)
    window.show()
    window.glossary.flush()
    for _ in range(3):
        QApplication.processEvents()
    pixmap = window.grab()
    if pixmap.width() < MIN_SCREENSHOT[0] or pixmap.height() < MIN_SCREENSHOT[1]:
        pixmap = pixmap.scaled(max(pixmap.width(), MIN_SCREENSHOT[0]), max(pixmap.height(), MIN_SCREENSHOT[1]))
    return save_screenshot(pixmap, Path(path))


def save_screenshot(pixmap, path: Path, what: str = "") -> int:
    """Write a PNG; 0, or 1 with one sentence on stderr when it cannot be written."""
    if path.parent and not path.parent.exists():
        print(f"zerodesk: cannot write screenshot {path}: folder {path.parent} does not exist", file=sys.stderr)
        return 1
    if not pixmap.save(str(path), "PNG"):
        print(f"zerodesk: cannot write screenshot {path}", file=sys.stderr)
        return 1
    print(f"zerodesk: wrote {path} ({pixmap.width()}x{pixmap.height()}{what})")
    return 0


def create_window(plan: Plan | None = None, plan_path: Path | None = None, headless: bool = False):
    """The main window showing `plan` (command-line flags) or the plan file, in the saved language.

    A plan file that cannot be read raises PlanError when headless or when flags were given;
    otherwise the window opens with the default plan and reports the error (window.open_error).
    headless: no settings are written (screenshots leave the user's layout alone).
    """
    file_plan: Plan | None = None
    open_error = ""
    if plan_path is not None:
        try:
            file_plan = load_plan(plan_path)
        except PlanError as exc:
            if headless or plan is not None:
                raise
            open_error = str(exc)
    _application(offscreen=headless)
    from . import i18n
    from .main_window import MainWindow
    from .settings import Settings

    settings = Settings()
    i18n.set_language(settings.language or i18n.system_language())
    window = MainWindow(settings, persist=not headless)
    window.quiet = headless
    window.open_error = open_error
    if plan is not None:  # the flags win; against the file they are an unsaved change
        window.load_plan(plan, Path(plan_path).resolve() if plan_path else None, saved=file_plan)
    elif file_plan is not None:
        window.load_plan(file_plan, Path(plan_path).resolve())
    if file_plan is not None and not headless:
        window.document.add_recent(Path(plan_path))
    return window


def run_gui(plan: Plan | None = None, plan_path: Path | None = None, screenshot: Path | None = None,
            lang: str | None = None) -> int:
    """Open the main window; returns the exit code.

    plan: built from command-line flags (shown as given); plan_path: a plan file (opened; when
    `plan` is also given, the flags win and the window shows it as an unsaved change of that file);
    screenshot: render the window offscreen to this PNG (at least 1280x800) and return 0.
    Exit codes: 0 fine, 1 the screenshot could not be written, 2 the plan file could not be read.
    """
    headless = screenshot is not None
    try:
        window = create_window(plan, plan_path, headless)
    except PlanError as exc:
        print(f"zerodesk: {exc}", file=sys.stderr)
        return 2
    if lang:
        window.set_language(lang)
    if headless:
        return _render_screenshot(window, Path(screenshot))
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    window.show()
    if window.open_error:
        window.show_error(QCoreApplication.translate("MainWindow", "Cannot open the plan"), window.open_error)
    return QApplication.instance().exec()


def run_lesson(step: int, plan: Plan | None = None, screenshot: Path | None = None, lang: str | None = None) -> int:
    """`zerodesk --lesson [N]`: the lesson window at step N (1-based); with a screenshot path,
    render that step offscreen at 1280x800 and return. `plan` (flags) replaces the Figure 1 preset."""
    _application(offscreen=screenshot is not None)
    from . import i18n
    from .lesson import render
    from .settings import Settings

    i18n.set_language(lang or Settings().language or i18n.system_language())
    if screenshot is not None:
        return render.screenshot(Path(screenshot), step, plan)
    from PySide6.QtWidgets import QApplication

    from .lesson import LessonWindow

    window = LessonWindow(plan)
    if not 1 <= step <= window.count:
        print(f"zerodesk: --lesson must be a step from 1 to {window.count}, not {step}", file=sys.stderr)
        return 2
    window.go(step - 1, animate=False)
    window.show()
    return QApplication.instance().exec()


def main(argv: list[str] | None = None) -> int:
    """`zerodesk-gui [PLAN.zerodesk.json]`."""
    parser = argparse.ArgumentParser(prog="zerodesk-gui", description="Open the ZeroDesk window.")
    parser.add_argument("plan", nargs="?", type=Path, help="a plan file (*.zerodesk.json) to open")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    return run_gui(None, args.plan, None)


if __name__ == "__main__":
    sys.exit(main())
