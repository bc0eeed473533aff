"""Read a Hugging Face config.json into an Architecture (plain JSON; transformers is not needed).

Each family reads the keys its transformers config class reads, with that class's defaults for
missing ones, so the tensor list (core.architecture) equals the model transformers builds: the readers are
core.hf_config_readers, the strict key access core.hf_config_keys, the class defaults core.hf_config_defaults,
and the way back (Architecture -> config.json) core.hf_config_writer, re-exported here. A model_type without a
layout here is refused with a sentence; with transformers installed, measure/hf_tensors.py reads
any model type into an exact tensor list instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .architecture import Architecture
from .errors import PlanError, explain
from .hf_config_defaults import CLASS_DEFAULTS
from .hf_config_keys import ConfigKeys
from .hf_config_readers import READERS, SUPPORTED  # SUPPORTED re-exported: the families read, as callers name it
from .hf_config_writer import hf_config_from_architecture  # noqa: F401  (re-exported: the way back, as callers name it)
from .json_files import read_json
from .record import validation_error


def read_hf_config(path: str | os.PathLike) -> tuple[Path, dict[str, Any]]:
    """(the config.json path, its JSON object); `path` may be the folder that holds it."""
    path = Path(path)
    if os.path.isdir(path):  # never raises (names too long, NUL bytes): read_file then says why
        path = path / "config.json"
    data = read_json(path, "config")
    if not isinstance(data, dict):
        raise PlanError(f"{path} must hold a JSON object, not {type(data).__name__}")
    return path, data


def model_name(cfg: dict[str, Any]) -> str | None:
    """The model's own name: `_name_or_path` (a local path keeps its last two parts), else the architecture."""
    name = cfg.get("_name_or_path")
    if isinstance(name, str) and name.strip():
        name = name.strip().rstrip("/")
        return "/".join(Path(name).parts[-2:]) if name.startswith(("/", ".", "~")) else name
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return cfg.get("model_type") if isinstance(cfg.get("model_type"), str) else None


def architecture_from_config_dict(cfg: dict[str, Any], path: Path) -> Architecture:
    model_type = cfg.get("model_type")
    if not isinstance(model_type, str) or model_type not in READERS:  # a list or object is no type's name
        what = (f"model_type '{model_type}'" if isinstance(model_type, str) and model_type
                else "no model_type" if model_type in (None, "") else "a model_type that is not a name")
        raise PlanError(f"{path} has {what}; ZeroDesk reads {', '.join(SUPPORTED)} "
                        "(other types need the transformers package)")
    fields = READERS[model_type](ConfigKeys(cfg, path, CLASS_DEFAULTS[model_type]))
    fields["family"] = model_type
    fields["tied_embeddings"] = ConfigKeys(cfg, path, CLASS_DEFAULTS[model_type]).bool("tie_word_embeddings", False)
    try:
        return Architecture(**{k: v for k, v in fields.items() if v is not None})
    except validation_error() as exc:
        raise PlanError(f"{path} describes no valid architecture: {explain(exc)}") from None


def architecture_from_hf_config(path: str | os.PathLike) -> tuple[Architecture, dict[str, Any]]:
    """(Architecture, hints). Hints: model_type, name, and seq_len (the context length the config names)."""
    path, cfg = read_hf_config(path)
    arch = architecture_from_config_dict(cfg, path)
    hints: dict[str, Any] = {"model_type": cfg["model_type"], "seq_len": arch.max_positions}
    name = model_name(cfg)
    if name:
        hints["name"] = name
    return arch, hints

