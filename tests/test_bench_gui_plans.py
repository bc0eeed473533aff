"""benchmarks/bench_gui.py times each field on the plans it names (EDIT_PLANS): a preset's plan is the window's own plan
with that preset and those fields, whatever the fields timed before it left in the form and however many edits each
took. It was built from the model as the previous field's last edit left it, so Llama 2 7B under torch was timed
with 7B paper's last offload, micro-batch, shard group, scheme..., which one depending on the edit count (at the
default 300 edits: optimizer+params offload, micro-batch 6, shard group 2, 8-bit Adam): the window looked slower
"after many edits"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_gui  # noqa: E402


@pytest.fixture
def loaded(monkeypatch, gui_settings):
    """The plans bench_gui loads into its window, in order."""
    from zerodesk.gui.window.main_window import MainWindow

    seen = []
    load = MainWindow.load_plan

    def record(self, plan, *args, **kwargs):
        seen.append(plan)
        return load(self, plan, *args, **kwargs)

    monkeypatch.setattr(MainWindow, "load_plan", record)
    return seen


def _timed_plans(loaded: list, edits: int) -> list:
    loaded.clear()
    bench_gui.edit_samples(edits, "plan", bench_gui.EDIT_PLANS, {"offload", "micro-batch", "profile"})
    return list(loaded)


def test_each_plan_is_the_same_whatever_was_edited_before(loaded):
    one, two = _timed_plans(loaded, 1), _timed_plans(loaded, 2)
    assert one == two  # the edits before a plan leave nothing in it
    torch = [p for p in one if p.model.name == "llama-2-7b" and p.profile.value == "torch"]
    assert torch and all(p.offload.value == "none" and p.micro_batch == 1 for p in torch)
