"""Every family against transformers itself: the tensor list ZeroDesk reads from a public config.json
equals the model transformers builds on the meta device (names, shapes, order), and its count
equals the published one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zerodesk.core.architecture import param_count, tensor_shapes
from zerodesk.core.hf_config import (
    SUPPORTED, architecture_from_config_dict, architecture_from_hf_config, hf_config_from_architecture,
)

CONFIGS = Path(__file__).parent / "hf_configs"
PUBLISHED = json.loads((CONFIGS / "published.json").read_text())["models"]
FILES = sorted(p for p in CONFIGS.glob("*.json") if p.name != "published.json")


def hf_named_shapes(config: dict) -> list[tuple[str, tuple[int, ...]]]:
    """transformers' own model on the meta device: its unique named parameters, tied weights once."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    cfg = dict(config)
    conf = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(conf)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def test_every_family_has_a_public_config():
    families = {json.loads(p.read_text())["model_type"] for p in FILES}
    assert families == set(SUPPORTED)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_config_tensors_equal_transformers(path):
    config = json.loads(path.read_text())
    arch, _ = architecture_from_hf_config(path)
    assert arch.family == config["model_type"]
    ours = tensor_shapes(arch)
    theirs = hf_named_shapes(config)
    assert len(ours) == len(theirs)
    assert ours == theirs
    if path.stem in PUBLISHED:
        assert param_count(arch) == PUBLISHED[path.stem]["params"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_architecture_back_to_config_builds_the_same_model(path):
    """The worker builds transformers' model from hf_config_from_architecture: it must be the same model."""
    arch, _ = architecture_from_hf_config(path)
    config = hf_config_from_architecture(arch)
    assert architecture_from_config_dict(config, path) == arch
    assert hf_named_shapes(config) == tensor_shapes(arch)


def test_every_preset_equals_transformers():
    from zerodesk.core.catalog import model_presets

    presets = [p for p in model_presets() if p.architecture is not None and p.architecture.family != "custom"]
    assert {p.architecture.family for p in presets} == set(SUPPORTED)
    for preset in presets:
        theirs = hf_named_shapes(hf_config_from_architecture(preset.architecture))
        assert theirs == tensor_shapes(preset.architecture), preset.name
        assert sum(_numel(s) for _, s in theirs) == preset.published_params, preset.name


def _numel(shape):
    out = 1
    for d in shape:
        out *= d
    return out
