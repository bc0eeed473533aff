"""core.record: plain classes that behave as the pydantic models they declare, and a start that never imports pydantic."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from zerodesk.core.architecture import Architecture
from zerodesk.core.catalog import find_gpu
from zerodesk.core.evidence_records import EvidenceRecord
from zerodesk.core.glossary import Origin
from zerodesk.core.plan import Cluster, ModelSpec, Plan, plan_from_json, plan_to_json
from zerodesk.core.record import Record

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = {"kind": "measured", "key": "k", "torch": "2.13", "device": "cpu", "ranks": 2, "date": "2026-01-01",
            "stages": [{"stage": 0, "peak_bytes": 10, "states_bytes": 8, "predicted_bytes": 8}]}


def test_a_record_validates_as_its_schema_and_holds_records():
    plan = Plan(model={"params": "2B"}, cluster={"nodes": 2, "gpus_per_node": 4}, evidence=[EVIDENCE])
    assert isinstance(plan, Record) and not isinstance(plan, BaseModel)
    assert type(plan.model) is ModelSpec and type(plan.cluster) is Cluster
    assert type(plan.evidence[0]) is EvidenceRecord and plan.evidence[0].stage(0).peak_bytes == 10
    assert plan.params == 2_000_000_000 and plan.dp == 8
    assert plan.model_fields_set == {"model", "cluster", "evidence"}
    assert issubclass(Plan.schema(), BaseModel) and Plan.schema().__name__ == "Plan"
    assert Plan.model_fields["seq_len"].annotation is int  # pydantic's FieldInfo, from the schema
    with pytest.raises(ValidationError, match=r"1 validation error for Plan\ncluster.dp"):
        Plan(model={"params": 10}, cluster={"nodes": 1, "gpus_per_node": 4, "dp": 3})
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        Plan.model_validate({"model": {"params": 0}})


def test_records_inside_the_input_are_taken_as_they_are_and_nested_records_validate():
    spec = ModelSpec(name="m", architecture=Architecture(layers=2, hidden=64, heads=4, vocab=256))
    plan = Plan(model=spec, recompute_blocks="full*1,none*1")
    assert plan.model == spec and plan.model.architecture.ffn == 256  # the architecture's own default rule
    with pytest.raises(ValidationError, match="one choice per block"):
        Plan(model=spec, recompute_blocks=["full"])
    assert Plan.model_validate(plan) is plan


def test_construct_copy_and_dump_are_pydantic_s():
    plan = Plan.model_construct(model=ModelSpec.model_construct(params=7), units="GiB")
    assert plan.model_fields_set == {"model", "units"} and plan.cluster == Cluster() and plan.seq_len == 2048
    assert plan.cluster is not Plan.model_construct(model=plan.model).cluster  # a default is never shared
    moved = plan.model_copy(update={"seq_len": 10**9})  # not validated, as pydantic's model_copy
    assert moved.seq_len == 10**9 and plan.seq_len == 2048 and moved.model is plan.model
    assert moved.model_fields_set == {"model", "units", "seq_len"}
    deep = plan.model_copy(deep=True)
    assert deep == plan and deep.model is not plan.model
    assert Plan(model={"params": 7}, units="GiB").model_dump() == plan.model_dump()
    assert plan.model_dump()["cluster"]["nodes"] == 1
    assert plan_from_json(plan_to_json(plan)) == plan
    assert copy.deepcopy(plan) == plan and pickle.loads(pickle.dumps(plan)) == plan


def test_equality_hashing_and_assignment_follow_the_declared_config():
    a, b = Plan(model={"params": 5}), Plan(model={"params": 5})
    assert a == b and a != Plan(model={"params": 6}) and a != a.model
    with pytest.raises(TypeError):
        hash(a)  # mutable, as pydantic's
    a.seq_len = 4096  # validate_assignment
    assert a.seq_len == 4096 and "seq_len" in a.model_fields_set
    with pytest.raises(ValidationError, match="seq_len"):
        a.seq_len = 0
    assert a.seq_len == 4096
    gpu = find_gpu("h100-80gb")
    assert hash(Origin(kind="paper", refs=("§5",))) == hash(Origin(kind="paper", refs=("§5",)))
    assert gpu.shipped and gpu == find_gpu("H100-80GB") and "_shipped" not in repr(gpu)
    with pytest.raises(ValidationError, match="frozen"):
        gpu.memory_bytes = 1


def test_a_pydantic_model_may_hold_a_record():
    class Holder(BaseModel):
        arch: Architecture | None = None

    arch = Architecture(layers=1, hidden=8, heads=2, vocab=16)
    held = Holder(arch=arch)
    assert type(held.arch) is Architecture and held.arch == arch
    again = Holder.model_validate_json(held.model_dump_json())
    assert again.arch == arch and held.model_dump()["arch"]["ffn"] == arch.ffn
    with pytest.raises(ValidationError, match="arch.layers"):
        Holder(arch={"layers": 0, "hidden": 8, "heads": 2, "vocab": 16})


CHILD = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from zerodesk.gui.app import create_window
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
w = create_window(headless=True)
w.resize(1440, 900)  # as bench_gui starts it: wide enough for the glossary beside the form (narrower, it is a tab
w.show()             # behind the form and, unshown, reads no card)
QApplication.processEvents()
print("shown", "pydantic" in sys.modules, flush=True)
while not (w.startup.is_done() and w.glossary.is_loaded()):
    QApplication.processEvents()
QApplication.processEvents()
print("ready", "pydantic" in sys.modules, flush=True)
"""


def test_the_window_starts_without_pydantic(tmp_path):
    """The start validates nothing (its plan and the shipped data were checked by the tests): pydantic, its import
    and its validators' builds were a large part of the start's time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.split() == ["shown", "False", "ready", "False"], out.stderr
