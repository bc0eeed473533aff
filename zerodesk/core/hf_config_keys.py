"""A config.json's keys, read strictly: a missing key takes the transformers class's default, a bad one is refused
with a sentence that names the file and the key ("false" as a string is an error, not a truthy value).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .architecture import ACTIVATIONS, FAMILY_ACTIVATION
from .errors import PlanError

_MISSING = object()
_ACT_ALIASES = {"gelu_pytorch_tanh": "gelu_tanh", "swish": "silu"}  # transformers' other names for ours


class ConfigKeys:
    """A config dict with strict, path-naming accessors; `defaults` are the transformers class's."""

    def __init__(self, cfg: dict[str, Any], path: Path, defaults: dict[str, Any]) -> None:
        self.cfg, self.path, self.defaults = cfg, path, defaults

    def raw(self, *keys: str) -> tuple[str, Any]:
        """The first of `keys` the file sets (aliases, e.g. n_embed/hidden_size), else the class default."""
        for key in keys:
            if self.cfg.get(key) is not None:
                return key, self.cfg[key]
        return keys[0], self.defaults.get(keys[0], _MISSING)

    def int(self, *keys: str, default: Any = _MISSING) -> Any:
        key, value = self.raw(*keys)
        if value is _MISSING or value is None:
            if default is not _MISSING:
                return default
            raise PlanError(f"{self.path} lacks {key}, needed for model_type '{self.cfg['model_type']}'")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanError(f"{self.path}: {key} must be a positive integer, not {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.cfg.get(key)
        if value is None:
            return self.defaults.get(key, default)
        if not isinstance(value, bool):
            raise PlanError(f"{self.path}: {key} must be true or false (JSON booleans), not {value!r}")
        return value

    def number(self, key: str, default: float) -> float:
        value = self.cfg.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise PlanError(f"{self.path}: {key} must be a number in (0, 1], not {value!r}")
        return float(value)

    def activation(self, *keys: str) -> str | None:
        """The activation transformers runs, by Architecture's names; None where it is the family's own default."""
        key, value = self.raw(*keys)
        if value is _MISSING or value is None:
            return None
        name = _ACT_ALIASES.get(value, value) if isinstance(value, str) else value
        if self.cfg["model_type"] == "gemma" and name == "gelu":  # GemmaConfig reads its legacy "gelu" as tanh's
            name = "gelu_tanh"
        if name not in ACTIVATIONS:
            raise PlanError(f"{self.path}: {key} must be one of {', '.join(ACTIVATIONS)} "
                            f"(or gelu_pytorch_tanh, swish), not {value!r}")
        family = self.cfg["model_type"]
        default = FAMILY_ACTIVATION.get(family, "silu")
        return None if name == default else name

    def optional_int(self, key: str, default: Any) -> Any:
        """An integer the file may set to null (null means none); a missing key takes the class default."""
        if key not in self.cfg:
            return default
        value = self.cfg[key]
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanError(f"{self.path}: {key} must be a positive integer or null, not {value!r}")
        return value

    def optional_number(self, key: str, default: Any) -> Any:
        """A positive number the file may set to null (null means none); a missing key takes the class default."""
        if key not in self.cfg:
            return default
        value = self.cfg[key]
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise PlanError(f"{self.path}: {key} must be a positive number or null, not {value!r}")
        return float(value)
