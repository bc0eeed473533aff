"""What the window says when a plan file changed on disk, and what it offers; what a save could not keep.

core.disk_state tells what happened (core.disk_state.Change: edited, deleted, created, now leading elsewhere,
replaced by a folder, a FIFO, a device...); here each kind becomes one sentence in the UI language, and the
choices that fit it: a file someone else edited may be overwritten, a deleted one saved again, but a path
that now leads to another file or to something that is no file is never written through; Save As is
always there. SaveReport's notices (hard links split, owner not kept) are worded here too.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from ...core.atomic_save import SaveReport
from ...core.disk_state import (
    CREATED, DELETED, DEVICE, EDITED, FIFO, FOLDER, RELINKED, REPLACED, SOCKET, UNREADABLE, Change,
)
from ...core.text import shorten

translate = QCoreApplication.translate  # lupdate reads translate("DiskChanges", "text")


class Choice(Enum):
    SAVE_AS = "save_as"
    OVERWRITE = "overwrite"  # write over what is there now (for a deleted file: write it again)
    CANCEL = "cancel"


def change_sentence(name: str, change: Change) -> str:
    """One sentence saying what happened to the file `name` since this window read or wrote it."""
    kind = change.kind
    if kind == EDITED:
        text = translate("DiskChanges", "“{name}” was changed on disk by another program or window since it was "
                                        "opened or saved here.")
    elif kind == DELETED:
        text = translate("DiskChanges", "“{name}” was deleted from the disk since it was opened or saved here.")
    elif kind == CREATED:
        text = translate("DiskChanges", "“{name}” was created on disk by another program or window since this "
                                        "window last looked.")
    elif kind == RELINKED:
        text = translate("DiskChanges", "“{name}” now leads to another file, {target}, since it was opened or "
                                        "saved here.")
    elif kind == REPLACED:
        text = {
            FOLDER: translate("DiskChanges", "“{name}” was replaced by a folder since it was opened or saved here."),
            FIFO: translate("DiskChanges", "“{name}” was replaced by a named pipe (FIFO) since it was opened or "
                                           "saved here."),
            DEVICE: translate("DiskChanges", "“{name}” was replaced by a device since it was opened or saved here."),
            SOCKET: translate("DiskChanges", "“{name}” was replaced by a socket since it was opened or saved here."),
        }.get(change.now.kind) or translate("DiskChanges", "“{name}” is no longer a regular file since it was "
                                                           "opened or saved here.")
    else:  # UNREADABLE, or a kind a newer core adds
        text = translate("DiskChanges", "“{name}” was changed on disk and can no longer be read here.")
    return text.format(name=shorten(name, 120), target=shorten(change.now.real, 200))


def choices(change: Change) -> tuple[Choice, ...]:
    """What fits the change: overwrite only a regular file (or none), and never through a path that now leads elsewhere."""
    if change.kind in (EDITED, CREATED, UNREADABLE, DELETED):
        return Choice.SAVE_AS, Choice.OVERWRITE, Choice.CANCEL
    return Choice.SAVE_AS, Choice.CANCEL


def question(change: Change) -> str:
    if change.kind == DELETED:
        return translate("DiskChanges", "Save this plan there again, or as another file?")
    if Choice.OVERWRITE in choices(change):
        return translate("DiskChanges", "Overwrite those changes with this plan, or save it as another file?")
    return translate("DiskChanges", "Nothing was written there. Save this plan as another file?")


def ask(parent: QWidget, name: str, change: Change) -> Choice:
    """The modal question before a save would overwrite a change on disk."""
    box = QMessageBox(QMessageBox.Icon.Warning, translate("DiskChanges", "File changed on disk"),
                      change_sentence(name, change), QMessageBox.StandardButton.NoButton, parent)
    box.setInformativeText(question(change))
    labels = {Choice.SAVE_AS: translate("DiskChanges", "Save As…"),
              Choice.OVERWRITE: (translate("DiskChanges", "Save Again") if change.kind == DELETED
                                 else translate("DiskChanges", "Overwrite"))}
    buttons = {}
    for choice in choices(change):
        if choice == Choice.CANCEL:
            buttons[box.addButton(QMessageBox.StandardButton.Cancel)] = choice
        else:
            role = (QMessageBox.ButtonRole.DestructiveRole if choice == Choice.OVERWRITE
                    else QMessageBox.ButtonRole.AcceptRole)
            buttons[box.addButton(labels[choice], role)] = choice
    box.setDefaultButton(next(b for b, c in buttons.items() if c == Choice.SAVE_AS))
    box.setEscapeButton(next(b for b, c in buttons.items() if c == Choice.CANCEL))
    box.exec()
    return buttons.get(box.clickedButton(), Choice.CANCEL)


def offers_reload(change: Change) -> bool:
    """Whether the open file can be read again as it is now (other bytes), rather than only reported."""
    return change.kind in (EDITED, CREATED)


def save_notices(name: str, report: SaveReport) -> list[str]:
    """What the save could not keep, one sentence each (none for an ordinary save)."""
    out = []
    if report.split_links:
        out.append(translate("DiskChanges", "Other hard links to “{name}” still hold the previous version: the save "
                                            "replaced the file under this name only.").format(name=shorten(name, 120)))
    if not report.owner_kept:
        out.append(translate("DiskChanges", "“{name}” could not keep its owner or group: the saved file now belongs "
                                            "to the account that saved it.").format(name=shorten(name, 120)))
    return out
