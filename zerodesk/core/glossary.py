"""The card's content as data: claims, each with the boundary inside which it holds, and sources.

resources/glossary/<lang>.json; every language carries the same claim ids so the GUI can link
a chart component (e.g. `component-adam-m`) to its claim whatever the language.
"""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..resources import resource
from .plan import PlanError, explain, read_json

LANGUAGES = ("en", "ru")
DEFAULT_LANGUAGE = "en"


class _Frozen(BaseModel):
    # frozen: a loaded glossary is cached and shared
    model_config = ConfigDict(extra="forbid", frozen=True)


class Claim(_Frozen):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    boundary: str = Field(min_length=1, description="where the claim holds")
    sources: tuple[str, ...] = Field(min_length=1, description="'source-id' or 'source-id section'")


class Source(_Frozen):
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    authors: str | None = None
    year: int | None = None
    url: str | None = None
    sections: dict[str, str] = Field(default_factory=dict)
    note: str | None = None


class Related(_Frozen):
    id: str
    title: str
    text: str


def _fold(text: str) -> str:
    # case-insensitive, and 'ё' matches 'е' as Russian readers expect
    return text.casefold().replace("ё", "е")


class Glossary(_Frozen):
    schema_version: int = Field(alias="schema")
    lang: str
    title: str
    definition: str
    also_known_as: tuple[str, ...] = ()
    why: str
    claims: tuple[Claim, ...]
    checklist: tuple[str, ...] = ()
    sources: tuple[Source, ...]
    related: tuple[Related, ...] = ()

    @model_validator(mode="after")
    def _references_resolve(self) -> "Glossary":
        ids = [c.id for c in self.claims]
        if len(ids) != len(set(ids)):
            raise ValueError("claim ids repeat")
        known = {s.id: s for s in self.sources}
        for claim in self.claims:
            for ref in claim.sources:
                source_id, _, section = ref.partition(" ")
                if source_id not in known:
                    raise ValueError(f"claim {claim.id} cites unknown source '{source_id}'")
                if section and known[source_id].sections and section not in known[source_id].sections:
                    raise ValueError(f"claim {claim.id} cites {source_id} section {section}, which the source does not list")
        return self

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(f"no claim '{claim_id}' in the {self.lang} glossary")

    def source(self, source_id: str) -> Source:
        for s in self.sources:
            if s.id == source_id:
                return s
        raise KeyError(f"no source '{source_id}' in the {self.lang} glossary")

    def search(self, text: str) -> list[Claim]:
        """Claims whose text or boundary contains `text`, case-insensitively; all claims for a blank query."""
        needle = _fold(text.strip())
        return [c for c in self.claims if needle in _fold(c.text) or needle in _fold(c.boundary)]


@cache
def _load(lang: str) -> Glossary:
    path = resource("glossary", f"{lang}.json")
    data = read_json(path, "glossary")
    try:
        return Glossary.model_validate(data)
    except ValidationError as exc:
        raise PlanError(f"glossary {path}: {explain(exc)}") from None


def language_code(lang: str | None) -> str:
    """'en' or 'ru' from 'ru', 'ru_RU' or 'ru-RU'; any other language falls back to English."""
    code = (lang or "").replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def load_glossary(lang: str = DEFAULT_LANGUAGE) -> Glossary:
    """The glossary in `lang` ('en' or 'ru'; a region suffix such as 'ru_RU' is accepted); others fall back to English."""
    return _load(language_code(lang))
