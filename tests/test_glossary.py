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
    "paper-formulas", "units-gb-gib", "stages-torch-engines", "comm-volume-torch",
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
    assert [c.origin for c in en.claims] == [c.origin for c in ru.claims]
    assert [c.figures for c in en.claims] == [c.figures for c in ru.claims]
    assert [(len(c.table), len(c.table[0]) if c.table else 0) for c in en.claims] == \
        [(len(c.table), len(c.table[0]) if c.table else 0) for c in ru.claims]
    assert [(i.origin, i.sources) for i in en.checklist] == [(i.origin, i.sources) for i in ru.checklist]
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
    assert "18" in glossary.claim("scheme-bf16-fp32grad-adam").text


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


@pytest.fixture
def english_glossary_file(tmp_path, monkeypatch):
    """Load the English glossary from a file the test writes: call it with JSON text or data, then load."""
    (tmp_path / "glossary").mkdir()
    monkeypatch.setattr(glossary_module, "resource", lambda *parts: tmp_path.joinpath(*parts))

    def write(content) -> None:
        text = content if isinstance(content, str) else json.dumps(content)
        (tmp_path / "glossary" / "en.json").write_text(text, encoding="utf-8")
        glossary_module._load.cache_clear()

    yield write
    glossary_module._load.cache_clear()


def test_malformed_glossary_is_a_plan_error(english_glossary_file):
    english_glossary_file("{")
    with pytest.raises(PlanError, match="glossary .*en.json is not valid JSON"):
        load_glossary("en")
    english_glossary_file({
        "schema": 1, "lang": "en", "title": "t", "definition": "d", "why": "w",
        "claims": [{"id": "x", "text": "t", "boundary": "b", "sources": ["ghost"], "origin": {"kind": "zerodesk"}}],
        "sources": [{"id": "real", "title": "R"}],
    })
    with pytest.raises(PlanError, match="unknown source 'ghost'"):
        load_glossary("en")


# -- origins ------------------------------------------------------------------------------------------------
CARD_CLAIMS = ["stages", "mixed-adam-16p", "card-example", "residuals"]  # the card's "Что подтверждено"


def test_every_claim_and_checklist_item_says_where_it_comes_from(glossary):
    assert [c.id for c in glossary.card_claims()] == CARD_CLAIMS
    for claim in glossary.claims:
        assert claim.origin.kind in glossary_module.ORIGIN_KINDS, claim.id
        if claim.origin.kind == "paper":
            assert all(r in glossary.source("zero-paper").sections for r in claim.origin.refs), claim.id
        if claim.origin.kind == "pytorch":
            assert all(r in glossary.source("pytorch").sections for r in claim.origin.refs), claim.id
    # the card has four checklist items' worth of advice; the fifth (headroom) is ZeroDesk's, with a source
    kinds = [item.origin.kind for item in glossary.checklist]
    assert kinds == ["card"] * 4 + ["zerodesk"]
    assert glossary.checklist[-1].sources and re.search(r"Mi?B|МиБ", glossary.checklist[-1].text)


@pytest.mark.parametrize("origin,message", [
    ({"kind": "paper"}, "names its sections"),
    ({"kind": "pytorch"}, "names its APIs"),
    ({"kind": "card", "refs": ["§3.1"]}, "takes no refs"),
    ({"kind": "paper", "refs": ["§9"]}, "'§9' is not a section of source 'zero-paper'"),
    ({"kind": "pytorch", "refs": ["Horovod"]}, "'Horovod' is not a section of source 'pytorch'"),
    ({"kind": "folklore"}, "origin.kind"),
])
def test_a_claim_with_a_bad_origin_is_refused_with_one_sentence(english_glossary_file, origin, message):
    data = {
        "schema": 1, "lang": "en", "title": "t", "definition": "d", "why": "w",
        "claims": [{"id": "x", "text": "t", "boundary": "b", "sources": ["zero-paper"], "origin": origin}],
        "sources": [{"id": "zero-paper", "title": "Z", "sections": {"§3.1": "s"}},
                    {"id": "pytorch", "title": "T", "sections": {"DDP": "d"}}],
    }
    english_glossary_file(data)
    with pytest.raises(PlanError, match=re.escape(message)):
        load_glossary("en")
    del data["claims"][0]["origin"]
    english_glossary_file(data)
    with pytest.raises(PlanError, match="origin"):
        load_glossary("en")


# -- figures: the text cannot drift from zerodesk.core ----------------------------------------------------------
TERM = re.compile(r"(\d+(?:\.\d+)?)P(?:/(Nd|\d+))?")


def _evaluate(formula: str, p: int, nd: int) -> float:
    total = 0.0
    for coef, den in TERM.findall(formula.replace(" ", "")):
        total += float(coef) * p / (1 if not den else nd if den == "Nd" else int(den))
    return total


def _written(formula: str, text: str) -> bool:
    flat, f = re.sub(r"\s*\+\s*", "+", text), formula.replace(" ", "")
    return re.search(rf"(?<![\d.,]){re.escape(f)}(?![\w/])", flat) is not None


def _computed(fig, p: int, nd: int):
    from zerodesk.core.accounting import compute
    from zerodesk.core.plan import Cluster, ModelSpec, Plan

    plan = Plan(model=ModelSpec(params=p), scheme=fig.scheme, profile=fig.profile,
                cluster=Cluster(nodes=nd, gpus_per_node=1))
    stage = compute(plan).stage(fig.stage)
    if fig.quantity == "comm":
        return stage.comm_bytes
    return stage.components[fig.component] if fig.component else stage.total_bytes


@pytest.mark.parametrize("lang", LANGS)
def test_every_figure_a_claim_states_is_what_the_core_computes(lang):
    glossary = load_glossary(lang)
    checked = 0
    for claim in glossary.claims:
        for fig in claim.figures:
            assert _written(fig.formula, claim.searchable()), (claim.id, fig.formula)
            dens = {d for _, d in TERM.findall(fig.formula.replace(" ", "")) if d and d != "Nd"}
            if fig.quantity == "comm":
                assert not dens and "Nd" not in fig.formula, (claim.id, fig.formula)  # per-step bytes at large Nd
                p, nd = 3 * 2**20 * 1000, 4096
                got = _computed(fig, p, nd)
                assert got == pytest.approx(_evaluate(fig.formula, p, nd), rel=1e-3), (claim.id, fig)
            else:
                for nd in ({int(d) for d in dens} or {1, 4, 8, 64}):
                    p = 64 * 3 * 10**8  # divides evenly, so the closed form is exact
                    assert _computed(fig, p, nd) == _evaluate(fig.formula, p, nd), (claim.id, fig, nd)
            checked += 1
    assert checked >= 40


def test_figures_refer_to_components_the_core_has():
    from zerodesk.core.accounting import SCHEMES, TORCH_COMPONENTS

    for claim in load_glossary("en").claims:
        for fig in claim.figures:
            if fig.component:
                keys = {c.key for c in (TORCH_COMPONENTS if fig.profile == Profile.TORCH else SCHEMES[fig.scheme].components)}
                assert fig.component in keys, (claim.id, fig.component)


def test_the_card_example_in_gb_is_what_the_core_computes(glossary):
    from zerodesk.core.accounting import compute
    from zerodesk.core.plan import Cluster, ModelSpec, Plan

    text = glossary.claim("card-example").text
    stated = [int(x) for x in re.findall(r"(\d+)\s*(?:GB|ГБ)", text)[:4]]
    b = compute(Plan(model=ModelSpec(params=2 * 10**9), cluster=Cluster(nodes=4, gpus_per_node=1)))
    assert stated == [s.total_bytes // 10**9 for s in b.stages] == [32, 14, 11, 8]


def test_the_units_claim_converts_as_the_core_does(glossary):
    from zerodesk.core.units import UNIT_BYTES, to_unit

    text = glossary.claim("units-gb-gib").text
    gib = f"{to_unit(32 * UNIT_BYTES['GB'], 'GiB'):.2f}"
    assert gib in text.replace(",", ".")
    assert re.sub(r"[ ,\u00a0]", "", str(UNIT_BYTES["GiB"])) in re.sub(r"[ ,\u00a0]", "", text)


def test_paper_formulas_are_general_in_k(glossary):
    text = glossary.claim("paper-formulas").text.replace(" ", "")
    for general in ("4P+KP/Nd", "2P+(2+K)P/Nd", "(4+K)P/Nd"):
        assert general in text, general


# -- the Russian terms ----------------------------------------------------------------------------------------
ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
TERMS = ROOT / "resources" / "glossary" / "README.md"


def avoided_russian_variants() -> list[str]:
    """The 'Avoid' column of the terminology table in resources/glossary/README.md."""
    rows = [line for line in TERMS.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    col = header.index("Avoid")
    out = []
    for row in rows[2:]:
        out += re.findall(r"`([^`]+)`", row.strip("|").split("|")[col])
    return out


def _variant_pattern(variant: str) -> re.Pattern:
    body = "".join("[0-9a-zа-яё]*" if ch == "*" else re.escape(_fold_cyrillic(ch)) for ch in variant)
    return re.compile(rf"(?<![0-9A-Za-zА-Яа-яЁё]){body}" + ("" if variant.endswith("*") else r"(?![0-9A-Za-zА-Яа-яЁё])"))


def _fold_cyrillic(text: str) -> str:
    # Cyrillic without regard to case (and ё = е); Latin stays exact, so 'bf16' is caught and 'BF16' is not
    return "".join(ch.lower() if "А" <= ch <= "я" or ch in "Ёё" else ch for ch in text).replace("ё", "е")


INTERNAL_KEYS = {"id", "lang", "url", "kind", "scheme", "profile", "quantity", "component", "formula", "sources"}


def _strings(value):
    """Every user-visible string of a JSON resource (ids, enum values and references are internal)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in INTERNAL_KEYS:
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def russian_texts() -> list[tuple[str, str]]:
    """(where, text) for every Russian text the app ships: resources' ru JSON, the ru .ts, packaging."""
    import xml.etree.ElementTree as ET

    texts = []
    for path in sorted((ROOT / "resources").rglob("*.json")):
        if path.stem == "ru" or path.stem.endswith("_ru"):
            texts += [(path.name, s) for s in _strings(json.loads(path.read_text(encoding="utf-8")))]
    for path in sorted((ROOT / "resources").rglob("*_ru.ts")):
        for message in ET.parse(path).getroot().iter("message"):
            tr = message.find("translation")
            texts += [(f"{path.name}: {message.findtext('source')!r}", t.text or "")
                      for t in ([tr] if tr.find("numerusform") is None else tr.findall("numerusform"))]
    for path in sorted((ROOT / "packaging").glob("*")):
        if path.suffix == ".desktop":
            texts += [(path.name, line) for line in path.read_text(encoding="utf-8").splitlines() if "[ru]=" in line]
        elif path.suffix == ".xml":
            texts += [(path.name, el.text or "") for el in ET.parse(path).getroot().iter()
                      if el.get("{http://www.w3.org/XML/1998/namespace}lang") == "ru"]
    return texts


def test_the_terminology_list_is_read():
    variants = avoided_russian_variants()
    for expected in ("делени*", "корзин*", "остаточн* затрат*", "bf16", "против расчёта", "Норма"):
        assert expected in variants


@pytest.mark.parametrize("text,variant", [
    ("Деление состояний", "делени*"), ("стадия 1 делит состояния", "делит*"), ("какие состояния делятся", "деля*"),
    ("Корзины DDP", "корзин*"), ("вычисления в bf16", "bf16"), ("Стадия 1\nоптимизатор", "Стадия 1 оптимизатор"),
    ("Состояния против расчёта", "против расчёта"), ("Норма", "Норма"), ("Эти остаточные затраты", "остаточн* затрат*"),
])
def test_the_check_catches_each_variant(text, variant):
    assert _variant_pattern(variant).search(_fold_cyrillic(" ".join(text.split())))


@pytest.mark.parametrize("text", ["разделяются", "распределяет", "BF16", "Нормализация", "отдельно", "torch.bfloat16",
                                  "бакеты градиентов DDP", "временные буферы", "относительно расчёта"])
def test_the_check_lets_the_right_terms_pass(text):
    folded = _fold_cyrillic(text)
    assert not any(_variant_pattern(v).search(folded) for v in avoided_russian_variants()), text


def test_no_avoided_variant_appears_in_any_russian_text():
    texts = russian_texts()
    assert len(texts) > 300  # the glossary, the .ts translations and the packaging were all read
    patterns = [(v, _variant_pattern(v)) for v in avoided_russian_variants()]
    found = [(where, v, text) for where, text in texts for v, pat in patterns
             if pat.search(_fold_cyrillic(" ".join(text.split())))]
    assert not found, "\n".join(f"{where}: «{v}» in {text!r}" for where, v, text in found)


def test_no_internal_id_is_shown_in_glossary_text(glossary):
    ids = {s.value for s in Scheme} | {c.id for c in glossary.claims if "-" in c.id}
    shown = [glossary.definition, glossary.why, *(i.text for i in glossary.checklist),
             *(r.text for r in glossary.related)]
    for claim in glossary.claims:
        shown.append(claim.searchable())
    for text in shown:
        for internal in ids:
            assert not re.search(rf"(?<![\w-]){re.escape(internal)}(?![\w-])", text), (internal, text[:60])


def test_sources_are_named_one_way(glossary):
    """The DeepSpeed page is 'the DeepSpeed overview' in claims and in its title; Russian titles are Russian."""
    ds = glossary.source("deepspeed")
    word = "overview" if glossary.lang == "en" else "обзор"
    assert word in ds.title and word in ds.short
    # claims that cite the overview name it so (DeepSpeed's estimator is its own source)
    mentions = [c.text + c.boundary for c in glossary.claims
                if "DeepSpeed" in c.text + c.boundary and any(ref.split()[0] == "deepspeed" for ref in c.sources)]
    assert mentions and all(re.search(rf"DeepSpeed {word}|{word}\w* DeepSpeed", m) for m in mentions)
    assert all("tutorial" not in s.title.lower() for s in glossary.sources)
    if glossary.lang == "ru":
        for sid in ("pytorch", "megatron-lm", "deepspeed"):
            assert CYRILLIC.search(glossary.source(sid).title), sid
        assert "NVMe" not in ds.note and "накопител" in ds.note
