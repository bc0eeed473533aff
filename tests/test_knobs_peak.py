"""The predicted peak follows the knobs (issue 30): the policy's bytes, the FSDP2 units and prefetch, recomputation
per block, and fit's cheapest recomputation that fits. Closed form only; benchmarks/knobs_accuracy.py compares each
knob with the simulator.
"""

from __future__ import annotations

import pytest

from zerodesk.core import knobs
from zerodesk.core.fit import solve
from zerodesk.core.fit_recompute import cheapest_fitting, policies
from zerodesk.core.peak import moments, predict
from zerodesk.core.plan import Plan

ARCH = {"layers": 6, "hidden": 256, "heads": 4, "kv_heads": 2, "ffn": 704, "vocab": 1003, "mlp": "gated",
        "norm": "rmsnorm", "positions": "rotary", "tied_embeddings": False}


def plan(**knob) -> Plan:
    return Plan.model_validate({"model": {"architecture": ARCH}, "profile": "torch", "seq_len": 64,
                                "cluster": {"nodes": 1, "gpus_per_node": 4}, **knob})


def moment(p: Plan, stage: int, name: str) -> dict[str, int]:
    """The largest moment of that name (the traced step places every moment of the model's own step there)."""
    return max((m for m in moments(p, stage) if m.name == name), key=lambda m: m.total).components


@pytest.mark.parametrize("units", [dict(), dict(wrap="blocks", wrap_blocks=2), dict(wrap="blocks", wrap_blocks=4),
                                   dict(wrap="root")], ids=["block", "2", "4", "root"])
@pytest.mark.parametrize("dtype", ["bf16", "fp32"])
@pytest.mark.parametrize("stage", [2, 3])
def test_the_forward_holds_the_gathered_set_of_the_units_and_policy(units, dtype, stage):
    """The forward holds at most what core.knobs.gathered_params counts tensor by tensor (torch_transient, the
    figure real ranks match): the root and the largest unit at stage 3 (the first unit's; the last unit of 6 blocks in
    4s has 2), everything at stage 2, in param_dtype."""
    p = plan(param_dtype=dtype, **units)
    forward = [m.components.get("gathered_params", 0) for m in moments(p, stage) if m.phase == "forward"]
    assert max(forward) == knobs.gathered_params(p, stage)
    last = moment(p, stage, "last block")["gathered_params"]
    per_unit = units.get("wrap_blocks", 1)
    assert (last < max(forward)) == (stage == 3 and ARCH["layers"] % per_unit != 0)


def test_reduce_dtype_sizes_the_reduce_scatter_input_and_fp16_is_bf16():
    base, half = plan(), plan(reduce_dtype="bf16")
    for stage in (2, 3):
        rs = moment(base, stage, "root reduce-scatter")["reduce_scatter"]
        assert moment(half, stage, "root reduce-scatter")["reduce_scatter"] * 2 == rs > 0
        assert predict(half)[stage].total_bytes < predict(base)[stage].total_bytes
    assert [s.total_bytes for s in predict(plan(param_dtype="fp16"))] == [s.total_bytes for s in predict(base)]
    assert [s.total_bytes for s in predict(half)][:2] == [s.total_bytes for s in predict(base)][:2]  # DDP: fp32


def test_larger_units_gather_more_and_the_root_only_most():
    peaks = [predict(plan(**u))[3].total_bytes for u in (dict(), dict(wrap="blocks", wrap_blocks=3),
                                                        dict(wrap="root"))]
    assert peaks[0] < peaks[1] < peaks[2]


def test_gradients_of_a_unit_wait_unsharded_for_its_reduce_scatter():
    """Within a unit of N blocks, a block's backward holds the later blocks' gradients (param_dtype) unsharded."""
    p = plan(wrap="blocks", wrap_blocks=3, recompute="full")
    m = moment(p, 3, "block backward")
    head = ARCH["vocab"] * ARCH["hidden"]
    assert m["unsharded_grads"] > 2 * head


def test_prefetch_off_holds_no_next_unit_in_backward():
    on, off = plan(), plan(prefetch="off")
    assert moment(on, 3, "last block backward")["all_gather"] > 0
    assert moment(off, 3, "last block backward").get("all_gather", 0) == 0
    assert predict(off)[3].total_bytes <= predict(on)[3].total_bytes


@pytest.mark.parametrize("mode", ["none", "selective", "full"])
def test_a_choice_per_block_of_one_mode_is_that_mode(mode):
    uniform = predict(plan(recompute=mode))
    assert predict(plan(recompute_blocks=[mode] * ARCH["layers"])) == uniform
    assert predict(plan(recompute=mode, recompute_every=1)) == uniform


def test_recomputing_more_blocks_lowers_the_peak_between_none_and_full():
    none, full = (predict(plan(recompute=m))[3].total_bytes for m in ("none", "full"))
    half = predict(plan(recompute="full", recompute_every=2))[3].total_bytes
    mixed = predict(plan(recompute_blocks=["full", "none"] * 3))[3].total_bytes
    assert full < half < none and full < mixed < none


# ---------------------------------------------------------------- fit: the cheapest recomputation that fits


def test_policies_run_from_the_least_work_rerun():
    p = plan()
    order = policies(p.model.architecture, p.seq_len, p.micro_batch)
    assert order[0].recompute == "none" and order[-1].fields == {"recompute": "full", "recompute_every": 1,
                                                                 "recompute_blocks": None}
    assert [x.flops for x in order] == sorted(x.flops for x in order)


def test_the_cheapest_policy_fits_and_every_cheaper_one_does_not():
    base = plan(seq_len=512, micro_batch=8)
    full, none = (predict(base.model_copy(update={"recompute": m}))[3].total_bytes for m in ("full", "none"))
    gpu = (full + none) // 2  # somewhere between: some recomputation is needed, full on every block suffices
    p = Plan.model_validate({**base.model_dump(exclude_none=True),
                             "cluster": {"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": gpu}})
    (fit,) = cheapest_fitting(p, (3,))
    assert fit.policy is not None and fit.peak_bytes <= gpu
    order = policies(p.model.architecture, p.seq_len, p.micro_batch)
    for cheaper in order[: order.index(fit.policy)]:
        assert predict(p.model_copy(update=cheaper.fields))[3].total_bytes > gpu, cheaper


def test_fit_compares_one_mode_on_every_block_whatever_the_plan_chose_per_block():
    gpu = {"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 10**9}
    own = Plan.model_validate({**plan().model_dump(exclude_none=True), "cluster": gpu,
                               "recompute_blocks": ["full"] * ARCH["layers"]})
    uniform = Plan.model_validate({**plan().model_dump(exclude_none=True), "cluster": gpu})
    assert [c.max_micro_batch for c in solve(own).configs] == [c.max_micro_batch for c in solve(uniform).configs]
