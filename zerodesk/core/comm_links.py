"""Communication per rank per step, split by link: what each collective sends inside a node and between nodes.

Each stage is a short list of collectives (all-reduce, reduce-scatter, all-gather, broadcast) over a group of
ranks: all Nd ranks, the shard group of N consecutive ranks, the replicate group of the Nd/N ranks that hold the
same shard, or hpZ's secondary group. A ring collective over n ranks sends (n-1)/n of its buffer S per rank (the
ring factor; all-reduce twice that, a reduce-scatter then an all-gather). With g members of the group on each
node, k = n/g nodes, the ring has n hops of which k cross a node boundary, and NCCL's channels take turns at
which GPU crosses, so 1/g of what each rank sends goes over its NIC:

    between nodes   S (n-1)/n / g        inside the node   S (n-1)/n (1 - 1/g)

and a group inside one node (g = n) sends nothing between nodes. Data-parallel ranks sit node by node,
Nd x GPUs per node / world of them on a node (other parallelism inside the node); the split is exact when a
group lines up with the nodes (N divides the ranks per node or is a multiple of them). HSDP's point shows at
once: a shard group inside a node keeps its all-gathers and reduce-scatters on NVLink, and only the replicas'
all-reduce of one shard, 2 (S/N)(R-1)/R, leaves the node.

A step of k micro-batches (plan.accum_steps) repeats some collectives (times_per_step): gradients are reduced on
every micro-batch (accum_sync=every: DDP's all-reduce, the reduce-scatter and the replicas' all-reduce, k times) or
on the last only (accum_sync=last: DDP's no_sync, FSDP2's set_requires_gradient_sync(False): once); parameters
resharded between micro-batches are gathered again for each (stage 3's forward and backward all-gathers, and
FSDP2's stage-2 forward all-gather, as FSDP2 reshards after every backward), k times either way; the rest follow
the optimizer step, once (ZeroRedundancyOptimizer's broadcast; the paper's stages 1-2 all-gather of the updated
parameters, whole at rest). At k = 1 every collective runs once.

Seconds are bytes over the link's bandwidth per GPU and per direction. Compute is not modelled, and overlapping
communication with compute hides part of this time: every figure here is a lower bound on what the step spends
communicating, and max(intra, inter) the bound when both links work at once. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor

from .options import Hybrid, Profile
from .plan import Plan

OPS = ("all-reduce", "reduce-scatter", "all-gather", "broadcast")


@dataclass(frozen=True)
class ElementBytes:
    """Bytes per element of what the collectives move (accounting.element_bytes gives the plan's)."""

    grad: int  # gradients reduced
    gather: int  # parameters all-gathered
    broadcast: int = 4  # parameters ZeroRedundancyOptimizer broadcasts (torch profile, stage 1)
    dense_grad: int | None = None  # gradients DDP all-reduces (torch profile, stages 0-1); None: grad


# The torch engines with the default policy: DDP and FSDP2 reduce FP32 gradients (reduce_dtype), FSDP2 gathers BF16
# parameters (MixedPrecisionPolicy(param_dtype=bf16)), ZeroRedundancyOptimizer broadcasts its FP32 parameters.
# core.knobs.torch_element_bytes gives a plan's own.
TORCH_BYTES = ElementBytes(grad=4, gather=2, broadcast=4, dense_grad=4)


@dataclass(frozen=True)
class Collective:
    op: str  # one of OPS
    what: str  # "gradients" or "parameters"
    phase: str  # when in the step: "forward", "backward" or "step" (after the optimizer)
    group: str  # "all" (Nd ranks), "shard" (N), "replicate" (Nd/N), "secondary" (hpZ's N)
    size: int  # ranks in the group, n
    per_node: Fraction  # members of the group on one node, g
    payload_bytes: Fraction  # the buffer S one call works on (a replicate all-reduce: one shard)
    intra_node_bytes: int  # what one rank sends over the intra-node link, per step (every call)
    inter_node_bytes: int  # ... and between nodes
    times: int = 1  # calls per step: k for what repeats with each of k micro-batches (times_per_step)

    @property
    def bytes(self) -> int:
        return self.intra_node_bytes + self.inter_node_bytes


@dataclass(frozen=True)
class StageComm:
    stage: int
    collectives: tuple[Collective, ...]
    intra_node_bytes: int
    inter_node_bytes: int
    total_bytes: int  # the exact sum, rounded down once (the links' figures are each rounded down)
    intra_node_seconds: float
    inter_node_seconds: float

    @property
    def lower_bound_seconds(self) -> float:
        """Both links busy at once and no compute in the way: the least time this traffic can take."""
        return max(self.intra_node_seconds, self.inter_node_seconds)

    @property
    def serial_seconds(self) -> float:
        """One link after the other (a hierarchical collective's phases), still without compute."""
        return self.intra_node_seconds + self.inter_node_seconds


def split(op: str, payload: Fraction, size: int, per_node: Fraction) -> tuple[Fraction, Fraction]:
    """(intra-node, inter-node) bytes one rank sends in `op` over a group of `size` ranks, `per_node` on a node."""
    if op not in OPS:
        raise ValueError(f"unknown collective {op!r}")
    if size <= 1:
        return Fraction(0), Fraction(0)
    g = min(Fraction(size), max(Fraction(1), per_node))
    times = 2 if op == "all-reduce" else 1  # reduce-scatter, then all-gather
    ring = times * payload * Fraction(size - 1, size)
    inter = ring / g if g < size else Fraction(0)  # k = n/g boundary hops of n: 1/g of the ring crosses nodes
    return ring - inter, inter


def groups(plan: Plan) -> dict[str, tuple[int, Fraction]]:
    """Each group's (size, members per node) for this plan's layout."""
    dp, n, per_node = plan.dp, plan.shard_size, plan.cluster.dp_per_node
    return {
        "all": (dp, min(Fraction(dp), per_node)),
        "shard": (n, min(Fraction(n), per_node)),  # N consecutive ranks
        # ranks N apart: per_node / N of them on a node when the group fits in one, else one
        "replicate": (dp // n, min(Fraction(dp // n), max(Fraction(1), per_node / n))),
    }


def _steps(plan: Plan, stage: int, size: ElementBytes) -> list[tuple[str, str, str, str, Fraction]]:
    """(op, what, phase, group, payload bytes) of the stage's collectives, in step order."""
    p, n = plan.params, plan.shard_size
    grad, gather = Fraction(size.grad * p), Fraction(size.gather * p)
    if plan.profile == Profile.TORCH:
        if stage <= 1:  # DDP all-reduces every gradient; ZeroRedundancyOptimizer broadcasts its updated fp32 tensors
            out = [("all-reduce", "gradients", "backward", "all", Fraction((size.dense_grad or size.grad) * p))]
            return out + ([("broadcast", "parameters", "step", "shard", Fraction(size.broadcast * p))]
                          if stage == 1 else [])
        # FSDP2 (HSDP on a 2-D mesh): forward all-gather, backward (stage 3) all-gather again, reduce-scatter in
        # the shard group and an all-reduce of the shard across replicas
        return _sharded(stage, grad, gather, n)
    if stage == 0:  # §7.2: data parallelism all-reduces the gradients
        return [("all-reduce", "gradients", "backward", "all", grad)]
    if plan.hybrid == Hybrid.HPZ:  # ZeRO++ hpZ: only stage 3 changes; backward gathers from the secondary shard
        flat = [("all-gather", "parameters", "forward", "all", gather)]  # (shard_size is Nd: no replicas)
        if stage == 3:
            flat.append(("all-gather", "parameters", "backward", "secondary", gather))
        return flat + [("reduce-scatter", "gradients", "backward", "all", grad)]
    # §7.2.1-7.2.2: a reduce-scatter of the gradients and an all-gather of the parameters (twice at stage 3)
    return _sharded(stage, grad, gather, n)


def _sharded(stage: int, grad: Fraction, gather: Fraction, n: int) -> list[tuple[str, str, str, str, Fraction]]:
    """Stages 1-3 over a shard group of N: all-gathers and a reduce-scatter in the group; with replicas, the
    shard's reduced gradients are then all-reduced across them (FSDP2's HSDP, MiCS)."""
    gathers = [("all-gather", "parameters", "forward", "shard", gather)]
    if stage == 3:  # resharded after forward: gathered again for backward
        gathers.append(("all-gather", "parameters", "backward", "shard", gather))
    return gathers + [("reduce-scatter", "gradients", "backward", "shard", grad),
                      ("all-reduce", "gradients", "backward", "replicate", grad / n)]


def times_per_step(plan: Plan, stage: int, what: str, phase: str) -> int:
    """How often a collective of the one-micro-batch step runs in a step of plan.accum_steps micro-batches."""
    k = plan.accum_steps
    if what == "gradients":  # reduced on every micro-batch, or only on the last (no_sync)
        return k if plan.accum_sync == "every" else 1
    # parameters: gathered again for each micro-batch where they are resharded between micro-batches
    if phase != "step" and (stage == 3 or (stage == 2 and plan.profile == Profile.TORCH)):
        return k
    return 1


def stage_comm(plan: Plan, stage: int, size: ElementBytes) -> StageComm:
    """The stage's collectives, the bytes one rank sends over each link per step (of plan.accum_steps
    micro-batches), and their time.

    size: the element sizes of the plan's scheme or engines (accounting.comm_by_link passes them)."""
    sizes = groups(plan)
    n = plan.cluster.shard_size  # hpZ's secondary partition: among the group's N consecutive ranks
    sizes["secondary"] = (n, min(Fraction(n), plan.cluster.dp_per_node))
    found, intra_sum, inter_sum = [], Fraction(0), Fraction(0)
    for op, what, phase, group, payload in _steps(plan, stage, size):
        size, per_node = sizes[group]
        times = times_per_step(plan, stage, what, phase)
        intra, inter = (times * b for b in split(op, payload, size, per_node))
        intra_sum, inter_sum = intra_sum + intra, inter_sum + inter
        if size > 1:  # a group of one rank moves nothing: left out
            found.append(Collective(op, what, phase, group, size, min(Fraction(size), per_node), payload, floor(intra),
                                    floor(inter), times))
    cl = plan.cluster
    intra_b, inter_b = floor(intra_sum), floor(inter_sum)
    return StageComm(stage, tuple(found), intra_b, inter_b, floor(intra_sum + inter_sum),
                     intra_b / (cl.intra_node_gbps * 1e9), inter_b / (cl.inter_node_gbps * 1e9))

