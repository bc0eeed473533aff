"""The card's content as data: claims, each with the boundary inside which it holds, and sources.

resources/glossary/<lang>.json; every language carries the same claim ids so the GUI can link
a chart component (e.g. `component-adam-m`) to its claim whatever the language. Every claim
and checklist item says where it comes from (`origin`): the card, the ZeRO paper (sections),
PyTorch (APIs) or ZeroDesk's own modelling, so a reader can tell the card's words from the tool's.
Claims that state figures zerodesk.core computes carry them as `figures` (tests tie the two).
Russian terms follow resources/glossary/README.md.
"""

from __future__ import annotations

from functools import cache
from typing import Literal, get_args

from .record import ConfigDict, Field, Record, model_validator

from ..resources import resource
from . import shipped
from .json_files import read_json, read_model
from .options import LANGUAGE, Profile, Scheme

LANGUAGES = LANGUAGE.values
DEFAULT_LANGUAGE = LANGUAGE.default


class _Frozen(Record):
    # frozen: a loaded glossary is cached and shared
    model_config = ConfigDict(extra="forbid", frozen=True)


OriginKind = Literal["card", "paper", "pytorch", "zerodesk"]
ORIGIN_KINDS = get_args(OriginKind)
# The source whose sections a paper or PyTorch origin's refs must name.
_REF_SOURCE = {"paper": "zero-paper", "pytorch": "pytorch"}


class Origin(_Frozen):
    """Who says so: the card, the ZeRO paper (refs = its sections), PyTorch (refs = the APIs), or ZeroDesk's own modelling.

    adapted: for the card's text where ZeroDesk changed its words (a translation, a term from the term
    list), what changed; empty when the words are the card's own."""

    kind: OriginKind
    refs: tuple[str, ...] = ()
    adapted: str = ""

    @model_validator(mode="after")
    def _refs_fit_the_kind(self) -> "Origin":
        if self.kind in _REF_SOURCE and not self.refs:
            raise ValueError(f"a {self.kind} origin names its {'sections' if self.kind == 'paper' else 'APIs'} in refs")
        if self.kind not in _REF_SOURCE and self.refs:
            raise ValueError(f"a {self.kind} origin takes no refs")
        if self.adapted and self.kind != "card":
            raise ValueError(f"only the card's text is marked adapted, not a {self.kind} origin")
        return self


class Figure(_Frozen):
    """A figure a claim states that zerodesk.core computes, as a formula in bytes per rank.

    quantity 'states': the stage's model-state bytes per rank (or one component's);
    'comm': bytes moved per rank per step, for large Nd. formula: terms 'aP' and 'aP/Nd'
    (or 'aP/4' with Nd written out), exactly as the claim's text writes it.
    """

    quantity: Literal["states", "comm"] = "states"
    profile: Profile = Profile.PAPER
    scheme: Scheme = Scheme.MIXED_ADAM
    stage: int = Field(ge=0, le=3)
    component: str | None = None
    knobs: dict[str, str] = Field(default_factory=dict, description="plan fields the figure is computed with "
                                  "(core.knobs: param_dtype, reduce_dtype, ...); none: the defaults")
    formula: str = Field(pattern=r"^\d+(\.\d+)?P(/(Nd|\d+))?( ?\+ ?\d+(\.\d+)?P(/(Nd|\d+))?)*$")


class Claim(_Frozen):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    boundary: str = Field(min_length=1, description="where the claim holds")
    sources: tuple[str, ...] = Field(min_length=1, description="'source-id' or 'source-id section'")
    origin: Origin
    table: tuple[tuple[str, ...], ...] = Field(default=(), description="rows, the first one the header")
    figures: tuple[Figure, ...] = ()

    @property
    def from_card(self) -> bool:
        return self.origin.kind == "card"

    @property
    def summary(self) -> str:
        """The text's first sentence, clipped: how a status line names the claim (ids stay internal)."""
        first = self.text.split(". ")[0].rstrip(".")
        return first if len(first) <= 70 else first[:69].rstrip() + "…"

    def searchable(self) -> str:
        return " ".join((self.text, self.boundary, *(cell for row in self.table for cell in row)))

    @model_validator(mode="after")
    def _table_is_rectangular(self) -> "Claim":
        if self.table and len({len(row) for row in self.table}) != 1:
            raise ValueError(f"claim {self.id}: every row of its table needs the same number of cells")
        return self


class ChecklistItem(_Frozen):
    text: str = Field(min_length=1)
    origin: Origin
    sources: tuple[str, ...] = ()


class Source(_Frozen):
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    short: str | None = Field(default=None, description="the name claims use for it, e.g. 'ZeRO paper'")
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
    definition_origin: Origin = Origin.model_construct(kind="card")  # as Origin(kind="card") makes it, unvalidated
    also_known_as: tuple[str, ...] = ()
    why: str
    why_origin: Origin = Origin.model_construct(kind="card")
    claims: tuple[Claim, ...]
    checklist: tuple[ChecklistItem, ...] = ()
    sources: tuple[Source, ...]
    related: tuple[Related, ...] = ()

    @model_validator(mode="after")
    def _references_resolve(self) -> "Glossary":
        ids = [c.id for c in self.claims]
        if len(ids) != len(set(ids)):
            raise ValueError("claim ids repeat")
        known = {s.id: s for s in self.sources}
        entries = [(f"claim {c.id}", c.sources, c.origin) for c in self.claims]
        entries += [(f"checklist item {i + 1}", item.sources, item.origin) for i, item in enumerate(self.checklist)]
        for what, refs, origin in entries:
            for ref in refs:
                source_id, _, section = ref.partition(" ")
                if source_id not in known:
                    raise ValueError(f"{what} cites unknown source '{source_id}'")
                if section and known[source_id].sections and section not in known[source_id].sections:
                    raise ValueError(f"{what} cites {source_id} section {section}, which the source does not list")
            if origin.kind in _REF_SOURCE:
                source = known.get(_REF_SOURCE[origin.kind])
                listed = source.sections if source else {}
                for ref in origin.refs:
                    if ref not in listed:
                        raise ValueError(f"{what}: origin {origin.kind} '{ref}' is not a section of source "
                                         f"'{_REF_SOURCE[origin.kind]}' (listed: {', '.join(listed) or 'none'})")
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

    def card_claims(self) -> list[Claim]:
        return [c for c in self.claims if c.from_card]

    def search(self, text: str) -> list[Claim]:
        """Claims whose text, boundary or table contains `text`, case-insensitively; all claims for a blank query."""
        needle = _fold(text.strip())
        return [c for c in self.claims if needle in _fold(c.searchable())]


@cache
def _load(lang: str) -> Glossary:
    path = resource("glossary", f"{lang}.json")
    if shipped.is_shipped(path):  # validated by the tests (core.shipped)
        return shipped.build(Glossary, read_json(path, "glossary"))
    return read_model(path, "glossary", Glossary)


def language_code(lang: str | None) -> str:
    """'en' or 'ru' from 'ru', 'ru_RU' or 'ru-RU'; any other language falls back to English."""
    code = (lang or "").replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def load_glossary(lang: str = DEFAULT_LANGUAGE) -> Glossary:
    """The glossary in `lang` ('en' or 'ru'; a region suffix such as 'ru_RU' is accepted); others fall back to English."""
    return _load(language_code(lang))
