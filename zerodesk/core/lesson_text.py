"""The lesson's wording, read from resources/lesson/<lang>.json (beside the glossary). Qt-free.

Each step names its kind (what figure it shows), a title, two or three sentences, and the
glossary claim whose boundary is shown beside it. Sentences hold placeholders such as
{stage1} that the window fills with live, clickable figures of zerodesk.core.lesson.

A figure followed by a noun carries the noun's forms, so the noun agrees with whatever number
is shown: `{Nd|rank|ranks}` in English (one, other), `{Nd|участника|участников|участников}` in
Russian (one, few, many, and optionally the form for a fraction, else the few form: «1,5 раза»).
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..resources import resource
from .glossary import DEFAULT_LANGUAGE, language_code
from .lesson import STEP_KINDS
from .json_files import read_model

LESSON_SCHEMA = 1
# {key} or {key|form|form...}: group 1 the figure's key, group 2 the forms of the noun that follows it
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)(?:\|([^{}]+))?\}")
PLURAL_FORMS = {"en": ("one", "other"), "ru": ("one", "few", "many", "other")}
_GROUPING = {"en": ",", "ru": " \u00a0\u202f"}  # what fmt_int puts between digit groups
_DECIMAL = {"en": ".", "ru": ","}


def plural_category(lang: str, shown: str) -> str:
    """The CLDR plural category of a number as the reader sees it ('64', '1,5', '7,5×10⁹'): one, few, many, other.

    English has one and other; Russian one (1, 21, 101), few (2-4, 22-24), many (0, 5-20, 25-30) and
    other for fractions («1,5 раза»). A number in powers of ten reads as many (other in English)."""
    lang = language_code(lang)
    text = shown.strip()
    if "×" in text or any(ch in text for ch in "⁰¹²³⁴⁵⁶⁷⁸⁹"):  # '7,5×10⁹', '10⁹'
        return "many" if lang == "ru" else "other"
    for ch in _GROUPING[lang]:
        text = text.replace(ch, "")
    whole, _, fraction = text.partition(_DECIMAL[lang])
    if not whole.isdigit() or (fraction and not fraction.isdigit()):
        return "other"
    if fraction.strip("0"):
        return "other"
    i = int(whole)
    if lang == "en":
        return "one" if i == 1 else "other"
    if i % 10 == 1 and i % 100 != 11:
        return "one"
    if 2 <= i % 10 <= 4 and not 12 <= i % 100 <= 14:
        return "few"
    return "many"


def agreeing_form(lang: str, shown: str, forms: tuple[str, ...]) -> str:
    """The form of a noun that agrees with the number shown, from the forms a placeholder lists."""
    names = PLURAL_FORMS[language_code(lang)]
    category = plural_category(lang, shown)
    if category == "other" and len(forms) < len(names):
        category = "few"  # Russian: a fraction takes the genitive singular, as 2-4 do («1,5 раза»)
    return forms[names.index(category)]


def split_forms(raw: str | None) -> tuple[str, ...]:
    return tuple(f.strip() for f in raw.split("|")) if raw else ()


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LessonStep(_Frozen):
    kind: str
    title: str = Field(min_length=1)
    text: tuple[str, ...] = Field(min_length=1, max_length=3, description="two or three sentences from the card")
    claim: str = Field(min_length=1, description="glossary claim id whose boundary is shown")
    caption: str = Field(default="", description="one line under the figure")

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in STEP_KINDS:
            raise ValueError(f"kind must be one of {', '.join(STEP_KINDS)}, not {kind!r}")
        return kind

    def placeholders(self) -> set[str]:
        return {m.group(1) for part in (*self.text, self.caption) for m in PLACEHOLDER.finditer(part)}

    def noun_forms(self) -> list[tuple[str, ...]]:
        """The forms every agreeing noun lists, in order ({Nd|rank|ranks} -> ('rank', 'ranks'))."""
        return [split_forms(m.group(2)) for part in (*self.text, self.caption) for m in PLACEHOLDER.finditer(part)
                if m.group(2)]


class LessonText(_Frozen):
    schema_version: int = Field(alias="schema")
    lang: str
    title: str
    steps: tuple[LessonStep, ...] = Field(min_length=1)

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, value: int) -> int:
        if value != LESSON_SCHEMA:
            raise ValueError(f"this ZeroDesk reads lesson schema {LESSON_SCHEMA}, not {value}")
        return value

    @model_validator(mode="after")
    def _forms_fit_the_language(self) -> "LessonText":
        names = PLURAL_FORMS.get(self.lang, ())
        least = len(names) - 1 if len(names) > 2 else len(names)  # the fraction's form is optional
        for i, step in enumerate(self.steps):
            for forms in step.noun_forms():
                if not least <= len(forms) <= len(names):
                    raise ValueError(f"step {i + 1}: the noun forms '{'|'.join(forms)}' do not fit {self.lang!r}, whose "
                                     f"nouns after a figure take the forms {', '.join(names) or 'of en or ru'}")
        return self


@cache
def _load(lang: str) -> LessonText:
    path = resource("lesson", f"{lang}.json")
    return read_model(path, "lesson", LessonText)


def load_lesson(lang: str = DEFAULT_LANGUAGE) -> LessonText:
    """The lesson in `lang` ('en' or 'ru', region suffix accepted); other languages fall back to English."""
    return _load(language_code(lang))
