"""How the lesson writes its figures: short values for the class, the full formula on a click.

Values keep three significant digits in the plan's unit (120 GB, 31.4 GB, 1.88 GB), as the
paper's Figure 1 does; the formula line gives the exact bytes.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ...core.lesson import LessonFigures, Number
from ...core.units import UNIT_BYTES
from ..base import i18n

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")

NAMES = {
    "class_param": QT_TRANSLATE_NOOP("Lesson", "Parameters (FP16)"),
    "class_grad": QT_TRANSLATE_NOOP("Lesson", "Gradients (FP16)"),
    "class_optimizer": QT_TRANSLATE_NOOP("Lesson", "Optimizer states (K = 12)"),
    "K": QT_TRANSLATE_NOOP("Lesson", "Optimizer-state bytes per parameter K"),
    "stage": QT_TRANSLATE_NOOP("Lesson", "Model states per rank, stage {n}"),
    "stage_class": QT_TRANSLATE_NOOP("Lesson", "{what} per rank, stage {n}"),
    "comm": QT_TRANSLATE_NOOP("Lesson", "Communication per rank per step, stage {n}"),
    "comm_ratio": QT_TRANSLATE_NOOP("Lesson", "Stage 3 communication over stages 0–2"),
    "time": QT_TRANSLATE_NOOP("Lesson", "Communication time per step at least, stage {n}"),
    "saving3": QT_TRANSLATE_NOOP("Lesson", "Stage 0 states over stage 3 states"),
    "act_layers": QT_TRANSLATE_NOOP("Lesson", "Activations saved by the blocks (estimate)"),
    "act_logits": QT_TRANSLATE_NOOP("Lesson", "Logits kept for the loss (estimate)"),
    "peak": QT_TRANSLATE_NOOP("Lesson", "Predicted peak of a full step, stage {n}"),
    "P": QT_TRANSLATE_NOOP("Lesson", "Parameters P"),
    "Nd": QT_TRANSLATE_NOOP("Lesson", "Data-parallel ranks Nd"),
}
SOURCES = {
    "computed": QT_TRANSLATE_NOOP("Lesson", "computed, ZeRO paper profile (§3.1, §5)"),
    "estimated": QT_TRANSLATE_NOOP("Lesson", "estimated from the model's shapes (not a measurement)"),
    "predicted": QT_TRANSLATE_NOOP("Lesson", "predicted from the model's shapes, as on the Plan chart (not a measurement)"),
}
# The core's formulas that hold words or units (zerodesk.core.lesson writes them in English), as the UI
# language writes them; tests/test_gui_lesson.py checks the English here is the core's, word for word.
FORMULAS = {
    "comm": QT_TRANSLATE_NOOP("Lesson", "{elements} × {size} B"),
    "act_layers": QT_TRANSLATE_NOOP("Lesson", "L × tokens × (what one block saves) + the final norm"),
    "act_logits": QT_TRANSLATE_NOOP("Lesson", "tokens × vocab × 10 B (BF16 logits, FP32 copy, log-softmax)"),
    "peak": QT_TRANSLATE_NOOP("Lesson", "{states} + activations + buffers"),
    "time": QT_TRANSLATE_NOOP("Lesson", "max(in-node bytes / {intra} GB/s, between-node bytes / {inter} GB/s)"),
}
LOWER_BOUND = QT_TRANSLATE_NOOP("Lesson", "a lower bound: compute is not modelled, overlap hides part")
SYMBOLS = {"tokens": QT_TRANSLATE_NOOP("Lesson", "tokens"), "vocab": QT_TRANSLATE_NOOP("Lesson", "vocab")}
CLASS_NAMES = {
    "param": QT_TRANSLATE_NOOP("Lesson", "Parameters"),
    "grad": QT_TRANSLATE_NOOP("Lesson", "Gradients"),
    "optimizer": QT_TRANSLATE_NOOP("Lesson", "Optimizer states"),
}


def tr(text: str) -> str:
    return QCoreApplication.translate("Lesson", text)


def class_name(cls: str) -> str:
    return tr(CLASS_NAMES[cls])


def fmt_short_bytes(nbytes: float, unit: str) -> str:
    """Three significant digits: '120 GB', '31.4 GB', '1.88 GB' (Russian: '31,4 ГБ')."""
    value = nbytes / UNIT_BYTES[unit]
    digits = 2 if value <= 0 else max(0, min(6, 2 - math.floor(math.log10(abs(value)))))
    return f"{i18n.fmt_number(value, digits)} {i18n.unit_label(unit)}"


def fmt_ratio(value: float) -> str:
    """'1.5', '64', '2.67' in the language's decimal separator."""
    text = i18n.fmt_number(value, 2)
    sep = i18n.fmt_number(0.5, 1)[1]
    return text.rstrip("0").rstrip(sep) if sep in text else text


def fmt_power(n: float) -> str:
    """'7.5×10⁹' (the card writes P = 2×10⁹); small counts stay plain."""
    if n < 10_000:
        return i18n.fmt_int(int(n))
    exponent = math.floor(math.log10(n))
    mantissa = n / 10**exponent
    text = fmt_ratio(round(mantissa, 2))
    return f"10{str(exponent).translate(_SUPERSCRIPT)}" if text == "1" else f"{text}×10{str(exponent).translate(_SUPERSCRIPT)}"


def fmt_value(number: Number, unit: str) -> str:
    if number.seconds is not None:
        return i18n.fmt_seconds(number.seconds)
    if number.bytes is not None:
        return fmt_short_bytes(number.bytes, unit)
    if number.key == "P":
        return fmt_power(number.ratio or 0)
    return fmt_ratio(number.ratio or 0)


def name(number: Number) -> str:
    key = number.key
    if key.startswith("comp_"):
        return i18n.component_label(key[5:])
    if m := re.fullmatch(r"stage(\d)", key):
        return tr(NAMES["stage"]).format(n=m.group(1))
    if m := re.fullmatch(r"stage(\d)_(\w+)", key):
        return tr(NAMES["stage_class"]).format(what=class_name(m.group(2)), n=m.group(1))
    if m := re.fullmatch(r"comm(\d)", key):
        return tr(NAMES["comm"]).format(n=m.group(1))
    if m := re.fullmatch(r"time(\d)", key):
        return tr(NAMES["time"]).format(n=m.group(1))
    if m := re.fullmatch(r"peak(\d)", key):
        return tr(NAMES["peak"]).format(n=m.group(1))
    return tr(NAMES[key]) if key in NAMES else key


def formula(number: Number) -> str:
    """The number's formula as the UI language writes it ('2P × 2 Б', 'L × токены × …'); symbols stay."""
    key, text = number.key, number.formula
    if re.fullmatch(r"comm\d", key) and (m := re.fullmatch(r"(\S+) × (\d+) B", text)):
        return tr(FORMULAS["comm"]).format(elements=m.group(1), size=m.group(2))
    if key.startswith("peak") and (m := re.fullmatch(r"(.+) \+ activations \+ buffers", text)):
        return tr(FORMULAS["peak"]).format(states=m.group(1))
    if re.fullmatch(r"time\d", key) and (m := re.fullmatch(r"max\(in-node bytes / (\S+) GB/s, between-node bytes / "
                                                          r"(\S+) GB/s\)", text)):
        return tr(FORMULAS["time"]).format(intra=m.group(1), inter=m.group(2))
    return tr(FORMULAS[key]) if key in FORMULAS else text


def symbol(name: str) -> str:
    """A formula's symbol: P, Nd and L as they are, 'tokens' and 'vocab' in the UI language."""
    return tr(SYMBOLS[name]) if name in SYMBOLS else name


def substituted(number: Number, figures: LessonFigures) -> str:
    """'4 × 7 500 000 000 + 12 × 7 500 000 000 / 64' — the formula with the plan's values."""
    shown = formula(number)
    text = shown.split(" = ")[0] if number.key not in ("K",) else shown
    if number.key.startswith(("act_", "peak", "time")):
        return ""
    text = re.sub(r"(\d+(?:\.\d+)?)P", r"\1 × P", text)
    text = re.sub(r"P/Nd", "P / Nd", text)
    for symbol in ("Nd", "P"):
        text = re.sub(rf"\b{symbol}\b", i18n.fmt_int(figures.symbols[symbol]), text)
    return text


def formula_lines(number: Number, figures: LessonFigures, unit: str) -> tuple[str, str]:
    """Two lines for the formula bar: 'name = formula (P = …, Nd = …)' and '= values = exact bytes = value (source)'."""
    given = ", ".join(f"{symbol(t)} = {i18n.fmt_int(figures.symbols[t])}" for t in number.terms if t in figures.symbols)
    shown = formula(number)
    first = f"{name(number)} = {shown}" + (f"   ({given})" if given else "")
    sub = substituted(number, figures)
    if number.seconds is not None:  # lower bound: compute and its overlap are not modelled
        second = f"= {i18n.fmt_seconds(number.seconds)}, " + tr(LOWER_BOUND)
    elif number.bytes is not None:
        result = f"{i18n.fmt_exact_bytes(number.bytes)} = {i18n.fmt_bytes(number.bytes, unit, 3)}"
        second = f"= {sub} = {result}" if sub and sub != shown else f"= {result}"
    elif number.ratio is not None and number.key not in ("P", "Nd"):
        second = f"= {fmt_ratio(number.ratio)}"
    else:
        second = ""
    note = f"{tr(SOURCES[number.source])}; {i18n.unit_note(unit)}"
    return first, f"{second}   ({note})" if second else f"({note})"


def formula_line(number: Number, figures: LessonFigures, unit: str) -> str:
    return " ".join(formula_lines(number, figures, unit))
