"""What the help says is true: every command listed, every example parses (the quick ones run), --list-presets
wherever --preset is offered, the option registry's help on its flags, and a config's context length said first."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from zerodesk.cli import COMMANDS, _window_parser, command_parser, main, window_main
from zerodesk.cli_help import CONFIG, COMMANDS as COMMAND_HELP, EXAMPLES
from zerodesk.core.options import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
EVERY = [(command, line) for command, examples in EXAMPLES.items() for _, line in examples]


def help_text(command: str, capsys) -> str:
    with pytest.raises(SystemExit) as leave:
        if command == "zerodesk-gui":
            window_main(["--help"])
        else:
            main([*([] if command == "window" else [command]), "--help"])
    assert leave.value.code == 0
    return capsys.readouterr().out


def test_zerodesk_help_lists_every_command_with_its_line(capsys):
    text = help_text("window", capsys)
    assert "\ncommands:\n" in text
    for name, (summary, _) in COMMAND_HELP.items():
        assert name in COMMANDS
        assert f"    {name} " in text and summary.split()[0] in text, name
    assert "usage: zerodesk {plan,fit,measure,simulate} ..." in text


@pytest.mark.parametrize("command", ["window", "zerodesk-gui", *COMMANDS])
def test_every_help_ends_with_its_examples(command, capsys):
    text = help_text(command, capsys)
    assert "\nexamples:\n" in text
    for _, line in EXAMPLES[command]:
        assert f"\n  {line}\n" in text, line  # on one line, as written, to copy


@pytest.mark.parametrize("command, line", EVERY, ids=[line for _, line in EVERY])
def test_every_example_parses_and_the_quick_ones_run(command, line, capsys, monkeypatch):
    words = shlex.split(line)
    if command == "zerodesk-gui":
        assert words[0] == "zerodesk-gui"
        _window_parser(gui_script=True).parse_args(words[1:])
        return
    assert words[0] == "zerodesk" and (command == "window" or words[1] == command)
    args = command_parser(command).parse_args(words[1 if command == "window" else 2:])
    if command in ("plan", "fit") or args.list_presets:
        monkeypatch.chdir(ROOT)  # the shipped config is named from the repository's root, as README runs it
        assert main(words[1:]) == 0, line
        out = capsys.readouterr().out
        assert out.strip()
        if "--json" in words:
            json.loads(out)


def test_registry_options_carry_their_help(capsys):
    text = help_text("plan", capsys)
    for option in ("--profile", "--scheme", "--units", "--recompute", "--optimizer-impl", "--offload"):
        assert option in text
    flat = "".join(text.split())  # argparse wraps lines, hyphenated names too
    for option in OPTIONS:
        if option.flag in ("--profile", "--scheme", "--units"):
            assert "".join(option.describe().split()) in flat, option.flag


@pytest.mark.parametrize("argv", [["--list-presets"], ["plan", "--list-gpus"], ["measure", "--list-presets"],
                                  ["simulate", "--list-gpus"], ["fit", "--list-presets", "--list-gpus"]])
def test_list_presets_works_wherever_preset_is_offered(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ("gpt2" in out) if "--list-presets" in argv else ("h100-80gb" in out)


def test_list_presets_as_json_for_scripts(capsys):
    assert main(["measure", "--list-presets", "--json"]) == 0
    assert "gpt2" in json.dumps(json.loads(capsys.readouterr().out))


def test_dp_zero_names_the_flag(capsys):
    assert main(["plan", "--preset", "gpt2", "--dp", "0"]) == 2
    err = capsys.readouterr().err
    assert "--dp" in err and "cluster.dp" not in err


def test_a_config_s_context_length_is_said_on_the_first_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["plan", "--config", CONFIG, "--dp", "8"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Sequence length 32,768 tokens: the context length in Qwen2ForCausalLM's config"), first
    assert main(["plan", "--config", CONFIG, "--dp", "8", "--seq", "2048"]) == 0
    assert not capsys.readouterr().out.startswith("Sequence length")  # --seq given: nothing to say
    assert main(["plan", "--config", CONFIG, "--dp", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seq_len"] == 32768  # JSON stays one object


def test_help_answers_in_a_fresh_process():
    """`zerodesk --help` through the installed entry point's module, as a new user types it."""
    out = subprocess.run([sys.executable, "-m", "zerodesk", "--help"], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0 and out.stderr == "" and "commands:" in out.stdout


def test_zerodesk_gui_takes_the_plan_flags_zerodesk_takes(monkeypatch):
    """`zerodesk-gui --preset gpt2 --dp 2` opens the window on that plan, as `zerodesk` does; a bad value is one
    sentence, and commands are not zerodesk-gui's (a FILE named plan is a file)."""
    from zerodesk.gui import app

    calls = []
    monkeypatch.setattr(app, "run_gui", lambda *a: calls.append(a) or 0)
    assert app.main(["--preset", "gpt2", "--dp", "2"]) == 0
    plan = calls[-1][0]
    assert plan.model.name == "gpt2" and plan.dp == 2
    assert window_main(["--preset", "gpt2", "--dp", "0"]) == 2
    assert window_main(["plan"]) == 0 and calls[-1][1] == Path("plan")
