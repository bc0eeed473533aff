"""The window's command line: `zerodesk` without a command, and `zerodesk-gui`: their parser, and the window (or
the lesson) opened on the plan their flags describe."""

from __future__ import annotations

import argparse

from . import __version__
from .cli_help import COMMANDS as COMMAND_HELP
from .cli_help import GUI_SCRIPT_DESCRIPTION, WINDOW_DESCRIPTION, WINDOW_USAGE, epilog
from .cli_parser import _Parser
from .cli_plan import plan_from_args
from .cli_plan_flags import add_plan_arguments
from .cli_values import _file, _whole
from .core.plan import is_hf_config


def _window_parser(listing_commands: bool = False, gui_script: bool = False) -> _Parser:
    """`zerodesk` without a command (or `zerodesk-gui`, which has none): the window's flags and the plan flags.

    The commands are dispatched before this parser runs (its optional FILE would be taken for one), so they
    are listed, as argparse's subparsers list them, only in the help: format_help() asks a twin that has them."""
    if gui_script:
        parser = _Parser(prog="zerodesk-gui", description=GUI_SCRIPT_DESCRIPTION, epilog=epilog("zerodesk-gui"))
    else:
        parser = _Parser(prog="zerodesk", usage=WINDOW_USAGE, description=WINDOW_DESCRIPTION, epilog=epilog("window"))
        if listing_commands:
            commands = parser.add_subparsers(title="commands", metavar="COMMAND",
                                             description="each has its own --help, e.g. zerodesk plan --help")
            for name, (summary, _) in COMMAND_HELP.items():
                commands.add_parser(name, help=summary, add_help=False)
        else:
            parser.format_help = lambda: _window_parser(listing_commands=True).format_help()
    parser.add_argument("plan_file", nargs="?", type=_file, metavar="FILE",
                        help="a *.zerodesk.json plan (or a config.json) to open")
    parser.add_argument("--screenshot", type=_file, metavar="PNG", help="render the window to a PNG and exit")
    # lesson mode: --lesson [N] opens the lesson at step N (its language: --lang)
    parser.add_argument("--lesson", nargs="?", type=_whole, const=1, metavar="N",
                        help="open the lesson at step N (1-7)")
    parser.add_argument("--version", action="version", version=f"zerodesk {__version__}")
    from .gui.app import add_window_arguments  # no Qt import at module level there

    add_window_arguments(parser)
    add_plan_arguments(parser)
    return parser


def _gui_command(args: argparse.Namespace) -> int:
    if args.plan_file is not None and args.plan is None:
        if is_hf_config(args.plan_file) and args.config is None:  # opened like a plan, imported as the window does
            args.config = args.plan_file
        else:
            args.plan = args.plan_file
    window_flags = ("plan_file", "plan", "screenshot", "lesson", "lang", "size", "theme", "tab", "list_presets",
                    "list_gpus", "list_networks")
    flags_given = any(v is not None for k, v in vars(args).items() if k not in window_flags)
    if args.lesson is not None:
        from .gui.app import run_lesson

        plan = plan_from_args(args) if flags_given or args.plan is not None else None
        return run_lesson(args.lesson, plan, args.screenshot, args.lang, args.size)
    plan = plan_from_args(args) if flags_given else None  # a plan file alone: the window opens it (and watches it)
    from .gui.app import run_gui

    return run_gui(plan, args.plan, args.screenshot, args.lang, args.size, args.theme, args.tab)
