"""The plan: what the user describes (model, scheme, cluster, units). Pydantic v2, JSON round-trip."""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import socket
import stat
import time
from enum import Enum
from math import prod
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from .architecture import Architecture, default_ffn, param_count, tensor_shapes
from .text import shorten
from .evidence import EvidenceRecord
from .units import Unit, parse_count

__all__ = ["Architecture", "default_ffn"]  # re-exported: plans, catalogs and the worker import it from here

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
    # Lax here, as the form hands its texts to the core to judge; files are read strictly (_plan_from_data).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_enum_values=False, allow_inf_nan=False)


class ModelSpec(_Strict):
    """Either a raw parameter count or an architecture (then the count is exact)."""

    name: str | None = None
    params: int | None = Field(default=None, ge=1, le=10**15, description="parameter count P")
    architecture: Architecture | None = None
    # A model type ZeroDesk has no layout for, read by transformers (measure/hf_tensors.py): its exact
    # tensor list for the torch profile, and the config the worker rebuilds it from.
    tensors: list[tuple[str, tuple[int, ...]]] | None = Field(default=None, description="named tensor shapes")
    hf_config: dict[str, Any] | None = Field(default=None, description="the Hugging Face config.json it came from")
    # The model's own step, fitted under fake tensors (zerodesk.measure.step_template), for a structure without a
    # built-in one: core.step_template evaluates it without torch.
    step_template: dict[str, Any] | None = Field(default=None, description="the step template of its structure")

    @field_validator("params", mode="before")
    @classmethod
    def _parse_params(cls, value):
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
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


MAX_GPU_MEMORY = 10**15  # 1 PB: a thousand times today's largest GPU, and safely a float
MAX_RANKS = 65_536  # the torch profile lists every rank; beyond this the per-rank view stops being useful


class Cluster(_Strict):
    nodes: int = Field(default=1, ge=1, le=100_000, description="machines")
    # validate_default: --nodes alone must meet the rank limit with the default GPUs per node too
    gpus_per_node: int = Field(default=8, ge=1, le=1024, validate_default=True, description="GPUs per machine")
    dp: int | None = Field(default=None, ge=1, le=MAX_RANKS, description="data-parallel degree Nd; default nodes x GPUs")
    gpu: str | None = Field(default=None, description="GPU preset name")
    gpu_memory_bytes: int | None = Field(default=None, ge=1, le=MAX_GPU_MEMORY, description="memory of one GPU in bytes")
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
    schema_version: int = Field(default=SCHEMA_VERSION, ge=1)
    model: ModelSpec
    scheme: Scheme = Scheme.MIXED_ADAM
    profile: Profile = Profile.PAPER
    cluster: Cluster = Cluster()
    seq_len: int = Field(default=2048, ge=1, le=10_000_000, description="tokens per sequence")
    micro_batch: int = Field(default=1, ge=1, le=1_000_000, description="sequences per rank per step")
    units: Unit = "GB"
    # at least 1 MB/s: below that the transfer times leave the range of finite numbers in JSON
    bandwidth_gbps: float = Field(default=100.0, ge=1e-3, le=1e6, description="per-rank link bandwidth in GB/s")
    evidence: list[EvidenceRecord] | None = Field(
        default=None, description="simulated and measured results kept with the plan (core.evidence)")
    recompute: Literal["none", "selective", "full"] = Field(
        default="none", description="activation recomputation per block: none, selective (attention) or full")
    cuda_allowance_bytes: int = Field(
        default=0, ge=0, le=10**13, description="bytes set aside per GPU for the CUDA context and allocator")
    optimizer_impl: Literal["foreach", "fused", "for-loop"] = Field(
        default="foreach", description="AdamW's kernels: foreach (torch's CUDA default), fused or for-loop")
    shard_placement: Literal["dim0", "auto"] = Field(
        default="dim0", description="FSDP2's shard dimension: dim0 (its default) or auto (a tensor whose dim 0 is "
                                    "below Nd on its largest dimension Nd divides)")
    kernels: Literal["cpu", "cuda"] | None = Field(
        default=None, description="whose attention and norm kernels the activations follow; default the plan's "
                                  "device (cuda when it names a GPU)")
    offload: Offload = Offload.NONE
    offload_target: Literal["cpu", "nvme"] = "cpu"
    pcie_gbps: float = Field(default=25.0, ge=1e-3, le=1e4, description="host<->device bandwidth per GPU in GB/s")

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

    @property
    def kernel_device(self) -> str:
        """The device whose kernels the activations follow: kernels as set, else cuda when the plan names a GPU."""
        if self.kernels is not None:
            return self.kernels
        return "cuda" if self.cluster.gpu or self.cluster.gpu_memory_bytes else "cpu"


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


MAX_FILE_BYTES = 16 * 2**20  # plans, configs and catalogs are kilobytes; a bigger file is not one of ours
MAX_NUMBER_DIGITS = 40  # far above any count or byte size we accept (10^15), far below Python's 4300-digit limit


class _NumberTooLarge(ValueError):
    pass


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _NumberTooLarge(f"a number with {len(text.lstrip('-')):,} digits")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberTooLarge(f"the number {shorten(text)}")
    return value


def _json_constant(name: str) -> float:
    raise _NumberTooLarge(f"{name}, which is not a JSON number")


def parse_json(text: str, source: str) -> Any:
    """JSON text to data; anything that is not plain, finite, reasonably nested JSON is one PlanError naming the source."""
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise PlanError(f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except _NumberTooLarge as exc:
        raise PlanError(f"{source} holds {exc}; numbers must be finite and at most {MAX_NUMBER_DIGITS} digits") from None
    except RecursionError:
        raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
    except (ValueError, OverflowError, MemoryError) as exc:  # whatever else the decoder refuses
        raise PlanError(f"{source} is not valid JSON ({shorten(str(exc))})") from None


def read_file(path: str | os.PathLike, what: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; every failure is one PlanError naming what and where.

    Opened without blocking (a FIFO must not hang us) and checked to be a regular file before reading, so
    devices such as /dev/zero, sockets and directories are refused rather than read."""
    where = shorten(os.fspath(path), 200)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise PlanError(f"cannot read {what} {where}: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PlanError(f"{what} {where} is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise PlanError(f"{what} {where} is {info.st_size / 2**20:,.0f} MiB; "
                            f"a ZeroDesk file is at most {MAX_FILE_BYTES // 2**20} MiB")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:  # st_size can lie (procfs, a file still growing)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise PlanError(f"{what} {where} is larger than {MAX_FILE_BYTES // 2**20} MiB")
        return b"".join(chunks)
    except OSError as exc:
        raise PlanError(f"cannot read {what} {where}: {_reason(exc)}") from None
    finally:
        os.close(fd)


def _reason(exc: BaseException) -> str:
    return shorten(getattr(exc, "strerror", None) or str(exc), 120)


def decode_json(data: bytes, source: str) -> Any:
    """File bytes (UTF-8, an optional BOM) to JSON data; PlanError otherwise."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PlanError(f"{source} is not UTF-8 text") from None
    return parse_json(text, source)


def read_json(path: str | os.PathLike, what: str) -> Any:
    """Read a UTF-8 JSON file; every failure is one PlanError naming what it is and where ('catalog /x.json')."""
    return decode_json(read_file(path, what), f"{what} {shorten(os.fspath(path), 200)}")


def read_model(path: str | os.PathLike, what: str, model: type[BaseModel]) -> Any:
    """read_json, then validate as `model`; a problem is one PlanError naming what and where ('glossary /x.json: ...')."""
    data = read_json(path, what)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise PlanError(f"{what} {path}: {explain(exc)}") from None


def require_bool(value: Any, what: str) -> bool:
    """A JSON true/false, nothing else: the string "false" or the number 0 is an error, not a truth value."""
    if not isinstance(value, bool):
        raise PlanError(f"{what} must be true or false, not {shorten(json.dumps(value), 40)}")
    return value


def plan_from_json(text: str, source: str = "plan") -> Plan:
    return _plan_from_data(parse_json(text, source), source)


def _plan_from_data(data: Any, source: str) -> Plan:
    if not isinstance(data, dict):
        raise PlanError(f"{source} must hold a JSON object, not {type(data).__name__}")
    try:
        # strict JSON types: true is not 1, 1.5 or 2.0 is not a count, "false" is not False
        return Plan.model_validate_json(json.dumps(data), strict=True)
    except RecursionError:
        raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":  # the text was valid JSON: only its depth can be refused here
            raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
        raise PlanError(f"{source}: {explain(exc)}") from None


def load_plan(path: str | os.PathLike) -> Plan:
    return plan_from_bytes(read_file(path, "plan file"), f"plan file {shorten(os.fspath(path), 200)}")


def plan_from_bytes(data: bytes, source: str) -> Plan:
    return _plan_from_data(decode_json(data, source), source)


def plan_to_json(plan: Plan) -> str:
    return plan.model_dump_json(indent=2, exclude_none=True) + "\n"


TEMP_PREFIX = ".zerodesk-save-"  # short and fixed: the temp name fits beside a 255-byte file name
STALE_TEMP_S = 600.0  # a temp this old is left by a crash wherever it came from
_HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]  # whose pids a temp name speaks of


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write beside the target, fsync, then rename over it: never a half-written file.

    A symlink is written through to its target. An existing file keeps its permission bits; a new one
    gets the usual 0666 less the umask. On Linux the data goes into an unnamed file (O_TMPFILE) that
    is given a name only for the instant of the rename, so a kill mid-save leaves nothing behind.
    Where that is not possible the temp's name carries this host and pid, and every save (and the
    window's open) sweeps the temps of processes that no longer exist (sweep_stale_temps)."""
    target = Path(os.path.realpath(path))
    folder = target.parent
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    sweep_stale_temps(folder)
    tmp = folder / f"{TEMP_PREFIX}{_HOST_TAG}-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    data = text.encode("utf-8")
    try:
        if not _write_unnamed(folder, tmp, data, mode):
            _write_named(tmp, data, mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def _write_all(fd: int, tmp: Path, data: bytes, mode: int | None) -> None:
    if mode is not None:
        _chmod(fd, tmp, mode)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def _write_unnamed(folder: Path, tmp: Path, data: bytes, mode: int | None) -> bool:
    """Write an O_TMPFILE and name it tmp; False where the system or file system cannot (then use a named temp)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        fd = os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, 0o666)  # the kernel applies the umask
    except OSError:
        return False
    try:
        _write_all(fd, tmp, data, mode)
        os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
        return True
    except OSError:  # e.g. EXDEV where /proc cannot link into this file system
        return False
    finally:
        os.close(fd)


def _write_named(tmp: Path, data: bytes, mode: int | None) -> None:
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0),
                 0o666)  # the kernel applies the umask
    try:
        _write_all(fd, tmp, data, mode)
    finally:
        os.close(fd)


def _chmod(fd: int, tmp: Path, mode: int) -> None:
    if os.chmod in os.supports_fd:
        os.chmod(fd, mode)
    else:  # Windows: only the read-only bit exists, set by name
        os.chmod(tmp, mode)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sweep_stale_temps(folder: str | os.PathLike) -> None:
    """Remove save temps in folder whose writer is gone: a dead process of this host, or older than STALE_TEMP_S."""
    try:
        entries = list(os.scandir(folder))
    except (OSError, ValueError):
        return
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(".tmp")):
            continue
        host, _, rest = entry.name[len(TEMP_PREFIX):].partition("-")
        pid = rest.partition("-")[0]
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            writer_gone = host == _HOST_TAG and pid.isdigit() and not _process_exists(int(pid))
            if writer_gone or now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_S:
                os.unlink(entry.path)
        except OSError:
            pass


def _process_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":  # os.kill(pid, 0) would terminate it on Windows: rely on the age instead
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, another user's
        return True
    return True


def save_plan(plan: Plan, path: str | os.PathLike) -> None:
    try:
        atomic_write_text(path, plan_to_json(plan))
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise PlanError(f"cannot save plan file {shorten(os.fspath(path), 200)}: {_reason(exc)}") from None
