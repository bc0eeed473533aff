"""Model and GPU presets: real counts, sane memory figures, helpful lookup errors."""

from __future__ import annotations

import json

import pytest

from zerodesk.core import catalog
from zerodesk.core.architecture_tensors import param_count
from zerodesk.core.catalog import find_gpu, find_model, gpu_presets, model_presets
from zerodesk.core.plan import Cluster, ModelSpec, Plan, PlanError

GiB = 2**30
ARCH_PRESETS = [p for p in model_presets() if p.architecture is not None]


@pytest.mark.parametrize("preset", ARCH_PRESETS, ids=lambda p: p.name)
def test_architecture_matches_published_count(preset):
    computed = param_count(preset.architecture)
    gap = abs(computed - preset.published_params) / preset.published_params
    assert gap <= preset.tolerance, f"{preset.name}: {computed:,} vs published {preset.published_params:,}"


@pytest.mark.parametrize("preset", ARCH_PRESETS, ids=lambda p: p.name)
def test_wide_tolerance_only_for_stated_nominal_sizes(preset):
    # an exact published count must match within 0.1%; a looser tolerance must be explained in the source
    if preset.tolerance > 0.001:
        assert "nominal" in preset.source
        assert preset.published_params % 10**8 == 0


def test_required_presets_present_and_exact():
    exact = {
        "gpt2": 124_439_808, "gpt2-medium": 354_823_168, "gpt2-large": 774_030_080, "gpt2-xl": 1_557_611_200,
        "llama-2-7b": 6_738_415_616, "llama-2-13b": 13_015_864_320, "llama-2-70b": 68_976_648_192,
        "llama-3-8b": 8_030_261_248, "llama-3-70b": 70_553_706_496, "mistral-7b-v0.1": 7_241_732_096,
        "qwen2.5-7b": 7_615_616_512, "gpt-neox-20b": 20_554_567_680,
    }
    for name, count in exact.items():
        assert find_model(name).param_count == count, name


def test_names_unique_and_lowercase():
    names = [p.name for p in model_presets()]
    assert len(names) == len(set(names))
    assert all(n == n.lower() and " " not in n for n in names)


def test_card_example_preset():
    card = find_model("card-example")
    assert card.architecture is None and card.params == 2_000_000_000 and card.dp == 4
    spec = card.to_model_spec()
    assert isinstance(spec, ModelSpec) and spec.param_count == 2_000_000_000


def test_card_example_through_accounting_gives_card_figures():
    from zerodesk.core.accounting import compute

    card = find_model("card-example")
    plan = Plan(model=card.to_model_spec(), cluster=Cluster(nodes=1, gpus_per_node=card.dp))
    totals = [compute(plan).stage(s).total_bytes for s in range(4)]
    assert totals == [32 * 10**9, 14 * 10**9, 11 * 10**9, 8 * 10**9]


def test_to_model_spec_is_a_copy():
    preset = find_model("llama-2-7b")
    spec = preset.to_model_spec()
    assert spec.name == "llama-2-7b" and spec.params is None
    spec.architecture.layers = 1
    assert find_model("llama-2-7b").architecture.layers == 32


def test_presets_fit_a_plan():
    for preset in model_presets():
        plan = Plan(model=preset.to_model_spec(), seq_len=preset.seq_len or 2048)
        assert plan.params > 0


def test_gpu_presets_sane():
    gpus = gpu_presets()
    assert len(gpus) >= 15
    names = [g.name for g in gpus]
    assert len(names) == len(set(names))
    for g in gpus:
        # the vendor's GB is GiB for every listed card; a card split into several devices divides evenly; the preset
        # carries what the device reports (a little less: the driver and ECC keep some), or that size without a report
        nominal = g.vendor_gb * GiB // g.devices
        assert (0.9 * nominal <= g.memory_bytes <= nominal) if g.memory_reported else g.memory_bytes == nominal, g.name
        assert 8 * GiB <= g.memory_bytes <= 512 * GiB, g.name
        assert g.source and g.label and f"{g.vendor_gb // g.devices}GB" in g.label, g.name  # the label: nominal


def test_gpu_known_values():
    """What the devices report (issue 25: the H200 preset was 141 GiB; the device reports 143,771 MiB)."""
    MiB = 2**20
    assert find_gpu("h200-141gb").memory_bytes == 143_771 * MiB and find_gpu("h200-141gb").label == "NVIDIA H200 141GB"
    assert find_gpu("h100-80gb").memory_bytes == 81_559 * MiB
    assert find_gpu("a100-80gb").memory_bytes == 81_920 * MiB == 80 * GiB
    assert find_gpu("a100-40gb").memory_bytes == 40 * GiB
    assert find_gpu("mi250x-gcd").memory_bytes == 68_702_699_520
    assert all(g.memory_reported for g in gpu_presets() if g.vendor == "nvidia")
    for required in ("a100-80gb", "h200-141gb", "b200", "v100-16gb", "v100-32gb", "l40s", "a10", "rtx-a6000",
                     "rtx-6000-ada", "rtx-4090", "rtx-3090", "mi300x", "t4"):
        find_gpu(required)


def test_gpu_preset_fits_cluster():
    gpu = find_gpu("h100-80gb")
    assert Cluster(gpu=gpu.name, gpu_memory_bytes=gpu.memory_bytes).gpu_memory_bytes == gpu.memory_bytes


def test_find_is_case_insensitive():
    assert find_model("  LLAMA-2-7B ").name == "llama-2-7b"
    assert find_gpu("H100-80GB").name == "h100-80gb"


def test_unknown_model_suggests_close_matches():
    with pytest.raises(PlanError, match="llama-2-7b") as err:
        find_model("llama-2-7")
    assert "unknown model preset 'llama-2-7'" in str(err.value)
    assert str(err.value).count(".") <= 3  # one sentence (dots only inside names)


def test_unknown_gpu_lists_known_when_nothing_is_close():
    with pytest.raises(PlanError, match="known GPU presets: .*h100-80gb"):
        find_gpu("zzzzzzzz")
    with pytest.raises(PlanError, match="did you mean .*h100-80gb"):
        find_gpu("h100-80")


@pytest.fixture
def fake_catalogs(tmp_path, monkeypatch):
    """Point the catalog at tmp_path/catalogs and drop the caches before and after."""
    folder = tmp_path / "catalogs"
    folder.mkdir()
    monkeypatch.setattr(catalog, "resource", lambda *parts: tmp_path.joinpath(*parts))
    catalog._models.cache_clear()
    catalog._gpus.cache_clear()
    yield folder
    catalog._models.cache_clear()
    catalog._gpus.cache_clear()


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "is not valid JSON"),
        ('["a list"]', "must be a JSON object with a 'models' list"),
        ('{"schema": 2, "models": []}', "schema 2"),
        ('{"schema": 1, "models": [{"name": "x", "label": "X", "source": "s"}]}', r"models\[0\]"),
        ('{"schema": 1, "models": [{"name": "x", "label": "X", "source": "s", "params": 5, "colour": 1}]}', "colour"),
        ('{"schema": 1, "models": [{"name": "x", "label": "X", "source": "s", "params": 5},'
         ' {"name": "X", "label": "X", "source": "s", "params": 6}]}', "repeats the preset name"),
    ],
)
def test_malformed_model_catalog_names_the_file(fake_catalogs, content, message):
    (fake_catalogs / "models.json").write_text(content, encoding="utf-8")
    with pytest.raises(PlanError, match=message) as err:
        model_presets()
    assert "models.json" in str(err.value)


def test_missing_gpu_catalog_names_the_file(fake_catalogs):
    with pytest.raises(PlanError, match="cannot read catalog .*gpus.json"):
        gpu_presets()


def test_a_gpu_cannot_report_more_than_its_nominal_size(fake_catalogs):
    entry = {"name": "g", "label": "G 8GB", "source": "s", "vendor": "v", "vendor_gb": 8, "memory_bytes": 9 * GiB,
             "memory_reported": True}
    (fake_catalogs / "gpus.json").write_text(json.dumps({"schema": 1, "gpus": [entry]}), encoding="utf-8")
    with pytest.raises(PlanError, match=r"gpus.json, gpus\[0\]: .*at most its nominal 8 GiB"):
        gpu_presets()


def test_bad_gpu_entry(fake_catalogs):
    entry = {"name": "g", "label": "G", "source": "s", "vendor": "v", "vendor_gb": 8, "memory_bytes": 0}
    (fake_catalogs / "gpus.json").write_text(json.dumps({"schema": 1, "gpus": [entry]}), encoding="utf-8")
    with pytest.raises(PlanError, match=r"gpus.json, gpus\[0\]: memory_bytes"):
        gpu_presets()


def test_gpu_link_figures_are_sourced_and_networks_load():
    from zerodesk.core.catalog import find_network, gpu_presets, network_presets

    for g in gpu_presets():
        assert (g.intra_node_gbps is None) == (not g.intra_node_source), g.name
        if g.intra_node_gbps is not None:
            assert g.intra_node_link and "each way" in g.intra_node_source, g.name
    assert find_gpu("h100-80gb").intra_node_gbps == 450  # NVLink 4: 900 GB/s both directions together
    assert find_network("ib-ndr-400").gbps == 50  # 400 Gb/s per GPU
    assert all(n.source and n.gbits_per_gpu > 0 for n in network_presets())
