"""The lesson's wording, read from resources/lesson/<lang>.json (beside the glossary). Qt-free.

Each step names its kind (what figure it shows), a title, two or three sentences, and the
glossary claim whose boundary is shown beside it. Sentences hold placeholders such as
{stage1} that the window fills with live, clickable figures of zerodesk.core.lesson.
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..resources import resource
from .glossary import DEFAULT_LANGUAGE, language_code
from .lesson import STEP_KINDS
from .json_files import read_model

LESSON_SCHEMA = 1
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")


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
        return {m for part in (*self.text, self.caption) for m in PLACEHOLDER.findall(part)}


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


@cache
def _load(lang: str) -> LessonText:
    path = resource("lesson", f"{lang}.json")
    return read_model(path, "lesson", LessonText)


def load_lesson(lang: str = DEFAULT_LANGUAGE) -> LessonText:
    """The lesson in `lang` ('en' or 'ru', region suffix accepted); other languages fall back to English."""
    return _load(language_code(lang))
