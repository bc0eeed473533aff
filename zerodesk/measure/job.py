"""What a worker process is asked to do: a rank's and the simulation's command lines, read into a job.

Torch-free, so a job is read before torch is imported: the launcher reads it to size its ranks and
check the host, and a bad plan or stage list is one WorkerError("bad_plan") sentence, never a traceback.
The other side of these command lines is runner.measure_command / simulate_command.
"""

from __future__ import annotations

import argparse

from ..core.plan import Plan, PlanError, plan_from_json
from .protocol import SIMULATED_BACKENDS, Scale, WorkerError, scale_plan

SCALED = ("layers", "hidden", "seq", "vocab")


def _common(prog: str, description: str, what: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=description)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--plan-json", help="the plan as JSON text")
    src.add_argument("--plan", help="a *.zerodesk.json plan file")
    p.add_argument("--stage", "--stages", dest="stages", default="0,1,2,3", help=f"stages to {what}, e.g. 0,1,2,3")
    return p


def rank_arguments() -> argparse.ArgumentParser:
    """`python -m zerodesk.measure.worker`: one rank, under our launcher or torchrun."""
    p = _common("python -m zerodesk.measure.worker", "One rank of a measured training step: `python -m "
                "zerodesk.measure.worker --plan-json '<json>' --stage 0,1,2,3`.", "measure")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--scale-json", default=None, help="a protocol Scale as JSON")
    for field in SCALED:
        p.add_argument(f"--{field}-scale", type=float, default=None)
    p.add_argument("--warmup", type=int, default=1, help="warm-up steps before the measured one")
    p.add_argument("--no-samples", action="store_true", help="do not stream the live memory timeline")
    # the launcher runs one stage per set of ranks (see launcher.main): which one, and its part of the protocol
    p.add_argument("--only-stage", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-started", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-done", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--t0", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--collective-timeout", type=float, default=None, metavar="S",
                   help="fail a collective that waits longer than S seconds (NCCL/gloo), so a hung peer is named")
    _shard_group_argument(p)
    _by_module_argument(p)
    return p


def _by_module_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--by-module", action="store_true",
                   help="report the peak's composition by module and FSDP2 unit too (Result.by_module)")


def _shard_group_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shard-group", type=int, default=None, metavar="N",
                   help="shard among N consecutive ranks and replicate across the groups (HSDP on a 2-D mesh; "
                        "ZeRO-1 in the group); N divides the ranks; default the plan's shard group")


def simulation_arguments() -> argparse.ArgumentParser:
    """`python -m zerodesk.measure.worker.simulate`: rank 0 of a fake world."""
    p = _common("python -m zerodesk.measure.worker.simulate", "Simulated full-size step of one rank: `python -m "
                "zerodesk.measure.worker.simulate --plan-json '<json>' --stage 2,3 --dp N`.", "simulate")
    p.add_argument("--backend", choices=SIMULATED_BACKENDS, default="nccl", help="whose collective copies to model")
    p.add_argument("--dp", type=int, default=None, help="data-parallel degree Nd (default: the plan's)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up steps before the simulated one")
    p.add_argument("--tracked-warmup", action="store_true",
                   help="stages 2-3: track the warm-up too, as real ranks do (the same figures, slower)")
    p.add_argument("--fast-warmup", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts
    p.add_argument("--full-model", action="store_true",
                   help="stages 2-3: simulate every block (the same figures, slower; the default simulates a model of "
                        "many identical blocks from 3, 4 and 5 of them where the tracker's stream proves it exact)")
    p.add_argument("--full-warmup", action="store_true",
                   help="stages 2-3: warm up with every block's arithmetic (the same figures, slower; the default "
                        "leaves it out of the untracked warm-up and checks the measured step ends as it started)")
    _shard_group_argument(p)
    _by_module_argument(p)
    return p


def _plan(args: argparse.Namespace) -> Plan:
    if args.plan_json is not None:
        return plan_from_json(args.plan_json, source="--plan-json")
    with open(args.plan, encoding="utf-8") as fh:
        return plan_from_json(fh.read(), source=f"plan file {args.plan}")


def _scale(args: argparse.Namespace) -> Scale:
    data = Scale.model_validate_json(args.scale_json).model_dump() if args.scale_json else {}
    for field in SCALED:
        if getattr(args, f"{field}_scale") is not None:
            data[field] = getattr(args, f"{field}_scale")
    return Scale.model_validate(data)


def _stage_list(text: str) -> list[int]:
    return sorted({int(s) for s in str(text).split(",") if s.strip()})


def _check_stages(stages: list[int], text: str) -> None:
    if not stages or any(s not in (0, 1, 2, 3) for s in stages):
        raise WorkerError("bad_plan", f"stages must be among 0, 1, 2, 3, not {text!r}")


def rank_job(args: argparse.Namespace) -> tuple[Plan, Scale, list[int]]:
    """(plan scaled down, the scale, stages) of rank_arguments()."""
    try:
        plan, scale, stages = _plan(args), _scale(args), _stage_list(args.stages)
    except (PlanError, OSError, ValueError) as exc:
        raise WorkerError("bad_plan", f"{exc}".splitlines()[0]) from None
    _check_stages(stages, args.stages)
    try:
        return scale_plan(plan, scale), scale, stages
    except ValueError as exc:
        raise WorkerError("bad_plan", str(exc).splitlines()[0]) from None


def simulation_job(args: argparse.Namespace) -> tuple[Plan, list[int], int]:
    """(plan, stages, Nd) of simulation_arguments(), refused early when the plan cannot be simulated."""
    try:
        plan, stages = _plan(args), _stage_list(args.stages)
    except (PlanError, OSError, ValueError) as exc:
        raise WorkerError("bad_plan", f"{exc}".splitlines()[0]) from None
    _check_stages(stages, args.stages)
    dp = plan.dp if args.dp is None else args.dp
    if dp < 1:
        raise WorkerError("bad_plan", f"--dp must be at least 1, not {dp}")
    if not plan.model.buildable:
        raise WorkerError("bad_plan", "simulating needs an architecture (layers, hidden, heads, ffn, vocab), "
                                      "not only a parameter count")
    check_positions(plan)
    return plan, stages, dp


def run_shard_group(plan: Plan, world: int, asked: int | None = None) -> int:
    """N for a run of `world` ranks: --shard-group, else the plan's shard group, else the world (flat).

    A plan's group at least as large as the run is the whole run (a scaled-down run of a larger cluster);
    otherwise it must divide the ranks, or the run is refused in one sentence (bad_plan)."""
    if asked is not None:
        if not 1 <= asked <= world or world % asked:
            raise WorkerError("bad_plan", f"--shard-group ({asked}) must divide the {world} ranks of this run")
        return asked
    group = plan.cluster.shard_group if plan.hybrid.value == "hsdp" else None
    if group is None or group >= world:
        return world
    if world % group:
        raise WorkerError("bad_plan", f"the plan's shard group ({group}) must divide the {world} ranks of this run")
    return group


def check_positions(plan: Plan) -> None:
    """A learned position table holds the sequence, or one bad_plan sentence (after any scaling)."""
    arch = plan.model.architecture
    if arch is not None and arch.positions == "learned" and plan.seq_len > arch.max_positions:
        raise WorkerError("bad_plan",
                          f"sequence length {plan.seq_len} exceeds the learned position table ({arch.max_positions})")
