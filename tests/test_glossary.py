"""The glossary: the card's claims in both languages, each bounded and sourced."""

from __future__ import annotations

import json
import re

import pytest

from zerodesk.core import glossary as glossary_module
from zerodesk.core.glossary import load_glossary
from zerodesk.core.plan import PlanError, Profile, Scheme

LANGS = ("en", "ru")
REQUIRED = [
    "stages", "mixed-adam-16p", "card-example", "residuals", "profile-paper", "profile-torch",
    "scheme-fp32-adam", "scheme-bf16-fp32grad-adam", "scheme-mixed-sgd-momentum", "scheme-mixed-adam-8bit",
    "comm-volume", "component-params", "component-grads", "component-master", "component-adam-m",
    "component-adam-v", "component-momentum", "component-grad-accum", "component-optimizer", "component-comm-buffers",
]
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.fixture(params=LANGS)
def glossary(request):
    return load_glossary(request.param)


def test_languages_share_structure():
    en, ru = load_glossary("en"), load_glossary("ru")
    assert (en.lang, ru.lang) == ("en", "ru")
    assert [c.id for c in en.claims] == [c.id for c in ru.claims]
    assert [c.sources for c in en.claims] == [c.sources for c in ru.claims]
    assert [s.id for s in en.sources] == [s.id for s in ru.sources]
    assert [list(s.sections) for s in en.sources] == [list(s.sections) for s in ru.sources]
    assert [r.id for r in en.related] == [r.id for r in ru.related]
    assert len(en.checklist) == len(ru.checklist) and en.also_known_as[0] == ru.also_known_as[0]


def test_required_claims_present(glossary):
    ids = {c.id for c in glossary.claims}
    assert set(REQUIRED) <= ids


def test_every_scheme_profile_and_component_has_a_claim(glossary):
    from zerodesk.core.accounting import SCHEMES, TORCH_COMPONENTS

    ids = {c.id for c in glossary.claims}
    keys = {c.key for spec in SCHEMES.values() for c in spec.components} | {c.key for c in TORCH_COMPONENTS}
    expected = {f"component-{k.replace('_', '-')}" for k in keys}
    expected |= {f"scheme-{s.value}" for s in Scheme} | {f"profile-{p.value}" for p in Profile}
    assert expected <= ids, expected - ids


def test_claims_are_bounded_and_sourced(glossary):
    sources = {s.id: s for s in glossary.sources}
    for claim in glossary.claims:
        assert claim.text.strip() and claim.boundary.strip() and claim.sources, claim.id
        for ref in claim.sources:
            source_id, _, section = ref.partition(" ")
            assert source_id in sources, (claim.id, ref)
            if section:
                assert section in sources[source_id].sections, (claim.id, ref)


def test_sources(glossary):
    paper = glossary.source("zero-paper")
    assert paper.year == 2020 and "Rajbhandari" in paper.authors
    assert {"§3.1", "§3.2", "§5", "§7"} <= set(paper.sections)
    assert glossary.source("deepspeed").title.startswith("Zero Redundancy Optimizer")
    glossary.source("pytorch")


def test_card_example_figures(glossary):
    text = glossary.claim("card-example").text
    for figure in ("32", "14", "11", "8"):
        assert re.search(rf"(?<![\d.]){figure}\s*(GB|ГБ)", text), figure
    assert "10⁹" in text  # 1 GB = 1e9 B, stated where the numbers are


def test_key_facts(glossary):
    assert "16P" in glossary.claim("mixed-adam-16p").text
    comm = glossary.claim("comm-volume").text
    assert "2P" in comm and "3P" in comm
    assert "20" in glossary.claim("scheme-bf16-fp32grad-adam").text


def test_language_of_the_text():
    en, ru = load_glossary("en"), load_glossary("ru")
    assert CYRILLIC.search(ru.definition) and CYRILLIC.search(ru.claim("stages").boundary)
    assert not CYRILLIC.search(en.definition + en.why + "".join(c.text + c.boundary for c in en.claims))
    for claim in ru.claims:
        assert CYRILLIC.search(claim.text) and CYRILLIC.search(claim.boundary), claim.id


def test_search():
    en, ru = load_glossary("en"), load_glossary("ru")
    assert "residuals" in [c.id for c in en.search("FRAGMENTATION")]
    assert "residuals" in [c.id for c in ru.search("ФРАГМЕНТАЦ")]
    # matches the boundary too
    assert "stages" in [c.id for c in en.search("tensor parallelism inside a layer")]
    # 'е' finds 'ё'
    assert [c.id for c in ru.search("еще и градиенты")] == [c.id for c in ru.search("ещё и градиенты")] != []
    assert en.search("  ") == list(en.claims)
    assert en.search("no such words anywhere") == []


def test_claim_lookup_and_fallback():
    assert load_glossary("de").lang == "en"
    assert load_glossary("ru_RU").lang == "ru"
    assert load_glossary("").lang == "en"
    with pytest.raises(KeyError):
        load_glossary("en").claim("nope")


def test_malformed_glossary_is_a_plan_error(tmp_path, monkeypatch):
    (tmp_path / "glossary").mkdir()
    monkeypatch.setattr(glossary_module, "resource", lambda *parts: tmp_path.joinpath(*parts))
    glossary_module._load.cache_clear()
    try:
        (tmp_path / "glossary" / "en.json").write_text("{", encoding="utf-8")
        with pytest.raises(PlanError, match="glossary .*en.json is not valid JSON"):
            load_glossary("en")
        bad_ref = {
            "schema": 1, "lang": "en", "title": "t", "definition": "d", "why": "w",
            "claims": [{"id": "x", "text": "t", "boundary": "b", "sources": ["ghost"]}],
            "sources": [{"id": "real", "title": "R"}],
        }
        (tmp_path / "glossary" / "en.json").write_text(json.dumps(bad_ref), encoding="utf-8")
        glossary_module._load.cache_clear()
        with pytest.raises(PlanError, match="unknown source 'ghost'"):
            load_glossary("en")
    finally:
        glossary_module._load.cache_clear()
