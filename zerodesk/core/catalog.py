"""Model and GPU presets read from resources/catalogs (data, not code). No Qt, no torch."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TypeVar

from .record import ConfigDict, Field, Record, model_validator, validation_error

from ..resources import resource
from . import shipped
from .architecture import Architecture
from .errors import PlanError, explain
from .json_files import read_json
from .plan import ModelSpec
from .text import shorten

CATALOG_SCHEMA = 1


class _Preset(Record):
    # frozen: the loaded presets are cached and shared, so nobody may edit them in place
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    label: str = Field(min_length=1)
    labels: dict[str, str] = Field(default_factory=dict, description="the label in other languages: {'ru': ...}")
    source: str = Field(min_length=1, description="where the published figures come from")
    _shipped = False

    @property
    def shipped(self) -> bool:
        """One of ZeroDesk's own presets: validated by the tests (tests/test_shipped.py), built without validation."""
        return self._shipped


class ModelPreset(_Preset):
    """A real model (architecture, exact count) or a raw parameter count (the card's example)."""

    family: str = ""
    published_params: int | None = Field(default=None, ge=1, description="published total parameter count")
    tolerance: float = Field(default=0.001, gt=0, lt=1, description="allowed relative gap to published_params")
    architecture: Architecture | None = None
    params: int | None = Field(default=None, ge=1, description="raw count when no architecture is given")
    dp: int | None = Field(default=None, ge=1, description="suggested data-parallel degree Nd")
    seq_len: int | None = Field(default=None, ge=1, description="suggested tokens per sequence")

    @model_validator(mode="after")
    def _one_source(self) -> "ModelPreset":
        if (self.architecture is None) == (self.params is None):
            raise ValueError("give exactly one of architecture or params")
        return self

    @property
    def param_count(self) -> int:
        return self.to_model_spec().param_count

    def to_model_spec(self) -> ModelSpec:
        # deep copy: the plan may be edited, the cached preset must not change with it
        arch = self.architecture.model_copy(deep=True) if self.architecture is not None else None
        fields = {"name": self.name, "params": self.params if arch is None else None, "architecture": arch}
        # a shipped preset's model was validated by the tests (tests/test_shipped.py), any other's is validated here
        return ModelSpec.model_construct(**fields) if self._shipped else ModelSpec(**fields)


class GpuPreset(_Preset):
    """One device as a data-parallel rank sees it: the memory the device reports, labelled by its nominal figure."""

    vendor: str
    vendor_gb: int = Field(ge=1, description="the vendor's memory figure per card, in its GB (here: GiB): the label's")
    devices: int = Field(default=1, ge=1, description="devices the runtime shows per card")
    memory_bytes: int = Field(ge=1, description="memory of one device in bytes, as the device reports it")
    memory_reported: bool = Field(default=False, description="memory_bytes is a device's report (else the nominal size)")
    memory_type: str = ""
    intra_node_gbps: float | None = Field(default=None, gt=0, le=1e6,
                                          description="GPU-to-GPU bandwidth in a node, GB/s per GPU per direction")
    intra_node_link: str = ""  # NVLink 4 (SXM5), PCIe Gen4 x16, ...
    intra_node_source: str = ""

    @property
    def nominal_bytes(self) -> int:
        """The vendor's figure for one device, in bytes (binary GB, split over the card's devices)."""
        return self.vendor_gb * 2**30 // self.devices

    @model_validator(mode="after")
    def _reported_within_nominal(self) -> "GpuPreset":
        # a device reports at most its nominal size (the driver and ECC keep some); without a report, the nominal one
        if self.memory_bytes > self.nominal_bytes or (not self.memory_reported and self.memory_bytes != self.nominal_bytes):
            raise ValueError(f"memory_bytes ({self.memory_bytes:,}) must be what the device reports, at most its nominal "
                             f"{self.vendor_gb} GiB per card ({self.nominal_bytes:,} B per device), or exactly that size "
                             "when no report is on file (memory_reported false)")
        return self


class NetworkPreset(_Preset):
    """An inter-node network as one GPU sees it (its NIC, or its share of the node's)."""

    gbits_per_gpu: float = Field(gt=0, le=1e7, description="NIC bandwidth per GPU per direction, Gb/s")

    @property
    def gbps(self) -> float:
        """GB/s (1e9 B/s) per GPU per direction: the plan's inter_node_gbps."""
        return self.gbits_per_gpu / 8


_P = TypeVar("_P", bound=_Preset)


def _load(filename: str, key: str, cls: type[_P]) -> tuple[_P, ...]:
    """Read and validate one catalog; every failure is a PlanError naming the file. ZeroDesk's own catalogs were
    validated by the tests and are built as they are (core.shipped)."""
    path: Path = resource("catalogs", filename)
    data = read_json(path, "catalog")
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise PlanError(f"catalog {path} must be a JSON object with a '{key}' list")
    if data.get("schema") != CATALOG_SCHEMA:
        raise PlanError(f"catalog {path} has schema {data.get('schema')!r}; this ZeroDesk reads schema {CATALOG_SCHEMA}")
    presets = []
    trusted = shipped.is_shipped(path)
    for i, item in enumerate(data[key]):
        try:
            preset = shipped.build(cls, item) if trusted else cls.model_validate(item)
            preset._shipped = trusted
            presets.append(preset)
        except validation_error() as exc:
            raise PlanError(f"catalog {path}, {key}[{i}]: {explain(exc)}") from None
    names = [p.name.lower() for p in presets]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise PlanError(f"catalog {path} repeats the preset name(s) {', '.join(dupes)}")
    return tuple(presets)


@cache
def _models() -> tuple[ModelPreset, ...]:
    return _load("models.json", "models", ModelPreset)


@cache
def _gpus() -> tuple[GpuPreset, ...]:
    return _load("gpus.json", "gpus", GpuPreset)


@cache
def _networks() -> tuple[NetworkPreset, ...]:
    return _load("networks.json", "networks", NetworkPreset)


def network_presets() -> list[NetworkPreset]:
    return list(_networks())


def find_network(name: str) -> NetworkPreset:
    return _find(_networks(), name, "network preset")


def model_presets() -> list[ModelPreset]:
    return list(_models())


def gpu_presets() -> list[GpuPreset]:
    return list(_gpus())


def _find(presets: tuple[_P, ...], name: str, what: str) -> _P:
    wanted = name.strip().lower()
    for preset in presets:
        if preset.name.lower() == wanted:
            return preset
    names = [p.name for p in presets]
    import difflib  # only for a name that is not found

    # difflib is quadratic in the name's length: a 200 KB name from a plan file would freeze the window
    close = difflib.get_close_matches(wanted, names, n=3, cutoff=0.5) if len(wanted) <= 100 else []
    hint = f"did you mean {', '.join(close)}?" if close else f"known {what}s: {', '.join(names)}."
    raise PlanError(f"unknown {what} '{shorten(name, 80)}'; {hint}")


def find_model(name: str) -> ModelPreset:
    return _find(_models(), name, "model preset")


def find_gpu(name: str) -> GpuPreset:
    return _find(_gpus(), name, "GPU preset")
