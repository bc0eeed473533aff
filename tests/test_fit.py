"""What fits (zerodesk.core.fit, fit_search, fit_report) and `zerodesk fit`: closed forms, boundaries checked with
predict(), hand counts, the JSON keys and one-sentence errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from zerodesk.core.accounting import compute
from zerodesk.core.catalog import find_gpu, find_model
from zerodesk.core.fit import (MAX_SEQ, RECOMPUTE, FitError, dp_search, max_seq_cap, recommend, solve,
                               usable_memory)
from zerodesk.core.fit_report import fit_json, fit_table, why_text
from zerodesk.core.fit_search import largest_fitting, smallest_fitting
from zerodesk.core.peak import predict
from zerodesk.core.plan import Plan

GB = 10**9
TOKEN_IDS = 16  # int64 tokens and targets: bytes per token on top of the states
TINY = {"layers": 2, "hidden": 48, "heads": 4, "kv_heads": 2, "ffn": 100, "vocab": 1003, "mlp": "gated",
        "norm": "rmsnorm", "positions": "rotary", "tied_embeddings": False}


def plan_of(model: dict, **kw) -> Plan:
    return Plan.model_validate({"model": model, **kw})


def peak(plan: Plan, stage: int, **changes) -> int:
    """predict()'s figure for a variant of the plan, allowance included."""
    return predict(Plan.model_validate({**plan.model_dump(), **changes}))[stage].total_bytes


def with_dp(plan: Plan, nd: int) -> dict:
    """The plan's cluster at Nd = nd: its own nodes where it sets them, else as many as nd needs."""
    if plan.cluster.model_fields_set & {"nodes", "gpus_per_node", "dp"}:
        return {**plan.cluster.model_dump(), "dp": nd}
    per_node = min(nd, 1024)
    return {**plan.cluster.model_dump(), "dp": nd, "nodes": nd // per_node, "gpus_per_node": per_node}


def test_recompute_modes_run_from_least_to_most():  # the recommendation's order after communication
    assert RECOMPUTE == ("none", "selective", "full")


# ---- closed forms ----------------------------------------------------------------------------------------------

def test_raw_count_peak_is_states_and_token_ids_so_the_answers_are_the_formula():
    gpu = 32 * GB + 1_600_000  # the card's stage 0 (32 GB) and 1.6 MB
    plan = plan_of({"params": "2e9"}, seq_len=2048, optimizer_impl="fused",
                   cluster={"dp": 4, "nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": gpu})
    states = {s.stage: s.total_bytes for s in compute(plan).stages}
    assert [states[0], states[1]] == [32 * GB, 14 * GB]
    for stage in (0, 1):  # the premise: a raw count's peak is its states and the token ids, linear in the batch
        for b in (1, 2, 7):
            assert peak(plan, stage, micro_batch=b) == states[stage] + TOKEN_IDS * 2048 * b
    answer = solve(plan)
    for r in RECOMPUTE:  # no activations: recompute changes nothing
        c0, c1 = answer.config(0, r), answer.config(1, r)
        assert c0.max_micro_batch == (gpu - 32 * GB) // (TOKEN_IDS * 2048) == 48
        assert (c0.peak_at_max_bytes, c0.peak_above_bytes) == (32 * GB + TOKEN_IDS * 2048 * 48, 32 * GB + TOKEN_IDS * 2048 * 49)
        assert c0.max_seq == (gpu - 32 * GB) // TOKEN_IDS == 100_000
        assert c1.max_micro_batch == (gpu - 14 * GB) // (TOKEN_IDS * 2048) == 549_365
        assert c1.max_seq == MAX_SEQ  # 1.1e9 tokens would fit: the plan's limit
        assert c0.min_dp == c1.min_dp == 1  # it fits on one GPU already
    assert not answer.complete and answer.moments_agree and answer.batch_modelled == 12  # linear: two points suffice
    assert answer.gpu_memory_bytes == gpu and answer.usable_bytes == gpu


def test_allowance_comes_off_the_gpu():
    plan = plan_of({"params": "2e9"}, seq_len=2048, optimizer_impl="fused", cuda_allowance_bytes=600_000,
                   cluster={"dp": 4, "nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 32 * GB + 1_600_000})
    answer = solve(plan)
    assert answer.usable_bytes == 32 * GB + 1_000_000
    assert answer.config(0, "none").max_micro_batch == 1_000_000 // (TOKEN_IDS * 2048) == 30
    assert answer.config(0, "none").max_seq == 1_000_000 // TOKEN_IDS


def test_min_dp_by_hand_count():
    """Stage 1 holds 4P + 12P/Nd, stage 0 16P whatever Nd (raw P = 2e9, fused AdamW, seq 2048, micro-batch 1)."""
    gpu = 20 * GB
    plan = plan_of({"params": "2e9"}, seq_len=2048, optimizer_impl="fused", cluster={"gpu_memory_bytes": gpu})
    assert dp_search(plan).sizes == tuple(2**i for i in range(17)) and dp_search(plan).world is None
    answer = solve(plan)
    # 8e9 + 24e9/Nd + 32,768 <= 20e9 first holds at Nd = 4 among the powers of two (Nd = 2 gives 20.000033 GB)
    assert answer.config(1, "none").min_dp == 4
    assert answer.config(0, "none").min_dp is None  # 32 GB at every Nd
    for nd, fits in ((2, False), (4, True)):
        assert (peak(plan, 1, cluster={"gpu_memory_bytes": gpu, "dp": nd, "nodes": 1, "gpus_per_node": nd}) <= gpu) is fits


def test_the_cluster_limits_nd_to_divisors_of_its_gpus():
    plan = plan_of({"params": "2e9"}, seq_len=2048, optimizer_impl="fused",
                   cluster={"nodes": 3, "gpus_per_node": 4, "gpu_memory_bytes": 20 * GB})
    search = dp_search(plan)
    assert search.sizes == (1, 2, 3, 4, 6, 12) and search.world == 12
    # stage 1 needs Nd >= 2.0000055: 3 is the first divisor of 12 that fits
    assert solve(plan).config(1, "none").min_dp == 3


# ---- boundaries confirmed by predict() -------------------------------------------------------------------------

BOUNDARY_CASES = [
    ({"architecture": TINY}, {"seq_len": 32, "cluster": {"nodes": 1, "gpus_per_node": 2, "gpu_memory_bytes": 3_000_000}}),
    ({"architecture": TINY}, {"seq_len": 32, "profile": "torch", "cuda_allowance_bytes": 100_000,
                              "cluster": {"gpu_memory_bytes": 2_500_000}}),
    ({"architecture": {"layers": 3, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 500, "norm": "layernorm",
                       "positions": "learned", "mlp": "plain", "bias": "all", "max_positions": 96}},
     {"seq_len": 64, "profile": "torch", "cluster": {"nodes": 2, "gpus_per_node": 2, "gpu_memory_bytes": 4_000_000}}),
]


@pytest.mark.parametrize("model,kw", BOUNDARY_CASES)
def test_every_answer_sits_on_its_boundary_by_predict(model, kw):
    plan = plan_of(model, **kw)
    gpu = plan.cluster.gpu_memory_bytes
    answer = solve(plan)
    assert answer.moments_agree
    for c in answer.configs:
        def fits(stage=c.stage, r=c.recompute, **changes) -> bool:
            return peak(plan, stage, recompute=r, **changes) <= gpu

        b = c.max_micro_batch
        assert b == 0 or fits(micro_batch=b), c
        assert not fits(micro_batch=b + 1), c
        if b:
            assert c.peak_at_max_bytes + plan.cuda_allowance_bytes == peak(plan, c.stage, recompute=c.recompute, micro_batch=b)
        assert c.peak_above_bytes + plan.cuda_allowance_bytes == peak(plan, c.stage, recompute=c.recompute, micro_batch=b + 1)
        s, cap = c.max_seq, max_seq_cap(plan)
        assert s == 0 or fits(micro_batch=1, seq_len=s), c
        assert s == cap or not fits(micro_batch=1, seq_len=s + 1), c
        scan = next((nd for nd in dp_search(plan).sizes if fits(micro_batch=1, cluster=with_dp(plan, nd))), None)
        assert c.min_dp == scan, c


def test_learned_positions_cap_the_sequence():
    plan = plan_of(BOUNDARY_CASES[2][0], seq_len=64, cluster={"gpu_memory_bytes": 10 * GB})
    answer = solve(plan)
    assert max_seq_cap(plan) == 96
    assert {c.max_seq for c in answer.configs} == {96}


def test_a_sliding_window_switching_on_is_found_exactly():
    """Mistral's default window: from 4096 tokens every block keeps a b x s x s mask, a jump the quadratic model of
    shorter sequences cannot see; the boundary is still exact."""
    arch = {**find_model("mistral-7b-v0.1").architecture.model_dump(exclude_none=True),  # its window, shapes shrunk
            "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 128, "vocab": 300}
    probe = plan_of({"architecture": arch}, seq_len=512, profile="torch", cluster={"nodes": 1, "gpus_per_node": 1})
    below, at = peak(probe, 3, seq_len=4095), peak(probe, 3, seq_len=4096)
    assert at - below > 2 * 2 * 4096 * 4096  # the masks: a jump, not a step of the quadratic
    plan = plan_of({"architecture": arch}, seq_len=512, profile="torch",
                   cluster={"nodes": 1, "gpus_per_node": 1, "gpu_memory_bytes": (below + at) // 2})
    assert solve(plan).config(3, "none").max_seq == 4095


def test_preset_70b_answers_and_the_moments_agree_with_predict():
    plan = plan_of(find_model("llama-2-70b").to_model_spec().model_dump(), seq_len=4096, profile="torch",
                   cuda_allowance_bytes=2**30,
                   cluster={"gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes, "nodes": 8, "gpus_per_node": 8})
    answer = solve(plan)
    assert answer.moments_agree and answer.complete
    assert answer.batch_modelled == 12  # the peak is linear in the micro-batch: two batches and the boundary suffice
    usable = answer.usable_bytes
    for c in answer.configs:
        if c.max_micro_batch:
            assert c.peak_at_max_bytes <= usable < c.peak_above_bytes
        assert c.min_dp is None or c.min_dp in (1, 2, 4, 8, 16, 32, 64)
    assert any(c.max_micro_batch for c in answer.configs)


# ---- the search on its own -------------------------------------------------------------------------------------

def _brute_largest(f, limit, cap):
    best = 0
    for x in range(1, cap + 1):
        if max(f(x).values()) > limit:
            break
        best = x
    return best


@pytest.mark.parametrize("shape", ["linear", "quadratic", "window", "concave", "cubic"])
def test_largest_fitting_is_exact_when_the_model_is_wrong(shape):
    fs = {
        "linear": lambda x: {"a": 1000 + 37 * x, "b": 5000 + 3 * x},
        "quadratic": lambda x: {"a": 100 + 7 * x + 3 * x * x},
        "window": lambda x: {"a": 100 + 7 * x + (90_000 if x >= 400 else 0)},  # switches on at a length
        "concave": lambda x: {"a": 100 + 900 * x - x * x // 4},
        "cubic": lambda x: {"a": 50 + x * x * x},  # not of the degree assumed: refits, then bisects
    }
    f = fs[shape]
    for limit in (500, 6_000, 40_000, 95_000, 120_000, 400_000):
        for degree in (1, 2):
            got = largest_fitting(f, limit, 1000, degree=degree, start=7)
            assert got.largest == _brute_largest(f, limit, 1000), (shape, limit, degree)


@pytest.mark.parametrize("seed", range(6))
def test_the_models_answer_is_each_moments_own_in_any_order_and_past_int64(seed):
    """_model_answer (int64 arrays where every figure is small enough) is the least of _moment_answer over the
    moments, exactly: the moments listed in another order at a later point, and figures past int64 (Python ints)."""
    import random

    from zerodesk.core.fit_search import _model_answer, _moment_answer

    rng = random.Random(seed)
    big = 2**70 if seed % 2 else 2**40
    moments = [(f"m{k}", rng.randrange(big), rng.randrange(big >> 10), rng.choice([0, 0, rng.randrange(1000)]))
               for k in range(50)]
    limit = rng.randrange(big)

    def at(x):
        rows = [(name, y0 + (x - 3) * d1 + (x - 3) * (x - 4) // 2 * d2) for name, y0, d1, d2 in moments]
        return dict(reversed(rows) if x % 2 else rows)

    for degree in (1, 2):
        xs = range(3, 3 + degree + 1)
        got = _model_answer([(x, at(x)) for x in xs], limit, 10**6)
        ys = [[at(x)[name] for x in xs] for name, *_ in moments]
        want = max(0, min(_moment_answer(y[0], y[1] - y[0], y[2] - 2 * y[1] + y[0] if degree == 2 else 0, 3, limit,
                                         10**6) for y in ys))
        assert got == want, (degree, big)


def test_a_linear_peak_is_solved_from_two_points_and_confirmed():
    calls = []

    def f(b):
        calls.append(b)
        return {"forward": 10_000 + 300 * b, "optimizer": 40_000 + b}

    got = largest_fitting(f, 100_000, 1_000_000, degree=1, start=1)
    assert got.largest == 300 and got.modelled  # 10,000 + 300 x 300 = 100,000
    assert sorted(calls) == [1, 2, 300, 301]  # two points, then the boundary: b fits, b + 1 does not


def test_smallest_fitting_falls_flattens_and_climbs_out_of_a_valley():
    sizes = [2**i for i in range(17)]

    def valley(n):  # shards shrink as 1/Nd, padding to Nd rows grows
        return {"states": 10**9 // n + 5_000 * n, "buffers": 100_000}

    for limit in (50_000, 300_000, 800_000, 5 * 10**8, 10**10):
        scan = next((n for n in sizes if max(valley(n).values()) <= limit), None)
        assert smallest_fitting(sizes, valley, limit, known=8) == scan
    assert smallest_fitting(sizes, lambda n: {"flat": 7}, 6) is None
    assert smallest_fitting(sizes, lambda n: {"flat": 7}, 7) == 1


# ---- the recommendation --------------------------------------------------------------------------------------------

def test_recommendation_least_communication_then_least_recompute():
    plan = plan_of({"architecture": TINY}, seq_len=32, profile="torch", micro_batch=2,
                   cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 10**9})
    answer = solve(plan)
    rec = answer.recommendation
    # torch's engines move 8, 12, 6, 8 bytes per parameter at stages 0-3: stage 2, and no recompute is needed
    assert (rec.stage, rec.recompute, rec.micro_batch, rec.reason.id) == (2, "none", 2, "least_comm")
    assert rec.comm_bytes == compute(plan).stage(2).comm_bytes == min(c.comm_bytes for c in answer.configs)
    assert "least communication" in why_text(rec.reason, "GB")


def test_recommendation_takes_recompute_only_when_nothing_fits_without():
    plan = plan_of({"architecture": TINY}, seq_len=32, profile="torch", micro_batch=6,
                   cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 3 * 10**6})
    answer = solve(plan)
    fitting = [c for c in answer.configs if c.max_micro_batch >= 6]
    assert fitting, "pick a GPU where some configuration fits micro-batch 6"
    rec = answer.recommendation
    least = min(c.comm_bytes for c in fitting)
    assert rec.comm_bytes == least
    cheapest = [c for c in fitting if c.comm_bytes == least]
    assert RECOMPUTE.index(rec.recompute) == min(RECOMPUTE.index(c.recompute) for c in cheapest)
    if rec.recompute != "none":
        assert "less recompute" in why_text(rec.reason, "GB")


def test_paper_ties_go_to_the_most_headroom():
    """The paper's stages 0-2 move the same 2P elements: the lowest peak of them wins."""
    plan = plan_of({"architecture": TINY}, seq_len=32, cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 10**9})
    answer = solve(plan)
    rec = answer.recommendation
    tied = [c for c in answer.configs if c.recompute == "none" and c.comm_bytes == rec.comm_bytes]
    assert len(tied) == 3 and rec.recompute == "none"
    assert peak(plan, rec.stage) == min(peak(plan, c.stage) for c in tied)
    assert rec.reason.args["same_comm_stages"] == sorted(c.stage for c in tied if c.stage != rec.stage)


def test_recommendation_when_the_batch_or_everything_is_too_big():
    plan = plan_of({"architecture": TINY}, seq_len=32, profile="torch", micro_batch=10**6,
                   cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 3 * 10**6})
    rec = solve(plan).recommendation
    assert rec.reason.id == "batch_too_large" and rec.stage is not None and 0 < rec.micro_batch < 10**6
    assert "Nothing fits micro-batch 1,000,000" in why_text(rec.reason, "GB")
    none = plan_of({"architecture": TINY}, seq_len=32, cluster={"gpu_memory_bytes": 1000})
    answer = solve(none)
    assert answer.recommendation.stage is None and answer.recommendation.reason.id == "nothing_fits"
    assert "nor at any Nd searched" in why_text(answer.recommendation.reason, "GB")
    assert recommend(none, answer.configs) == answer.recommendation


# ---- text and JSON ---------------------------------------------------------------------------------------------

def test_json_has_exactly_the_keys_the_issue_lists():
    plan = plan_of({"architecture": TINY}, seq_len=32, cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 10**7})
    out = fit_json(solve(plan))
    assert set(out) == {"gpu_memory_bytes", "fits", "min_dp", "recommended"}
    assert len(out["fits"]) == len(out["min_dp"]) == 12
    assert all(set(f) == {"stage", "recompute", "max_micro_batch", "peak_at_max_bytes", "peak_above_bytes", "max_seq"}
               for f in out["fits"])
    assert all(set(m) == {"stage", "recompute", "dp"} for m in out["min_dp"])
    assert set(out["recommended"]) == {"stage", "recompute", "micro_batch", "comm_bytes", "why"}
    assert set(out["recommended"]["why"]) == {"id", "args", "text"}
    json.dumps(out)  # plain JSON


def test_table_names_the_tier_profile_and_units():
    plan = plan_of({"architecture": TINY}, seq_len=32, units="GiB", profile="torch",
                   cluster={"nodes": 1, "gpus_per_node": 4, "gpu_memory_bytes": 10**7})
    text = fit_table(plan, solve(plan))
    assert "predicted" in text and "profile torch" in text and "1 GiB = 2^30 B" in text
    assert "Peak at max (GiB)" in text and "Recommended:" in text


def test_no_gpu_memory_or_no_room_left_is_one_sentence():
    with pytest.raises(FitError, match="gpu_memory_bytes"):
        usable_memory(plan_of({"params": "1e9"}))
    with pytest.raises(FitError, match="allowance"):
        usable_memory(plan_of({"params": "1e9"}, cuda_allowance_bytes=10**9, cluster={"gpu_memory_bytes": 10**9}))


# ---- the command ---------------------------------------------------------------------------------------------------

def run(*args):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", "zerodesk", "fit", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def test_cli_json_and_table():
    proc = run("--preset", "llama-2-7b", "--gpu", "h100-80gb", "--dp", "8", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"gpu_memory_bytes", "fits", "min_dp", "recommended", "cheapest_recompute"}
    assert [c["stage"] for c in out["cheapest_recompute"]] == [0, 1, 2, 3]
    assert out["gpu_memory_bytes"] == find_gpu("h100-80gb").memory_bytes
    table = run("--preset", "llama-2-7b", "--gpu", "h100-80gb", "--dp", "8", "--units", "GiB")
    assert table.returncode == 0 and "predicted" in table.stdout and "1 GiB = 2^30 B" in table.stdout
    assert "The cheapest recomputation that fits micro-batch 1" in table.stdout


@pytest.mark.parametrize("args,words", [
    (["--preset", "llama-2-7b"], "--gpu-memory"),  # no GPU size
    (["--preset", "llama-2-7b", "--gpu-memory", "1GB", "--cuda-allowance", "2GB"], "allowance"),
    (["--preset", "llama-2-7b", "--gpu-memory", "1GB", "--verify"], "nothing to check"),
    (["--preset", "llama-2-7b", "--gpu", "h100-80gb", "--timeout", "-3"], "timeout"),
])
def test_cli_bad_input_is_one_sentence(args, words):
    proc = run(*args)
    assert proc.returncode == 2, proc
    assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert words in proc.stderr and proc.stderr.startswith("zerodesk")


def test_cli_fit_imports_neither_qt_nor_torch():
    code = ("import sys; from zerodesk.cli import main; "
            "main(['fit', '--params', '2e9', '--gpu-memory', '40GB', '--json']); "
            "assert 'torch' not in sys.modules and 'PySide6' not in sys.modules, 'heavy import'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_fuzzed_fit_command_lines_get_an_answer_or_one_sentence():
    """Hostile flag values (tests/hostile_inputs.py) on top of plans with a GPU size: a table or JSON, or one sentence
    with status 2, within seconds; never a traceback. --verify is left out (it would start simulations)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from hostile_inputs import BAD, BASES, NUMBERS, NUMERIC_FLAGS, TEXT_FLAGS, TEXTS, run_cli

    flags = NUMERIC_FLAGS + ["--cuda-allowance", "--gpu-memory"]
    pairs = st.one_of(st.tuples(st.sampled_from(flags), st.sampled_from(NUMBERS)),
                      st.tuples(st.sampled_from(TEXT_FLAGS + ["--recompute"]), st.sampled_from(TEXTS + ["full"])))
    extra = st.lists(pairs, min_size=1, max_size=3).map(lambda ps: [a for p in ps for a in p])
    lines = st.tuples(st.sampled_from([[*b, "--gpu-memory", "80GB"] for b in BASES]), extra, st.booleans()).map(
        lambda t: ["fit", *t[0], *t[1], *(["--json"] if t[2] else [])])

    @settings(max_examples=80, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(lines)
    def fuzz(argv):
        answer = run_cli(argv)
        assert answer.outcome not in BAD, (answer.outcome, argv, answer.stderr[-500:], answer.stdout[-300:])
        assert answer.seconds < 5, (answer.seconds, argv)

    fuzz()


# ---- what the window's Fit view reuses: the memo across edits and the map (zerodesk.core.fit_map) ----------------

def _llama(**kw) -> Plan:
    data = {"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
            "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu_memory_bytes": 80 * GB}}
    data.update(kw)
    return Plan.model_validate(data)


EDITS = [  # every field PEAK_FREE leaves out of the memo's key, changed (the variant axes too)
    {"units": "GiB"}, {"bandwidth_gbps": 12.5}, {"cuda_allowance_bytes": 3 * GB}, {"micro_batch": 3},
    {"seq_len": 1000}, {"recompute": "full"}, {"model": {**_llama().model.model_dump(), "name": "renamed"}},
    {"cluster": {"nodes": 2, "gpus_per_node": 4, "gpu_memory_bytes": 40 * GB, "gpu": "a100-40gb"}},
    {"cluster": {"nodes": 4, "gpus_per_node": 8, "dp": 16, "gpu_memory_bytes": 141 * GB,
                 "host_memory_bytes": 10**12}},
]


@pytest.mark.parametrize("profile", ["paper", "torch"])
def test_peak_free_fields_change_no_peak_so_a_kept_memo_answers_as_a_fresh_one(profile):
    from zerodesk.core.fit import peak_memo

    base = _llama(profile=profile)
    memo = peak_memo(base)
    for edit in EDITS:
        plan = Plan.model_validate({**base.model_dump(), **edit})
        kept = peak_memo(plan, memo)
        assert kept is memo, edit  # the same key: the memo serves the edited plan
        # its peaks are predict()'s for the edited plan itself, allowance off, at every stage
        fresh = [p.total_bytes - plan.cuda_allowance_bytes for p in predict(plan)]
        assert [kept.peak(s, plan.recompute, plan.micro_batch, plan.seq_len, plan.dp) for s in range(4)] == fresh
        warm, cold = solve(plan, kept), solve(plan)
        assert warm.configs == cold.configs and warm.recommendation == cold.recommendation, edit
        assert warm.usable_bytes == cold.usable_bytes == usable_memory(plan)
    other = peak_memo(_llama(profile=profile, scheme="fp32-adam" if profile == "paper" else "mixed-adam",
                             optimizer_impl="fused"), memo)
    assert other is not memo  # what the peak reads makes a new memo


@pytest.mark.parametrize("profile", ["paper", "torch"])
def test_a_gpu_chosen_after_a_plan_without_one_gets_the_cuda_kernels_peaks_not_the_memos(profile):
    """The cluster is left out of the memo's key, but a plan that names no GPU predicts with CPU kernels and one that
    does with CUDA's (plan.kernel_device): the window's Fit view kept the CPU peaks after a GPU was chosen."""
    from zerodesk.core.fit import peak_memo

    bare = _llama(profile=profile, cluster={"nodes": 1, "gpus_per_node": 8})
    assert bare.kernel_device == "cpu"
    memo = peak_memo(bare)
    memo.peak(2, "full", 1, 4096, 8)  # what an earlier view asked for
    plan = _llama(profile=profile, recompute="full", cluster={"nodes": 8, "gpus_per_node": 8, "gpu": "h100-80gb",
                                                               "gpu_memory_bytes": 80 * GB})
    assert plan.kernel_device == "cuda"
    assert peak_memo(plan, memo) is not memo
    warm, cold = solve(plan, peak_memo(plan, memo)), solve(plan)
    assert warm.configs == cold.configs and warm.recommendation == cold.recommendation


def test_the_architecture_memo_gives_fresh_lists_and_follows_an_edit():
    from zerodesk.core.architecture import Architecture
    from zerodesk.core.architecture_tensors import param_count, tensor_shapes

    arch = Architecture.model_validate(TINY)
    first = tensor_shapes(arch)
    first.append(("planted", (1,)))  # a caller's list is its own
    assert ("planted", (1,)) not in tensor_shapes(arch)
    count = param_count(arch)
    arch.layers = 3  # validate_assignment: the same object, another architecture
    assert len(tensor_shapes(arch)) > len(first) - 1 and param_count(arch) > count
    assert param_count(Architecture.model_validate({**TINY, "layers": 3})) == param_count(arch)


def test_fit_map_columns_rows_and_cells_are_the_solvers_answers():
    from zerodesk.core.fit import batch_boundary
    from zerodesk.core.fit_map import FitMapModel, cluster_for

    plan = _llama(micro_batch=3)
    state = FitMapModel().update(plan)
    fmap, answer = state.map, state.answer
    assert answer.configs == solve(plan).configs
    assert {1, 2, 4, 8, 1024, plan.dp} <= set(fmap.dps) and list(fmap.dps) == sorted(fmap.dps)
    assert 3 in fmap.batches and list(fmap.batches) == sorted(fmap.batches)
    assert not any(fmap.stage_at(dp, fmap.batches[-1]) is not None for dp in fmap.dps)  # the top row: none fits
    for s in range(4):  # the plan's own column is the solver's largest micro-batch
        assert fmap.limits[s, plan.dp] == answer.config(s, plan.recompute).max_micro_batch
    for dp in (1, 4, 64):  # other columns: the solver asked about a plan at that Nd
        at = plan.model_copy(update={"cluster": cluster_for(plan.cluster, dp)})
        assert [fmap.limits[s, dp] for s in range(4)] == [batch_boundary(at, s, plan.recompute)[0] for s in range(4)]
        for b in fmap.batches:
            want = next((s for s in range(4) if b <= fmap.limits[s, dp]), None)
            assert fmap.stage_at(dp, b) == want


def test_a_cells_peaks_and_headroom_are_predicts():
    from zerodesk.core.fit_map import FitMapModel, cluster_for

    plan = _llama(cuda_allowance_bytes=2 * GB, recompute="selective")
    fit = FitMapModel()
    fmap = fit.update(plan).map
    for dp, b in ((8, 1), (64, 2), (2, 4)):
        cell = fit.cell(dp, b)
        at = Plan.model_validate({**plan.model_dump(), "micro_batch": b,
                                  "cluster": cluster_for(plan.cluster, dp).model_dump()})
        assert cell.peaks == tuple(p.total_bytes - 2 * GB for p in predict(at))
        assert cell.usable_bytes == 78 * GB and cell.headroom(3) == 78 * GB - cell.peaks[3]
        assert cell.stage == fmap.stage_at(dp, b) and fit.cell(dp, b) is cell  # kept
        if cell.stage is not None:
            assert cell.headroom(cell.stage) >= 0 and all(cell.headroom(s) < 0 for s in range(cell.stage))
    with pytest.raises(KeyError):
        fit.cell(3, 1)  # not a column


def test_fit_map_model_keeps_its_answer_and_says_why_there_is_none():
    from zerodesk.core.fit_map import FitMapModel

    fit = FitMapModel()
    plan = _llama()
    first = fit.update(plan)
    assert fit.update(Plan.model_validate(plan.model_dump())) is first  # an equal plan: nothing recomputed
    moved = fit.update(plan.model_copy(update={"micro_batch": 2}))
    assert moved is not first and moved.answer.recommendation.micro_batch == 2
    assert moved.answer.evaluations < first.answer.evaluations  # the memo answered most of it
    none = fit.update(Plan.model_validate({"model": {"params": "2e9"}}))
    assert none.answer is None and none.map is None and "gpu_memory_bytes" in none.error


@pytest.mark.parametrize("cluster, dp", [
    ({"nodes": 1, "gpus_per_node": 8}, 4), ({"nodes": 1, "gpus_per_node": 8}, 8), ({"nodes": 1, "gpus_per_node": 8}, 64),
    ({"nodes": 2, "gpus_per_node": 6}, 16), ({"nodes": 1, "gpus_per_node": 6}, 65536),
    ({"nodes": 3, "gpus_per_node": 8, "dp": 12}, 1), ({"nodes": 1, "gpus_per_node": 1000}, 65536),
])
def test_plan_at_sets_nd_and_the_micro_batch_and_keeps_the_rest(cluster, dp):
    from zerodesk.core.fit_map import plan_at

    plan = _llama(cluster={**cluster, "gpu_memory_bytes": 80 * GB})
    moved = plan_at(plan, dp, 5)
    assert moved.dp == dp and moved.micro_batch == 5
    assert moved.cluster.world_size % dp == 0
    if plan.cluster.world_size % dp == 0:
        assert (moved.cluster.nodes, moved.cluster.gpus_per_node) == (plan.cluster.nodes, plan.cluster.gpus_per_node)
    assert moved.model_dump(exclude={"cluster", "micro_batch"}) == plan.model_dump(exclude={"cluster", "micro_batch"})
    assert moved.cluster.gpu_memory_bytes == 80 * GB


def test_fit_map_answers_a_plan_edited_back_from_its_recent_answers():
    """A choice toggled and toggled back is answered from the kept answer, which is the one a fresh model gives."""
    from zerodesk.core.fit_map import FitMapModel

    base = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
                                "cluster": {"nodes": 8, "gpus_per_node": 8, "gpu": "h100-80gb",
                                            "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes}})
    other = base.model_copy(update={"param_dtype": "fp32"})
    fit = FitMapModel()
    first = fit.update(base)
    assert fit.update(other) is not first
    assert fit.update(Plan.model_validate(base.model_dump())) is first  # an equal plan, not the same object
    assert repr(FitMapModel().update(base).answer) == repr(first.answer)


def test_a_memo_of_peaks_is_not_reused_across_an_edit_of_the_shard_group():
    """The peaks shard among the group: a memo made for another group would give that group's peaks."""
    from zerodesk.core.fit import peak_memo, stage_peaks

    base = Plan.model_validate({"model": find_model("llama-2-7b").to_model_spec().model_dump(), "seq_len": 4096,
                                "cluster": {"nodes": 8, "gpus_per_node": 8, "gpu": "h100-80gb",
                                            "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes}})
    grouped = Plan.model_validate({**base.model_dump(), "cluster": {**base.cluster.model_dump(), "shard_group": 8}})
    memo = peak_memo(base)
    assert stage_peaks(grouped, 1, 64, peak_memo(grouped, memo)) == stage_peaks(grouped, 1, 64)
    assert stage_peaks(grouped, 1, 64) != stage_peaks(base, 1, 64)


@pytest.mark.parametrize("profile", ["paper", "torch"])
@pytest.mark.parametrize("sync", ["every", "last"])
def test_accumulation_steps_of_one_class_share_a_memo_and_answer_as_a_fresh_one(profile, sync):
    """The peaks read of accumulation only whether there is any, the sync, and (reducing in the last micro-batch only)
    whether a middle micro-batch comes (fit.accum_class): plans of one class share the memo, and a kept memo answers
    every figure, the communication per step of the plan's own steps included, as a fresh one."""
    from zerodesk.core.fit import accum_class, peak_memo

    base = _llama(profile=profile, accum_steps=3, accum_sync=sync, micro_batch=2)
    memo = peak_memo(base)
    solve(base, memo)
    for steps in (2, 3, 4, 7):
        plan = base.model_copy(update={"accum_steps": steps})
        kept = peak_memo(plan, memo)
        assert (kept is memo) == (accum_class(plan) == accum_class(base)), steps
        assert (kept is memo) == (sync == "every" or steps >= 3), steps
        warm, cold = solve(plan, kept), solve(plan)
        assert warm.configs == cold.configs and warm.recommendation == cold.recommendation, steps
    assert peak_memo(base.model_copy(update={"accum_steps": 1}), memo) is not memo


@pytest.mark.parametrize("profile", ["paper", "torch"])
@pytest.mark.parametrize("group", [2, 8])
def test_a_shard_groups_peaks_past_it_are_the_plans_own_there(profile, group):
    """The memo answers Nd = k x N from the group's own Nd (HSDP: only the replicas grow, _Peaks.peak_dp): each is
    predict()'s peak for the plan set to that Nd, allowance off, where the memo never worked it out itself."""
    from zerodesk.core.fit import peak_memo

    base = _llama(profile=profile, cluster={"nodes": 8, "gpus_per_node": 8, "shard_group": group,
                                            "gpu_memory_bytes": 80 * GB})
    memo = peak_memo(base)
    for dp in (group, 2 * group, 64, 4096, 65536):
        assert memo.peak_dp(dp) == group
        at = base.model_copy(update={"cluster": base.cluster.model_copy(update={"dp": dp})})
        fresh = [p.total_bytes - base.cuda_allowance_bytes for p in predict(at)]
        assert [memo.peak(s, base.recompute, base.micro_batch, base.seq_len, dp) for s in range(4)] == fresh, dp
    assert memo.peak_dp(group + 1) == group + 1  # N does not divide it: its own
