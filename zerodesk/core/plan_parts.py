"""The plan's two parts besides its choices: the model (a parameter count, an architecture or a tensor list) and the
cluster (nodes x GPUs, Nd, the shard group, the GPU and the links), with the limits a plan may reach. Split from
core.plan, which re-exports them; records validated by pydantic (core.record).
"""

from __future__ import annotations

from fractions import Fraction
from math import prod
from typing import Any

from .architecture import Architecture
from .architecture_tensors import param_count, tensor_shapes
from .record import ConfigDict, Field, Record, ValidationInfo, field_validator, model_validator
from .tensor_census import TensorCensus, census_of, census_of_architecture
from .text import shorten
from .units import parse_count

MAX_PARAMS = 10**15  # a thousand times today's largest models; every figure stays an exact float
MAX_TENSORS = 10_000_000  # a 16 MiB plan file holds at most ~1.5 million
MAX_TENSOR_DIMS = 8


class PlanRecord(Record):
    """A part of a plan: unknown keys refused, assignments validated, no NaN or infinity."""

    # Lax here, as the form hands its texts to the core to judge; files are read strictly (_plan_from_data).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=False, allow_inf_nan=False)


def _tensor(index: int, name: str) -> str:
    return f"tensor {index:,} ('{shorten(name, 60)}')"


class ModelSpec(PlanRecord):
    """Either a raw parameter count or an architecture (then the count is exact)."""

    name: str | None = None
    params: int | None = Field(default=None, ge=1, le=MAX_PARAMS, description="parameter count P")
    architecture: Architecture | None = None
    # A model type ZeroDesk has no layout for, read by transformers (measure/hf_tensors.py): its exact
    # tensor list for the torch profile, and the config the worker rebuilds it from.
    tensors: list[tuple[str, tuple[int, ...]]] | None = Field(default=None, description="named tensor shapes")
    hf_config: dict[str, Any] | None = Field(default=None, description="the Hugging Face config.json it came from")
    # The model's own step, fitted under fake tensors (zerodesk.measure.worker.step_template), for a structure without a
    # built-in one: core.step_template evaluates it without torch.
    step_template: dict[str, Any] | None = Field(default=None, description="the step template of its structure")

    @field_validator("params", mode="before")
    @classmethod
    def _parse_params(cls, value, info: ValidationInfo):
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        if (info.context or {}).get("file"):  # in a file every count is a JSON whole number: 2, not 2.0 or "2B"
            from pydantic_core import PydanticCustomError  # validators run inside pydantic

            raise PydanticCustomError("int_type", "Input should be a valid integer")
        return parse_count(value)

    @field_validator("tensors")
    @classmethod
    def _sane_tensors(cls, tensors: list[tuple[str, tuple[int, ...]]] | None):
        """Every shape within bounds, so no figure made from them is negative or astronomical. Judged per distinct
        shape (the list's census, which the figures then reuse); the first offending tensor is named."""
        if tensors is None:
            return None
        if len(tensors) > MAX_TENSORS:
            raise ValueError(f"the list holds {len(tensors):,} tensors; at most {MAX_TENSORS:,}")
        counted = census_of(tensors)
        bad = {shape for shape, _ in counted.shapes
               if len(shape) > MAX_TENSOR_DIMS or (shape and not 1 <= min(shape) <= max(shape) <= MAX_PARAMS)}
        if bad or counted.params > MAX_PARAMS:
            cls._name_the_first(tensors, bad)
        return tensors

    @staticmethod
    def _name_the_first(tensors: list[tuple[str, tuple[int, ...]]], bad: set[tuple[int, ...]]) -> None:
        total = 0
        for i, (name, shape) in enumerate(tensors):
            if shape in bad and len(shape) > MAX_TENSOR_DIMS:
                raise ValueError(f"{_tensor(i, name)} has {len(shape)} dimensions; at most {MAX_TENSOR_DIMS}")
            if shape in bad:
                dim = next(d for d in shape if not 1 <= d <= MAX_PARAMS)
                raise ValueError(f"{_tensor(i, name)} has the dimension {dim:,}; each dimension must be a whole number "
                                 f"from 1 to {MAX_PARAMS:,}")
            total += prod(shape)
            if total > MAX_PARAMS:
                raise ValueError(f"{_tensor(i, name)} brings the parameter count past {MAX_PARAMS:,}, "
                                 "the most a plan may hold")

    @model_validator(mode="after")
    def _one_source(self) -> "ModelSpec":
        if self.params is None and self.architecture is None and not self.tensors:
            raise ValueError("give a parameter count (params) or an architecture")
        if self.tensors is not None and self.architecture is not None:
            raise ValueError("give either an architecture or a tensor list, not both")
        if self.architecture is not None and param_count(self.architecture) > MAX_PARAMS:
            raise ValueError(f"the architecture has {param_count(self.architecture):,} parameters; "
                             f"a plan may hold at most {MAX_PARAMS:,}")
        return self

    @property
    def census(self) -> TensorCensus | None:
        """The tensors counted by shape and FSDP2 group (core.tensor_census), when known: what every torch-profile
        figure reads. Counted once per tensor list, and once per architecture."""
        if self.architecture is not None:
            return census_of_architecture(self.architecture)
        return census_of(self.tensors) if self.tensors else None

    @property
    def named_shapes(self) -> list[tuple[str, tuple[int, ...]]] | None:
        """Every trainable tensor in registration order, when known (architecture or tensor list)."""
        if self.architecture is not None:
            return tensor_shapes(self.architecture)
        return [(n, tuple(s)) for n, s in self.tensors] if self.tensors else None

    @property
    def blocks(self) -> int | None:
        """How many blocks (FSDP2's per-block units) the model has; None for a raw count."""
        if self.architecture is not None:
            return self.architecture.layers
        return sum(1 for group in self.census.group_rows if group != "root") if self.tensors else None

    @property
    def buildable(self) -> bool:
        """A measured or simulated step can build it: an architecture, or a tensor list with its config."""
        return self.architecture is not None or bool(self.tensors and self.hf_config)

    @property
    def param_count(self) -> int:
        if self.architecture is not None:
            return param_count(self.architecture)
        if self.tensors:
            return census_of(self.tensors).params
        assert self.params is not None
        return self.params


MAX_BLOCKS = 100_000  # blocks a plan may name one by one (recompute_blocks), and N blocks to an FSDP2 unit
MAX_GPU_MEMORY = 10**15  # 1 PB: a thousand times today's largest GPU, and safely a float
MAX_GPUS_PER_NODE = 1024
MAX_RANKS = 65_536  # the torch profile lists every rank; beyond this the per-rank view stops being useful


class Cluster(PlanRecord):
    nodes: int = Field(default=1, ge=1, le=100_000, description="machines")
    # validate_default: --nodes alone must meet the rank limit with the default GPUs per node too
    gpus_per_node: int = Field(default=8, ge=1, le=MAX_GPUS_PER_NODE, validate_default=True,
                               description="GPUs per machine")
    dp: int | None = Field(default=None, ge=1, le=MAX_RANKS, description="data-parallel degree Nd; default nodes x GPUs")
    # Hybrid sharding: states sharded among N consecutive data-parallel ranks, replicated across the Nd/N groups
    # (FSDP2's 2-D mesh (replicate, shard)); or, with the plan's hybrid = hpz, ZeRO++'s secondary partition size.
    shard_group: int | None = Field(default=None, ge=1, le=MAX_RANKS,
                                    description="ranks each state is sharded among, N; default Nd (no replication)")
    gpu: str | None = Field(default=None, description="GPU preset name")
    gpu_memory_bytes: int | None = Field(default=None, ge=1, le=MAX_GPU_MEMORY, description="memory of one GPU in bytes")
    host_memory_bytes: int | None = Field(default=None, ge=1, le=10**18, description="host (CPU) memory of one node in bytes")
    # The links communication crosses, per GPU and per direction (GB/s, 1 GB = 1e9 B); core.comm_links splits by them.
    intra_node_gbps: float = Field(default=450.0, ge=1e-3, le=1e6,
                                   description="GPU-to-GPU bandwidth inside a node (NVLink, PCIe), GB/s per GPU per direction")
    inter_node_gbps: float = Field(default=50.0, ge=1e-3, le=1e6,
                                   description="bandwidth between nodes (InfiniBand, Ethernet), GB/s per GPU per direction")
    network: str | None = Field(default=None, description="network preset name (the inter-node bandwidth's source)")

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

    @field_validator("shard_group")
    @classmethod
    def _group_divides_dp(cls, group: int | None, info: ValidationInfo) -> int | None:
        if group is None or "dp" not in info.data:  # a dp that failed its own check is reported by itself
            return group
        nodes, gpus = info.data.get("nodes"), info.data.get("gpus_per_node")
        dp = info.data["dp"] or (nodes * gpus if nodes and gpus else None)
        if dp and dp % group:
            raise ValueError(f"shard_group ({group}) must divide the data-parallel degree Nd ({dp})")
        return group

    @property
    def world_size(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def data_parallel(self) -> int:
        return self.dp or self.world_size

    @property
    def shard_size(self) -> int:
        """N: the ranks each sharded state is spread over (Nd without a shard group).

        A group that does not divide Nd can only come from an unvalidated copy (model_copy); it counts as Nd."""
        dp = self.data_parallel
        return self.shard_group if self.shard_group and dp % self.shard_group == 0 else dp

    @property
    def dp_per_node(self) -> Fraction:
        """Data-parallel ranks per node: Nd x GPUs per node / world, other parallelism taken as inside the node
        (tensor parallelism is); at least 1, as a rank that spans nodes still sits on its own node."""
        return max(Fraction(1), Fraction(self.data_parallel * self.gpus_per_node, self.world_size))
