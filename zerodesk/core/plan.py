"""The plan: what the user describes (model, scheme, cluster, units). Records validated by pydantic (core.record), JSON round-trip.

Its choices come from zerodesk.core.options; its model and cluster from core.plan_parts; reading files from json_files,
saving from atomic_save.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from typing import Any

from .record import Field, ValidationInfo, field_validator, validation_error

from .architecture import Architecture, default_ffn

from .atomic_save import TEMP_PREFIX, SaveReport, atomic_write_text, sweep_stale_temps
from .disk_state import DiskState, FileChangedOnDisk, change_since, observe, read_observed
from .errors import PlanError, explain, field_errors, os_reason
from .evidence_records import EvidenceRecord
from .json_files import (
    MAX_FILE_BYTES, all_finite, decode_json, decode_text, no_collector_pauses, parse_json, plain_json, read_file,
    read_json, read_model, require_bool,
)
from .options import (
    ACCUM_SYNC, AUTOCAST, HYBRID, KERNELS, OFFLOAD_TARGET, OPTIMIZER_IMPL, PARAM_DTYPE, PREFETCH, RECOMPUTE,
    REDUCE_DTYPE, SHARD_PLACEMENT, UNITS, WRAP, AccumSync, Autocast, Hybrid, Kernels, Offload, OffloadTarget,
    OptimizerImpl, ParamDtype, Prefetch, Profile, Recompute, ReduceDtype, Scheme, ShardPlacement, Unit, Wrap,
)
from .per_block import parse_per_block
from .plan_parts import MAX_BLOCKS, MAX_GPU_MEMORY, MAX_GPUS_PER_NODE, MAX_PARAMS, MAX_RANKS, Cluster, ModelSpec, PlanRecord
from .text import shorten

# Re-exported: callers import the plan's vocabulary, its errors and its file helpers from here.
__all__ = [
    "Architecture", "default_ffn", "Scheme", "Profile", "Offload", "Hybrid", "PlanError", "explain", "field_errors",
    "parse_json", "decode_json", "read_file", "read_json", "read_model", "require_bool",
    "TEMP_PREFIX", "SaveReport", "atomic_write_text", "sweep_stale_temps",
    "DiskState", "FileChangedOnDisk", "change_since", "observe", "load_plan_observed",
    "SCHEMA_VERSION", "PLAN_SUFFIX", "MAX_GPU_MEMORY", "MAX_RANKS", "ModelSpec", "Cluster", "Plan",
    "plan_from_json", "plan_from_bytes", "load_plan", "plan_to_json", "save_plan", "is_hf_config", "MAX_GPUS_PER_NODE",
    "MAX_PARAMS",
]

SCHEMA_VERSION = 1
PLAN_SUFFIX = ".zerodesk.json"


class Plan(PlanRecord):
    schema_version: int = Field(default=SCHEMA_VERSION, ge=1)
    model: ModelSpec
    scheme: Scheme = Scheme.MIXED_ADAM
    profile: Profile = Profile.PAPER
    cluster: Cluster = Cluster.model_construct()  # the defaults, as Cluster() makes them without validating
    seq_len: int = Field(default=2048, ge=1, le=10_000_000, description="tokens per sequence")
    micro_batch: int = Field(default=1, ge=1, le=1_000_000, description="sequences per rank per micro-batch")
    # Gradient accumulation: micro-batches per optimizer step (core.accumulation models what they keep)
    accum_steps: int = Field(default=1, ge=1, le=1_000_000, description="micro-batches per optimizer step "
                                                                       "(gradient accumulation steps)")
    accum_sync: AccumSync = Field(default=ACCUM_SYNC.default, description=ACCUM_SYNC.describe())
    units: Unit = UNITS.default
    # at least 1 MB/s: below that the transfer times leave the range of finite numbers in JSON
    bandwidth_gbps: float = Field(default=100.0, ge=1e-3, le=1e6, description="per-rank link bandwidth in GB/s")
    evidence: list[EvidenceRecord] | None = Field(
        default=None, description="simulated and measured results kept with the plan (core.evidence_records)")
    recompute: Recompute = Field(default=RECOMPUTE.default, description=RECOMPUTE.describe())
    cuda_allowance_bytes: int = Field(
        default=0, ge=0, le=10**13, description="bytes set aside per GPU for the CUDA context and allocator")
    optimizer_impl: OptimizerImpl = Field(default=OPTIMIZER_IMPL.default, description=OPTIMIZER_IMPL.describe())
    shard_placement: ShardPlacement = Field(default=SHARD_PLACEMENT.default, description=SHARD_PLACEMENT.describe())
    kernels: Kernels = Field(default=KERNELS.default, description=KERNELS.describe())
    offload: Offload = Offload.NONE
    offload_target: OffloadTarget = OFFLOAD_TARGET.default
    hybrid: Hybrid = Field(default=Hybrid(HYBRID.default), description=HYBRID.describe())
    pcie_gbps: float = Field(default=25.0, ge=1e-3, le=1e4, description="host<->device bandwidth per GPU in GB/s")
    # The knobs FSDP users turn (core.knobs reads them): FSDP2's MixedPrecisionPolicy, autocast for DDP's stages,
    # the FSDP2 units and backward prefetch, and recomputation per block.
    param_dtype: ParamDtype = Field(default=PARAM_DTYPE.default, description=PARAM_DTYPE.describe())
    reduce_dtype: ReduceDtype = Field(default=REDUCE_DTYPE.default, description=REDUCE_DTYPE.describe())
    autocast: Autocast = Field(default=AUTOCAST.default, description=AUTOCAST.describe())
    wrap: Wrap = Field(default=WRAP.default, description=WRAP.describe())
    wrap_blocks: int = Field(default=2, ge=1, le=MAX_BLOCKS, description="blocks in one FSDP2 unit when wrap is blocks")
    prefetch: Prefetch = Field(default=PREFETCH.default, description=PREFETCH.describe())
    recompute_every: int = Field(default=1, ge=1, le=MAX_BLOCKS,
                                 description="recompute every k-th block (the k-th, 2k-th, ...; 1: every block)")
    recompute_blocks: list[Recompute] | None = Field(
        default=None, description="the recomputation of each block, in order (overrides recompute and recompute_every)")

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value > SCHEMA_VERSION:
            raise ValueError(
                f"this plan was saved by a newer ZeroDesk (schema {value}); this version reads schema {SCHEMA_VERSION} and older"
            )
        return value

    @field_validator("hybrid")
    @classmethod
    def _hpz_is_paper(cls, hybrid: Hybrid, info: ValidationInfo) -> Hybrid:
        if hybrid == Hybrid.HPZ and info.data.get("profile") == Profile.TORCH:
            raise ValueError("hpz (DeepSpeed ZeRO++) is a paper-profile choice: PyTorch's engines keep no secondary "
                             "partition; use hsdp with the torch profile")
        return hybrid

    @field_validator("recompute_blocks", mode="before")
    @classmethod
    def _compact_choices(cls, value: Any) -> Any:
        """The compact text 'full*16,none*16' (core.per_block) as well as a list; an empty text is no list."""
        if isinstance(value, str):
            return parse_per_block(value) if value.strip() else None
        return value

    @field_validator("recompute_blocks")
    @classmethod
    def _one_choice_per_block(cls, choices: list[str] | None, info: ValidationInfo) -> list[str] | None:
        model = info.data.get("model")
        if choices is None or model is None:  # a model that failed its own check is reported by itself
            return choices
        blocks = model.blocks
        if blocks is None:
            raise ValueError("a choice per block needs the model's blocks: give an architecture, not a parameter count")
        if len(choices) != blocks:
            raise ValueError(f"give one choice per block: {len(choices)} given, the model has {blocks} blocks")
        return choices

    @property
    def params(self) -> int:
        return self.model.param_count

    @property
    def shard_size(self) -> int:
        """The ranks each sharded state is spread over: the shard group N with HSDP, all Nd without a group and
        with hpZ (whose group, cluster.shard_size, holds only its secondary parameter shard)."""
        return self.cluster.shard_size if self.hybrid == Hybrid.HSDP else self.dp

    @property
    def replicas(self) -> int:
        """Nd / N: the groups that each hold a whole copy of the sharded states (1 without a shard group)."""
        return self.dp // self.shard_size

    @property
    def dp(self) -> int:
        return self.cluster.data_parallel

    @property
    def kernel_device(self) -> str:
        """The device whose kernels the activations follow: kernels as set, else cuda when the plan names a GPU."""
        if self.kernels != KERNELS.default:  # set: cpu or cuda
            return self.kernels
        return "cuda" if self.cluster.gpu or self.cluster.gpu_memory_bytes else "cpu"

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step over the whole job: micro-batch x accumulation steps x Nd."""
        return self.micro_batch * self.accum_steps * self.dp


def plan_from_json(text: str, source: str = "plan") -> Plan:
    """The plan in a file's text, strictly (PlanError in one sentence naming source otherwise)."""
    plan = _plan_straight_from(text)
    return plan if plan is not None else _plan_from_data(parse_json(text, source), source, text)


def _plan_straight_from(text: str) -> Plan | None:
    """The plan validated straight from its text when nothing in it needs parse_json's careful reading, else None;
    None too when it is refused, so that parse_json and _plan_from_data say why in their words. A big file is
    then parsed once, not twice (a 600,000-tensor list: half the time the window waits for)."""
    if not plain_json(text):
        return None
    try:
        with no_collector_pauses():
            plan = Plan.model_validate_json(text, strict=True, context={"file": True})
    except (validation_error(), ValueError, RecursionError):
        return None
    return plan if plan.model.hf_config is None or all_finite(plan.model.hf_config) else None


def is_hf_config(path: str | os.PathLike) -> bool:
    """A JSON object with a model_type and no plan `model`: a Hugging Face config.json, not a plan.

    False when it cannot be read (the plan reader then says why)."""
    try:
        return _is_hf_config_data(read_json(path, "file"))
    except PlanError:
        return False


def _is_hf_config_data(data: Any) -> bool:
    return isinstance(data, dict) and "model_type" in data and "model" not in data


def _plan_from_data(data: Any, source: str, text: str | None = None) -> Plan:
    """The plan in JSON data (parse_json's); `text`: the JSON text it was parsed from, validated as it is rather
    than dumped again (the same values: parse_json accepted it, and both keep the last of duplicate keys)."""
    if not isinstance(data, dict):
        raise PlanError(f"{source} must hold a JSON object, not {type(data).__name__}")
    if _is_hf_config_data(data):
        raise PlanError(f"{source} is a Hugging Face config (it has a model_type), not a ZeroDesk plan; "
                        "read it as a config (--config)")
    if "model" not in data:  # any JSON object at all: say what a plan is, not which field pydantic missed first
        raise PlanError(f"{source} is not a ZeroDesk plan: it names no model (a plan gives \"model\" as a preset "
                        "name, a parameter count or an architecture)")
    try:
        # strict JSON types: true is not 1, 1.5 or 2.0 is not a count, "false" is not False, "7B" is not a number
        with no_collector_pauses():
            return Plan.model_validate_json(text if text is not None else json.dumps(data), strict=True,
                                            context={"file": True})
    except RecursionError:
        raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
    except validation_error() as exc:
        if exc.errors()[0]["type"] == "json_invalid":  # parse_json checked the text: only its depth is left to refuse
            raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
        raise PlanError(f"{source}: {explain(exc)}") from None


def load_plan(path: str | os.PathLike) -> Plan:
    return plan_from_bytes(read_file(path, "plan file"), f"plan file {shorten(os.fspath(path), 200)}")


def load_plan_observed(path: str | os.PathLike) -> tuple[Plan, DiskState]:
    """The plan and what the file was when read (a save's `expect`, so it never overwrites a later change)."""
    data, state = read_observed(path, "plan file")
    return plan_from_bytes(data, f"plan file {shorten(os.fspath(path), 200)}"), state


def plan_from_bytes(data: bytes, source: str) -> Plan:
    return plan_from_json(decode_text(data, source), source)


@cache
def _tensor_list() -> Any:
    """The tensor list's JSON writer (pydantic's), built when a plan holding one is first saved."""
    from pydantic import TypeAdapter

    return TypeAdapter(list[tuple[str, tuple[int, ...]]])


def plan_to_json(plan: Plan) -> str:
    """The plan file's text: indented JSON, except a tensor list, which is written on one line (indented, each
    dimension on a line of its own, 600,000 tensors would take 49 MB, past the 16 MiB a plan file may be)."""
    tensors = plan.model.tensors
    if not tensors:
        return plan.model_dump_json(indent=2, exclude_none=True) + "\n"
    marker = os.urandom(16).hex()  # stands in for the list in the indented text, then gives way to it
    stand_in = plan.model_copy(update={"model": plan.model.model_copy(update={"tensors": [(marker, ())]})})
    text = stand_in.model_dump_json(indent=2, exclude_none=True) + "\n"
    at = re.search(r'\[\s*\[\s*"' + marker + r'",\s*\[\]\s*\]\s*\]', text)
    assert at is not None, "the tensor list's stand-in is in the text"
    return text[:at.start()] + _tensor_list().dump_json(tensors).decode() + text[at.end():]


def save_plan(plan: Plan, path: str | os.PathLike, expect: DiskState | None = None) -> SaveReport:
    """Write the plan file atomically (core.atomic_save); `expect`: what the caller last saw there, so a file
    changed since is not overwritten (FileChangedOnDisk). PlanError in one sentence when it cannot be saved."""
    text = plan_to_json(plan)
    size = len(text.encode("utf-8", "surrogatepass")) if 4 * len(text) > MAX_FILE_BYTES else len(text)
    if size > MAX_FILE_BYTES:  # a file no reader would open again: refused before anything is written
        raise PlanError(f"cannot save plan file {shorten(os.fspath(path), 200)}: the plan would take "
                        f"{size / 2**20:,.1f} MiB, more than the {MAX_FILE_BYTES // 2**20} MiB a plan file may be")
    try:
        return atomic_write_text(path, text, expect)
    except FileChangedOnDisk:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise PlanError(f"cannot save plan file {shorten(os.fspath(path), 200)}: {os_reason(exc)}") from None
