"""Messages between a measuring worker and its reader (CLI or GUI): JSON lines, one object each.

Every message has a `kind` discriminator. The worker writes them to stdout and nothing else;
readers call decode() per line. Also what both sides must agree on besides the lines: the exit
statuses of a worker process and what the simulation offers. Torch-free: the GUI imports this module.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..core.knobs import resample_blocks
from ..core.options import OptimizerImpl
from ..core.plan import Architecture, Plan

PROTOCOL_VERSION = 1

Phase = Literal["setup", "warmup", "forward", "backward", "optimizer"]
ErrorCode = Literal[
    "no_gpu", "out_of_memory", "launcher_failed", "worker_crashed", "bad_plan", "tracker_unavailable",
    "timeout", "cancelled", "internal", "unsupported", "nccl", "host_memory",
]
# Where a figure comes from: a real step on real ranks, or one rank of a fake-tensor step (worker/simulate.py).
Source = Literal["measured", "simulated"]

# Exit status of a worker process (a rank, the launcher's ranks, the simulation): 0 done; EXIT_REPORTED: it wrote an
# Error line; EXIT_COLLATERAL: it only lost contact with another rank (the rank that failed reports); 130 interrupted.
EXIT_REPORTED, EXIT_COLLATERAL, EXIT_INTERRUPTED = 3, 4, 130

SIMULATED_STAGES = (0, 1, 2, 3)  # every stage runs under fake tensors (DDP's reducer replayed for 0 and 1)
SIMULATED_BACKENDS = ("nccl", "gloo")  # whose collective copies a simulation models


class WorkerError(Exception):
    """A failure a worker process reports as one Error message: its protocol code and one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class ProtocolError(ValueError):
    """A line that is not a protocol message; str() is one sentence."""


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # JSON has no Infinity/NaN: such a line is refused


class Scale(_Msg):
    """Scale-down of the planned model so a real step fits the machine (1.0 = as planned)."""

    layers: float = Field(default=1.0, gt=0, le=1)
    hidden: float = Field(default=1.0, gt=0, le=1, description="head width, hence hidden; ffn alike")
    seq: float = Field(default=1.0, gt=0, le=1)
    vocab: float = Field(default=1.0, gt=0, le=1)

    @property
    def identity(self) -> bool:
        return self.layers == self.hidden == self.seq == self.vocab == 1.0


def scale_plan(plan: Plan, scale: Scale) -> Plan:
    """The plan with its architecture and sequence scaled down (heads and kv heads keep their count)."""
    arch = plan.model.architecture
    if arch is None and plan.model.buildable and scale.identity:
        return plan  # read by transformers: measured as it is
    if arch is None and plan.model.buildable:
        raise ValueError("a model read by transformers (a tensor list) is measured at full size; "
                         "scaling it down needs an architecture")
    if arch is None:
        raise ValueError("measuring needs an architecture (layers, hidden, heads, ffn, vocab), "
                         "not only a parameter count")
    if scale.identity:
        return plan
    data = arch.model_dump()
    data["layers"] = max(1, round(arch.layers * scale.layers))
    if scale.hidden != 1.0:
        head_dim = max(1, round(arch.dim_per_head * scale.hidden))
        if arch.positions == "rotary" and arch.dim_per_head % 2 == 0:  # rotary pairs lanes: keep it even
            head_dim = max(2, 2 * round(arch.dim_per_head * scale.hidden / 2))
        if arch.head_dim is None:
            data["hidden"] = arch.heads * head_dim  # hidden stays a multiple of heads
        else:
            data["head_dim"] = head_dim
            # still a multiple of heads: transformers checks it even when head_dim is given (Gemma)
            data["hidden"] = arch.heads * max(1, round(arch.hidden * scale.hidden / arch.heads))
        data["ffn"] = max(1, round(arch.ffn * scale.hidden))
    data["vocab"] = max(1, round(arch.vocab * scale.vocab))
    if arch.family == "bloom":  # BLOOM's MLP is always 4 x hidden
        data["ffn"] = 4 * data["hidden"]
    if arch.rotary_dim is not None:  # the same fraction of the (scaled) head, an even number of lanes
        data["rotary_dim"] = max(2, 2 * round(arch.rotary_dim / arch.dim_per_head * (data["head_dim"] or
                                 data["hidden"] // arch.heads) / 2))
    if arch.embed_dim is not None:
        data["embed_dim"] = max(1, round(arch.embed_dim * scale.hidden))
    seq = max(1, round(plan.seq_len * scale.seq))
    if arch.positions == "learned":
        data["max_positions"] = max(seq, round(arch.max_positions * scale.seq))
    out = plan.model_dump()
    out["model"] = {"name": plan.model.name, "architecture": data}
    out["seq_len"] = seq
    if plan.recompute_blocks is not None:  # one choice per block of the scaled model, at the same depths
        out["recompute_blocks"] = list(resample_blocks(plan.recompute_blocks, data["layers"]))
    return Plan.model_validate(out)


class States(_Msg):
    """Model-state bytes of one rank at rest (after the optimizer step)."""

    params: int = Field(ge=0)
    grads: int = Field(ge=0)
    optimizer: int = Field(ge=0)

    @property
    def total(self) -> int:
        return self.params + self.grads + self.optimizer


class Started(_Msg):
    kind: Literal["started"] = "started"
    protocol: int = PROTOCOL_VERSION
    torch: str
    device: Literal["cpu", "cuda"]
    device_name: str | None = None
    ranks: int = Field(ge=1)
    stages: list[int]
    architecture: Architecture | None = None  # as measured, after scale-down; None: a tensor list from transformers
    params: int = Field(ge=1, description="parameter count of the measured model")
    seq_len: int = Field(ge=1)
    micro_batch: int = Field(ge=1)
    scale: Scale = Scale()
    source: Source = "measured"
    offload: bool = Field(default=False, description="stages 2-3 ran FSDP2 with CPUOffloadPolicy")
    optimizer_impl: OptimizerImpl | None = Field(
        default=None, description="AdamW's kernels, set explicitly by the worker (plan.optimizer_impl)")
    attention: str | None = Field(default=None, description="the SDPA kernel torch picks here (SDPBackend: FLASH_ATTENTION, "
                                                            "EFFICIENT_ATTENTION, CUDNN_ATTENTION, MATH); CUDA and CPU "
                                                            "differ, so do activations")
    shard_group: int | None = Field(default=None, ge=1, description="the ranks' shard group N (HSDP on a 2-D mesh "
                                                                     "(replicate, shard)); None or the ranks: flat")


class PhaseMsg(_Msg):
    kind: Literal["phase"] = "phase"
    stage: int
    rank: int
    phase: Phase
    progress: float = Field(ge=0, le=1)


class Sample(_Msg):
    """Live memory of one rank during the measured step: t seconds since the step began."""

    kind: Literal["sample"] = "sample"
    stage: int
    rank: int
    t: float = Field(ge=0)
    bytes: int = Field(ge=0)


ModuleKind = Literal["embedding", "attention", "mlp", "block", "head", "model", "loss", "optimizer", "buckets", "other"]


class ModuleShare(_Msg):
    """One part of the model at the step's peak moment, and what it holds then by category (worker/module_ledger.py).

    module: its path in the model ('blocks.3.attn'; '' the rest of the model), or outside the model '(loss)',
    '(loss backward)', '(optimizer step)', '(DDP gradient buckets)', '(before the step: inputs, buffers)'. kind:
    embedding, attention, mlp, block (a block's norms and residual adds), head, model (the rest), loss, optimizer,
    buckets, other."""

    module: str
    kind: ModuleKind
    unit: str | None = Field(default=None, description="the FSDP2 unit holding it ('' the root; None for DDP)")
    bytes: dict[str, int] = Field(description="category (activations, unsharded_params, grads, ...) -> bytes")

    @property
    def total(self) -> int:
        return sum(self.bytes.values())


class Result(_Msg):
    kind: Literal["result"] = "result"
    stage: int
    rank: int
    peak_bytes: int = Field(ge=0, description="tracked peak of the measured step")
    peak: dict[str, int] = Field(description="the peak moment by category (params, grads, optimizer, activations, ...)")
    phase_peaks: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="phase (forward, backward, optimizer) -> category -> bytes at that phase's peak, with 'total'")
    states: States = Field(description="measured at rest from live tensors and optimizer state, storages deduplicated")
    predicted_states: States = Field(description="zerodesk.core.torch_profile for the measured shapes")
    comm_buffers: int | None = Field(default=None, ge=0, description="DDP gradient buckets as DDP reports them")
    predicted_comm_buffers: int | None = Field(default=None, ge=0)
    max_allocated_bytes: int | None = Field(default=None, ge=0, description="CUDA only")
    max_reserved_bytes: int | None = Field(default=None, ge=0, description="CUDA only")
    allocated_at_start_bytes: int | None = Field(
        default=None, ge=0, description="CUDA only: allocated before the stage built its model (earlier stages' leftovers)")
    untracked_bytes: int | None = Field(
        default=None, ge=0, description="CUDA only: max allocated beyond the tracked peak: what the tracker never sees "
                                        "(cuBLAS/cuDNN workspaces, blocks held for other CUDA streams, 512 B rounding)")
    device_overhead_bytes: int | None = Field(
        default=None, ge=0, description="CUDA only: GPU memory in use but not by torch's allocator after the step "
                                        "(CUDA context, NCCL buffers, other processes)")
    step_s: float | None = Field(default=None, ge=0, description="wall time of the measured step")
    source: Source = "measured"
    method: str | None = Field(default=None, description="how a simulated result was simulated")
    by_module: list[ModuleShare] | None = Field(
        default=None, description="the peak moment by part of the model, largest first (asked with --by-module); "
                                  "the parts' bytes sum to peak_bytes")


class Error(_Msg):
    kind: Literal["error"] = "error"
    code: ErrorCode
    message: str = Field(description="one human sentence")
    stage: int | None = None
    rank: int | None = None


class Done(_Msg):
    kind: Literal["done"] = "done"
    wall_s: float | None = Field(default=None, ge=0)


Message = Annotated[Union[Started, PhaseMsg, Sample, Result, Error, Done], Field(discriminator="kind")]
_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def encode(msg: BaseModel) -> str:
    """One JSON line without the trailing newline."""
    return msg.model_dump_json(exclude_none=True)


def decode(line: str | bytes) -> Message:
    """Parse one line; anything else raises ProtocolError with one sentence."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    text = line.strip()
    shown = text if len(text) <= 80 else text[:77] + "..."
    if not text:
        raise ProtocolError("the measurement printed an empty line where a protocol message was expected")
    try:
        return _ADAPTER.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise ProtocolError(f"the measurement printed a line that is not JSON: {shown!r}") from None
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise ProtocolError(
            f"the measurement printed an invalid message ({where}: {first['msg']}): {shown!r}") from None
