"""Command line: `zerodesk plan | fit | measure | simulate`; with no subcommand the window opens.

Imports neither Qt nor torch at module level: `zerodesk plan` answers in a fraction of a second.
"""

from __future__ import annotations

from . import start_collector

start_collector.hold()  # before the imports: the start's long-lived objects are not walked again and again (main, the window release it)

import argparse  # noqa: E402  isort: skip
import math
import os
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .cli_help import COMMANDS as COMMAND_HELP
from .cli_help import GUI_SCRIPT_DESCRIPTION, WINDOW_DESCRIPTION, WINDOW_USAGE, Formatter, epilog
from .core.options import (
    ACCUM_SYNC, AUTOCAST, HYBRID, KERNELS, OFFLOAD, OFFLOAD_TARGET, OPTIMIZER_IMPL, PARAM_DTYPE, PREFETCH, PROFILE,
    RECOMPUTE, REDUCE_DTYPE, SCHEME, SHARD_PLACEMENT, UNITS, WRAP, Option,
)
from .core.json_files import json_text
from .core.per_block import parse_per_block
from .core.record import validation_error
from .core.plan import MAX_GPU_MEMORY, MAX_GPUS_PER_NODE, MAX_RANKS, Plan, PlanError, explain, is_hf_config, load_plan
from .core.text import shorten
from .core.units import UNIT_BYTES, parse_count, parse_decimal

if TYPE_CHECKING:  # raised only where the plan was validated (core.record)
    from pydantic import ValidationError

# Each plan flag's argparse dest and the field it sets; a bad value's message names the flag, not the field.
ARCH_FLAGS = {  # dest -> Architecture field
    "layers": "layers", "hidden": "hidden", "heads": "heads", "kv_heads": "kv_heads", "head_dim": "head_dim",
    "ffn": "ffn", "vocab": "vocab", "mlp": "mlp", "bias": "bias", "norm": "norm", "positions": "positions",
    "max_positions": "max_positions", "tied": "tied_embeddings",
}
CLUSTER_FLAGS = {  # dest -> Cluster field
    "dp": "dp", "nodes": "nodes", "gpus_per_node": "gpus_per_node", "gpu": "gpu", "gpu_memory": "gpu_memory_bytes",
    "host_memory": "host_memory_bytes", "shard_group": "shard_group", "intra_node_bandwidth": "intra_node_gbps",
    "inter_node_bandwidth": "inter_node_gbps", "network": "network",
}
KNOB_OPTIONS = (PARAM_DTYPE, REDUCE_DTYPE, AUTOCAST, WRAP, PREFETCH)  # the knobs FSDP users turn (core.knobs)
CHOICE_OPTIONS = (PROFILE, SCHEME, UNITS, RECOMPUTE, OPTIMIZER_IMPL, SHARD_PLACEMENT, KERNELS, OFFLOAD,
                  OFFLOAD_TARGET, HYBRID, ACCUM_SYNC, *KNOB_OPTIONS)  # dest = the option's key
PLAN_FLAGS = {  # dest -> Plan field
    "seq": "seq_len", "batch": "micro_batch", "accum_steps": "accum_steps", "bandwidth": "bandwidth_gbps",
    "cuda_allowance": "cuda_allowance_bytes", "pcie": "pcie_gbps", "wrap_blocks": "wrap_blocks",
    "recompute_every": "recompute_every", "recompute_blocks": "recompute_blocks", **{o.key: o.key for o in CHOICE_OPTIONS},
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


FIELD_FLAGS = {  # dotted plan field -> the flag that sets it
    "model.params": "--params",
    **{f"model.architecture.{field}": _flag(dest) for dest, field in ARCH_FLAGS.items()},
    **{f"cluster.{field}": _flag(dest) for dest, field in CLUSTER_FLAGS.items()},
    **{field: _flag(dest) for dest, field in PLAN_FLAGS.items()},
}


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


ECHO_LIMIT = 40  # characters of anything the user typed that a message repeats


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line that repeats at most ECHO_LIMIT characters of any argument, and whose
    help keeps its examples as written (cli_help.Formatter)."""

    _typed: list[str] = []

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        self._typed = [a for a in (sys.argv[1:] if args is None else args) if isinstance(a, str)]
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # one line, no usage dump
        values = [t.partition("=")[2] for t in self._typed if t.startswith("-")]  # --flag=VALUE: VALUE alone too
        for text in sorted({t for t in self._typed + values if len(t) > ECHO_LIMIT}, key=len, reverse=True):
            short = shorten(text, ECHO_LIMIT)
            message = message.replace(repr(text), f"'{short}'").replace(text, short)
        raise CliError(f"{self.prog}: {message}")


def _count(text: str) -> int:
    try:
        return parse_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _whole(text: str) -> int:
    """A whole number of at most 18 digits; the plan's own bounds then name the field and its range."""
    if not re.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*", text):
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a whole number")
    return int(text)


def _positive(text: str) -> float:
    """A finite number above zero, ASCII digits (nan, inf, 0, negatives and '١٢' are refused here, with the value)."""
    try:
        value = parse_decimal(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a finite number above 0")
    return value


def _file(text: str) -> Path:
    """A file name: an empty one would silently mean the current folder (and its config.json)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"'{shorten(text, ECHO_LIMIT)}' is not a file name")
    return Path(text)


def _memory(text: str, least: int = 1) -> int:
    """'80GiB', '80 GB' or a plain number of bytes, from 1 B (or `least`) to 1 PB."""
    m = re.fullmatch(r"\s*([0-9]{0,20}\.?[0-9]{1,20})\s*(GB|GiB|B)?\s*", text, re.IGNORECASE) if len(text) <= 64 else None
    if not m:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a memory size; use e.g. 80GiB or 80GB")
    unit = (m.group(2) or "B").lower()
    scale = {"gb": UNIT_BYTES["GB"], "gib": UNIT_BYTES["GiB"], "b": 1}[unit]
    value = round(Decimal(m.group(1)) * scale)
    if not least <= value <= MAX_GPU_MEMORY:
        raise argparse.ArgumentTypeError(f"'{shorten(text, 40)}' is not a memory size between {least} B and 1 PB")
    return value


def _allowance(text: str) -> int:
    """A memory size that may be 0 (no allowance, the default)."""
    return _memory(text, least=0)


def _per_block(text: str) -> list[str]:
    """'full,none,full' or 'full*16,none*16': one recomputation mode per block, in order (core.per_block)."""
    try:
        return parse_per_block(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """The plan flags shared by `plan`, `measure` and the window."""
    src = parser.add_argument_group("model")
    src.add_argument("--plan", type=_file, metavar="FILE", help="start from a saved *.zerodesk.json plan")
    src.add_argument("--preset", metavar="NAME", help="a model preset (see --list-presets)")
    src.add_argument("--config", type=_file, metavar="FILE", help="a Hugging Face config.json on disk (its context "
                     "length becomes --seq unless given; the repository ships some in tests/hf_configs/)")
    src.add_argument("--params", type=_count, metavar="P", help="raw parameter count: 2e9, 7B, 350M, 1.5T")
    arch = parser.add_argument_group("architecture (override or define)")
    for flag, what in (("layers", "transformer blocks"), ("hidden", "hidden size (the model's width)"),
                       ("heads", "attention heads"), ("kv-heads", "key/value heads (grouped-query attention; "
                                                                    "default: as many as heads)"),
                       ("head-dim", "width of one head (default: hidden / heads)"),
                       ("ffn", "inner width of the MLP"), ("vocab", "vocabulary size"),
                       ("max-positions", "rows of a learned position table")):
        arch.add_argument(f"--{flag}", type=_whole, metavar="N", help=what)
    arch.add_argument("--mlp", choices=["gated", "plain"], help="gated (SwiGLU: three matrices) or plain (two)")
    arch.add_argument("--bias", choices=["none", "qkv", "all"], help="which linear layers have a bias")
    arch.add_argument("--norm", choices=["layernorm", "rmsnorm"], help="the normalisation layers")
    arch.add_argument("--positions", choices=["learned", "rotary"], help="a learned position table or rotary")
    arch.add_argument("--tied", action=argparse.BooleanOptionalAction, default=None, help="tie the output head to the embedding")
    arch.add_argument("--seq", type=_whole, metavar="N", help="sequence length (tokens)")
    arch.add_argument("--batch", type=_whole, metavar="N", help="micro-batch (sequences per rank per micro-batch)")
    arch.add_argument("--accum-steps", type=_whole, metavar="N",
                      help="gradient accumulation: micro-batches per optimizer step (default 1); the global batch is "
                           "micro-batch x N x Nd")
    _add_choice(arch, ACCUM_SYNC)
    cl = parser.add_argument_group("cluster")
    cl.add_argument("--dp", type=_whole, metavar="Nd", help="data-parallel degree")
    cl.add_argument("--nodes", type=_whole, metavar="N", help="nodes (with --gpus-per-node: Nd = nodes x GPUs)")
    cl.add_argument("--gpus-per-node", type=_whole, metavar="N", help="GPUs (data-parallel ranks) per node")
    cl.add_argument("--gpu", metavar="NAME", help="a GPU preset (see --list-gpus)")
    cl.add_argument("--gpu-memory", type=_memory, metavar="SIZE", help="memory of one GPU, e.g. 80GiB")
    cl.add_argument("--bandwidth", type=_positive, metavar="GB/s", help="per-rank link bandwidth in GB/s")
    hy = parser.add_argument_group("hybrid sharding and links")
    hy.add_argument("--shard-group", type=_whole, metavar="N",
                    help="shard the states among N ranks and replicate across the Nd/N groups (HSDP); N divides Nd, "
                         "default Nd")
    _add_choice(hy, HYBRID)
    hy.add_argument("--intra-node-bandwidth", type=_positive, metavar="GB/s",
                    help="GPU-to-GPU bandwidth inside a node, GB/s per GPU per direction (default: the GPU preset's, "
                         "else 450, H100 NVLink)")
    hy.add_argument("--inter-node-bandwidth", type=_positive, metavar="GB/s",
                    help="bandwidth between nodes, GB/s per GPU per direction (default: the network preset's, else 50, "
                         "a 400 Gb/s NIC per GPU)")
    hy.add_argument("--network", metavar="NAME", help="an inter-node network preset (see --list-networks)")
    cl.add_argument("--cuda-allowance", type=_allowance, metavar="SIZE",
                    help="memory set aside per GPU for the CUDA context and allocator, e.g. 1GiB (added to the peak)")
    off = parser.add_argument_group("offload (shown apart from the stages)")
    _add_choice(off, OFFLOAD)
    _add_choice(off, OFFLOAD_TARGET)
    off.add_argument("--pcie", type=_positive, metavar="GB/s", help="host<->device bandwidth per GPU in GB/s")
    off.add_argument("--host-memory", type=_memory, metavar="SIZE", help="host memory of one node, e.g. 512GiB")
    acc = parser.add_argument_group("accounting")
    for option in (PROFILE, SCHEME, UNITS, RECOMPUTE, OPTIMIZER_IMPL, SHARD_PLACEMENT, KERNELS):
        _add_choice(acc, option)
    knobs = parser.add_argument_group("mixed precision, FSDP2 units and recomputation per block (torch engines)")
    for option in KNOB_OPTIONS:
        _add_choice(knobs, option)
    knobs.add_argument("--wrap-blocks", type=_whole, metavar="N",
                       help="blocks in one FSDP2 unit with --wrap blocks (default 2)")
    knobs.add_argument("--recompute-every", type=_whole, metavar="K",
                       help="apply --recompute to every K-th block only (the K-th, 2K-th, ...; default 1: every block)")
    knobs.add_argument("--recompute-blocks", type=_per_block, metavar="LIST",
                       help="the recomputation of each block in order, e.g. full*16,none*16 (one per block; "
                            "overrides --recompute and --recompute-every)")
    cat = parser.add_argument_group("catalog")
    cat.add_argument("--list-presets", action="store_true", help="list the model presets (names for --preset) and exit")
    cat.add_argument("--list-gpus", action="store_true", help="list the GPU presets (names for --gpu) and exit")
    cat.add_argument("--list-networks", action="store_true",
                     help="list the inter-node network presets (names for --network) and exit")


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


def _add_choice(group, option: Option) -> None:
    """A flag whose values and help come from the option registry (its dest is the plan field: PLAN_FLAGS)."""
    group.add_argument(option.flag, choices=option.values, help=option.describe().replace("%", "%%"))


def dp_layout(dp: int) -> dict[str, int]:
    """Nodes and GPUs per node for `--dp` alone: one node up to MAX_GPUS_PER_NODE GPUs, beyond that nodes of up to
    8 GPUs (the largest divisor of Nd that is at most 8), so --dp alone reaches MAX_RANKS."""
    if dp <= MAX_GPUS_PER_NODE:
        return {"nodes": 1, "gpus_per_node": dp}
    per_node = max(g for g in range(1, 9) if dp % g == 0)
    return {"nodes": dp // per_node, "gpus_per_node": per_node}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _architecture_missing(exc: ValidationError, typed: list[str]) -> PlanError | None:
    """Architecture flags on a plan that has no architecture: which flags would complete one, in the user's terms."""
    missing = [FIELD_FLAGS.get(".".join(map(str, e["loc"])), str(e["loc"][-1])) for e in exc.errors()
               if e["type"] == "missing" and tuple(e["loc"][:2]) == ("model", "architecture")]
    if not missing or not typed:
        return None
    verb = "changes" if len(typed) == 1 else "change"
    return PlanError(f"{_listed(typed)} {verb} an architecture, and this plan has none: also give {_listed(missing)}, "
                     "or start from a --preset, --config or --plan that has one")


def plan_from_args(args: argparse.Namespace, default: Plan | None = None, notes: list[str] | None = None) -> Plan:
    """Compose a plan: file, then preset, then config.json, then individual flags. Raises PlanError.

    notes: where to add what the user should read first about how the plan was composed (a sequence length taken
    from a config's context length)."""
    loaded = load_plan(args.plan) if args.plan is not None else None
    if loaded is not None:  # its tensor list, if any, stays in its validated model (below): no copy, no second check
        data = loaded.model_dump(exclude={"model": {"tensors"}})
    elif default is not None:
        data = default.model_dump()
    else:
        data = {}
    cluster = dict(data.get("cluster") or {})
    model = file_model = dict(data.get("model") or {})

    if args.preset is not None:  # an empty name is refused by the catalog, not ignored
        from .core.catalog import find_model

        preset = find_model(args.preset)
        model = preset.to_model_spec().model_dump()
        if preset.seq_len:
            data["seq_len"] = preset.seq_len
        if preset.dp:
            cluster.update(nodes=1, gpus_per_node=preset.dp, dp=None)
    if args.config is not None:
        from .measure.hf_tensors import model_from_hf_config

        model, hints = model_from_hf_config(args.config, fit_template=True)  # named from the config, not its folder
        if hints.get("seq_len") and args.seq is None:
            data["seq_len"] = int(hints["seq_len"])  # the model's context length (--seq overrides)
            if notes is not None:
                named = shorten(model.get("name") or "the model", 80)
                notes.append(f"Sequence length {data['seq_len']:,} tokens: the context length in {named}'s config; "
                             "the predicted peak and every activation figure are for sequences that long "
                             "(--seq N sets another).")
    if args.params is not None:
        model = {"name": model.get("name") if not model.get("architecture") else None, "params": args.params}

    arch_updates = {field: getattr(args, dest) for dest, field in ARCH_FLAGS.items() if getattr(args, dest) is not None}
    had_architecture = bool(model.get("architecture"))
    if arch_updates:
        arch = dict(model.get("architecture") or {})
        arch.update(arch_updates)
        model = {"name": None, "architecture": arch}
    if not model:
        raise PlanError("no model given: use --params, --preset, --config, --plan or the architecture flags")

    names = dict(FIELD_FLAGS)
    if args.dp is not None:
        cluster["dp"] = args.dp
        if 1 <= args.dp <= MAX_RANKS and args.nodes is None and args.gpus_per_node is None and args.plan is None:
            cluster.update(dp_layout(args.dp))
    if args.gpu is not None:
        from .core.catalog import find_gpu

        gpu = find_gpu(args.gpu)
        cluster.update(gpu=gpu.name, gpu_memory_bytes=gpu.memory_bytes)
        if gpu.intra_node_gbps is not None:
            cluster["intra_node_gbps"] = gpu.intra_node_gbps
    if args.network is not None:
        from .core.catalog import find_network

        network = find_network(args.network)
        cluster.update(network=network.name, inter_node_gbps=network.gbps)
    for dest in ("nodes", "gpus_per_node", "gpu_memory", "host_memory", "shard_group", "intra_node_bandwidth",
                 "inter_node_bandwidth"):  # --gpu-memory and the bandwidths override the presets' figures
        if getattr(args, dest) is not None:
            cluster[CLUSTER_FLAGS[dest]] = getattr(args, dest)

    for dest, field in PLAN_FLAGS.items():
        if getattr(args, dest) is not None:
            data[field] = getattr(args, dest)
    data["model"], data["cluster"] = model, cluster
    if loaded is not None and model is file_model:  # no flag replaced the file's model: keep it as validated
        data["model"] = loaded.model
    try:
        return Plan.model_validate(data)
    except validation_error() as exc:
        typed = [_flag(dest) for dest in ARCH_FLAGS if getattr(args, dest) is not None]
        raise (not had_architecture and _architecture_missing(exc, typed)) or PlanError(explain(exc, names)) from None


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
