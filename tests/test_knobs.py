"""The knobs FSDP users turn (issue 30), in closed form: states at rest, communication, the gathered set, recomputation
per block, and what the plan, the command line and --json make of them.

Real ranks run them in test_knobs_ranks.py (slow): there the states are byte-exact and the gathered set measured.
"""

from __future__ import annotations

import json
from math import ceil, prod

import pytest

from zerodesk.core import knobs
from zerodesk.core.accounting import comm_by_link, compute
from zerodesk.core.architecture_tensors import tensor_shapes
from zerodesk.core.options import AUTOCAST, PARAM_DTYPE, PREFETCH, REDUCE_DTYPE, WRAP
from zerodesk.core.peak import engine
from zerodesk.core.plan import Plan, PlanError, plan_from_json, plan_to_json
from zerodesk.core.report import knobs_json, plan_json
from zerodesk.core.torch_profile import torch_transient, unit_of
from zerodesk.measure.protocol import Scale, scale_plan

# Odd widths: FSDP2 pads dim 0, so a knob that changed the padding or the grouping of tensors would show.
ARCH = {"layers": 5, "hidden": 48, "heads": 4, "kv_heads": 2, "ffn": 100, "vocab": 1003, "mlp": "gated",
        "norm": "rmsnorm", "positions": "rotary", "tied_embeddings": False}


def plan(**knob) -> Plan:
    return Plan.model_validate({"model": {"architecture": ARCH}, "profile": "torch", "seq_len": 32,
                                "cluster": {"nodes": 1, "gpus_per_node": 4}, **knob})


POLICIES = [dict(param_dtype=p, reduce_dtype=r, autocast=a) for p in PARAM_DTYPE.values for r in REDUCE_DTYPE.values
            for a in AUTOCAST.values]
WRAPPINGS = [dict(wrap=w, wrap_blocks=n, prefetch=f) for w in WRAP.values for n in (2, 3) for f in PREFETCH.values]


# ---------------------------------------------------------------- at rest: nothing changes


@pytest.mark.parametrize("knob", POLICIES + WRAPPINGS, ids=lambda k: ",".join(map(str, k.values())))
def test_no_knob_changes_a_byte_at_rest(knob):
    """FSDP2 shards each tensor on its own dim 0 whatever the units, keeps the shards in fp32 and casts reduced
    gradients back to fp32; DDP's states are fp32 either way. The resting states are the default's, rank by rank."""
    default, turned = compute(plan()), compute(plan(**knob))
    for stage in range(4):
        assert turned.stage(stage).runs == default.stage(stage).runs, stage


# ---------------------------------------------------------------- communication follows the policy


def _payloads(p: Plan, stage: int) -> dict[tuple[str, str], float]:
    return {(c.op, c.phase): float(c.payload_bytes) for c in comm_by_link(p)[stage].collectives}


@pytest.mark.parametrize("knob", POLICIES, ids=lambda k: ",".join(k.values()))
def test_each_collective_moves_its_dtype(knob):
    p = plan(**knob)
    params = p.params
    gather, reduce = knobs.DTYPE_BYTES[knob["param_dtype"]], knobs.DTYPE_BYTES[knob["reduce_dtype"]]
    # DDP all-reduces its fp32 gradients whatever reduce_dtype says; ZeroRedundancyOptimizer broadcasts fp32
    assert _payloads(p, 0) == {("all-reduce", "backward"): 4 * params}
    assert _payloads(p, 1) == {("all-reduce", "backward"): 4 * params, ("broadcast", "step"): 4 * params}
    assert _payloads(p, 2) == {("all-gather", "forward"): gather * params, ("reduce-scatter", "backward"): reduce * params}
    assert _payloads(p, 3) == {("all-gather", "forward"): gather * params, ("all-gather", "backward"): gather * params,
                               ("reduce-scatter", "backward"): reduce * params}
    nd = p.dp
    assert compute(p).stage(3).comm_bytes == (2 * gather + reduce) * params * (nd - 1) // nd


def test_bf16_reduction_halves_the_reduce_scatter_and_fp32_parameters_double_the_gathers():
    base, bf16_reduce, fp32_params = (compute(plan(**k)) for k in ({}, {"reduce_dtype": "bf16"}, {"param_dtype": "fp32"}))
    p, nd = base.params, 4
    assert base.stage(2).comm_bytes == 6 * p * (nd - 1) // nd
    assert bf16_reduce.stage(2).comm_bytes == 4 * p * (nd - 1) // nd
    assert fp32_params.stage(3).comm_bytes == 12 * p * (nd - 1) // nd
    assert bf16_reduce.stage(0).comm_bytes == base.stage(0).comm_bytes  # DDP: fp32 all-reduce either way


def test_the_paper_profile_keeps_its_scheme_and_says_so():
    paper = dict(profile="paper")
    turned = compute(plan(**paper, reduce_dtype="bf16", param_dtype="fp32", wrap="root"))
    default = compute(plan(**paper))
    assert [s.comm_bytes for s in turned.stages] == [s.comm_bytes for s in default.stages]
    assert [s.components for s in turned.stages] == [s.components for s in default.stages]
    ids = [n.id for n in turned.notes]
    assert "knobs_torch_only" in ids
    assert "param_dtype fp32" in turned.notes[ids.index("knobs_torch_only")].text
    assert not [n for n in default.notes if n.id == "knobs_torch_only"]


@pytest.mark.parametrize("knob", [dict(param_dtype="fp32"), dict(autocast="off"),
                                  dict(reduce_dtype="bf16", wrap="root", recompute_every=2)])
def test_the_peak_follows_fp32_compute_without_a_caveat(knob):
    """The predicted peak follows every knob, FP32 compute's activations included: no note says otherwise, and the
    step computes in fp32 where the knob says so (FSDP2's param_dtype at stages 2-3, DDP without autocast at 0-1)."""
    p = plan(**knob)
    assert not [n for n in compute(p).notes if n.id.startswith(("peak_", "knobs_"))]
    fp32 = {s: engine(p, s).compute == "fp32" for s in (0, 1, 2, 3)}
    assert fp32 == {0: knob.get("autocast") == "off" or "param_dtype" in knob, 1: knob.get("autocast") == "off"
                    or "param_dtype" in knob, 2: "param_dtype" in knob, 3: "param_dtype" in knob}


# ---------------------------------------------------------------- the gathered set follows the policy and the units


def _walk(named, dp: int, per_unit: int | None) -> dict[str, int]:
    """Elements per FSDP2 unit, tensor by tensor: an independent count of what torch_transient reads from the census."""
    units: dict[str, int] = {}
    for name, shape in named:
        parts = name.split(".")
        index = next((i for i, part in enumerate(parts) if part.isdigit()), None)
        if index is None or per_unit is None:
            unit = "root"
        else:
            unit = f"unit {int(parts[index]) // per_unit}"
        dim0 = shape[0] if shape else 1
        units[unit] = units.get(unit, 0) + ceil(dim0 / dp) * dp * (prod(shape) // dim0 if shape else 1)
    return units


@pytest.mark.parametrize("per_unit", [1, 2, 3, 5, 8, None])
@pytest.mark.parametrize("param_bytes", [2, 4])
def test_the_gathered_set_by_hand(per_unit, param_bytes):
    named = tensor_shapes(Plan.model_validate({"model": {"architecture": ARCH}}).model.architecture)
    units = _walk(named, 4, per_unit)
    blocks = max((n for k, n in units.items() if k != "root"), default=0)
    assert torch_transient(named, 2, 4, param_bytes=param_bytes, per_unit=per_unit) == {
        "gathered_params": param_bytes * sum(units.values())}
    assert torch_transient(named, 3, 4, param_bytes=param_bytes, per_unit=per_unit) == {
        "gathered_params": param_bytes * (units["root"] + blocks)}
    assert torch_transient(named, 1, 4, param_bytes=param_bytes, per_unit=per_unit) == {"gathered_params": 0}


def test_the_root_only_gathers_everything_at_once_and_units_of_n_blocks_in_between():
    per_block, two, five, root = (knobs.gathered_params(plan(**w), 3) for w in (
        {"wrap": "block"}, {"wrap": "blocks", "wrap_blocks": 2}, {"wrap": "blocks", "wrap_blocks": 5}, {"wrap": "root"}))
    assert per_block < two < five == root == knobs.gathered_params(plan(), 2)
    assert knobs.gathered_params(plan(param_dtype="fp32"), 3) == 2 * per_block
    assert knobs.gathered_params(plan(param_dtype="fp16"), 3) == per_block
    assert knobs.gathered_params(plan(wrap="blocks", wrap_blocks=1), 3) == per_block


def test_units_of_a_wrapping():
    assert knobs.unit_spans(5, 1) == [range(i, i + 1) for i in range(5)]
    assert knobs.unit_spans(5, 2) == [range(0, 2), range(2, 4), range(4, 5)]
    assert knobs.unit_spans(5, None) == []
    assert unit_of("model.layers.13", 4) == "model.layers.12" and unit_of("transformer.h.3", 1) == "transformer.h.3"
    assert unit_of("model.layers.13", None) == unit_of("root", 4) == "root"
    assert [knobs.blocks_per_unit(plan(**w)) for w in ({}, {"wrap": "blocks", "wrap_blocks": 3}, {"wrap": "root"})] \
        == [1, 3, None]


def test_autocast_computes_in_the_parameter_dtype_when_it_is_16_bit():
    assert knobs.autocast_dtype(plan()) == "bf16"
    assert knobs.autocast_dtype(plan(param_dtype="fp16")) == "fp16"
    assert knobs.autocast_dtype(plan(param_dtype="fp32")) is None
    assert knobs.autocast_dtype(plan(autocast="off")) is None


# ---------------------------------------------------------------- recomputation per block


@pytest.mark.parametrize("blocks, every", [(5, 1), (5, 2), (32, 3), (7, 7), (4, 9)])
def test_every_kth_block_counting_from_one(blocks, every):
    p = Plan.model_validate({"model": {"params": 10**9}, "recompute": "full", "recompute_every": every})
    per_block = knobs.recompute_per_block(p, blocks)
    assert [i for i, mode in enumerate(per_block) if mode == "full"] == list(range(every - 1, blocks, every))
    assert knobs.checkpoint_counts(p, blocks) == {"none": blocks - blocks // every, "selective": 0, "full": blocks // every}


def test_a_choice_per_block_overrides_the_mode_and_is_checked_against_the_blocks():
    choices = ["full", "none", "selective", "full", "none"]
    p = plan(recompute="selective", recompute_every=2, recompute_blocks=choices)
    assert knobs.recompute_per_block(p, 5) == tuple(choices)
    assert knobs.checkpoint_counts(p, 5) == {"none": 2, "selective": 1, "full": 2}
    with pytest.raises(ValueError, match="give one choice per block: 3 given, the model has 5 blocks"):
        plan(recompute_blocks=choices[:3])
    with pytest.raises(ValueError, match="needs the model's blocks"):
        Plan.model_validate({"model": {"params": 10**9}, "recompute_blocks": ["full"]})
    with pytest.raises(ValueError, match="recompute_blocks"):
        plan(recompute_blocks=["full", "none", "sometimes", "full", "none"])


def test_a_scaled_down_measurement_keeps_the_choices_at_their_depths():
    assert knobs.resample_blocks(["full"] * 16 + ["none"] * 16, 4) == ("full", "full", "none", "none")
    assert knobs.resample_blocks([f"b{i}" for i in range(32)], 4) == ("b0", "b8", "b16", "b24")
    wide = Plan.model_validate({"model": {"architecture": {**ARCH, "layers": 8}},
                                "recompute_blocks": ["full"] * 4 + ["selective"] * 4})
    small = scale_plan(wide, Scale(layers=0.5))
    assert small.model.architecture.layers == 4 and small.recompute_blocks == ["full", "full", "selective", "selective"]


# ---------------------------------------------------------------- the plan file, --json and the command line


def test_the_knobs_round_trip_through_the_plan_file():
    p = plan(param_dtype="fp16", reduce_dtype="bf16", autocast="off", wrap="blocks", wrap_blocks=3, prefetch="off",
             recompute="full", recompute_every=2, recompute_blocks=["full", "none", "none", "selective", "full"])
    assert plan_from_json(plan_to_json(p)) == p
    old = json.loads(plan_to_json(plan()))
    for key in ("param_dtype", "reduce_dtype", "autocast", "wrap", "wrap_blocks", "prefetch", "recompute_every"):
        old.pop(key)
    assert plan_from_json(json.dumps(old)) == plan()  # a plan saved before the knobs reads as the defaults
    with pytest.raises(PlanError, match="wrap_blocks"):
        plan_from_json(json.dumps({**old, "wrap_blocks": 0}))


def test_json_says_the_knobs_units_and_blocks_per_mode():
    p = plan(wrap="blocks", wrap_blocks=2, recompute="full", recompute_every=2)
    out = plan_json(p, compute(p))
    assert out["knobs"] == knobs_json(p) == {
        "param_dtype": "bf16", "reduce_dtype": "fp32", "autocast": "on", "wrap": "blocks", "wrap_blocks": 2,
        "prefetch": "on", "recompute_every": 2, "recompute_blocks": None, "blocks": 5, "fsdp_units": 4,
        "checkpointed_blocks": {"none": 3, "selective": 0, "full": 2}}
    assert knobs_json(Plan.model_validate({"model": {"params": 10**9}}))["checkpointed_blocks"] is None


def test_the_command_line_sets_every_knob(capsys):
    from zerodesk.cli import main

    arch = ["--layers", "5", "--hidden", "48", "--heads", "4", "--kv-heads", "2", "--ffn", "100", "--vocab", "1003"]
    assert main(["plan", *arch, "--profile", "torch", "--param-dtype", "fp32", "--reduce-dtype", "bf16",
                 "--autocast", "off", "--wrap", "blocks", "--wrap-blocks", "2", "--prefetch", "off",
                 "--recompute-blocks", "full*2,none,selective*2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out["knobs"][k] for k in ("param_dtype", "reduce_dtype", "autocast", "wrap", "wrap_blocks", "prefetch")} \
        == {"param_dtype": "fp32", "reduce_dtype": "bf16", "autocast": "off", "wrap": "blocks", "wrap_blocks": 2,
            "prefetch": "off"}
    assert out["knobs"]["recompute_blocks"] == ["full", "full", "none", "selective", "selective"]
    p = out["params"]
    assert [c["payload_bytes"] for c in out["stages"][3]["comm"]["collectives"]][:3] == [4 * p, 4 * p, 2 * p]
    assert main(["plan", *arch, "--recompute", "full", "--recompute-every", "2"]) == 0
    assert "Knobs: recompute every 2 blocks; recomputation per block: 3 none, 2 full." in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--recompute-blocks", "full*2,never"], "'never' is not a block's recomputation: use none, selective, full"),
    (["--recompute-blocks", "full*0"], "repeats a mode 0 times"),
    (["--recompute-blocks", "full*3"], "--recompute-blocks: give one choice per block: 3 given, the model has 5 blocks"),
    (["--wrap-blocks", "0"], "--wrap-blocks must be at least 1"),
    (["--recompute-every", "0"], "--recompute-every must be at least 1"),
    (["--param-dtype", "fp8"], "invalid choice: 'fp8'"),
])
def test_bad_knobs_are_one_sentence(args, message, capsys):
    from zerodesk.cli import main

    arch = ["--layers", "5", "--hidden", "48", "--heads", "4", "--ffn", "100", "--vocab", "1003"]
    assert main(["plan", *arch, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
