"""Step templates as a process keeps them (core.step_template): every shipped template's steps compiled from the
flattened form the loader keeps give the very coefficient arrays the template file's JSON gives term by term, and
what a loaded template keeps is nothing Python's cyclic collector has to walk on every full collection. No torch."""

from __future__ import annotations

import gc
import gzip
import json

import numpy as np
import pytest

from zerodesk.core.step_template import (CLASSES, GROUPS, PARTS, SYMBOLS, TEMPLATES_DIR, CompiledStep, StepTemplate,
                                         _monomial, _part)
from zerodesk.resources import resources_dir

SHIPPED = sorted((resources_dir() / TEMPLATES_DIR).glob("*.json.gz"))


def _data(path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _reference(instants: list[dict]) -> tuple[list, np.ndarray, np.ndarray]:
    """The compile as written first: term by term from the JSON, each monomial numbered where it first appears."""
    monos: dict[tuple, int] = {}
    coef_entries = []
    for n, x in enumerate(instants):
        for g, cls in x["groups"].items():
            for c, terms in cls.items():
                for coef, text in terms:
                    m = _monomial(text)
                    coef_entries.append((n, GROUPS.index(g), CLASSES.index(c), _part(m), monos.setdefault(m, len(monos)),
                                         coef))
    exponents = np.array([[dict(m).get(sym, 0) for sym in SYMBOLS] for m in monos] or [[0] * len(SYMBOLS)], dtype=float)
    coef = np.zeros((len(instants), len(GROUPS), len(CLASSES), len(PARTS), max(1, len(monos))))
    for n, g, c, part, m, value in coef_entries:
        coef[n, g, c, part, m] += value
    return list(monos), exponents, coef


def test_the_shipped_templates_are_there():
    assert len(SHIPPED) >= 20


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name[:8])
def test_every_shipped_step_compiles_from_the_loaded_form_as_from_its_json(path):
    data = _data(path)
    template = StepTemplate(data)
    for name, step in data["steps"].items():
        compute, recompute = name.split("/")[:2]
        compiled = template._compiled.get(name) or CompiledStep(template._data[name], template.attention, template.kinds)
        monomials, exponents, coef = _reference(step["instants"])
        assert compiled.monomials == monomials, name
        assert np.array_equal(compiled._exponents, exponents), name
        assert compiled.coef.shape == coef.shape and np.array_equal(compiled.coef, coef), name
        assert compiled.at == [x["at"] for x in step["instants"]] and compiled.kind == [x["kind"] for x in step["instants"]]
        direct = CompiledStep(step["instants"], template.attention, template.kinds)  # the JSON's form still compiles
        assert np.array_equal(direct.coef, coef) and direct.monomials == monomials
        sizes = {sym: 3 + i for i, sym in enumerate(SYMBOLS)}
        assert np.array_equal(compiled.values(sizes), direct.values(sizes)), (name, compute, recompute)


def test_a_loaded_template_keeps_nothing_the_collector_walks():
    """The JSON's ~30,000 small lists per template are let go: what the template keeps of its steps is arrays and
    tuples of strings, untracked once the collector has seen them (so a full collection no longer walks them)."""
    template = StepTemplate(_data(max(SHIPPED, key=lambda p: p.stat().st_size)))
    gc.collect()
    gc.collect()
    tracked = [x for x in _walk(template._data) if gc.is_tracked(x)]
    assert len(tracked) <= len(template._data) + 1, tracked[:5]  # the dict of steps itself and its _Flat tuples


def _walk(obj, depth: int = 0):
    yield obj
    if depth < 6 and isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _walk(x, depth + 1)
    elif depth < 6 and isinstance(obj, dict):
        for x in obj.values():
            yield from _walk(x, depth + 1)
