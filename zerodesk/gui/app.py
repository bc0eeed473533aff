"""Entry points of the window: run_gui() for `zerodesk` / `python -m zerodesk`, main() for `zerodesk-gui`.

Never imports torch (the measure worker runs in its own process).
"""

from __future__ import annotations

from .. import start_collector

start_collector.hold()  # before the imports: the start's long-lived objects are not walked again and again (see startup)

import argparse  # noqa: E402  isort: skip
import os
import sys
from pathlib import Path

from .. import APP_ID, APP_NAME, __version__
from ..core.options import LANGUAGE
from ..core.plan import Plan, PlanError, load_plan_observed
from ..core.text import shorten

# The core the window draws from, loaded before Qt is: PySide6 reads the source of every module
# imported after it (looking for its __feature__ switches), which costs about half a millisecond each.
from ..core import accounting, catalog, peak, plan_model, residuals  # noqa: E402,F401  isort: skip
from ..measure import rules  # noqa: E402,F401  isort: skip


def _numpy_without_blas_threads():
    """numpy (pyqtgraph draws with it: loaded before Qt, its ~70 modules are not read by PySide), with one BLAS thread.

    The window multiplies no matrices, yet OpenBLAS starts a thread per core when it loads, and they ran on the 2 cores
    the window starts on: ~25 ms of the start's CPU time. OpenBLAS reads its setting once, when it loads; the variable
    is put back at once, so the processes the window starts (the torch worker) keep their own threads. A setting the
    user made stays as it is."""
    key = "OPENBLAS_NUM_THREADS"
    if key in os.environ or "numpy" in sys.modules:
        import numpy
    else:
        os.environ[key] = "1"
        try:
            import numpy
        finally:
            del os.environ[key]
    return numpy


_numpy_without_blas_threads()

LANG_CHOICES = LANGUAGE.values
THEME_CHOICES = ("system", "light", "dark")
TAB_CHOICES = ("plan", "table", "measure", "fit")  # the window's tabs, in order


def parse_size(text: str) -> tuple[int, int]:
    """'1024x700' -> (1024, 700); one sentence naming the option when it is not a size."""
    import re

    m = re.fullmatch(r"\s*([0-9]{2,5})\s*[xX×]\s*([0-9]{2,5})\s*", text or "")  # ASCII digits, as every number
    if not m or not (320 <= int(m.group(1)) <= 16384 and 240 <= int(m.group(2)) <= 16384):
        raise ValueError("--size must be WIDTHxHEIGHT in pixels, such as 1024x700 (320x240 to 16384x16384), "
                         f"not '{shorten(text, 40)}'")
    return int(m.group(1)), int(m.group(2))


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    """--lang, --size and --theme: for the window and its screenshot mode."""
    parser.add_argument(LANGUAGE.flag, choices=LANG_CHOICES,
                        help=f"{LANGUAGE.help} for this run (default: the saved one)")
    parser.add_argument("--size", metavar="WxH", help="window size in pixels, such as 1024x700")
    parser.add_argument("--theme", choices=THEME_CHOICES, help="light, dark, or follow the system (default: the saved choice)")
    parser.add_argument("--tab", choices=TAB_CHOICES, help="the tab in view when the window opens (default: plan)")


def no_display(env: dict[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why a window cannot open here, in one sentence, before Qt finds out (it aborts the process with a message
    about its xcb plugin): an X11 or Wayland system with neither display set and no Qt platform chosen."""
    env = os.environ if env is None else env
    if platform in ("darwin", "win32", "cygwin") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("there is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set): render it to "
            "a file with --screenshot out.png, or run it offscreen with QT_QPA_PLATFORM=offscreen")


def _application(offscreen: bool):
    """The QApplication (created once; offscreen when rendering a screenshot without a display)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import Qt, qInstallMessageHandler
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if offscreen:  # the offscreen plugin's "does not support propagateSizeHints()" is no news to a screenshot
        qInstallMessageHandler(lambda _mode, _where, text: "propagateSizeHints" in text or print(text, file=sys.stderr))
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0] if sys.argv else APP_NAME])
    app.setOrganizationName("ZeroDesk")
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    return app


def create_window(plan: Plan | None = None, plan_path: Path | None = None, headless: bool = False,
                  lang: str | None = None, theme_choice: str | None = None):
    """The main window showing `plan` (command-line flags) or the plan file, in the saved language.

    A plan file that cannot be read raises PlanError when headless or when flags were given;
    otherwise the window opens with the default plan and reports the error (window.open_error).
    headless: no settings are written (screenshots leave the user's layout alone).
    """
    file_plan: Plan | None = None
    file_disk = None  # what the file was when read: a later save asks before overwriting any change since
    open_error = ""
    if plan_path is not None:
        try:
            file_plan, file_disk = load_plan_observed(plan_path)
        except PlanError as exc:
            if headless or plan is not None:
                raise
            open_error = str(exc)
    _application(offscreen=headless)
    from .base import i18n, theme
    from .window.document import safe_resolve
    from .window.main_window import MainWindow
    from .base.settings import Settings

    settings = Settings()
    i18n.set_language(lang or settings.language or i18n.system_language())  # --lang: this run only
    chosen = theme_choice or settings.theme
    theme.apply_theme(chosen)
    window = MainWindow(settings, persist=not headless)
    window.theme_actions[chosen].setChecked(True)
    theme.follow_system(lambda: window.theme_group.checkedAction() is window.theme_actions["system"]
                        and theme.apply_theme("system"))
    window.quiet = headless
    window.open_error = open_error
    if plan is not None:  # the flags win; against the file they are an unsaved change
        window.load_plan(plan, safe_resolve(plan_path) if plan_path else None, saved=file_plan, disk=file_disk)
    elif file_plan is not None:
        window.load_plan(file_plan, safe_resolve(plan_path), disk=file_disk)
    if file_plan is not None and not headless:
        window.document.add_recent(Path(plan_path))
    return window


def run_gui(plan: Plan | None = None, plan_path: Path | None = None, screenshot: Path | None = None,
            lang: str | None = None, size: str | tuple[int, int] | None = None, theme_choice: str | None = None,
            tab: str | None = None) -> int:
    """Open the main window; returns the exit code.

    plan: built from command-line flags (shown as given); plan_path: a plan file (opened; when
    `plan` is also given, the flags win and the window shows it as an unsaved change of that file);
    screenshot: render the window offscreen to this PNG (at least 1280x800) and end the process (leave()), as the
    window's Quit does.
    lang ('en'/'ru'), size ('1024x700' or (w, h)), theme_choice ('system'/'light'/'dark') and tab (TAB_CHOICES)
    apply to this run.
    Exit codes: 0 fine, 1 the screenshot could not be written or there is no display, 2 the plan file or an option
    could not be read.
    """
    headless = screenshot is not None
    if not headless and (problem := no_display()):
        print(f"zerodesk: {problem}", file=sys.stderr)
        return 1
    try:
        wh = parse_size(size) if isinstance(size, str) else size
        if lang is not None and lang not in LANG_CHOICES:
            raise ValueError(f"--lang must be one of {', '.join(LANG_CHOICES)}, not {lang!r}")
        window = create_window(plan, plan_path, headless, lang, theme_choice)
    except (PlanError, ValueError) as exc:
        print(f"zerodesk: {exc}", file=sys.stderr)
        return 2
    if tab:
        window.show_tab(tab)
    if headless:
        from .screenshot import render_window

        return leave(render_window(window, Path(screenshot), wh))  # the picture is written: nothing is left to tear down
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    if wh is not None:
        window.resize(*wh)
        window.keep_layout = False  # --size is for this run: the saved size and docks stay as they were
    window.show()
    if wh is not None:
        QApplication.processEvents()
        window.fit_docks()
    if window.open_error:
        window.show_error(QCoreApplication.translate("MainWindow", "Cannot open the plan"), window.open_error)
    return leave(QApplication.instance().exec())


def leave(code: int) -> int:
    """The event loop is over (or the screenshot is written): every window has saved what it keeps and stopped its
    runs. End the process now.

    Python's own teardown after that (a garbage collection over every object of Qt, pydantic and numpy,
    then Qt's widgets one by one) kept the process alive 0.7-1.4 s after the window had gone, 2-3 s on a
    busy machine, and has nothing of ours to do: the settings are synced and the exit handlers run here."""
    import atexit

    import pyqtgraph

    from .base.settings import Settings

    Settings().sync()  # what is still pending in the settings' shared file
    pyqtgraph.setConfigOptions(exitCleanup=False)  # its scan of every object guards a teardown that never comes
    atexit._run_exitfuncs()  # ours (a run's plan file not yet taken) and the libraries'
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_lesson(step: int, plan: Plan | None = None, screenshot: Path | None = None, lang: str | None = None,
               size: str | None = None) -> int:
    """`zerodesk --lesson [N]`: the lesson window at step N (1-based); with a screenshot path,
    render that step offscreen (at --size, default 1280x800) and end the process (leave()). `plan` (flags) replaces the Figure 1 preset."""
    try:
        wh = parse_size(size) if size else None
    except ValueError as exc:
        print(f"zerodesk: {exc}", file=sys.stderr)
        return 2
    if screenshot is None and (problem := no_display()):
        print(f"zerodesk: {problem}", file=sys.stderr)
        return 1
    _application(offscreen=screenshot is not None)
    from .base import i18n
    from .lesson import render
    from .base.settings import Settings

    i18n.set_language(lang or Settings().language or i18n.system_language())
    if screenshot is not None:
        return leave(render.screenshot(Path(screenshot), step, plan, *([wh] if wh else [])))
    from PySide6.QtWidgets import QApplication

    from .lesson import LessonWindow

    window = LessonWindow(plan)
    if not 1 <= step <= window.count:
        print(f"zerodesk: --lesson must be a step from 1 to {window.count}, not {step}", file=sys.stderr)
        return 2
    window.go(step - 1, animate=False)
    from .base.wheel_guard import install_wheel_guard

    install_wheel_guard()  # the wheel scrolls the window; a box changes only once it has focus
    if wh:
        window.resize(*wh)
    window.show()
    from PySide6.QtCore import QTimer

    QTimer.singleShot(0, start_collector.release)  # shown: the collector runs as usual from here on
    return QApplication.instance().exec()


def main(argv: list[str] | None = None) -> int:
    """`zerodesk-gui`: the window only (no commands), with every flag `zerodesk` takes for it (cli.window_main)."""
    from ..cli import window_main  # the command line's parser and its one-sentence errors; imports no Qt itself

    return window_main(argv)


if __name__ == "__main__":
    sys.exit(main())
