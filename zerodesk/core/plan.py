"""The plan: what the user describes (model, scheme, cluster, units). Pydantic v2, JSON round-trip."""

from __future__ import annotations

import json
import os
import tempfile
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from .units import Unit, parse_count

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


class Offload(str, Enum):
    """Which states leave the GPU (ZeRO-Offload / ZeRO-Infinity / FSDP2 CPUOffloadPolicy); apart from the stage."""

    NONE = "none"
    OPTIMIZER = "optimizer"  # ZeRO-Offload: optimizer states and gradients to host memory
    OPTIMIZER_PARAMS = "optimizer+params"  # ZeRO-Infinity / FSDP2 CPUOffloadPolicy: parameters too


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=False)


class Architecture(_Strict):
    """A GPT-style decoder. Shapes follow zerodesk.core.architecture.tensor_shapes."""

    layers: int = Field(ge=1, le=1024, description="transformer blocks")
    hidden: int = Field(ge=1, le=1_000_000, description="model width")
    head_dim: int | None = Field(default=None, ge=1, le=65536, description="per-head width; default hidden/heads")
    heads: int = Field(ge=1, le=4096, description="attention heads")
    kv_heads: int | None = Field(default=None, ge=1, le=4096, description="key/value heads (grouped-query)")
    ffn: int = Field(ge=1, le=10_000_000, description="MLP inner width")
    mlp: Literal["gated", "plain"] = "gated"
    vocab: int = Field(ge=1, le=10_000_000, description="vocabulary size")
    tied_embeddings: bool = False
    bias: Literal["none", "qkv", "all"] = "none"
    norm: Literal["layernorm", "rmsnorm"] = "rmsnorm"
    positions: Literal["learned", "rotary"] = "rotary"
    max_positions: int = Field(default=2048, ge=1, le=10_000_000, description="learned position table size")

    # Field validators (not a model validator) so each error carries the field's own path.
    @field_validator("heads")
    @classmethod
    def _heads_divide_hidden(cls, heads: int, info: ValidationInfo) -> int:
        hidden = info.data.get("hidden")
        if info.data.get("head_dim") is None and hidden and hidden % heads:
            raise ValueError(f"hidden ({hidden}) must be a multiple of heads ({heads}) unless head_dim is given")
        return heads

    @field_validator("kv_heads")
    @classmethod
    def _kv_heads_divide_heads(cls, kv_heads: int | None, info: ValidationInfo) -> int | None:
        heads = info.data.get("heads")
        if kv_heads is not None and heads and heads % kv_heads:
            raise ValueError(f"heads ({heads}) must be a multiple of kv_heads ({kv_heads})")
        return kv_heads

    @property
    def n_kv_heads(self) -> int:
        return self.kv_heads or self.heads

    @property
    def dim_per_head(self) -> int:
        return self.head_dim or self.hidden // self.heads


class ModelSpec(_Strict):
    """Either a raw parameter count or an architecture (then the count is exact)."""

    name: str | None = None
    params: int | None = Field(default=None, ge=1, le=10**15, description="parameter count P")
    architecture: Architecture | None = None

    @field_validator("params", mode="before")
    @classmethod
    def _parse_params(cls, value):
        if value is None or isinstance(value, int):
            return value
        return parse_count(value)

    @model_validator(mode="after")
    def _one_source(self) -> "ModelSpec":
        if self.params is None and self.architecture is None:
            raise ValueError("give a parameter count (params) or an architecture")
        return self

    @property
    def param_count(self) -> int:
        if self.architecture is not None:
            from .architecture import param_count

            return param_count(self.architecture)
        assert self.params is not None
        return self.params


MAX_RANKS = 65_536  # the torch profile lists every rank; beyond this the per-rank view stops being useful


class Cluster(_Strict):
    nodes: int = Field(default=1, ge=1, le=100_000, description="machines")
    gpus_per_node: int = Field(default=8, ge=1, le=1024, description="GPUs per machine")
    dp: int | None = Field(default=None, ge=1, le=MAX_RANKS, description="data-parallel degree Nd; default nodes x GPUs")
    gpu: str | None = Field(default=None, description="GPU preset name")
    gpu_memory_bytes: int | None = Field(default=None, ge=1, description="memory of one GPU in bytes")
    host_memory_bytes: int | None = Field(default=None, ge=1, le=10**18, description="host (CPU) memory of one node in bytes")

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
    offload: Offload = Offload.NONE
    offload_target: Literal["cpu", "nvme"] = "cpu"
    pcie_gbps: float = Field(default=25.0, gt=0, le=1e4, description="host<->device bandwidth per GPU in GB/s")

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
