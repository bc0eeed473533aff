"""The plan model: validation names the field, JSON round-trips, schema versions, atomic saves."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from zerodesk.core.architecture_tensors import param_count, tensor_shapes
from zerodesk.core.plan import (
    SCHEMA_VERSION, Architecture, Cluster, ModelSpec, Plan, PlanError, Profile, Scheme, explain, field_errors,
    load_plan, plan_from_json, plan_to_json, save_plan,
)
from zerodesk.core.units import fmt_bytes, parse_count


def test_parse_count_suffixes():
    assert parse_count("2e9") == 2_000_000_000
    assert parse_count("7B") == 7_000_000_000
    assert parse_count("1.5T") == 1_500_000_000_000
    assert parse_count("350m") == 350_000_000
    assert parse_count("124439808") == 124_439_808
    for bad in ("", "x", "-5", "0", "7 billion", "1e400", "nan"):
        with pytest.raises(ValueError):
            parse_count(bad)


def test_units_never_mixed():
    assert fmt_bytes(32 * 10**9, "GB") == "32.00 GB"
    assert fmt_bytes(2**30, "GiB") == "1.00 GiB"
    assert fmt_bytes(2**30, "GB") == "1.07 GB"


def test_validation_names_the_field():
    with pytest.raises(ValidationError) as err:
        Plan.model_validate({"model": {"params": 10}, "cluster": {"nodes": 1, "gpus_per_node": 8, "dp": 3}})
    assert explain(err.value).startswith("cluster.dp:")
    assert "dp (3) must divide" in explain(err.value)
    with pytest.raises(ValidationError) as err:
        Plan.model_validate({"model": {"params": 10}, "seq_len": 0})
    assert "seq_len" in field_errors(err.value)


def test_world_size_is_bounded():
    with pytest.raises(ValidationError) as err:
        Plan.model_validate({"model": {"params": 10}, "cluster": {"nodes": 1000, "gpus_per_node": 100}})
    assert explain(err.value) == "cluster.gpus_per_node: nodes x GPUs per node (100,000) must be at most 65,536"


def test_architecture_head_checks():
    with pytest.raises(ValidationError, match="multiple of heads"):
        Architecture(layers=1, hidden=10, heads=3, ffn=4, vocab=5)
    with pytest.raises(ValidationError, match="multiple of kv_heads"):
        Architecture(layers=1, hidden=12, heads=4, kv_heads=3, ffn=4, vocab=5)


def test_model_needs_a_source():
    with pytest.raises(ValidationError, match="parameter count"):
        ModelSpec()


def test_param_count_closed_form_gpt2_small():
    arch = Architecture(layers=12, hidden=768, heads=12, ffn=3072, vocab=50257, mlp="plain", tied_embeddings=True,
                        bias="all", norm="layernorm", positions="learned", max_positions=1024)
    h, L, V = 768, 12, 50257
    per_layer = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (4 * h * h + 4 * h) + (4 * h * h + h)
    assert param_count(arch) == V * h + 1024 * h + L * per_layer + 2 * h == 124_439_808


def test_param_count_llama2_7b_and_gqa():
    llama = Architecture(layers=32, hidden=4096, heads=32, ffn=11008, vocab=32000)
    assert param_count(llama) == 6_738_415_616
    gqa = Architecture(layers=1, hidden=64, heads=8, kv_heads=2, ffn=128, vocab=10, tied_embeddings=True)
    shapes = dict(tensor_shapes(gqa))
    assert shapes["blocks.0.attn.k.weight"] == (16, 64)
    assert shapes["blocks.0.attn.q.weight"] == (64, 64)
    assert "head.weight" not in shapes


def test_json_round_trip(tmp_path):
    plan = Plan(model=ModelSpec(name="x", architecture=Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab=100)),
                scheme=Scheme.FP32_ADAM, profile=Profile.TORCH, cluster=Cluster(nodes=2, gpus_per_node=4, dp=4),
                units="GiB")
    path = tmp_path / "a.zerodesk.json"
    save_plan(plan, path)
    assert load_plan(path) == plan
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["a.zerodesk.json"]  # no temporary left behind


plans = st.builds(
    Plan,
    model=st.builds(ModelSpec, params=st.integers(1, 10**14)),
    scheme=st.sampled_from(list(Scheme)),
    profile=st.sampled_from(list(Profile)),
    cluster=st.builds(Cluster, nodes=st.integers(1, 64), gpus_per_node=st.integers(1, 16)),
    seq_len=st.integers(1, 10**6),
    micro_batch=st.integers(1, 1024),
    units=st.sampled_from(["GB", "GiB"]),
)


@settings(max_examples=100, deadline=None)
@given(plans)
def test_json_round_trip_property(plan):
    assert plan_from_json(plan_to_json(plan)) == plan


def test_newer_schema_is_refused():
    text = json.dumps({"schema_version": SCHEMA_VERSION + 1, "model": {"params": 10}})
    with pytest.raises(PlanError, match="newer ZeroDesk"):
        plan_from_json(text, source="plan file x")


def test_bad_files_give_one_sentence(tmp_path):
    with pytest.raises(PlanError, match="cannot read plan file"):
        load_plan(tmp_path / "missing.zerodesk.json")
    bad = tmp_path / "bad.zerodesk.json"
    bad.write_text("{ nope")
    with pytest.raises(PlanError, match="not valid JSON"):
        load_plan(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(PlanError, match="JSON object"):
        load_plan(bad)


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "keep.zerodesk.json"
    good = Plan(model=ModelSpec(params=10))
    save_plan(good, path)
    before = path.read_text()

    import zerodesk.core.plan as plan_mod

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plan_mod.os, "replace", boom)
    with pytest.raises(PlanError, match="No space left"):
        save_plan(Plan(model=ModelSpec(params=99)), path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.zerodesk.json"]
