"""Run-time language switching through Qt's translation system, and localized labels/figures.

Our strings live in resources/translations/zerodesk_<lang>.ts (sources) and .qm (compiled
with pyside6-lrelease, committed). Installing a translator makes Qt send a LanguageChange
event to every widget; each view re-reads its texts in changeEvent().
"""

from __future__ import annotations

import math

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator

from ..core.units import UNIT_BYTES
from ..resources import resource

LANGUAGES = {"en": "English", "ru": "Русский"}

_installed: list[QTranslator] = []
_current = "en"


def qm_path(lang: str):
    return resource("translations", f"zerodesk_{lang}.qm")


def system_language() -> str:
    name = QLocale.system().name()[:2]
    return name if name in LANGUAGES else "en"


def current_language() -> str:
    return _current


def set_language(lang: str) -> bool:
    """Install the translators for `lang` (replacing the previous ones). False if our .qm is missing."""
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    app = QCoreApplication.instance()
    for t in _installed:
        if app is not None:
            app.removeTranslator(t)
    _installed.clear()
    QLocale.setDefault(QLocale(lang))
    _current = lang
    ok = True
    ours = QTranslator()
    path = qm_path(lang)
    if path.is_file() and ours.load(str(path)):
        _installed.append(ours)
    else:
        ok = False
    if lang != "en":  # Qt's own strings (standard buttons, file dialogs)
        qt = QTranslator()
        if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            _installed.append(qt)
    if app is not None:
        for t in _installed:
            app.installTranslator(t)
        # Qt posts LanguageChange; deliver it now so every widget reads its new texts before we return
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return ok


def _x(context: str, text: str) -> str:
    """Translate a string marked elsewhere with QT_TRANSLATE_NOOP."""
    return QCoreApplication.translate(context, text)


# -- units and figures -----------------------------------------------------------------------
_UNIT_LABEL = {"GB": QT_TRANSLATE_NOOP("Units", "GB"), "GiB": QT_TRANSLATE_NOOP("Units", "GiB")}
_UNIT_NOTE = {"GB": QT_TRANSLATE_NOOP("Units", "1 GB = 10⁹ B"), "GiB": QT_TRANSLATE_NOOP("Units", "1 GiB = 2³⁰ B")}


def unit_label(unit: str) -> str:
    return _x("Units", _UNIT_LABEL[unit])


def unit_note(unit: str) -> str:
    return _x("Units", _UNIT_NOTE[unit])


def fmt_number(value: float, digits: int = 2) -> str:
    return QLocale().toString(float(value), "f", digits)


def fmt_int(value: int) -> str:
    return QLocale().toString(int(value))


def fmt_bytes(nbytes: float, unit: str, digits: int = 2) -> str:
    """'14.00 GB' (English) or '14,00 ГБ' (Russian): the unit always travels with the figure.

    A figure too small for `digits` keeps three significant digits (0.00184 GB, not 0.00 GB)."""
    value = nbytes / UNIT_BYTES[unit]
    if 0 < abs(value) < 10 ** -digits:
        digits = min(12, 2 - math.floor(math.log10(abs(value))))
    return f"{fmt_number(value, digits)} {unit_label(unit)}"


def fmt_exact_bytes(nbytes: int) -> str:
    return QCoreApplication.translate("Units", "{n} B").format(n=fmt_int(nbytes))


def fmt_seconds(seconds: float) -> str:
    if seconds < 1:
        return QCoreApplication.translate("Units", "{v} ms").format(v=fmt_number(seconds * 1e3, 1))
    return QCoreApplication.translate("Units", "{v} s").format(v=fmt_number(seconds, 2))


# -- labels of core enums and keys -----------------------------------------------------------
SCHEME_LABELS = {
    "mixed-adam": QT_TRANSLATE_NOOP("Labels", "Mixed-precision Adam (paper §3.1, 16 B/param)"),
    "fp32-adam": QT_TRANSLATE_NOOP("Labels", "FP32 Adam (16 B/param)"),
    "bf16-fp32grad-adam": QT_TRANSLATE_NOOP("Labels", "BF16 + FP32 grad accumulation, Adam (18 B/param)"),
    "mixed-sgd-momentum": QT_TRANSLATE_NOOP("Labels", "Mixed-precision SGD with momentum (12 B/param)"),
    "mixed-adam-8bit": QT_TRANSLATE_NOOP("Labels", "Mixed-precision 8-bit Adam (10 B/param)"),
}
PROFILE_LABELS = {
    "paper": QT_TRANSLATE_NOOP("Labels", "ZeRO paper (§3.1, §5)"),
    "torch": QT_TRANSLATE_NOOP("Labels", "PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)"),
}
PROFILE_SHORT = {
    "paper": QT_TRANSLATE_NOOP("Labels", "paper profile"),
    "torch": QT_TRANSLATE_NOOP("Labels", "torch profile"),
}
COMPONENT_LABELS = {
    "params": QT_TRANSLATE_NOOP("Labels", "Parameters"),
    "grads": QT_TRANSLATE_NOOP("Labels", "Gradients"),
    "grad_accum": QT_TRANSLATE_NOOP("Labels", "FP32 gradient accumulator"),
    "master": QT_TRANSLATE_NOOP("Labels", "FP32 master weights"),
    "adam_m": QT_TRANSLATE_NOOP("Labels", "Adam m (momentum)"),
    "adam_v": QT_TRANSLATE_NOOP("Labels", "Adam v (variance)"),
    "momentum": QT_TRANSLATE_NOOP("Labels", "SGD momentum"),
    "optimizer": QT_TRANSLATE_NOOP("Labels", "AdamW state (m, v, step)"),
    "comm_buffers": QT_TRANSLATE_NOOP("Labels", "DDP gradient buckets"),
}
STATE_CLASS_LABELS = {
    "param": QT_TRANSLATE_NOOP("Labels", "parameter"),
    "grad": QT_TRANSLATE_NOOP("Labels", "gradient"),
    "optimizer": QT_TRANSLATE_NOOP("Labels", "optimizer state"),
}
STAGE_LABELS = {
    0: QT_TRANSLATE_NOOP("Labels", "Stage 0\nplain DP"),
    1: QT_TRANSLATE_NOOP("Labels", "Stage 1\noptimizer sharded"),
    2: QT_TRANSLATE_NOOP("Labels", "Stage 2\n+ gradients"),
    3: QT_TRANSLATE_NOOP("Labels", "Stage 3\n+ parameters"),
}
STAGE_SHORT = QT_TRANSLATE_NOOP("Labels", "Stage {n}")


def label(table: dict, key) -> str:
    text = table.get(key)
    return _x("Labels", text) if text is not None else str(key)


def scheme_label(value: str) -> str:
    return label(SCHEME_LABELS, value)


def profile_label(value: str) -> str:
    return label(PROFILE_LABELS, value)


def profile_short(value: str) -> str:
    return label(PROFILE_SHORT, value)


def component_label(key: str) -> str:
    return label(COMPONENT_LABELS, key)


def state_class_label(key: str) -> str:
    return label(STATE_CLASS_LABELS, key)


def stage_label(stage: int) -> str:
    return label(STAGE_LABELS, stage)


def stage_short(stage: int) -> str:
    return _x("Labels", STAGE_SHORT).format(n=stage)
