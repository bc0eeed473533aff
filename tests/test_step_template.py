"""Step templates: the model's own step, traced under fake tensors, fitted exactly in its sizes, evaluated torch-free.

Closed-form checks (no torch): the fit of dimensions (poly.py), the structure key, the shipped templates' moments
(linear in the micro-batch at a fixed sequence, every depth). With torch and transformers: a template fitted for a
tiny model of each structural kind reproduces its own traced step at sizes it never saw, byte for byte.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from zerodesk.core.architecture import Architecture
from zerodesk.core.catalog import find_model
from zerodesk.core.plan import Plan
from zerodesk.core.step_template import shipped, structure_key, symbol_values, template_for
from zerodesk.measure.worker.poly import FitError, evaluate, fit_dimension, mono

# ---------------------------------------------------------------- fitting a dimension (pure Python)

SYMS = ("s", "kv", "g", "hd")


def _probes(fn, base=(101, 131, 137, 109), alt=(103, 139, 149, 113), third=(107, 151, 157, 127)):
    """Values of fn at the base probe, one probe per symbol changed, and all changed (hd doubled: even)."""
    def values(xs):
        return {s: (2 * x if s == "hd" else x) for s, x in zip(SYMS, xs)}

    probes = [values(base)]
    changed = [None]
    for i, s in enumerate(SYMS):
        xs = list(base)
        xs[i] = alt[i]
        probes.append(values(xs))
        changed.append(s)
    probes.append(values(third))
    changed.append(None)
    primes = [{s: (v // 2 if s == "hd" else v) for s, v in p.items()} for p in probes]
    return [fn(p) for p in probes], probes, primes, changed


@pytest.mark.parametrize("fn, want", [
    (lambda p: p["s"], {mono(s=1): 1}),
    (lambda p: p["kv"] * p["g"] * p["hd"], {mono(kv=1, g=1, hd=1): 1}),
    (lambda p: p["hd"] // 2, {mono(hd=1): Fraction(1, 2)}),  # rotary's half width
    (lambda p: (p["g"] + 2) * p["kv"] * p["hd"], {mono(kv=1, g=1, hd=1): 1, mono(kv=1, hd=1): 2}),  # fused qkv
    (lambda p: 3, {(): 3}),
    (lambda p: p["s"] * p["s"], {mono(s=2): 1}),  # attention scores
])
def test_a_dimension_fits_as_the_polynomial_it_is(fn, want):
    values, probes, primes, changed = _probes(fn)
    poly = fit_dimension(values, probes, primes, changed)
    assert poly == {k: Fraction(v) for k, v in want.items()}
    assert all(evaluate(poly, p) == v for p, v in zip(probes, values))


def test_a_dimension_no_product_of_affine_sizes_is_refused():
    values, probes, primes, changed = _probes(lambda p: p["s"] ** 2 + p["kv"] ** 2)
    with pytest.raises(FitError):
        fit_dimension(values, probes, primes, changed)


# ---------------------------------------------------------------- the structure key and the shipped templates


def test_every_architecture_field_is_a_size_or_part_of_the_structure():
    from zerodesk.core.step_template import _STRUCTURE, SIZE_FIELDS

    assert set(Architecture.model_fields) == set(_STRUCTURE) | set(SIZE_FIELDS)


def test_structure_key_leaves_sizes_out_and_keeps_what_changes_the_step():
    base = Architecture(family="llama", layers=2, hidden=256, heads=8, kv_heads=2, ffn=512, vocab=1000)
    same = base.model_copy(update={"layers": 40, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336,
                                   "vocab": 128256})
    assert structure_key(same) == structure_key(base)
    for other in (base.model_copy(update={"kv_heads": None}),  # MHA: no grouped heads
                  base.model_copy(update={"kv_heads": 1}),  # MQA
                  base.model_copy(update={"family": "mistral", "sliding_window": 4096}),
                  base.model_copy(update={"head_dim": 512})):  # above 256 transformers repeats kv heads
        assert structure_key(other) != structure_key(base)


def _preset_plan(name: str, **kw) -> Plan:
    data = {"model": find_model(name).to_model_spec().model_dump(), "profile": "torch", "kernels": "cpu",
            "cluster": {"nodes": 1, "gpus_per_node": 8}}
    data.update(kw)
    return Plan.model_validate(data)


SHIPPED = ["llama-2-7b", "gpt2", "gemma-2-2b", "falcon-7b", "bloom-560m", "mixtral-8x7b", "qwen3-0.6b", "phi-2"]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_family_in_the_issue_ships_its_template(name):
    arch = find_model(name).architecture
    assert shipped(arch), name
    assert template_for(arch) is not None


@pytest.mark.parametrize("name", ["llama-2-7b", "gemma-2-2b", "mixtral-8x7b", "falcon-7b"])
@pytest.mark.parametrize("recompute", ["none", "full"])
def test_every_moment_is_linear_in_the_micro_batch_at_a_fixed_sequence(name, recompute):
    """A + B x micro_batch: the batch solver's assumption, moment by moment, every stage, from two sequences on (a
    micro-batch of one may take its own path through the model, traced apart: Falcon's broadcast matmul folds)."""
    from zerodesk.core.peak import moments

    plans = [_preset_plan(name, seq_len=2048, micro_batch=b, recompute=recompute) for b in (2, 3, 6)]
    for stage in range(4):
        by_b = [moments(p, stage) for p in plans]
        assert len({len(m) for m in by_b}) == 1
        for m1, m2, m5 in zip(*by_b):
            assert (m1.phase, m1.name) == (m5.phase, m5.name)
            a = m2.total - m1.total
            assert m5.total - m1.total == 4 * a, (stage, m1.name)


def test_the_template_answers_for_any_depth_and_window():
    """One template, many shapes: more layers add the same per block; a window the sequence does not reach is
    no window at all (transformers materialises no mask)."""
    from zerodesk.core.peak import predict

    plan = _preset_plan("mistral-7b-v0.1", seq_len=2048)
    arch = plan.model.architecture
    nowin = plan.model_copy(update={"model": plan.model.model_copy(update={
        "architecture": arch.model_copy(update={"sliding_window": 8192})})})
    assert [p.total_bytes for p in predict(nowin)][2:] == pytest.approx([p.total_bytes for p in predict(plan)][2:])
    deep = [predict(_preset_plan("llama-2-7b", seq_len=1024, model={"architecture": find_model(
        "llama-2-7b").architecture.model_copy(update={"layers": n}).model_dump()}))[2].total_bytes for n in (8, 9, 10)]
    assert deep[2] - deep[1] == pytest.approx(deep[1] - deep[0], rel=1e-9)


def test_symbol_values_read_the_architecture():
    arch = find_model("gemma-2-2b").architecture
    v = symbol_values(arch, 4096, 2)
    assert (v["s"], v["b"], v["kv"], v["g"], v["hd"], v["u"], v["w"]) == (4096, 2, 4, 2, 256, 288, 4096)


# ---------------------------------------------------------------- fitted from the module itself (torch)

TINY = {
    "eager + softcaps + alternating window (gemma2)": dict(family="gemma2", layers=2, hidden=64, heads=4, kv_heads=2,
                                                          head_dim=16, ffn=96, vocab=101, sliding_window=24,
                                                          window_period=2, attn_softcap=50.0, final_softcap=30.0,
                                                          tied_embeddings=True),
    "math fallback, parallel (falcon mqa)": dict(family="falcon", layers=2, hidden=64, heads=4, kv_heads=1, ffn=256,
                                                 vocab=101, mlp="plain", norm="layernorm", parallel=True,
                                                 tied_embeddings=True),
    # 5 heads: ALiBi's slopes take an extra branch when the count is no power of two, as at every probe (17, 19, 23)
    "alibi eager (bloom)": dict(family="bloom", layers=2, hidden=80, heads=5, ffn=320, vocab=101, mlp="plain",
                                norm="layernorm", bias="all", positions="alibi", embed_norm=True, tied_embeddings=True),
    "moe top-2 (mixtral)": dict(family="mixtral", layers=2, hidden=64, heads=4, kv_heads=2, ffn=64, vocab=101,
                                experts=4, top_k=2),
    "qk-norm (qwen3)": dict(family="qwen3", layers=2, hidden=64, heads=4, kv_heads=2, head_dim=16, ffn=96, vocab=101,
                            qk_norm=True, tied_embeddings=True),
    "partial rotary, gelu_new (phi)": dict(family="phi", layers=2, hidden=64, heads=4, ffn=256, vocab=101,
                                           mlp="plain", norm="layernorm", bias="all", head_bias=True, parallel=True,
                                           rotary_dim=8),
}


# Falcon's micro-batch of one takes a path of its own (matmul folds the broadcast batch): its fit keeps the b = 1
# steps, checked at a batch of one too. The other fits are of the one step checked (bf16, no recompute, the window
# reached as the check's sequence reaches it, b > 1): a quarter of gemma2's whole fit, the same code path.
BATCH_ONE = "math fallback, parallel (falcon mqa)"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TINY))
def test_a_fitted_template_reproduces_the_traced_step_at_new_sizes(name):
    """Fit at the probes (sizes in the hundreds), then trace the module at the tiny model's own sizes, which no probe
    used: every moment the template keeps holds, to the byte, what the traced step holds at that moment. (BLOOM's
    ALiBi slopes split the heads at the power of two below their count: affine in the count within an octave, where
    the probes lie, and off by a few vectors outside it (4 KiB at most); the one tolerance.)"""
    pytest.importorskip("transformers")
    from zerodesk.core.peak_traced import _counts
    from zerodesk.core.step_template import GROUPS, StepTemplate, block_kinds
    from zerodesk.measure.worker.step_template import PERIODS, fit_template, trace_all
    from zerodesk.measure.worker.template_moments import live_at

    arch = Architecture(**TINY[name])
    seq = 40
    reached = bool(arch.sliding_window and seq >= arch.sliding_window)
    template = fit_template(arch, computes=("bf16",), recomputes=("none",), reached=(reached,),
                            batch_one=name == BATCH_ONE)
    period = arch.window_period or 1
    traced_arch = arch.model_copy(update={"layers": PERIODS * period})
    kinds = block_kinds(traced_arch)
    for batch in (3, 1) if name == BATCH_ONE else (3,):
        step = StepTemplate(template).step(traced_arch, seq, "bf16", "none", batch)
        timeline = trace_all(traced_arch, seq, batch, ("bf16",), ("none",))["bf16/none"]
        values = step.values(symbol_values(traced_arch, seq, batch))  # [moment, group, class, part]
        name_of = "bf16/none" + ("/reached" if reached else "") + ("/b1" if batch == 1 else "")
        instants = template["steps"][name_of]["instants"]
        assert len(instants) == len(step.at) > 10
        for n, x in enumerate(instants):
            counts = _counts(x["at"], x["block"], kinds)
            want = sum(values[n, GROUPS.index(g)].sum() * c for g, c in counts.items())
            slack = 4096 if arch.positions == "alibi" else 0
            assert abs(round(want) - live_at(timeline, x["event"])) <= slack, (name, batch, x["at"], x["block"],
                                                                                x["event"])
