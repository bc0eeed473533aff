"""Every Russian text ZeroDesk ships, and the checks the terminology test runs over it.

Read from a root folder (the checkout, or a temporary copy with a planted mistake): the Russian JSON
resources (glossary, lesson, catalogs' labels), the Russian .ts translations and the packaging. Each
check returns findings, `(where, what, text)`; an empty list passes. resources/glossary/README.md
describes the classes: the term list's avoided variants, Latin unit letters, text left untranslated,
and numbers whose nouns do not agree.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LETTER = "0-9A-Za-zА-Яа-яЁё_"
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}|%n|%\d")
QUOTED = re.compile(r"«[^«»]*»")
INTERNAL_KEYS = {"id", "lang", "url", "kind", "scheme", "profile", "quantity", "component", "formula", "sources", "refs",
                 "claim", "name", "family", "mlp", "bias", "norm", "positions", "source", "vendor", "memory_type", "knobs"}


@dataclass(frozen=True)
class Text:
    where: str
    text: str
    source: str | None = None  # the English it translates, where one exists (a .ts entry, the en JSON twin)
    numerus: bool = False  # one of a .ts entry's numerus forms (Qt's %n plurals)
    form: int = 0  # which numerus form: 0 one, 1 few, 2 many (Qt's order for Russian)


def _strings(value, path=()):
    """(path, string) for every user-visible string of a JSON resource (ids, enums and references are internal)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in INTERNAL_KEYS:
                yield from _strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, (*path, i))


def _at(data, path):
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _without_accelerator(text: str) -> str:
    return re.sub(r"&(?!&)", "", text).replace("&&", "&")


def russian_texts(root: Path = ROOT) -> list[Text]:
    """Every Russian text under `root`, each with its English source where the file pairs them."""
    texts: list[Text] = []
    for path in sorted((root / "resources").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.stem == "ru" or path.stem.endswith("_ru"):
            twin = path.with_name(path.name.replace("ru", "en"))
            english = json.loads(twin.read_text(encoding="utf-8")) if twin.exists() else None
            for p, s in _strings(data):
                en = _at(english, p) if english is not None else None
                texts.append(Text(f"{path.parent.name}/{path.name} {'.'.join(map(str, p))}", s,
                                  en if isinstance(en, str) else None))
        else:  # a catalog's Russian labels: {"labels": {"ru": ...}} beside the English "label"
            for p, s in _strings(data):
                if len(p) >= 2 and p[-2:] == ("labels", "ru"):
                    texts.append(Text(f"{path.name} {'.'.join(map(str, p))}", s, _at(data, (*p[:-2], "label"))))
    for path in sorted((root / "resources").rglob("*_ru.ts")):
        for message in ET.parse(path).getroot().iter("message"):
            source = message.findtext("source") or ""
            tr = message.find("translation")
            forms = tr.findall("numerusform")
            where = f"{path.name}: {source[:60]!r}"
            if forms:
                texts += [Text(where, _without_accelerator(f.text or ""), source, True, i) for i, f in enumerate(forms)]
            else:
                texts.append(Text(where, _without_accelerator(tr.text or ""), _without_accelerator(source)))
    for path in sorted((root / "packaging").glob("*")):
        if path.suffix == ".desktop":
            texts += [Text(path.name, line.split("=", 1)[1]) for line in path.read_text(encoding="utf-8").splitlines()
                      if "[ru]=" in line]
        elif path.suffix == ".xml":
            texts += [Text(path.name, el.text or "") for el in ET.parse(path).getroot().iter()
                      if el.get("{http://www.w3.org/XML/1998/namespace}lang") == "ru"]
    return texts


# -- the term list's avoided variants ---------------------------------------------------------------------------
def avoided_variants(root: Path = ROOT) -> list[str]:
    """The 'Avoid' column of the terminology table in resources/glossary/README.md."""
    terms = root / "resources" / "glossary" / "README.md"
    rows = [line for line in terms.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    col = header.index("Avoid")
    out = []
    for row in rows[2:]:
        out += re.findall(r"`([^`]+)`", row.strip("|").split("|")[col])
    return out


def fold(text: str) -> str:
    """Cyrillic without regard to case (and ё = е); Latin stays exact, so 'bf16' is caught and 'BF16' is not."""
    return "".join(ch.lower() if "А" <= ch <= "я" or ch in "Ёё" else ch for ch in text).replace("ё", "е")


def variant_pattern(variant: str) -> re.Pattern:
    body = "".join("[0-9a-zа-яё]*" if ch == "*" else re.escape(fold(ch)) for ch in variant)
    return re.compile(rf"(?<![{LETTER}]){body}" + ("" if variant.endswith("*") else rf"(?![{LETTER}])"))


def avoided_findings(texts: list[Text], root: Path = ROOT) -> list[tuple[str, str, str]]:
    patterns = [(v, variant_pattern(v)) for v in avoided_variants(root)]
    found = []
    for t in texts:
        flat = fold(" ".join(PLACEHOLDER.sub(" ", t.text).split()))  # placeholders are code: {hidden}
        found += [(t.where, f"«{v}»", t.text) for v, pat in patterns if pat.search(flat)]
    return found


# -- Latin unit letters -----------------------------------------------------------------------------------------
_UNITS = r"(?:kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)(?:/s)?"
LATIN_UNIT = re.compile(  # a lone B only after a space ('2 B'): '7B' is a model's size in billions
    rf"(?<=[\d⁰¹²³⁴⁵⁶⁷⁸⁹][\s\u00a0\u202f])B(?:/s)?(?![{LETTER}])|(?<![{LETTER}.]){_UNITS}(?![{LETTER}])|(?<=\d){_UNITS}(?![{LETTER}])")


def latin_unit_findings(texts: list[Text]) -> list[tuple[str, str, str]]:
    """'2 B', '{v} GB', '(GiB)' in Russian text, which writes «Б», «ГБ», «ГиБ»; a quoted label («80 GB») is allowed."""
    found = []
    for t in texts:
        text = QUOTED.sub("«»", PLACEHOLDER.sub("0", t.text))  # a placeholder stands for a number
        found += [(t.where, m.group(0), t.text) for m in LATIN_UNIT.finditer(text)]
    return found


# -- text left untranslated -------------------------------------------------------------------------------------
# A Russian text identical to its English is left untranslated when it holds an English word (lowercase, three
# letters or more, not code such as reshard_after_forward=False). Names, symbols and formulas ("AdamW", "16P/Nd")
# hold none. These read the same in Russian although they do:
SAME_IN_RUSSIAN = {"Zero Redundancy Optimizer", "Fully Sharded Data Parallel (FSDP)", "torch {version}; {where}."}
_CODE = re.compile(r"\S*[_()=.]\S*")
_ENGLISH_WORD = re.compile(r"(?<![A-Za-z])[a-z]{3,}(?![A-Za-z])")


def _has_english_word(text: str) -> bool:
    return bool(_ENGLISH_WORD.search(_CODE.sub(" ", PLACEHOLDER.sub(" ", text))))
_PUBLISHED = re.compile(r"^sources\.\d+\.(title|authors)$")  # a published work keeps its title and authors


def untranslated_findings(texts: list[Text], root: Path = ROOT) -> list[tuple[str, str, str]]:
    found = []
    for t in texts:
        if t.source is None or t.numerus or t.text.strip() != t.source.strip():
            continue
        if not _has_english_word(t.text) or t.text.strip() in SAME_IN_RUSSIAN:
            continue
        path = t.where.split(" ", 1)[-1]
        if _PUBLISHED.match(path) and _published_source(root, path):
            continue
        found.append((t.where, "identical to the English", t.text))
    return found


def _published_source(root: Path, path: str) -> bool:
    """A source with a year is a published work (a paper, a standard): its title and authors stay as published."""
    index = int(path.split(".")[1])
    data = json.loads((root / "resources" / "glossary" / "ru.json").read_text(encoding="utf-8"))
    return data["sources"][index].get("year") is not None


# -- numbers and the nouns that follow them ---------------------------------------------------------------------
NOUNS = {  # nominative singular, genitive singular, genitive plural
    "байт": ("байт", "байта", "байт"), "бит": ("бит", "бита", "бит"), "раз": ("раз", "раза", "раз"),
    "участник": ("участник", "участника", "участников"), "параметр": ("параметр", "параметра", "параметров"),
    "элемент": ("элемент", "элемента", "элементов"), "слой": ("слой", "слоя", "слоёв"),
    "блок": ("блок", "блока", "блоков"), "узел": ("узел", "узла", "узлов"), "токен": ("токен", "токена", "токенов"),
    "шаг": ("шаг", "шага", "шагов"), "процесс": ("процесс", "процесса", "процессов"),
    "тензор": ("тензор", "тензора", "тензоров"), "стадия": ("стадия", "стадии", "стадий"),
    "итерация": ("итерация", "итерации", "итераций"), "голова": ("голова", "головы", "голов"),
    "конфигурация": ("конфигурация", "конфигурации", "конфигураций"), "секунда": ("секунда", "секунды", "секунд"),
    "минута": ("минута", "минуты", "минут"), "час": ("час", "часа", "часов"), "копия": ("копия", "копии", "копий"),
    "группа": ("группа", "группы", "групп"), "модель": ("модель", "модели", "моделей"),
    "запуск": ("запуск", "запуска", "запусков"), "строка": ("строка", "строки", "строк"),
    "ядро": ("ядро", "ядра", "ядер"), "измерение": ("измерение", "измерения", "измерений"),
    "микробатч": ("микробатч", "микробатча", "микробатчей"), "замер": ("замер", "замера", "замеров"),
    "прямоугольник": ("прямоугольник", "прямоугольника", "прямоугольников"),
    "значение": ("значение", "значения", "значений"), "точка": ("точка", "точки", "точек"),
}
FORMS = {form: forms for forms in NOUNS.values() for form in forms}
GENITIVE_AFTER = {"из", "до", "от", "без", "около", "для", "у", "после", "кроме", "вместо", "среди", "свыше", "более",
                  "менее", "больше", "меньше", "против", "порядка"}
OTHER_CASE_AFTER = {"к", "ко", "по", "с", "со", "о", "об", "обо", "при", "между", "над", "под", "перед"}
NUMBER = r"(?<![\w.,–\-−/^])(\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d+)(?:,(\d+))?"
COUNTED = re.compile(rf"(?:([^\W\d_]+)[ \u00a0]+)?{NUMBER}[ \u00a0]+([а-яё]+)", re.IGNORECASE)
PLACEHOLDER_NOUN = re.compile(r"(\{[A-Za-z_][A-Za-z0-9_]*\}|%n)[ \u00a0]+([а-яё]+)", re.IGNORECASE)
NUMERUS_SAMPLE = {0: "1", 1: "2", 2: "5"}  # Qt's Russian numerus forms: one, few, many


def category(whole: int, fraction: str | None) -> str:
    if fraction and fraction.strip("0"):
        return "other"
    if whole % 10 == 1 and whole % 100 != 11:
        return "one"
    if 2 <= whole % 10 <= 4 and not 12 <= whole % 100 <= 14:
        return "few"
    return "many"


def _expected(cat: str, before: str | None, forms: tuple[str, str, str]) -> str | None:
    before = (before or "").lower()
    if before in OTHER_CASE_AFTER:
        return None  # dative, instrumental, prepositional: forms this table does not hold
    if before in GENITIVE_AFTER:
        return forms[1] if cat in ("one", "other") else forms[2]
    return {"one": forms[0], "few": forms[1], "many": forms[2], "other": forms[1]}[cat]


def disagreements(text: str) -> list[str]:
    """'64 раз', '2 байт', '5 участника' in one text: a number and the noun after it in different forms."""
    out = []
    for m in COUNTED.finditer(text):
        before, whole, fraction, noun = m.group(1), m.group(2), m.group(3), m.group(4)
        forms = FORMS.get(noun.lower().replace("ё", "е")) or FORMS.get(noun.lower())
        if forms is None:
            continue
        want = _expected(category(int(re.sub(r"\D", "", whole)), fraction), before, forms)
        if want is not None and noun.lower() != want:
            out.append(f"{whole}{',' + fraction if fraction else ''} {noun} (→ {want})")
    return out


def numerus_sample(text: str, form: int) -> str:
    """A numerus form with a number of its class in place of its count: Qt's %n, or a {placeholder} that a
    counted noun follows (the code formats the count itself, as the window groups digits)."""
    sample = NUMERUS_SAMPLE.get(form, "5")
    text = text.replace("%n", sample)
    return PLACEHOLDER_NOUN.sub(lambda m: sample + m.group(0)[len(m.group(1)):] if m.group(2).lower() in FORMS
                                else m.group(0), text)


def plural_findings(texts: list[Text]) -> list[tuple[str, str, str]]:
    found = []
    for t in texts:
        text = t.text
        if t.numerus:  # check each numerus form with a number of its own class
            text = numerus_sample(text, t.form)
        else:
            found += [(t.where, f"{m.group(0)}: a count needs the noun's forms ({'%n numerus' if '.ts' in t.where else '{key|…}'})", t.text)
                      for m in PLACEHOLDER_NOUN.finditer(text) if m.group(2).lower() in FORMS]
        found += [(t.where, d, t.text) for d in disagreements(text)]
    return found


CHECKS = {"avoided": avoided_findings, "latin units": latin_unit_findings, "untranslated": untranslated_findings,
          "plural": plural_findings}


def findings(texts: list[Text], check: str, root: Path = ROOT) -> list[tuple[str, str, str]]:
    fn = CHECKS[check]
    return fn(texts, root) if check in ("avoided", "untranslated") else fn(texts)


def report(found: list[tuple[str, str, str]]) -> str:
    return "\n".join(f"{where}: {what} in {text!r}" for where, what, text in found)
