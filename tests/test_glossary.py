"""The glossary: the card's claims in both languages, each bounded and sourced."""

from __future__ import annotations

import json
import re

import pytest

from russian_text import (  # tests/russian_text.py: every Russian text and the checks run over it
    ROOT,
    Text,
    avoided_variants,
    disagreements,
    findings,
    fold,
    latin_unit_findings,
    report,
    russian_texts,
    variant_pattern,
)
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
                cluster=Cluster(nodes=nd, gpus_per_node=1), **fig.knobs)
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
CLASSES = ("avoided", "latin units", "untranslated", "plural")


def test_the_terminology_list_is_read():
    variants = avoided_variants()
    for expected in ("делени*", "корзин*", "остаточн* затрат*", "bf16", "против расчёта", "Норма", "моделир*",
                     "фейков*", "распределител*", "rotary", "затвор*", "hidden"):
        assert expected in variants


@pytest.mark.parametrize("text,variant", [
    ("Деление состояний", "делени*"), ("стадия 1 делит состояния", "делит*"), ("какие состояния делятся", "деля*"),
    ("Корзины DDP", "корзин*"), ("вычисления в bf16", "bf16"), ("Стадия 1\nоптимизатор", "Стадия 1 оптимизатор"),
    ("Состояния против расчёта", "против расчёта"), ("Норма", "Норма"), ("Эти остаточные затраты", "остаточн* затрат*"),
    ("Моделирование…", "моделир*"), ("на фиктивных тензорах", "фиктивн*"), ("MLP с затвором", "затвор*"),
    ("Активации rotary", "rotary"), ("распределитель памяти", "распределител*"), ("слитное внимание", "слитн*"),
    ("слоёв ×, hidden ×", "hidden"), ("Смулировать", "смулир*"),
])
def test_the_check_catches_each_variant(text, variant):
    assert variant_pattern(variant).search(fold(" ".join(text.split())))


@pytest.mark.parametrize("text", ["разделяются", "распределяет", "BF16", "Нормализация", "отдельно", "torch.bfloat16",
                                  "бакеты градиентов DDP", "временные буферы", "относительно расчёта", "симуляция",
                                  "аллокатор", "RoPE", "с гейтом (SwiGLU)", "слитое (fused)", "ширина", "hidden_size",
                                  "Симулировать"])
def test_the_check_lets_the_right_terms_pass(text):
    folded = fold(text)
    assert not any(variant_pattern(v).search(folded) for v in avoided_variants()), text


@pytest.mark.parametrize("text,found", [
    ("2P × 2 B = 30 ГБ", "B"), ("{v} GB на участника", "GB"), ("Всего (GiB)", "GiB"), ("на 80GB", "GB"),
    ("Пропускная способность, GB/s", "GB/s"), ("от 87 до 97,5 MiB", "MiB"),
])
def test_latin_units_are_caught(text, found):
    assert [f[1] for f in latin_unit_findings([Text("t", text)])] == [found]


@pytest.mark.parametrize("text", ["2P × 2 Б = 30 ГБ", "каталог хранит «80 GB» как 80 ГиБ", "подпись «GB»", "BF16",
                                  "B200", "FP32 (4 Б)", "4P/Nd байт"])
def test_cyrillic_units_and_quoted_labels_pass(text):
    assert latin_unit_findings([Text("t", text)]) == []


@pytest.mark.parametrize("text,wrong", [
    ("в 64 раз меньше", "64 раз"), ("и так 64 раз", "64 раз"), ("в 8 раза меньше", "8 раза"), ("2 байт", "2 байт"),
    ("2³⁰ = 1 073 741 824 байт", "1 073 741 824 байт"), ("5 участника", "5 участника"), ("21 участников", "21 участников"),
    ("из 21 участников", "21 участников"), ("в 1,5 раз больше", "1,5 раз"), ("12 стадия", "12 стадия"),
])
def test_disagreeing_numbers_are_caught(text, wrong):
    found = disagreements(text)
    assert len(found) == 1 and found[0].startswith(wrong), found


@pytest.mark.parametrize("text", [
    "в 64 раза меньше", "в 8 раз меньше", "в 1,5 раза больше", "16 байт на параметр", "4 байта", "1 байт", "21 участник",
    "у каждого из 64 участников", "из 21 участника", "до 1 байта", "до 2 байт", "в 2–6 раз", "с 4 участниками",
    "2³⁰ = 1 073 741 824 байта", "в 15 из 17 конфигураций", "3P элементов", "на 2 участниках",
])
def test_agreeing_numbers_pass(text):
    assert disagreements(text) == []


def test_every_russian_text_is_read():
    texts = russian_texts()
    wheres = {t.where.split(" ")[0].split(":")[0] for t in texts}
    assert {"glossary/ru.json", "lesson/ru.json", "models.json", "zerodesk_ru.ts"} <= wheres
    assert len(texts) > 700
    assert sum(t.source is not None for t in texts) > 600  # each with the English it translates


@pytest.mark.parametrize("check", CLASSES)
def test_the_russian_resources_are_clean(check):
    """The glossary, the lesson, the catalogs' labels and the packaging: every class of mistake, none found."""
    texts = [t for t in russian_texts() if ".ts:" not in t.where]
    found = findings(texts, check)
    assert not found, report(found)


@pytest.mark.parametrize("check", CLASSES)
def test_the_russian_ui_strings_are_clean(check):
    texts = [t for t in russian_texts() if ".ts:" in t.where]
    found = findings(texts, check)
    assert not found, report(found)


PLANTS = {  # one mistake of each class, planted in a temporary copy of the files
    "avoided": ("resources/glossary/ru.json", "кэширующего аллокатора", "кэширующего распределителя"),
    "latin units": ("resources/glossary/ru.json", "32 ГБ без разделения", "32 GB без разделения"),
    "untranslated": ("resources/lesson/ru.json", "Что проверить", "What to check"),
    "plural": ("resources/lesson/ru.json", "в {saving3|раз|раза|раз} меньше", "в {saving3} раз меньше"),
}
TS_PLANTS = {  # each in an entry that is clean in the checkout
    "avoided": ("<translation>Диаграмма памяти в зависимости от Nd</translation>",
                "<translation>Диаграмма памяти в зависимости от Nd (моделирование)</translation>"),
    "latin units": ("<translation>Память состояний модели на участника по стадиям ZeRO</translation>",
                    "<translation>Память состояний модели на участника по стадиям ZeRO, GB</translation>"),
    "untranslated": ("<translation>Состояния модели на участника в зависимости от Nd</translation>",
                     "<translation>Per-rank model states versus Nd</translation>"),
    "plural": ("<translation>(с дополнением по измерению 0)</translation>",
               "<translation>(с дополнением до 2 измерения)</translation>"),
}


def _copy(tmp_path):
    import shutil

    for folder in ("resources", "packaging"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


@pytest.mark.parametrize("check", CLASSES)
def test_a_planted_mistake_of_each_class_is_caught(tmp_path, check):
    """Plant one mistake in a copy of the resources: its class fails, naming the file and the text."""
    root = _copy(tmp_path)
    rel, good, bad = PLANTS[check]
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert good in text
    path.write_text(text.replace(good, bad, 1), encoding="utf-8")
    texts = [t for t in russian_texts(root) if ".ts:" not in t.where]
    found = findings(texts, check, root)
    assert found and all(rel.split("/")[-2] + "/ru.json" in where for where, _, _ in found), report(found)
    assert findings([t for t in russian_texts(ROOT) if ".ts:" not in t.where], check) == []  # the checkout is clean


@pytest.mark.parametrize("check", CLASSES)
def test_a_planted_mistake_in_the_ts_is_caught(tmp_path, check):
    """The .ts is read too: the planted entry is among the findings (phase B clears the rest)."""
    root = _copy(tmp_path)
    path = root / "resources" / "translations" / "zerodesk_ru.ts"
    good, bad = TS_PLANTS[check]
    text = path.read_text(encoding="utf-8")
    assert good in text
    path.write_text(text.replace(good, bad, 1), encoding="utf-8")
    planted = [t for t in russian_texts(root) if ".ts:" in t.where and t.text.startswith(bad.split(">", 1)[1][:20])]
    assert planted and findings(planted, check, root), check
    clean = [t for t in russian_texts(ROOT) if ".ts:" in t.where and t.where == planted[0].where]
    assert findings(clean, check) == []  # the same entry in the checkout passes


def test_numerus_forms_are_read_and_checked_with_a_number_of_their_class(tmp_path):
    """Qt's %n plurals: each Russian form is checked with 1, 2 and 5 in place of %n (one, few, many)."""
    root = _copy(tmp_path)
    path = root / "resources" / "translations" / "zerodesk_ru.ts"
    message = ('<message numerus="yes"><source>%n ranks</source><translation>'
               '<numerusform>%n участник</numerusform><numerusform>%n участника</numerusform>'
               '<numerusform>%n участника</numerusform></translation></message>')  # the many form is wrong
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("</context>", message + "</context>", 1), encoding="utf-8")
    forms = [t for t in russian_texts(root) if t.numerus and t.source == "%n ranks"]
    assert [(t.form, t.text) for t in forms] == [(0, "%n участник"), (1, "%n участника"), (2, "%n участника")]
    assert [what for _, what, _ in findings(forms, "plural")] == ["5 участника (→ участников)"]


@pytest.mark.parametrize("forms,wrong", [
    (("Nd = {nd} участник", "Nd = {nd} участников", "Nd = {nd} участников"), ["2 участников (→ участника)"]),
    (("{seq} токенов", "{seq} токена", "{seq} токенов"), ["1 токенов (→ токен)"]),
    (("{n} участник, {m} прямоугольников", "{n} участника, {m} прямоугольников", "{n} участников, {m} прямоугольников"),
     ["1 прямоугольников (→ прямоугольник)", "2 прямоугольников (→ прямоугольника)"]),  # one count per entry
])
def test_numerus_forms_whose_count_is_a_placeholder_are_checked(forms, wrong):
    """The window formats its counts itself ({nd}, grouped digits) and lets Qt pick the form: the placeholder a
    counted noun follows takes each form's sample number, so a form that disagrees, or a second count, fails."""
    texts = [Text("zerodesk_ru.ts: planted", form, "{n} things", True, i) for i, form in enumerate(forms)]
    assert [what for _, what, _ in findings(texts, "plural")] == wrong


def test_every_numerus_entry_of_the_ui_agrees_with_its_count():
    """The .ts entries that show a count through Qt's numerus forms: three Russian forms, each agreeing."""
    forms = [t for t in russian_texts() if t.numerus and ".ts:" in t.where]
    by_entry: dict[str, list[int]] = {}
    for t in forms:
        by_entry.setdefault(t.where, []).append(t.form)
    assert len(by_entry) >= 4 and all(v == [0, 1, 2] for v in by_entry.values()), by_entry
    assert findings(forms, "plural") == []


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


# -- hybrid sharding (issue 24): the figures the claims state are what the core computes ---------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_hybrid_claims_state_the_cores_figures(lang):
    from zerodesk.core.accounting import comm_by_link, compute
    from zerodesk.core.plan import Plan

    g = load_glossary(lang)
    dec = "." if lang == "en" else ","

    def plan(group=None, hybrid="hsdp"):
        return Plan(model={"params": 8 * 10**9}, hybrid=hybrid,
                    cluster={"nodes": 4, "gpus_per_node": 8, "shard_group": group})

    def written(value: float, digits: int, text: str) -> bool:
        return f"{value:.{digits}f}".replace(".", dec) in text

    unit = "GB" if lang == "en" else "ГБ"
    assert f"{compute(plan(8)).stage(3).total_bytes // 10**9} {unit}" in g.claim("hybrid-sharding").text  # 16 GB
    assert f"{compute(plan()).stage(3).total_bytes // 10**9} {unit}" in g.claim("hybrid-sharding").text  # 4 GB flat
    assert f"{compute(plan(8, 'hpz')).stage(3).total_bytes // 10**9} {unit}" in g.claim("hpz").text  # 6 GB
    trade = g.claim("hybrid-trade").text
    assert written(comm_by_link(plan())[3].inter_node_bytes / 1e9, 2, trade)  # 5.81 GB between nodes, flat
    assert f"{comm_by_link(plan(8))[3].inter_node_bytes // 10**9} {unit}" in trade  # 3 GB with N = 8
    seconds = g.claim("comm-seconds").text
    for group in (None, 8):
        for stage in (3, 2):
            assert written(comm_by_link(plan(group))[stage].lower_bound_seconds * 1e3, 1, seconds), (group, stage)
