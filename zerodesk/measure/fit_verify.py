"""`zerodesk fit --verify`: a fit answer checked by simulation at its boundary, the batch that fits and one more.

The simulator (simulate.py, in its own process, as `zerodesk simulate` runs it) plays PyTorch's engines, so the
boundary checked is the `torch` profile's with the CPU kernels' saved tensors (plan.kernels "cpu": the simulator runs
CPU kernels, whatever GPU the plan names); the simulated peak has no CUDA allowance and compares with the usable
memory. The simulation agrees when the batch fits (its simulated peak is at most the usable memory) and one more
does not (above it), each within a tolerance: none for the command, 3% for benchmarks/fit_verify.py (the boundary is
as sharp as the peak's prediction).
Torch-free: the simulation runs in a subprocess.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.fit import MAX_MICRO_BATCH, batch_boundary, usable_memory
from ..core.plan import Plan, Profile
from ..core.units import fmt_bytes

if TYPE_CHECKING:
    from .job_server import JobServer


@dataclass(frozen=True)
class Boundary:
    """What fit predicts for one configuration (torch profile): the largest micro-batch and the peaks around it."""

    stage: int
    recompute: str
    micro_batch: int  # 0: not even 1 fits
    usable_bytes: int
    predicted_bytes: int | None  # at micro_batch
    predicted_above_bytes: int | None  # at micro_batch + 1


@dataclass(frozen=True)
class Check:
    boundary: Boundary
    simulated_bytes: int | None  # at micro_batch (None: not simulated, micro_batch 0)
    simulated_above_bytes: int | None  # at micro_batch + 1 (None: beyond the largest batch a plan allows)
    tolerance: float  # the share of the usable memory a figure may miss by: b may read above it, b + 1 below it
    error: str | None = None  # why the simulation gave no figure

    @property
    def fits(self) -> bool | None:
        if self.simulated_bytes is None:
            return None
        return self.simulated_bytes <= self.boundary.usable_bytes * (1 + self.tolerance)

    @property
    def above_over(self) -> bool | None:
        if self.simulated_above_bytes is None:
            return None
        return self.simulated_above_bytes > self.boundary.usable_bytes * (1 - self.tolerance)

    @property
    def agrees(self) -> bool:
        return self.error is None and self.fits is not False and self.above_over is not False and (
            self.fits is not None or self.above_over is not None)


def torch_plan(plan: Plan, recompute: str, micro_batch: int | None = None) -> Plan:
    update: dict[str, Any] = {"profile": Profile.TORCH, "recompute": recompute, "kernels": "cpu"}  # as simulated
    if micro_batch is not None:
        update["micro_batch"] = micro_batch
    return Plan.model_validate(plan.model_copy(update=update).model_dump())


def boundary(plan: Plan, stage: int, recompute: str) -> Boundary:
    """The torch profile's boundary for this configuration (what the simulator runs)."""
    trial = torch_plan(plan, recompute)
    best, at, above = batch_boundary(trial, stage, recompute)
    return Boundary(stage, recompute, best, usable_memory(trial), at, above)


def simulated_peak(plan: Plan, stage: int, python: str | None, timeout: float, progress: bool,
                   server: "JobServer | None" = None) -> tuple[int | None, str | None]:
    """One stage's simulated peak (bytes) for this plan, or (None, why not); the simulation runs in a subprocess
    (forked from `server`'s warm worker where it can be)."""
    from .cli_text import collect
    from .interpreter import resolve_python
    from .rules import simulate_seconds
    from .run_state import RunState
    from .runner import MeasureRun, simulate_command

    python, problem = resolve_python(python)
    if problem:
        return None, problem
    run = iter(MeasureRun(simulate_command(plan, [stage], python), timeout=timeout, server=server))
    state = collect(run, RunState([stage], plan.dp, kind="simulated"),
                    estimate=(lambda _device: simulate_seconds(plan, 1)) if progress else None)
    if state.error is not None:
        return None, state.error.message
    peaks = [r.peak_bytes for r in state.sorted_results() if r.stage == stage]
    return (peaks[0], None) if peaks else (None, "the simulation finished without a result")


def uses_transformers(plan: Plan) -> bool:
    """Whether the worker builds the plan's model with transformers: every family but ZeroDesk's own decoder
    (worker/model.py's built_by_transformers, which this torch-free side does not import)."""
    arch = plan.model.architecture
    return arch is None or arch.family != "custom"


def check(plan: Plan, b: Boundary, python: str | None = None, timeout: float = 600.0, tolerance: float = 0.0,
          progress: bool = False, server: "JobServer | None" = None) -> Check:
    """Simulate the boundary's batch and one more (the batch 1 alone when nothing fits).

    The simulations are forked from a warm worker (torch imported once): `server`, else one for this check."""
    from .interpreter import resolve_python
    from .job_server import JobServer

    batches = [batch for batch in (b.micro_batch, b.micro_batch + 1) if 1 <= batch <= MAX_MICRO_BATCH]
    if server is None and len(batches) > 1:
        resolved, problem = resolve_python(python)
        if problem is None:
            with JobServer(resolved, transformers=uses_transformers(plan)) as own:
                return check(plan, b, python, timeout, tolerance, progress, own)
    figures: list[int | None] = []
    for batch in (b.micro_batch, b.micro_batch + 1):
        if batch not in batches:
            figures.append(None)
            continue
        peak, error = simulated_peak(torch_plan(plan, b.recompute, batch), b.stage, python, timeout, progress, server)
        if error is not None:
            return Check(b, *(figures + [None, None])[:2], tolerance, error)
        figures.append(peak)
    return Check(b, figures[0], figures[1], tolerance)


def _pct(nbytes: int, usable: int) -> str:
    return f"{100 * nbytes / usable:.1f}% of usable"


def check_text(c: Check, unit: str) -> str:
    b = c.boundary
    what = f"stage {b.stage}, recompute {b.recompute}"
    head = (f"Verify ({what}, torch profile, simulated rank 0 under fake tensors; usable "
            f"{fmt_bytes(b.usable_bytes, unit)}):")
    lines = [head]
    for batch, sim, pred in ((b.micro_batch, c.simulated_bytes, b.predicted_bytes),
                             (b.micro_batch + 1, c.simulated_above_bytes, b.predicted_above_bytes)):
        if sim is not None:
            said = f", predicted {fmt_bytes(pred, unit)}" if pred is not None else ""
            lines.append(f"  micro-batch {batch:,}: simulated {fmt_bytes(sim, unit)} ({_pct(sim, b.usable_bytes)}){said}")
    if c.error is not None:
        lines.append(f"  the simulation gave no figure: {c.error}")
        return "\n".join(lines)
    if b.micro_batch == 0:
        verdict = ("agrees: micro-batch 1 does not fit" if c.agrees else "disagrees: micro-batch 1 fits in simulation")
    elif c.agrees:
        verdict = f"agrees: micro-batch {b.micro_batch:,} fits" + (
            f" and {b.micro_batch + 1:,} does not" if c.above_over is not None else " (the largest a plan allows)")
    else:
        wrong = []
        if c.fits is False:
            wrong.append(f"micro-batch {b.micro_batch:,} does not fit")
        if c.above_over is False:
            wrong.append(f"micro-batch {b.micro_batch + 1:,} fits too")
        verdict = "disagrees: " + " and ".join(wrong)
    tolerance = f" (within {c.tolerance:.0%} of the usable memory)" if c.tolerance else ""
    lines.append(f"  The simulation {verdict}{tolerance}.")
    return "\n".join(lines)


def check_json(c: Check) -> dict[str, Any]:
    b = c.boundary
    return {"stage": b.stage, "recompute": b.recompute, "profile": "torch", "micro_batch": b.micro_batch,
            "usable_bytes": b.usable_bytes, "predicted_bytes": b.predicted_bytes,
            "predicted_above_bytes": b.predicted_above_bytes, "simulated_bytes": c.simulated_bytes,
            "simulated_above_bytes": c.simulated_above_bytes, "tolerance": c.tolerance, "agrees": c.agrees,
            "error": c.error}


def progress_wanted(json_output: bool) -> bool:
    return sys.stderr.isatty() and not json_output
