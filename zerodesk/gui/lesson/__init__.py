"""Lesson mode: walk a class from stage 0 to stage 3 (Help menu, toolbar, `zerodesk --lesson [N]`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence

from ..base import i18n

if TYPE_CHECKING:
    from .window import LessonWindow

__all__ = ["LessonWindow", "install_lesson", "open_lesson"]


def __getattr__(name: str):
    # the lesson's window and figures load with the first lesson, not with the main window
    if name == "LessonWindow":
        from .window import LessonWindow

        return LessonWindow
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_lesson(main_window=None, step: int = 1) -> LessonWindow:
    """Open (or raise) the lesson at `step` (1-based). It starts on the paper's Figure 1 preset;
    the trainer picks another model or Nd in the lesson itself."""
    from .window import LessonWindow

    window = getattr(main_window, "lesson_window", None) if main_window is not None else None
    if window is None:
        window = LessonWindow(None, main_window.set_language if main_window is not None else None)
        if main_window is not None:
            main_window.lesson_window = window
            plan = main_window.model.plan
            if plan is not None:
                name = i18n.model_label(plan.model.name) or f"P = {i18n.fmt_int(plan.params)}"
                window.add_plan_choice(plan, QCoreApplication.translate("Lesson", "The plan in the window: {name}, Nd = {nd}").format(
                    name=name, nd=plan.dp))
    window.go(step - 1, animate=False)
    window.show()
    window.raise_()
    window.activateWindow()
    return window


def install_lesson(main_window) -> QAction:
    """The Lesson action in the Help menu and on the toolbar (Ctrl+L)."""
    action = QAction(main_window)
    action.setObjectName("actLesson")
    action.setShortcut(QKeySequence("Ctrl+L"))
    action.triggered.connect(lambda: open_lesson(main_window))
    main_window.addAction(action)
    main_window.lesson_window = None

    def retranslate() -> None:
        action.setText(QCoreApplication.translate("Lesson", "&Lesson: ZeRO Stage by Stage"))
        tip = QCoreApplication.translate("Lesson", "Walk a class from stage 0 to stage 3 (presenter mode: F11)")
        action.setToolTip(f"{tip} (Ctrl+L)")
        action.setStatusTip(tip)

    retranslate()
    main_window._lesson_language_watch = _OnLanguageChange(main_window, retranslate)
    main_window.menu_help.insertAction(main_window.menu_help.actions()[0] if main_window.menu_help.actions() else None, action)
    main_window.toolbar.addSeparator()
    main_window.toolbar.addAction(action)
    return action


class _OnLanguageChange(QObject):
    """Re-reads the action's texts when Qt tells the main window the language changed."""

    def __init__(self, watched, callback) -> None:
        super().__init__(watched)
        self._callback = callback
        watched.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            self._callback()
        return False
