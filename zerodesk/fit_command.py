"""`zerodesk fit`: what fits on the plan's GPUs (zerodesk.core.fit), as a table or one JSON object; --verify
simulates the recommended configuration at its boundary (zerodesk.measure.fit_verify).

Nothing here imports torch; the measure side is imported only for --verify.
"""

from __future__ import annotations

import argparse

from .core.json_files import json_text
from .core.plan import Plan, PlanError


class FitCommandError(PlanError):
    """One sentence for the user (the CLI prints it and exits with status 2)."""


def _python(text: str) -> str:
    from .measure.cli_text import parse_python

    return parse_python(text)


def _timeout(text: str) -> float:
    from .measure.cli_text import parse_timeout

    return parse_timeout(text)


def _global_batch(text: str) -> int:
    from .cli_values import _whole

    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of sequences")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    parser.add_argument("--global-batch", type=_global_batch, default=None, metavar="G",
                        help="the global batch wanted (sequences per optimizer step, all ranks): the fewest "
                             "accumulation steps that reach it at the plan's Nd, per stage and recompute mode "
                             "(--json: the \"global_batch\" key)")
    g = parser.add_argument_group("verify")
    g.add_argument("--verify", action="store_true",
                   help="simulate the recommended stage and recompute mode at its boundary (the largest micro-batch "
                        "that fits and one more) and say whether the simulation agrees; exit status 1 if it does not")
    g.add_argument("--python", type=_python, default=None, metavar="PATH",
                   help="the Python with torch that runs the simulation (--verify)")
    g.add_argument("--timeout", type=_timeout, default=600.0, metavar="S",
                   help="give up each simulation after S seconds (--verify; default 600)")


def main(args: argparse.Namespace, plan: Plan) -> int:
    if not plan.cluster.gpu_memory_bytes:
        raise FitCommandError("zerodesk fit: give the memory of one GPU (--gpu NAME, see zerodesk plan --list-gpus, "
                              "or --gpu-memory SIZE such as 80GiB); what fits depends on it")
    from .core.fit import FitError, global_batch_fit, solve
    from .core.fit_report import fit_json, fit_table, global_batch_json, global_batch_text

    answer = solve(plan)
    out = fit_json(answer, plan.units) if args.json else None
    status = 0
    text = None if args.json else fit_table(plan, answer)
    if args.global_batch is not None:
        try:
            wanted = global_batch_fit(plan, args.global_batch)
        except FitError as exc:
            raise FitCommandError(f"zerodesk fit: --global-batch: {str(exc).removeprefix('global batch: ')}") from None
        if out is not None:
            out["global_batch"] = global_batch_json(wanted)
        else:
            text = f"{text}\n\n{global_batch_text(wanted, plan.units)}"
    if plan.model.architecture is not None:  # the cheapest recomputation per block that fits (issue 30)
        from .core.fit_recompute import cheapest_fitting, policy_json, policy_text

        fits = cheapest_fitting(plan)
        if out is not None:
            out["cheapest_recompute"] = policy_json(fits)
        else:
            text = f"{text}\n\n{policy_text(plan, fits)}"
    if args.verify:
        from .measure import fit_verify

        rec = answer.recommendation
        if rec.stage is None:
            raise FitCommandError(f"zerodesk fit: --verify has nothing to check: no stage or recompute mode fits "
                                  f"micro-batch 1 at Nd = {plan.dp:,}")
        b = fit_verify.boundary(plan, rec.stage, rec.recompute)
        c = fit_verify.check(plan, b, python=args.python, timeout=args.timeout,
                             progress=fit_verify.progress_wanted(args.json))
        status = 0 if c.agrees else 1
        if out is not None:
            out["verify"] = fit_verify.check_json(c)
        else:
            note = "" if plan.profile.value == "torch" else (
                f"\nThe simulator runs PyTorch's engines, so the boundary checked is the torch profile's "
                f"(micro-batch {b.micro_batch:,}), not the {plan.profile.value} profile's.")
            text = f"{text}\n\n{fit_verify.check_text(c, plan.units)}{note}"
    print(json_text(out) if out is not None else text)
    return status
