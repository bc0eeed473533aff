"""Run-time language switching through Qt's translation system, and localized labels/figures.

Our strings live in resources/translations/zerodesk_<lang>.ts (sources) and .qm (compiled
with pyside6-lrelease, committed). Installing a translator makes Qt send a LanguageChange
event to every widget; each view re-reads its texts in changeEvent().
"""

from __future__ import annotations

import gc
import math
import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator

from ...core import catalog
from ...core.errors import PlanError
from ...core.notes import Note
from ...core.text import shorten
from ...core.options import LANGUAGE, PROFILE, SCHEME, UNITS, Option
from ...core.units import UNIT_BYTES, scaled_unit
from ...resources import resource

LANGUAGES = {c.value: c.label for c in LANGUAGE.choices}  # code -> its own name

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
    if lang != "en":  # Qt's own strings (standard buttons, file dialogs)
        qt = QTranslator()
        if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            _installed.append(qt)
    ours = QTranslator()  # installed last, asked first: it also fills qtbase's gaps (QT_GAPS)
    path = qm_path(lang)
    if path.is_file() and ours.load(str(path)):
        _installed.append(ours)
    else:
        ok = False
    if app is not None:
        for t in _installed:
            app.installTranslator(t)
        # Qt posts LanguageChange; deliver it now so every widget reads its new texts before we return
        _deliver_language_change()
    return ok


def _deliver_language_change() -> None:
    """Deliver the posted LanguageChange with Python's cyclic collector held off. Qt hands the event down each
    widget's children from a copy of the list; a collection run by a retranslating handler may delete a dialog that
    Python owns (PySide gives a dialog back to Python once it has run exec()), and Qt then sends to a deleted
    child (a segfault the Russian-window test hit at random)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    finally:
        if was_enabled:
            gc.enable()


# Qt's own strings that the qtbase_<lang>.qm shipped with PySide6 lacks (Qt 6.11 renamed them and
# the Russian catalog was not updated): our .ts carries them under Qt's context, and our translator,
# installed after Qt's, answers for them. tests/test_gui_russian.py finds any new gap.
QT_GAPS = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
)


def _x(context: str, text: str) -> str:
    """Translate a string marked elsewhere with QT_TRANSLATE_NOOP."""
    return QCoreApplication.translate(context, text)


def option_label(option: Option, value: str) -> str:
    """A choice of the core's option registry (zerodesk.core.options) in the UI language."""
    return _x("Options", option.label(value))


# -- units and figures -----------------------------------------------------------------------
_UNIT_NOTE = {"GB": QT_TRANSLATE_NOOP("Units", "1 GB = 10⁹ B"), "GiB": QT_TRANSLATE_NOOP("Units", "1 GiB = 2³⁰ B"),
              "MB": QT_TRANSLATE_NOOP("Units", "1 MB = 10⁶ B"), "MiB": QT_TRANSLATE_NOOP("Units", "1 MiB = 2²⁰ B"),
              "kB": QT_TRANSLATE_NOOP("Units", "1 kB = 10³ B"), "KiB": QT_TRANSLATE_NOOP("Units", "1 KiB = 2¹⁰ B"),
              "B": QT_TRANSLATE_NOOP("Units", "whole bytes")}
# the steps below the plan's unit (core.units.LADDERS); their own context: "B" in "Units" is the billion suffix
SMALL_UNITS = {"MB": QT_TRANSLATE_NOOP("ByteUnits", "MB"), "kB": QT_TRANSLATE_NOOP("ByteUnits", "kB"),
               "MiB": QT_TRANSLATE_NOOP("ByteUnits", "MiB"), "KiB": QT_TRANSLATE_NOOP("ByteUnits", "KiB"),
               "B": QT_TRANSLATE_NOOP("ByteUnits", "B")}


def unit_label(unit: str) -> str:
    """Any byte unit of the ladders (GB, MB, kB, GiB, MiB, KiB, B) in the UI language."""
    return _x("ByteUnits", SMALL_UNITS[unit]) if unit in SMALL_UNITS else option_label(UNITS, unit)


def unit_note(unit: str) -> str:
    """'1 GB = 10⁹ B' (for B itself: whole bytes)."""
    return _x("Units", _UNIT_NOTE[unit])


def shown_unit(largest: float, unit: str) -> str:
    """The unit a view shows figures in when the largest is `largest` bytes (core.units.scaled_unit)."""
    return scaled_unit(largest, unit)


def fmt_number(value: float, digits: int = 2) -> str:
    return QLocale().toString(float(value), "f", digits)


def fmt_int(value: int) -> str:
    return QLocale().toString(int(value))


_COUNT_SUFFIX = ((10**12, QT_TRANSLATE_NOOP("Units", "T")), (10**9, QT_TRANSLATE_NOOP("Units", "B")),
                 (10**6, QT_TRANSLATE_NOOP("Units", "M")), (10**3, QT_TRANSLATE_NOOP("Units", "K")))


def fmt_count(n: int) -> str:
    """A parameter count for reading: '6.74B' / '6,74 млрд' (the language's decimal and suffix)."""
    for div, suffix in _COUNT_SUFFIX:
        if abs(n) >= div:
            return QCoreApplication.translate("Units", "{v}{suffix}").format(
                v=fmt_number(n / div, 2), suffix=_x("Units", suffix))
    return fmt_int(n)


def fmt_bytes(nbytes: float, unit: str, digits: int = 2) -> str:
    """'14.00 GB' (English) or '14,00 ГБ' (Russian): the unit always travels with the figure.

    A figure too small for `digits` keeps three significant digits (0.00184 GB, not 0.00 GB); bytes are whole."""
    if unit == "B":
        return f"{fmt_int(round(nbytes))} {unit_label(unit)}"
    value = nbytes / UNIT_BYTES[unit]
    if 0 < abs(value) < 10 ** -digits:
        digits = min(12, 2 - math.floor(math.log10(abs(value))))
    return f"{fmt_number(value, digits)} {unit_label(unit)}"


def number_typed(text: str) -> str:
    """A number as the user typed it in the UI language, in the ASCII form the core reads.

    Russian writes 7,5 and groups 4 096; English writes 7.5 and groups 4,096. Either language's decimal point
    may be typed (people type 7.5 in a Russian window too); a separator that is a group separator in the UI
    language is dropped only where it groups three digits, so '7,5B' in English stays for the core to refuse."""
    locale = QLocale()
    point, group = locale.decimalPoint(), locale.groupSeparator()
    text = text.strip()
    if point == ",":  # 7,5 -> 7.5; spaces of any width group digits
        text = text.replace(",", ".")
        for space in (group, " ", "\u00a0", "\u202f"):
            if space:
                text = text.replace(space, "")
        return text
    if group and group in text and re.fullmatch(rf"[0-9]{{1,3}}(?:{re.escape(group)}[0-9]{{3}})+(?:\.[0-9]*)?[a-zA-Z]?", text):
        text = text.replace(group, "")
    return text


def fmt_exact_bytes(nbytes: int) -> str:
    return QCoreApplication.translate("Units", "{n} B").format(n=fmt_int(nbytes))


def fmt_seconds(seconds: float) -> str:
    if seconds < 1:
        return QCoreApplication.translate("Units", "{v} ms").format(v=fmt_number(seconds * 1e3, 1))
    return QCoreApplication.translate("Units", "{v} s").format(v=fmt_number(seconds, 2))


# -- labels of core enums and keys -----------------------------------------------------------
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
    # components of the predicted peak (zerodesk.core.peak)
    "activations": QT_TRANSLATE_NOOP("Labels", "Activations"),
    "logits": QT_TRANSLATE_NOOP("Labels", "Logits and loss"),
    "gathered_params": QT_TRANSLATE_NOOP("Labels", "Gathered 16-bit parameters"),
    "all_gather": QT_TRANSLATE_NOOP("Labels", "All-gather buffer"),
    "reduce_scatter": QT_TRANSLATE_NOOP("Labels", "Reduce-scatter buffer"),
    "unsharded_grads": QT_TRANSLATE_NOOP("Labels", "Unsharded 16-bit gradients"),
    "accumulated_grads": QT_TRANSLATE_NOOP("Labels", "Gradients kept across micro-batches"),
    "temporaries": QT_TRANSLATE_NOOP("Labels", "Backward temporaries"),
    "optimizer_temps": QT_TRANSLATE_NOOP("Labels", "Optimizer step temporaries"),
    "cast_weights": QT_TRANSLATE_NOOP("Labels", "Autocast bf16 weight copies"),
    "inputs": QT_TRANSLATE_NOOP("Labels", "Input tokens and targets"),
    "cuda_allowance": QT_TRANSLATE_NOOP("Labels", "CUDA context and allocator (your allowance)"),
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


CHOICE_LABELS = {  # values of the architecture's choice fields
    "gated": QT_TRANSLATE_NOOP("Labels", "gated (SwiGLU)"),
    "plain": QT_TRANSLATE_NOOP("Labels", "plain (GELU)"),
    "rmsnorm": QT_TRANSLATE_NOOP("Labels", "RMSNorm"),
    "layernorm": QT_TRANSLATE_NOOP("Labels", "LayerNorm"),
    "rotary": QT_TRANSLATE_NOOP("Labels", "rotary (RoPE)"),
    "learned": QT_TRANSLATE_NOOP("Labels", "learned table"),
    "none": QT_TRANSLATE_NOOP("Labels", "none"),
    "qkv": QT_TRANSLATE_NOOP("Labels", "q, k, v only"),
    "all": QT_TRANSLATE_NOOP("Labels", "all layers"),
    "attention": QT_TRANSLATE_NOOP("Labels", "attention only (q, k, v, o)"),
    "mlp": QT_TRANSLATE_NOOP("Labels", "MLP only"),
    "nonparametric": QT_TRANSLATE_NOOP("Labels", "LayerNorm without parameters"),
    "alibi": QT_TRANSLATE_NOOP("Labels", "ALiBi (no table)"),
}

def core_note(note: Note) -> str:
    """A note of the core (zerodesk.core.notes) in the UI language, by its id; a scheme in it reads as its label."""
    values = {k: (scheme_label(v) if k == "scheme" else v) for k, v in note.params}
    return _x("CoreNotes", note.template).format(**values)


# Words inside the core's stage formulas ("16P + 4P buckets"): translated in place, figures untouched.
FORMULA_WORDS = (
    QT_TRANSLATE_NOOP("CoreFormulas", "(whole tensors)"),
    QT_TRANSLATE_NOOP("CoreFormulas", "(dim 0 padded)"),
    QT_TRANSLATE_NOOP("CoreFormulas", "buckets"),
)


def core_formula(formula: str) -> str:
    for words in FORMULA_WORDS:
        if words in formula:
            formula = formula.replace(words, _x("CoreFormulas", words))
    return formula


def choice_label(value: str) -> str:
    return label(CHOICE_LABELS, value)


def preset_label(preset) -> str:
    """A catalog preset's label in the UI language (its `labels` entry), else its own label."""
    return (getattr(preset, "labels", None) or {}).get(_current) or preset.label


def model_label(name: str | None) -> str | None:
    """What the user reads for a plan's model name: a preset's label (never its id, 'llama-2-7b'), else the
    name as given (an imported model's `_name_or_path`), on one line; None for an unnamed model."""
    if not name:
        return None
    try:
        return preset_label(catalog.find_model(name))
    except PlanError:  # not a preset (or a broken catalog): the name itself
        return shorten(name, 80)


def label(table: dict, key) -> str:
    text = table.get(key)
    return _x("Labels", text) if text is not None else str(key)


def scheme_label(value: str) -> str:
    return option_label(SCHEME, value)


def profile_label(value: str) -> str:
    return option_label(PROFILE, value)


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
