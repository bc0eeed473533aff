"""The option registry is the one declaration: the plan's types, the command line and the notes follow it."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from pydantic import ValidationError

from zerodesk.core.notes import NOTES, Note, note
from zerodesk.core.options import LANGUAGE, OPTIONS, Option, Scheme
from zerodesk.core.plan import Plan

ROOT = Path(__file__).resolve().parents[1]
PLAN_OPTIONS = [o for o in OPTIONS if o is not LANGUAGE]


def _field_values(option: Option) -> tuple[str, ...]:
    annotation = Plan.model_fields[option.key].annotation
    args = typing.get_args(annotation)
    return tuple(m.value for m in annotation) if not args else args


@pytest.mark.parametrize("option", PLAN_OPTIONS, ids=lambda o: o.key)
def test_each_plan_option_is_the_plan_fields_type_and_default(option):
    assert _field_values(option) == option.values
    default = Plan.model_fields[option.key].default
    assert getattr(default, "value", default) == option.default
    for value in option.values:  # every choice makes a valid plan, and nothing else does
        assert getattr(getattr(Plan(model={"params": 10**9}, **{option.key: value}), option.key), "value", value) == value
    with pytest.raises(ValidationError):
        Plan(model={"params": 10**9}, **{option.key: "no-such-choice"})


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_each_option_has_labels_help_and_a_flag(option):
    assert len(set(option.values)) == len(option.values) >= 2
    assert all(c.label for c in option.choices) and option.help and option.flag.startswith("--")
    assert option.describe().startswith(f"{option.help}: ") and option.default in option.describe()
    assert option.check(option.default) == option.default
    with pytest.raises(ValueError, match=f"^{option.key} must be one of "):
        option.check("no-such-choice")


@pytest.mark.parametrize("option", PLAN_OPTIONS, ids=lambda o: o.key)
def test_the_command_line_offers_exactly_the_registry(option, capsys):
    from zerodesk.cli import _Parser, add_plan_arguments, plan_from_args

    parser = _Parser(prog="zerodesk plan")
    add_plan_arguments(parser)
    action = next(a for a in parser._actions if option.flag in a.option_strings)
    assert tuple(action.choices) == option.values and option.help in action.help
    for value in option.values:
        plan = plan_from_args(parser.parse_args(["--params", "1e9", option.flag, value]))
        assert getattr(getattr(plan, option.key), "value", getattr(plan, option.key)) == value


def test_no_option_value_list_is_written_out_again():
    """Outside the registry, no module spells out an option's whole list of values (they read the registry)."""
    lists = {frozenset(o.values) for o in OPTIONS}
    found = []
    for path in sorted((ROOT / "zerodesk").rglob("*.py")):
        if path.name == "options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                values = frozenset(e.value for e in node.elts)
                if len(node.elts) >= 2 and values in lists:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    # the activation model (core/residuals.py) is being rewritten apart; it still names its recompute Literal
    assert [f for f in found if not f.startswith("zerodesk/core/residuals.py")] == []


def test_notes_carry_an_id_their_parameters_and_the_english_text():
    n = note("scheme_outside_paper", scheme=Scheme.FP32_ADAM.value)
    assert n == Note("scheme_outside_paper", (("scheme", "fp32-adam"),)) and hash(n) == hash(Note(n.id, n.params))
    assert n.text == str(n) == "scheme fp32-adam is outside the ZeRO paper's §3.1 accounting"
    with pytest.raises(KeyError, match="no note"):
        Note("no-such-note")
    for note_id, template in NOTES.items():  # every placeholder is a plain name the window can fill
        assert template.strip() == template and not template.endswith(".")
        Note(note_id)


def test_every_note_the_core_makes_is_in_the_registry():
    """The core names notes only by id: every note(...) call uses a registered id, no English sentence."""
    ids = set()
    for path in sorted((ROOT / "zerodesk" / "core").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("note", "_not_applicable"):
                arg = node.args[-1] if getattr(node.func, "id", None) == "_not_applicable" else node.args[0]
                if isinstance(arg, ast.Constant):
                    ids.add(arg.value)
    assert ids and ids <= set(NOTES), ids - set(NOTES)
    assert set(NOTES) <= ids, f"notes nobody makes: {set(NOTES) - ids}"
