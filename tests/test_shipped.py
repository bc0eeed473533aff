"""The data ZeroDesk ships is validated here, once, and read at run time without validation (core.shipped): every
shipped catalog entry and glossary must pass its model's validation and build to exactly what validation makes."""

from __future__ import annotations

import pytest

from zerodesk.core import catalog, glossary, shipped
from zerodesk.core.json_files import read_json
from zerodesk.resources import resource, resources_dir

CATALOGS = [("models.json", "models", catalog.ModelPreset), ("gpus.json", "gpus", catalog.GpuPreset),
            ("networks.json", "networks", catalog.NetworkPreset)]


def _same(built, validated) -> None:
    assert type(built) is type(validated)
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump_json() == validated.model_dump_json()


@pytest.mark.parametrize("filename, key, model", CATALOGS)
def test_every_shipped_catalog_entry_validates_and_builds_as_validated(filename, key, model):
    data = read_json(resource("catalogs", filename), "catalog")
    assert data["schema"] == catalog.CATALOG_SCHEMA and data[key]
    for item in data[key]:
        _same(shipped.build(model, item), model.model_validate(item))


@pytest.mark.parametrize("lang", glossary.LANGUAGES)
def test_every_shipped_glossary_validates_and_builds_as_validated(lang):
    data = read_json(resource("glossary", f"{lang}.json"), "glossary")
    built, validated = shipped.build(glossary.Glossary, data), glossary.Glossary.model_validate(data)
    _same(built, validated)
    assert all(isinstance(c.origin, glossary.Origin) and isinstance(c.sources, tuple) for c in built.claims)


def test_the_loaders_build_shipped_files_and_validate_any_other(tmp_path):
    assert shipped.is_shipped(resource("catalogs", "models.json"))
    assert shipped.is_shipped(resources_dir() / "glossary" / ".." / "glossary" / "en.json")
    assert not shipped.is_shipped(tmp_path / "models.json")
    assert not shipped.is_shipped(resources_dir().parent / "models.json")  # beside the folder, not in it
    assert catalog.find_model("card-example").params == 2_000_000_000
    assert glossary.load_glossary("ru").lang == "ru"


def test_every_shipped_preset_gives_the_model_validation_gives():
    from zerodesk.core.plan import ModelSpec

    for preset in catalog.model_presets():
        assert preset.shipped
        spec = preset.to_model_spec()
        _same(spec, ModelSpec(name=spec.name, params=spec.params, architecture=spec.architecture))


@pytest.mark.parametrize("units", ["GB", "GiB"])
def test_a_new_window_s_plan_is_the_one_validation_gives_and_its_fields_read_it_back(units, form):
    from zerodesk.core.plan import Plan
    from zerodesk.gui.form.fields import default_plan
    from zerodesk.gui.form.plan_form import PlanForm

    plan = default_plan(units)
    _same(plan, Plan(model=plan.model.model_dump(), cluster={"nodes": 1, "gpus_per_node": plan.cluster.gpus_per_node},
                     units=units))
    form.model.load(plan)  # shown without validation: what the fields say is exactly this plan
    assert form.model.plan is plan and form.model.errors == {}
    read_back = Plan.model_validate(form.raw())
    assert read_back == plan
    PlanForm._validate(form)  # the same fields validated: the same plan
    assert form.model.plan == plan and form.model.plan is not plan
