"""Lesson mode: the Figure 1 preset, the lesson's figures against the core, its text in both languages."""

from __future__ import annotations

import re

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.catalog import find_model
from zerodesk.core.glossary import load_glossary
from zerodesk.core.lesson import STEP_KINDS, lesson_figures, on_top_figures
from zerodesk.core.lesson_text import agreeing_form, load_lesson, plural_category
from zerodesk.core.plan import Cluster, Plan, Profile, Scheme
from zerodesk.core.residuals import activation_estimate


def preset_plan(name: str, dp: int | None = None) -> Plan:
    preset = find_model(name)
    return Plan(model=preset.to_model_spec(), cluster=Cluster(nodes=1, gpus_per_node=dp or preset.dp or 8),
                seq_len=preset.seq_len or 2048)


def test_paper_figure1_preset_gives_the_papers_figures():
    preset = find_model("paper-figure1")
    assert preset.dp == 64 and preset.architecture is not None  # a stated stand-in shape: Figure 1 gives only Ψ
    p = preset.param_count
    assert abs(p - 7.5e9) / 7.5e9 < 2e-6 and preset.published_params == 7_500_000_000
    arch = preset.architecture  # Llama 2 7B's blocks, as the label and the source say
    assert (arch.family, arch.layers, arch.hidden, arch.heads, arch.ffn) == ("llama", 32, 4096, 32, 11008)
    assert "Llama 2 7B" in preset.label and "Llama 2 7B" in preset.labels["ru"] and "124,968" in preset.source
    b = compute(preset_plan("paper-figure1"))
    assert b.profile == Profile.PAPER and b.scheme == Scheme.MIXED_ADAM
    nd = 64
    exact = [16 * p, 4 * p + 12 * p / nd, 2 * p + 14 * p / nd, 16 * p / nd]  # §5: Ψ(2+2+K), 2Ψ+2Ψ+KΨ/Nd, ...
    assert [b.stage(s).total_bytes for s in range(4)] == [round(x) for x in exact]
    # the paper's Figure 1 rounds to 120 / 31.4 / 16.6 / 1.9 GB
    assert [round(b.stage(s).total_bytes / 1e9, 1) for s in range(4)] == [120.0, 31.4, 16.6, 1.9]


def test_card_example_still_right():
    b = compute(preset_plan("card-example"))
    assert [b.stage(s).total_bytes for s in range(4)] == [32e9, 14e9, 11e9, 8e9]


@pytest.mark.parametrize("name,dp", [("paper-figure1", 64), ("card-example", 4), ("llama-2-7b", 8), ("gpt2", 3),
                                     ("pythia-70m", 1)])
def test_lesson_figures_follow_the_core(name, dp):
    plan = preset_plan(name, dp)
    f = lesson_figures(plan)
    b = compute(plan.model_copy(update={"profile": Profile.PAPER, "scheme": Scheme.MIXED_ADAM}))
    assert f.params == plan.params and f.dp == dp
    for s in range(4):
        assert f.stage_totals[s].bytes == b.stage(s).total_bytes
        assert f.stage_components[s] == b.stage(s).components
        assert sum(f.stage_classes[s].values()) == b.stage(s).total_bytes
        # the lesson shows §7's large-Nd count; the core's per-step figure is that times a ring's (Nd-1)/Nd
        assert f.comm[s].bytes * (dp - 1) // dp == b.stage(s).comm_bytes
        assert f.comm[s].bytes == (3 if s == 3 else 2) * plan.params * 2
    assert f.comm_ratio.ratio == 1.5
    assert f.stage_totals[0].bytes == 16 * plan.params
    assert f.numbers["class_optimizer"].bytes == 12 * plan.params
    assert [f.stage_totals[s].formula for s in range(4)] == ["16P", "4P + 12P/Nd", "2P + 14P/Nd", "16P/Nd"]


def test_lesson_ignores_the_plans_profile_and_scheme():
    plan = preset_plan("llama-2-7b", 8).model_copy(update={"profile": Profile.TORCH, "scheme": Scheme.FP32_ADAM})
    f = lesson_figures(plan)
    assert f.stage_totals[1].bytes == 4 * plan.params + 12 * -(-plan.params // 8)


def test_on_top_comes_from_the_activation_estimate_and_the_peak_from_the_prediction():
    assert on_top_figures(preset_plan("card-example")).source == "none"
    assert lesson_figures(preset_plan("card-example")).peak(3) is None  # a raw count: no shapes, no peak
    plan = preset_plan("llama-2-7b", 8).model_copy(update={"cuda_allowance_bytes": 10**9})
    on_top = on_top_figures(plan)
    est = activation_estimate(plan)
    assert on_top.source == "estimate"
    assert sum(n.bytes for n in on_top.numbers) == est.total_bytes
    f = lesson_figures(plan)
    from zerodesk.core.lesson import lesson_plan
    from zerodesk.core.peak import predict

    for s, peak in enumerate(predict(lesson_plan(plan))):  # the Plan chart's figure, the allowance left out
        assert f.peak(s) == peak.total_bytes - 10**9 and f.numbers[f"peak{s}"].source == "predicted"
        assert f.peak(s) > f.stage_totals[s].bytes  # the states are not the peak
    assert f.peak(0) > 16 * plan.params + est.total_bytes  # stage 0's peak holds the autocast copies too


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_lesson_text_is_complete(lang):
    lesson = load_lesson(lang)
    glossary = load_glossary(lang)
    assert lesson.lang == lang
    assert tuple(s.kind for s in lesson.steps) == STEP_KINDS
    keys = set(lesson_figures(preset_plan("llama-2-7b")).numbers)
    for step in lesson.steps:
        assert 2 <= len(step.text) <= 3 or step.kind == "checklist"
        assert step.placeholders() <= keys, step.kind
        glossary.claim(step.claim)  # the boundary is read from the glossary at run time
    assert glossary.checklist


def test_russian_lesson_follows_the_cards_words():
    text = " ".join(t for s in load_lesson("ru").steps for t in (s.title, *s.text))
    for word in ("участник", "разделени", "состояния оптимизатора", "распределяет"):
        assert word in text
    assert not re.search(r"\bделени", text)  # the card says «разделение», not «деление»
    assert load_lesson("ru_RU").lang == "ru" and load_lesson("de").lang == "en"


def test_bad_lesson_file_is_one_sentence(tmp_path, monkeypatch):
    from zerodesk.core import lesson_text
    from zerodesk.core.plan import PlanError

    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "en.json").write_text('{"schema": 1, "lang": "en", "title": "x", "steps": [{"kind": "nope"}]}')
    monkeypatch.setattr(lesson_text, "resource", lambda *parts: tmp_path.joinpath(*parts))
    lesson_text._load.cache_clear()
    try:
        with pytest.raises(PlanError, match=r"lesson .*en.json: steps.0.kind"):
            lesson_text.load_lesson("en")
    finally:
        lesson_text._load.cache_clear()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_step_six_on_the_default_preset_shows_a_peak_per_stage(lang):
    """The step that carries the card's main message is never empty on the lesson's default model."""
    from zerodesk.core.lesson import lesson_plan

    plan = lesson_plan(preset_plan("paper-figure1"))
    f = lesson_figures(plan)
    step = next(s for s in load_lesson(lang).steps if s.kind == "peak")
    assert step.placeholders() <= set(f.numbers)
    assert f.on_top.source == "estimate" and plan.seq_len == 4096
    for s in range(4):
        assert f.peak(s) is not None and f.peak(s) > f.stage_totals[s].bytes, s
    # ZeRO does not partition activations: at stage 3 they, not the states, fill most of the peak
    activations = sum(n.bytes for n in f.on_top.numbers)
    assert activations > 10 * f.stage_totals[3].bytes and f.peak(3) > activations
    boundary = load_glossary(lang).claim(step.claim).boundary
    assert re.search(r"§6\.1", boundary)  # ZeRO-R's partitioned checkpoints: across model-parallel ranks only


@pytest.mark.parametrize("name", ["card-example", "paper-figure1", "llama-2-7b"])
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_placeholder_has_a_figure_whatever_the_model(lang, name):
    """A raw count has no activation estimate: no step may then show a bare '{key}'."""
    keys = set(lesson_figures(preset_plan(name)).numbers)
    for step in load_lesson(lang).steps:
        assert step.placeholders() <= keys, (name, step.kind, step.placeholders() - keys)


@pytest.mark.parametrize("shown,category", [
    ("1", "one"), ("21", "one"), ("101", "one"), ("2", "few"), ("4", "few"), ("22", "few"), ("64", "few"),
    ("1 024", "few"), ("5", "many"), ("11", "many"), ("12", "many"), ("14", "many"), ("111", "many"), ("0", "many"),
    ("1,5", "other"), ("7,5×10⁹", "many"),
])
def test_russian_plural_categories(shown, category):
    assert plural_category("ru", shown) == category


def test_nouns_agree_with_the_number_shown():
    times = ("раз", "раза", "раз")
    assert [agreeing_form("ru", n, times) for n in ("64", "8", "1,5", "1", "21")] == ["раза", "раз", "раза", "раз", "раз"]
    of = ("участника", "участников", "участников")
    assert [agreeing_form("ru", n, of) for n in ("64", "21", "1", "5")] == ["участников", "участника", "участника",
                                                                          "участников"]
    assert [agreeing_form("en", n, ("rank", "ranks")) for n in ("1", "64", "1,024", "1.5")] == \
        ["rank", "ranks", "ranks", "ranks"]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_figure_followed_by_a_noun_carries_its_forms(lang):
    """The lesson text never writes a bare '{Nd} раз': a noun right after a figure lists its forms."""
    nouns = {"en": r"(?:ranks?|times?|bytes?|parameters?|elements?)\b",
             "ru": r"(?:раз[а]?|участник\w*|байт\w*|параметр\w*|элемент\w*)\b"}[lang]
    for step in load_lesson(lang).steps:
        for sentence in step.text:
            assert not re.search(r"\{[A-Za-z0-9_]+\}\s+" + nouns, sentence), sentence


def test_noun_forms_that_do_not_fit_the_language_are_one_sentence(tmp_path, monkeypatch):
    from zerodesk.core import lesson_text
    from zerodesk.core.plan import PlanError

    (tmp_path / "lesson").mkdir()
    step = {"kind": "bytes", "title": "t", "text": ["в {saving3|раз|раза} меньше"], "claim": "stages"}
    (tmp_path / "lesson" / "ru.json").write_text(
        '{"schema": 1, "lang": "ru", "title": "x", "steps": [' + __import__("json").dumps(step) + "]}", encoding="utf-8")
    monkeypatch.setattr(lesson_text, "resource", lambda *parts: tmp_path.joinpath(*parts))
    lesson_text._load.cache_clear()
    try:
        with pytest.raises(PlanError, match=r"lesson .*ru.json.*раз\|раза.*one, few, many, other"):
            lesson_text.load_lesson("ru")
    finally:
        lesson_text._load.cache_clear()
