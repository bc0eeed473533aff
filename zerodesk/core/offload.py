"""Offload, kept apart from the stages: what stays on each GPU, what moves to host memory or NVMe, and the
host<->device traffic it costs per step.

The card: moving states to CPU memory or storage "is described separately and not attributed to each stage".
So the stage tables stay as they are and offload is a second answer per stage where it applies:

- `paper` profile, the bookkeeping of ZeRO-Offload (Ren et al. 2021, §4) and ZeRO-Infinity (Rajbhandari et al.
  2021, §5): `optimizer` moves the optimizer states and the gradients of this rank's partition to host memory
  (ZeRO-2 partitioning: stages 2 and 3); the 16-bit parameters stay on the GPU. `optimizer+params` (stage 3 only)
  moves the parameter partition too; the GPU keeps only the working set of the layer being computed. With the
  `nvme` target the offloaded states live on NVMe; pinned host staging buffers are configurable and not counted.
- `torch` profile: FSDP2 with `CPUOffloadPolicy` (stages 2 and 3 only): the sharded fp32 parameters, their
  gradients and AdamW's state all live in host memory, exactly the resting bytes of the torch profile; the GPU
  holds only the gathered bf16 parameters while a group computes. FSDP2 has no optimizer-only mode and no NVMe.

DeepSpeed's own estimator (`estimate_zero2/3_model_states_mem_needs_all_cold`) is reproduced by formula in
`deepspeed_estimate`, so its figures can be shown beside ours with each difference explained.
Pure Python: no Qt, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, prod

from .accounting import SCHEMES, STAGES, sharded
from .figures import check_figures
from .knobs import gathered_params
from .notes import Note, note
from .plan import Offload, Plan, Profile

DEEPSPEED_BUFFER_FACTOR = 1.5  # DeepSpeed's `additional_buffer_factor` default


@dataclass(frozen=True)
class OffloadStage:
    """One stage's answer with offload: bytes on each kind of memory and the traffic per step."""

    stage: int
    applicable: bool
    reason: Note | None = None  # why offload does not apply at this stage, when not applicable
    gpu: dict[str, int] = field(default_factory=dict)  # resting states left on one GPU, by component
    # transient working set on the GPU (gathered layer / groups) while computing; None: unknown, because it
    # needs the model's shapes (a raw parameter count has no layers)
    gpu_working_bytes: int | None = 0
    host_per_rank: dict[str, int] = field(default_factory=dict)  # offloaded states of the largest rank, by component
    offloaded_node_bytes: int = 0  # offloaded states of the heaviest node: every rank on it counted
    ranks_per_node: int = 1
    on_nvme: bool = False
    traffic_bytes: int = 0  # host<->device bytes per rank per step (both directions)
    traffic_formula: str = ""
    formula: str = ""

    def __post_init__(self) -> None:
        check_figures(self)

    @property
    def gpu_bytes(self) -> int:
        return sum(self.gpu.values())

    @property
    def host_bytes_per_node(self) -> int:
        return 0 if self.on_nvme else self.offloaded_node_bytes

    @property
    def nvme_bytes_per_node(self) -> int:
        return self.offloaded_node_bytes if self.on_nvme else 0


@dataclass(frozen=True)
class OffloadBreakdown:
    offload: Offload
    target: str
    profile: Profile
    pcie_gbps: float
    stages: list[OffloadStage]
    notes: list[Note] = field(default_factory=list)

    def stage(self, s: int) -> OffloadStage:
        return self.stages[s]


def fsdp2_offloads(plan: Plan) -> bool:
    """The plan offloads what FSDP2's CPUOffloadPolicy can: parameters too, to host memory (its stages 2-3 run so)."""
    return plan.offload == Offload.OPTIMIZER_PARAMS and plan.offload_target == "cpu"


def traffic_seconds(nbytes: int, pcie_gbps: float) -> float:
    """Time to move the step's host<->device bytes at `pcie_gbps` GB/s (1 GB = 1e9 B), no overlap assumed."""
    return nbytes / (pcie_gbps * 1e9)


def ranks_per_node(plan: Plan) -> int:
    """Data-parallel ranks whose offloaded states share one node's host memory."""
    return min(plan.cluster.gpus_per_node, plan.dp)


def _not_applicable(stage: int, reason: str) -> OffloadStage:
    """A stage offload does not apply to, and why (a note id of zerodesk.core.notes)."""
    return OffloadStage(stage, applicable=False, reason=note(reason))


def compute_offload(plan: Plan) -> OffloadBreakdown | None:
    """Per-stage offload figures for the plan's offload choice; None when the plan offloads nothing."""
    if plan.offload == Offload.NONE:
        return None
    if plan.profile == Profile.TORCH:
        stages, notes = _torch(plan), [note("fsdp2_offload_step_on_cpu")]
    else:
        stages, notes = _paper(plan), []
    return OffloadBreakdown(plan.offload, plan.offload_target, plan.profile, plan.pcie_gbps, stages, notes)


# -- paper profile: ZeRO-Offload / ZeRO-Infinity bookkeeping -----------------------------------------------
def _paper(plan: Plan) -> list[OffloadStage]:
    spec = SCHEMES[plan.scheme]
    p, dp = plan.params, plan.shard_size  # sharded among the shard group (Nd without one)
    shard = ceil(p / dp)
    param_b = sum(c.bytes_per_param for c in spec.components if c.state_class == "param")
    grad_b = sum(c.bytes_per_param for c in spec.components if c.state_class == "grad")
    with_params = plan.offload == Offload.OPTIMIZER_PARAMS
    out = []
    for s in STAGES:
        if s < 2:
            out.append(_not_applicable(s, "offload_from_stage_2"))
            continue
        if with_params and s < 3:
            out.append(_not_applicable(s, "offload_params_at_stage_3"))
            continue
        gpu, host = {}, {}
        for c in spec.components:
            count = shard if sharded(c.state_class, s) else p
            moves = c.state_class != "param" or with_params
            (host if moves else gpu)[c.key] = ceil(c.bytes_per_param * count)
        # at stage 3 the parameters are partitioned, so the layer being computed is gathered (the paper's
        # minimum working set, 16-bit parameters and gradients of the largest layer); unknown without shapes
        layer = largest_layer_params(plan)
        working = 0 if s < 3 else None if layer is None else ceil((param_b + grad_b) * layer)
        gathered = f" + {param_b + grad_b:g}L working (L = largest layer)" if s == 3 else ""
        if with_params:
            # ZeRO-Infinity: the partition is fetched for forward and again for backward; gradients go out
            traffic = ceil((2 * param_b + grad_b) * shard)
            tformula = f"{2 * param_b:g}P/Nd params in (forward, backward) + {grad_b:g}P/Nd grads out"
            kept = "0 at rest" + gathered
        else:
            # ZeRO-Offload: gradients out, the updated 16-bit parameters back in
            traffic = ceil((grad_b + param_b) * shard)
            tformula = f"{grad_b:g}P/Nd grads out + {param_b:g}P/Nd params in"
            kept = f"{param_b:g}P" + ("/Nd" if s == 3 else "") + gathered
        moved = sum(c.bytes_per_param for c in spec.components if c.state_class != "param" or with_params)
        where = "NVMe" if plan.offload_target == "nvme" else "host"
        rpn = ranks_per_node(plan)
        out.append(OffloadStage(s, True, gpu=gpu, gpu_working_bytes=working, host_per_rank=host,
                                offloaded_node_bytes=sum(host.values()) * rpn, ranks_per_node=rpn,
                                on_nvme=plan.offload_target == "nvme", traffic_bytes=traffic,
                                traffic_formula=tformula, formula=f"GPU {kept}; {where} {moved:g}P/Nd per rank"))
    return out


# -- torch profile: FSDP2 with CPUOffloadPolicy ---------------------------------------------------------------
def _torch(plan: Plan) -> list[OffloadStage]:
    from . import torch_profile

    shapes = plan.model.census  # an architecture's tensors, or a tensor list read by transformers, counted by shape
    dp, out = plan.dp, []
    for s in STAGES:
        if plan.offload == Offload.OPTIMIZER:
            out.append(_not_applicable(s, "fsdp2_no_optimizer_only"))
            continue
        if plan.offload_target == "nvme":
            out.append(_not_applicable(s, "fsdp2_host_only"))
            continue
        if s < 2:
            out.append(_not_applicable(s, "offload_fsdp2_stages_only"))
            continue
        per_node = ranks_per_node(plan)
        node_total, largest = _heaviest_node(
            torch_profile.hybrid_runs(shapes, plan.params, s, dp, plan.shard_size, placement=plan.shard_placement),
            per_node)
        host = {k: largest[k] for k in ("params", "grads", "optimizer")}
        padded_shard = largest["params"]  # fp32 bytes of this rank's padded parameter shard
        gathers = 1 if s == 2 else 2  # reshard_after_forward=True gathers again for backward
        traffic = gathers * padded_shard + largest["grads"]
        working = gathered_params(plan, s) if shapes else None  # with the plan's policy and wrapping
        out.append(OffloadStage(
            s, True, gpu={"params": 0, "grads": 0, "optimizer": 0}, gpu_working_bytes=working, host_per_rank=host,
            offloaded_node_bytes=node_total, ranks_per_node=per_node, on_nvme=False, traffic_bytes=traffic,
            traffic_formula=f"{4 * gathers}P/Nd fp32 shards in ({'forward' if s == 2 else 'forward, backward'})"
                            " + 4P/Nd fp32 grads out",
            formula="GPU 0 at rest; host 16P/Nd per rank (dim 0 padded)"))
    return out


def _heaviest_node(runs: list[tuple[int, dict[str, int]]], per_node: int) -> tuple[int, dict[str, int]]:
    """(offloaded bytes of the heaviest node, the largest rank on it), ranks laid out node by node.

    Walks the run-length ranks once (O(nodes + runs)), so Nd = 65,536 costs no per-rank list."""
    def states(r: dict[str, int]) -> int:
        return r["params"] + r["grads"] + r["optimizer"]

    best: tuple[int, dict[str, int]] | None = None
    node_total, node_largest, left = 0, None, per_node
    for count, r in runs:
        while count:
            take = min(count, left)
            node_total += take * states(r)
            if node_largest is None or states(r) > states(node_largest):
                node_largest = r
            count, left = count - take, left - take
            if left == 0:
                if best is None or node_total > best[0]:
                    best = (node_total, node_largest)
                node_total, node_largest, left = 0, None, per_node
    if node_largest is not None and (best is None or node_total > best[0]):  # a last, partly filled node
        best = (node_total, node_largest)
    assert best is not None, "no ranks"
    return best


def largest_layer_params(plan: Plan) -> int | None:
    """DeepSpeed's `largest_layer_params`: the most parameters one module owns directly (its own tensors).

    Modules are the tensor names without their last component (`blocks.0.attn.q.weight` -> `blocks.0.attn.q`).
    None for a raw parameter count: it has no layers, so the figures that need L are unknown, not 0.
    """
    named = plan.model.named_shapes
    if named is None:
        return None
    modules: dict[str, int] = {}
    for name, shape in named:
        module = name.rsplit(".", 1)[0]
        modules[module] = modules.get(module, 0) + prod(shape)
    return max(modules.values())


# -- DeepSpeed's estimator, by its published formulas ----------------------------------------------------------
@dataclass(frozen=True)
class DeepSpeedEstimate:
    """One row of DeepSpeed's cold estimate: bytes per GPU and host bytes per node."""

    stage: int
    offload_optimizer: bool
    offload_params: bool
    zero_init: bool
    gpu_bytes: int | None  # None: its 4L term needs the largest layer, unknown without the architecture
    host_bytes_per_node: int | None
    formula: str

    def __post_init__(self) -> None:
        check_figures(self)


def deepspeed_estimate(stage: int, params: int, largest_layer: int | None, gpus_per_node: int, nodes: int,
                       offload_optimizer: bool, offload_params: bool = False, zero_init: bool = True,
                       buffer_factor: float = DEEPSPEED_BUFFER_FACTOR) -> DeepSpeedEstimate:
    """DeepSpeed's `estimate_zero2_model_states_mem_needs` (stage 2) / `estimate_zero3_...` (stage 3).

    Stage 2: GPU 2P + 18P/N (no offload) or 2P (optimizer offload); host per node 4P·gpus/node·f, or
    max(4·N, 16)·P·f with offload. Stage 3: GPU 4L + 18P/N, 4L + 2P/N or 4L; host per node as in its code.
    N = all GPUs, L = largest layer, f = the buffer factor (1.5). DeepSpeed prints these in GiB labelled "GB".
    L None (a raw count): stage 3's GPU figures are unknown (None), and so is its host figure that counts 4L.
    """
    total = gpus_per_node * nodes
    f = buffer_factor
    if stage == 2:
        if offload_params:
            raise ValueError("ZeRO-2 cannot offload parameters")
        if offload_optimizer:
            gpu, host, formula = 2 * params, params * max(4 * total, 16) * f, "GPU 2P; host max(4N, 16)·P·1.5"
        else:
            gpu = 2 * params + int(18 * params / total)
            host, formula = params * 4 * gpus_per_node * f, "GPU 2P + 18P/N; host 4P·gpus/node·1.5"
        return DeepSpeedEstimate(2, offload_optimizer, False, zero_init, int(gpu), int(host), formula)
    if stage != 3:
        raise ValueError("DeepSpeed's estimator covers ZeRO-2 and ZeRO-3")
    per_node = 1 / nodes
    layer = None if largest_layer is None else 4 * largest_layer
    if offload_optimizer and offload_params:
        gpu = layer
        host = params * (18 * per_node if zero_init else max(4 * gpus_per_node, 18 * per_node)) * f
        formula = "GPU 4L; host 18P/nodes·1.5"
    elif offload_optimizer:
        gpu = None if layer is None else layer + int(2 * params / total)
        host = params * (16 * per_node if zero_init else max(4 * gpus_per_node, 16 * per_node)) * f
        formula = "GPU 4L + 2P/N; host 16P/nodes·1.5"
    else:
        gpu = None if layer is None else layer + int(18 * params / total)
        # with zero.Init each GPU's process holds the largest layer; without it, the whole FP32 model
        held = params if not zero_init else largest_layer
        host = None if held is None else held * 4 * gpus_per_node * f
        formula = "GPU 4L + 18P/N; host 4L·gpus/node·1.5"
    return DeepSpeedEstimate(3, offload_optimizer, offload_params, zero_init, None if gpu is None else int(gpu),
                             None if host is None else int(host), formula)


def deepspeed_for_plan(plan: Plan) -> list[DeepSpeedEstimate]:
    """DeepSpeed's cold estimate for the plan's offload choice at stages 2 and 3 (where it applies)."""
    layer = largest_layer_params(plan)
    gpn, nodes = plan.cluster.gpus_per_node, plan.cluster.nodes
    opt = plan.offload != Offload.NONE
    with_params = plan.offload == Offload.OPTIMIZER_PARAMS
    rows = []
    if not with_params:
        rows.append(deepspeed_estimate(2, plan.params, layer, gpn, nodes, opt))
    rows.append(deepspeed_estimate(3, plan.params, layer, gpn, nodes, opt, with_params))
    return rows


# -- which memory runs out first -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Pressure:
    memory: str  # "gpu" | "host"
    used: int
    available: int

    @property
    def fraction(self) -> float:
        return self.used / self.available


def pressures(stage: OffloadStage, gpu_memory: int | None, host_memory: int | None,
              gpu_on_top: int = 0) -> list[Pressure]:
    """Used vs available for each memory the plan knows the size of, tightest first.

    gpu_on_top: what comes on top of the resting states on the GPU (activations, buffers) in bytes.
    """
    out = []
    if gpu_memory:  # an unknown working set (no shapes) is left out: the GPU's figure is then a lower bound
        out.append(Pressure("gpu", stage.gpu_bytes + (stage.gpu_working_bytes or 0) + gpu_on_top, gpu_memory))
    if host_memory and not stage.on_nvme:
        out.append(Pressure("host", stage.host_bytes_per_node, host_memory))
    return sorted(out, key=lambda p: p.fraction, reverse=True)
