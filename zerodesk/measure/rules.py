"""The measure rules the CLI and the window share: device, ranks, host fit, differences, units.

Torch-free and Qt-free. Front ends phrase the verdicts in their own words (and language);
the numbers and thresholds live only here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from ..core.plan import Plan
from ..core.units import UNIT_BYTES, UNIT_NOTES, scaled_unit  # noqa: F401  byte units: the plan's family, stepping down

STAGES = (0, 1, 2, 3)
HOST_SHARE = 0.7  # CPU ranks may use at most this share of the host's free memory for model states
MAX_DEFAULT_RANKS = 2  # a laptop-friendly default: the plan's Nd, at most this many local ranks
MAX_LOCAL_RANKS = 64  # the launcher's limit: one process each on this machine (GPU runs: also one per GPU)


def unit_family(plan: Plan | None) -> str:
    """'GB' (decimal) or 'GiB' (binary): the plan's choice."""
    return "GB" if plan is None or plan.units == "GB" else "GiB"


def table_unit(largest: float, family: str) -> str:
    """One unit for a set of figures: the largest step of the family's ladder not above `largest`, else B."""
    return scaled_unit(largest, family)


def difference_pct(value: int | float, reference: int | float) -> float | None:
    """(value - reference) / reference in %; 0 when both are 0, None when only the reference is 0."""
    if reference == 0:
        return 0.0 if value == 0 else None
    return 100.0 * (value - reference) / reference


def resolved_device(device: str, gpus: int | None = None) -> str:
    """What a run will use, as far as a front end can tell without torch: "cuda", "cpu" or "auto" (undecided).

    "auto" is decided once, by the launcher, which asks torch (devices.decide_device). A front end that
    has asked the interpreter how many GPUs its torch sees (`gpus`) knows the answer beforehand."""
    if device != "auto" or gpus is None:
        return device
    return "cuda" if gpus > 0 else "cpu"


def default_ranks(plan: Plan | None, device: str = "auto", gpus: int | None = None) -> int:
    """Local ranks when the user has not chosen: the plan's Nd, at most MAX_DEFAULT_RANKS, one per GPU on CUDA.

    The launcher applies the same rule when no --ranks is given (devices.default_ranks)."""
    from .devices import default_ranks as rule

    dev = resolved_device(device, gpus)
    dp = plan.dp if plan is not None else 1
    return rule(dp, dev, gpus if gpus is not None else MAX_DEFAULT_RANKS, MAX_DEFAULT_RANKS)


_STATES_CACHE: dict[tuple, int] = {}  # the window asks again for the same shapes on every redraw of the Measure tab


def predicted_states(plan: Plan, stages: Iterable[int], ranks: int) -> dict[int, int]:
    """Torch-profile state bytes of the largest rank per stage (what the ranks will hold at rest).

    With a shard group the ranks hold what the group's do (job.run_shard_group; a group the ranks cannot take
    is refused by the worker, and counted flat here)."""
    from ..core.torch_profile import rank_runs
    from .job import run_shard_group
    from .protocol import WorkerError

    try:
        ranks = run_shard_group(plan, ranks)  # the largest rank of the group is the largest of the run
    except WorkerError:
        pass

    m = plan.model
    # P follows the shapes: an architecture, a tensor list (any Hugging Face model type) or a raw count
    src = m.architecture.model_dump_json() if m.architecture is not None else (
        tuple((n, tuple(sh)) for n, sh in m.tensors) if m.tensors else m.params)
    base = (src, ranks, plan.shard_placement)
    shapes, params = None, None
    out = {}
    for s in stages:
        if (*base, s) not in _STATES_CACHE:
            if params is None:
                params = plan.params
                named = m.named_shapes
                shapes = [shape for _, shape in named] if named is not None else None
            if len(_STATES_CACHE) > 512:
                _STATES_CACHE.clear()
            _STATES_CACHE[(*base, s)] = max(sum(r.values()) for _, r in rank_runs(shapes, params, s, ranks,
                                                                                 placement=plan.shard_placement))
        out[s] = _STATES_CACHE[(*base, s)]
    return out


def host_available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (None where unknown): CPU ranks must not exhaust the host."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass(frozen=True)
class HostRefusal:
    """CPU ranks whose model states alone would not fit: `need` bytes of `ranks` ranks vs `free` bytes."""

    ranks: int
    need: int
    free: int


def host_fit(plan: Plan, stages: Iterable[int], ranks: int, device: str, free: int | None = None,
             gpus: int | None = None) -> HostRefusal | None:
    """None when the run may start; a refusal when CPU ranks' states need more than HOST_SHARE of free memory.

    device: as asked; "auto" is judged here only when `gpus` is known, else the launcher judges it once it
    has decided. free: MemAvailable in bytes (read from the host when None; unknown hosts are not refused)."""
    if resolved_device(device, gpus) != "cpu":
        return None
    stages = list(stages)
    if not stages:
        return None
    free = host_available_bytes() if free is None else free
    if free is None:
        return None
    need = ranks * max(predicted_states(plan, stages, ranks).values())
    return HostRefusal(ranks, need, free) if need > HOST_SHARE * free else None


# Rough timing for the "how long" line, from CPU runs on a 2-core machine (benchmarks/bench_estimate.py prints
# the estimate beside the run). On CPU a small model's stage is bound by memory traffic per parameter
# (initialising, gradients, the optimizer step, fresh pages) more than by its flops.
START_S = {"cpu": 4.0, "cuda": 10.0}  # the launcher imports torch (and transformers for a Hugging Face layout)
STAGE_OVERHEAD_S = {"cpu": 0.7, "cuda": 2.0}  # start the stage's ranks, join the process group, build the engine
PARAM_S = {"cpu": 20e-9, "cuda": 0.2e-9}  # per parameter and stage on one rank
FLOPS_PER_RANK = {"cpu": 5e10, "cuda": 7e12}  # a training step is 6 x P x tokens flops (tracked: ~3x on CUDA)
STEPS = 2  # a warm-up step and the measured one
SIM_START_S = 4.0  # one process imports torch and builds the fake process group
SIM_S_PER_TENSOR = 0.01  # fake tensors cost per tensor, not per byte (a 7B model at Nd = 64: ~11 s)


def cpu_share(processes: int) -> float:
    """How many times slower `processes` busy processes run here than alone on a core: the machine's cores
    shared with each other and with what already runs (the 1-minute load average, where the system has one)."""
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows
        busy = 0.0
    return max(1.0, (processes + busy) / (os.cpu_count() or 1))


def measure_seconds(plan: Plan, stages: int, ranks: int, device: str) -> float:
    """A rough wall time: start-up, then per stage a warm-up and a measured step under the trackers.

    CPU ranks share the machine's cores (cpu_share); "auto" (undecided) takes the slower guess, CPU."""
    dev = resolved_device(device)
    dev = dev if dev in START_S else "cpu"
    tokens = plan.seq_len * plan.micro_batch
    per_rank = STAGE_OVERHEAD_S[dev] + plan.params * (PARAM_S[dev] + STEPS * 6 * tokens / FLOPS_PER_RANK[dev])
    if dev != "cpu":
        return START_S[dev] + stages * per_rank
    return START_S[dev] * cpu_share(1) + stages * per_rank * cpu_share(ranks)


def simulate_seconds(plan: Plan, stages: int) -> float:
    """A rough wall time of a fake-tensor step: it grows with the number of tensors, not with their size."""
    named = plan.model.named_shapes
    tensors = len(named) if named is not None else 0
    return (SIM_START_S + stages * (1.0 + 2 * SIM_S_PER_TENSOR * tensors)) * cpu_share(1)  # warm-up, measured step
