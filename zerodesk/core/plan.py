"""The plan: what the user describes (model, scheme, cluster, units). Pydantic v2, JSON round-trip."""

from __future__ import annotations

import json
import os
import tempfile
from enum import Enum
from math import prod
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from .architecture import Architecture, param_count, tensor_shapes
from .units import Unit, parse_count

__all__ = ["Architecture"]  # re-exported: plans, catalogs and the worker import it from here

SCHEMA_VERSION = 1
PLAN_SUFFIX = ".zerodesk.json"


class PlanError(ValueError):
    """One human sentence about what is wrong with a plan or a plan file."""


class Scheme(str, Enum):
    """Precision and optimizer scheme: which model states exist and their bytes per parameter."""

    MIXED_ADAM = "mixed-adam"  # ZeRO paper §3.1: fp16 params+grads, fp32 master + Adam m, v
    FP32_ADAM = "fp32-adam"
    BF16_FP32_GRADS_ADAM = "bf16-fp32grad-adam"
    MIXED_SGD_MOMENTUM = "mixed-sgd-momentum"
    MIXED_ADAM_8BIT = "mixed-adam-8bit"


class Profile(str, Enum):
    """Accounting profile: whose bookkeeping of the states we follow."""

    PAPER = "paper"
    TORCH = "torch"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=False)


class ModelSpec(_Strict):
    """Either a raw parameter count or an architecture (then the count is exact)."""

    name: str | None = None
    params: int | None = Field(default=None, ge=1, le=10**15, description="parameter count P")
    architecture: Architecture | None = None
    # A model type ZeroDesk has no layout for, read by transformers (measure/hf_tensors.py): its exact
    # tensor list for the torch profile, and the config the worker rebuilds it from.
    tensors: list[tuple[str, tuple[int, ...]]] | None = Field(default=None, description="named tensor shapes")
    hf_config: dict[str, Any] | None = Field(default=None, description="the Hugging Face config.json it came from")

    @field_validator("params", mode="before")
    @classmethod
    def _parse_params(cls, value):
        if value is None or isinstance(value, int):
            return value
        return parse_count(value)

    @model_validator(mode="after")
    def _one_source(self) -> "ModelSpec":
        if self.params is None and self.architecture is None and not self.tensors:
            raise ValueError("give a parameter count (params) or an architecture")
        if self.tensors is not None and self.architecture is not None:
            raise ValueError("give either an architecture or a tensor list, not both")
        return self

    @property
    def named_shapes(self) -> list[tuple[str, tuple[int, ...]]] | None:
        """Every trainable tensor in registration order, when known (architecture or tensor list)."""
        if self.architecture is not None:
            return tensor_shapes(self.architecture)
        return [(n, tuple(s)) for n, s in self.tensors] if self.tensors else None

    @property
    def buildable(self) -> bool:
        """A measured or simulated step can build it: an architecture, or a tensor list with its config."""
        return self.architecture is not None or bool(self.tensors and self.hf_config)

    @property
    def param_count(self) -> int:
        if self.architecture is not None:
            return param_count(self.architecture)
        if self.tensors:
            return sum(prod(s) for _, s in self.tensors)
        assert self.params is not None
        return self.params


MAX_RANKS = 65_536  # the torch profile lists every rank; beyond this the per-rank view stops being useful


class Cluster(_Strict):
    nodes: int = Field(default=1, ge=1, le=100_000, description="machines")
    gpus_per_node: int = Field(default=8, ge=1, le=1024, description="GPUs per machine")
    dp: int | None = Field(default=None, ge=1, le=MAX_RANKS, description="data-parallel degree Nd; default nodes x GPUs")
    gpu: str | None = Field(default=None, description="GPU preset name")
    gpu_memory_bytes: int | None = Field(default=None, ge=1, description="memory of one GPU in bytes")

    @field_validator("gpus_per_node")
    @classmethod
    def _world_in_reach(cls, gpus: int, info: ValidationInfo) -> int:
        nodes = info.data.get("nodes")
        if nodes and nodes * gpus > MAX_RANKS:
            raise ValueError(f"nodes x GPUs per node ({nodes * gpus:,}) must be at most {MAX_RANKS:,}")
        return gpus

    @field_validator("dp")
    @classmethod
    def _dp_divides_world(cls, dp: int | None, info: ValidationInfo) -> int | None:
        nodes, gpus = info.data.get("nodes"), info.data.get("gpus_per_node")
        if dp is not None and nodes and gpus and (nodes * gpus) % dp:
            raise ValueError(f"dp ({dp}) must divide nodes x GPUs per node ({nodes * gpus})")
        return dp

    @property
    def world_size(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def data_parallel(self) -> int:
        return self.dp or self.world_size


class Plan(_Strict):
    schema_version: int = SCHEMA_VERSION
    model: ModelSpec
    scheme: Scheme = Scheme.MIXED_ADAM
    profile: Profile = Profile.PAPER
    cluster: Cluster = Cluster()
    seq_len: int = Field(default=2048, ge=1, le=10_000_000, description="tokens per sequence")
    micro_batch: int = Field(default=1, ge=1, le=1_000_000, description="sequences per rank per step")
    units: Unit = "GB"
    bandwidth_gbps: float = Field(default=100.0, gt=0, le=1e6, description="per-rank link bandwidth in GB/s")

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value > SCHEMA_VERSION:
            raise ValueError(
                f"this plan was saved by a newer ZeroDesk (schema {value}); this version reads schema {SCHEMA_VERSION} and older"
            )
        return value

    @property
    def params(self) -> int:
        return self.model.param_count

    @property
    def dp(self) -> int:
        return self.cluster.data_parallel


def explain(error: ValidationError) -> str:
    """The first problem as one sentence naming the field: 'cluster.dp: Input should be ...'."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "plan"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}"


def field_errors(error: ValidationError) -> dict[str, str]:
    """Every problem keyed by dotted field path (the form marks each field)."""
    out: dict[str, str] = {}
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "plan"
        out.setdefault(where, item["msg"].removeprefix("Value error, "))
    return out


def parse_json(text: str, source: str) -> Any:
    """JSON text to data; a syntax error is one PlanError naming the source and the place."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanError(f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def read_json(path: str | os.PathLike, what: str) -> Any:
    """Read a UTF-8 JSON file; every failure is one PlanError naming what it is and where ('catalog /x.json')."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PlanError(f"{what} {path} is not UTF-8 text") from None
    return parse_json(text, f"{what} {path}")


def plan_from_json(text: str, source: str = "plan") -> Plan:
    return _plan_from_data(parse_json(text, source), source)


def _plan_from_data(data: Any, source: str) -> Plan:
    if not isinstance(data, dict):
        raise PlanError(f"{source} must hold a JSON object, not {type(data).__name__}")
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(f"{source}: {explain(exc)}") from None


def load_plan(path: str | os.PathLike) -> Plan:
    return _plan_from_data(read_json(path, "plan file"), f"plan file {path}")


def plan_to_json(plan: Plan) -> str:
    return plan.model_dump_json(indent=2, exclude_none=True) + "\n"


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write to a temporary file beside the target, fsync, then rename: never a half-written file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_plan(plan: Plan, path: str | os.PathLike) -> None:
    try:
        atomic_write_text(path, plan_to_json(plan))
    except OSError as exc:
        raise PlanError(f"cannot save plan file {path}: {exc.strerror or exc}") from None
