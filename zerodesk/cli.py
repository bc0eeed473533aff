"""Command line: `zerodesk plan | fit | measure | simulate`; with no subcommand the window opens (cli_window).

Imports neither Qt nor torch at module level: `zerodesk plan` answers in a fraction of a second. Its parts: the
parser (cli_parser), the flags' value types (cli_values), the plan flags (cli_plan_flags), the plan they compose
(cli_plan), the window's command line (cli_window), each command's help (cli_help) and `fit` (fit_command).
"""

from __future__ import annotations

from . import start_collector

start_collector.hold()  # before the imports: the start's long-lived objects are not walked again and again (main, the window release it)

import argparse  # noqa: E402  isort: skip
import os
import sys

from .cli_help import COMMANDS as COMMAND_HELP
from .cli_help import epilog
from .cli_parser import CliError, _Parser
from .cli_plan import plan_from_args
from .cli_plan_flags import FIELD_FLAGS, add_plan_arguments  # noqa: F401  (FIELD_FLAGS re-exported, as tests name it)
from .cli_window import _gui_command, _window_parser
from .core.json_files import json_text
from .core.plan import Plan, PlanError
from .core.text import shorten


def listed_catalog(args: argparse.Namespace) -> bool:
    """Print the presets asked for by --list-presets / --list-gpus / --list-networks (JSON with --json); False when
    none was asked."""
    lists = {"models": args.list_presets, "gpus": args.list_gpus, "networks": args.list_networks}
    if not any(lists.values()):
        return False
    from .core import report

    if getattr(args, "json", False):
        print(json_text(report.preset_json(**lists)))
    else:
        print(report.preset_listing(**lists))
    return True


def command_parser(command: str) -> _Parser:
    """The parser of `zerodesk COMMAND` ("window": no command): its description and examples (cli_help), the
    plan flags and the command's own."""
    if command == "window":
        return _window_parser()
    parser = _Parser(prog=f"zerodesk {command}", description=COMMAND_HELP[command][1], epilog=epilog(command))
    add_plan_arguments(parser)
    if command == "plan":
        parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    elif command == "fit":
        from . import fit_command

        fit_command.add_arguments(parser)
    else:
        from .measure import command as measure_command, sim_command

        (measure_command if command == "measure" else sim_command).add_arguments(parser)
    return parser


def _composed(args: argparse.Namespace) -> Plan:
    """The plan of the flags; a note on how it was composed comes first in a text answer (not with --json)."""
    notes: list[str] = []
    plan = plan_from_args(args, notes=notes)
    if not getattr(args, "json", False):
        for line in notes:
            print(line, flush=True)
    return plan


def _plan_command(args: argparse.Namespace) -> int:
    plan = _composed(args)
    from .core import report
    from .core.accounting import compute

    breakdown = compute(plan)
    if args.json:
        print(json_text(report.plan_json(plan, breakdown)))
    else:
        print(report.plan_table(plan, breakdown))
    return 0


def _measure_command(args: argparse.Namespace) -> int:
    from .measure import command
    from .measure.lifeline import exit_on_hangup

    plan = _composed(args)
    exit_on_hangup()  # SIGTERM/SIGHUP stop the ranks on the way out, as Ctrl+C does
    return command.main(args, plan)


def _simulate_command(args: argparse.Namespace) -> int:
    from .measure import sim_command
    from .measure.lifeline import exit_on_hangup

    plan = _composed(args)
    exit_on_hangup()
    return sim_command.main(args, plan)


def _fit_command(args: argparse.Namespace) -> int:
    from . import fit_command

    plan = _composed(args)
    if args.verify:  # the simulations stop on the way out, as measure's ranks do
        from .measure.lifeline import exit_on_hangup

        exit_on_hangup()
    return fit_command.main(args, plan)


COMMANDS = {"plan": _plan_command, "fit": _fit_command, "measure": _measure_command, "simulate": _simulate_command}
assert list(COMMANDS) == list(COMMAND_HELP)  # each command listed in `zerodesk --help`, in this order


def window_main(argv: list[str] | None = None) -> int:
    """`zerodesk-gui`: the window (or the lesson) with every flag `zerodesk` takes for it, and no commands."""
    return main(argv, gui_script=True)


def main(argv: list[str] | None = None, gui_script: bool = False) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        command, rest = (argv[0], argv[1:]) if argv and argv[0] in COMMANDS and not gui_script else ("window", argv)
        parser = _window_parser(gui_script=True) if gui_script else command_parser(command)
        args = parser.parse_args(rest)
        if command in COMMANDS:  # not the window: imported and parsed, its start is over
            start_collector.release()
        if listed_catalog(args):
            return 0
        return (COMMANDS.get(command) or _gui_command)(args)
    except (CliError, PlanError) as exc:
        message = shorten(exc, 1000)  # one line whatever the user typed: control characters escaped
        print(message if message.startswith("zerodesk") else f"zerodesk: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: still one line, details on request
        if os.environ.get("ZERODESK_DEBUG"):
            raise
        print(f"zerodesk: internal error ({type(exc).__name__}: {shorten(exc, 300)}); "
              "rerun with ZERODESK_DEBUG=1 for details",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
