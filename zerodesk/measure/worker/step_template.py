"""A structure's step template, fitted from the real module's timelines (worker side: torch).

`python -m zerodesk.measure.worker.step_template ARCH.json|CONFIG.json|-` prints one JSON object, the template that
zerodesk.core.step_template evaluates without torch, or {"error": "one sentence"}.

How: the model of the plan's structure (every knob as the plan has it) is built at a few probe sizes, each size
symbol a distinct prime (poly.py), five blocks long (a period of Gemma-2's alternation each, so one block has a
block before its predecessor and one after its successor), and one step is traced per compute mode and
recompute choice (step_trace.py). The probes' timelines must agree event for event; each storage's bytes become
a polynomial in the sizes. At every moment where memory stops rising, the bytes alive are summed by who made
them (the block the moment is in, its predecessor, earlier blocks, its successor, later ones, the rest) and by
what they are (kept from forward, made in backward, gradients), so the core can place any block of any depth.
"""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from typing import Any

from ...core.architecture import Architecture
from ...core.step_template import COMPUTES, RECOMPUTES, SYMBOLS, TEMPLATE_VERSION, structure_key
from .poly import FitError, Poly, add, dominates, fit_dimension, mul, to_json
from .step_trace import Timeline, trace_step

PERIODS = 5  # far before, before, the block, after, far after
_PRIMES = [p for p in range(101, 2000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


class TemplateError(RuntimeError):
    """One sentence: why this structure's step could not be fitted."""


# ---------------------------------------------------------------- probes

def free_symbols(arch: Architecture) -> list[str]:
    """The size symbols this structure's step can depend on (the rest are fixed by its structure)."""
    syms = ["s", "b", "hd", "V"]
    kv, heads = arch.n_kv_heads, arch.heads
    if kv != heads:
        syms.append("g")
    if kv != 1 or kv == heads:
        syms.append("kv")
    if "head_dim" in _knobs(arch):  # hidden free of head_dim, though a multiple of heads (transformers checks it)
        syms.append("u")
    if arch.family != "bloom":
        syms.append("f")
    if arch.experts:
        syms += ["E", "k"]
    if arch.rotary_dim is not None and arch.rotary_dim < arch.dim_per_head and arch.positions == "rotary":
        syms.append("r")
    if arch.sliding_window is not None:
        syms.append("w")
    if arch.embed_dim is not None and arch.embed_dim != arch.hidden:
        syms.append("e")
    return syms


def _knobs(arch: Architecture) -> dict:
    from ...core.architecture import FAMILY_KNOBS

    return FAMILY_KNOBS[arch.family]


def _pools(arch: Architecture) -> dict[str, list[int]]:
    """Three primes per symbol (base, changed, all-changed), none shared. Head widths stay on the side of 256 the
    model is on (transformers and the attention kernels change course above it); rotary lanes stay below them."""
    wide = arch.dim_per_head > 256
    head = [131, 137, 139] if wide else [109, 113, 127]
    rotary = [101, 103, 107]
    # head counts stay small: a model may build a module per head (StableLM's q/k LayerNorms); the key/value heads
    # within one octave, [16, 32): ALiBi splits the heads at the power of two below their count (BLOOM's slopes),
    # which is affine in the count only between two powers of two
    counts = {"kv": [17, 19, 23], "g": [29, 31, 37]}
    rest = iter(p for p in _PRIMES if p not in head + rotary and p > 127)
    return {s: head if s == "hd" else rotary if s == "r" else counts.get(s) or [next(rest) for _ in range(3)]
            for s in SYMBOLS}


# A probe's value of a symbol is a prime times this: head widths even (rotary halves them), hidden and MLP widths
# multiples of 8 (grouped_mm, the experts' kernel, wants 16-byte strides); the fit reads the primes.
MULTIPLIER = {"hd": 2, "r": 2, "u": 8, "f": 8}


def _probe_values(syms: list[str], pick: dict[str, int], reached: bool) -> dict[str, int]:
    """One probe's values: the primes picked times MULTIPLIER, the window placed as asked."""
    v = {s: pick[s] * MULTIPLIER.get(s, 1) for s in syms}
    if "w" in v:  # the window reached (w <= s) or not (w > s), as the plan's sequence does
        lo, hi = sorted((v["w"], v["s"]))
        v["w"], v["s"] = (lo, hi) if reached else (hi, lo)
    if "k" in v and v["k"] >= v["E"]:
        v["k"], v["E"] = v["E"], v["k"]
    return v


def probes(arch: Architecture, reached: bool) -> tuple[list[dict[str, int]], list[str | None]]:
    """(values per probe, the symbol each probe changes): the base, one per symbol, and one changing all."""
    syms = free_symbols(arch)
    pools = _pools(arch)
    base = {s: pools[s][0] for s in syms}
    out = [_probe_values(syms, base, reached)]
    changed: list[str | None] = [None]
    for s in syms:
        trial = _probe_values(syms, {**base, s: pools[s][1]}, reached)
        if sum(trial[x] != out[0][x] for x in syms) != 1:
            raise TemplateError(f"no probe sizes change {s} alone in this structure")
        out.append(trial)
        changed.append(s)
    out.append(_probe_values(syms, {s: pools[s][2] for s in syms}, reached))
    changed.append(None)
    return out, changed


def primes_of(values: dict[str, int]) -> dict[str, int]:
    return {s: v // MULTIPLIER.get(s, 1) for s, v in values.items()}


def probe_architecture(arch: Architecture, v: dict[str, int], layers: int) -> Architecture:
    """arch with its sizes replaced by the probe's, its structure kept (MHA, MQA or GQA; head_dim free or not)."""
    if arch.n_kv_heads == arch.heads:
        heads, kv = v["kv"], None
    elif arch.n_kv_heads == 1:
        heads, kv = v["g"], 1
    else:
        heads, kv = v["kv"] * v["g"], v["kv"]
    hd = v["hd"]
    hidden = heads * v["u"] if "u" in v else heads * hd
    data = arch.model_dump()
    data.update(layers=layers, hidden=hidden, heads=heads, kv_heads=kv, head_dim=hd if "u" in v else None,
                vocab=v["V"], ffn=4 * hidden if arch.family == "bloom" else v["f"],
                max_positions=4 * max(v["s"], v.get("w", 0)) + 8)
    if "E" in v:
        data.update(experts=v["E"], top_k=v["k"])
    if "r" in v:
        data["rotary_dim"] = v["r"]
    elif arch.rotary_dim is not None:
        data["rotary_dim"] = hd if arch.family == "gptj" else None
    if "w" in v:
        data["sliding_window"] = v["w"]
    if "e" in v:
        data["embed_dim"] = v["e"]
    return Architecture.model_construct(**data)  # probe sizes beyond the form's limits (fake tensors cost nothing)


# ---------------------------------------------------------------- tracing


def trace_all(arch: Architecture | dict, s: int, b: int, computes=COMPUTES, recomputes=RECOMPUTES) -> dict[str, Timeline]:
    """One traced step of `arch` (built once, under fake tensors) per compute mode and recompute choice, at sequence
    s and micro-batch b; keys "compute/recompute". arch may be a config.json dict (transformers builds it)."""
    import torch

    from . import torch_compat
    from .model import blocks_of, build_model, built_by_transformers
    from .recompute import apply_recompute, attention_of

    from .hf_model import build_hf_model

    out: dict[str, Timeline] = {}
    # the dispatch cache's keys built directly, as the simulation builds them: the same keys, a fifth of the time
    by_transformers = not isinstance(arch, Architecture) or built_by_transformers(arch)
    with torch_compat.fake_tensor_mode(), torch_compat.fake_cache_keys_direct(), \
            torch_compat.one_sequence_per_row(by_transformers):
        model = build_model(arch, "cpu") if isinstance(arch, Architecture) else build_hf_model(arch, "cpu")
        blocks = blocks_of(model)
        vocab = arch.vocab if isinstance(arch, Architecture) else int(arch["vocab_size"])
        tokens = torch.randint(vocab, (b, s))
        targets = torch.randint(vocab, (b, s))
        fp32 = [p.data for p in model.parameters()]
        for compute in computes:
            for p, data in zip(model.parameters(), fp32):
                p.data = data.to(torch.bfloat16) if compute == "bf16" else data
            for rc in recomputes:
                apply_recompute(blocks, rc)
                try:
                    out[f"{compute}/{rc}"] = trace_step(model, blocks, tokens, targets, compute)
                except RuntimeError:  # a kernel that refuses this dtype on the CPU (grouped_mm in fp32): no such step
                    break
                finally:  # unwrap: the instance's forward goes, the class's is back
                    for block in blocks:
                        block.__dict__.pop("forward", None)
                        if rc == "selective":
                            attention_of(block).__dict__.pop("forward", None)
    return out


# ---------------------------------------------------------------- from timelines to the template


def _alloc_polys(timelines: list[Timeline], values: list[dict[str, int]], changed: list[str | None]) -> list[Poly]:
    """Each storage's bytes as a polynomial in the sizes."""
    sig = timelines[0].signature()
    for t in timelines[1:]:
        if t.signature() != sig:
            raise TemplateError("the step's operations change with its sizes, so no template fits it")
    primes = [primes_of(v) for v in values]
    out = []
    for i, first in enumerate(timelines[0].allocs):
        allocs = [t.allocs[i] for t in timelines]
        item = allocs[0].nbytes // max(1, _numel(first.shape)) if _numel(first.shape) else 0
        exact = all(_numel(a.shape) * item == a.nbytes for a in allocs) and item > 0
        if exact:
            poly: Poly = {(): Fraction(item)}
            for d in range(len(first.shape)):
                poly = mul(poly, fit_dimension([a.shape[d] for a in allocs], values, primes, changed))
        else:  # a storage larger than its first view: fit its bytes whole
            poly = fit_dimension([a.nbytes for a in allocs], values, primes, changed)
        out.append(poly)
    return out


def live_at(tl: Timeline, event: int) -> int:
    """Bytes a timeline holds right after its event number `event` (for checks against a template)."""
    alive: dict[int, int] = {}
    for kind, item in tl.events[: event + 1]:
        if kind == "alloc":
            alive[item.index] = item.nbytes
        elif kind == "free":
            alive.pop(item, None)
    return sum(alive.values())


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


_FORWARD = ("pre", "fwd", "head", "loss")
CLASSES = ("act", "tmp", "grad")


def _owner(region: str) -> tuple[str, int | None]:
    kind, _, index = region.partition(":")
    return kind, int(index) if index else None


def _instants(tl: Timeline, polys: list[Poly], period: int, kinds: list[str]) -> list[dict]:
    """Every moment where memory stops rising, as groups of polynomials (see the module docstring)."""
    layers = len(kinds)
    mid = range(2 * period, 3 * period)
    alive: dict[int, None] = {}
    marks: list[str] = []
    where = "pre"
    events = tl.events[: next(i for i, (k, x) in enumerate(tl.events) if k == "mark" and x == "end") + 1]
    out = []
    for n, (kind, item) in enumerate(events):
        if kind == "mark":
            marks.append(item)
            where = item
            continue
        if kind == "free":
            alive.pop(item, None)
            continue
        alive[item.index] = None
        following = events[n + 1][0] if n + 1 < len(events) else "mark"
        if following == "alloc":
            continue  # still rising
        loc, block = _location(where, mid, layers)
        if loc is None:
            continue
        out.append({**_groups(loc, block, kinds, period, alive, tl, polys), "event": n, "block": block})
    return out


def _location(where: str, mid: range, layers: int) -> tuple[str | None, int | None]:
    """Which place of the step a mark opens, and the block it is in (None: a place the template skips).

    pre: before block 0; fwd/bwd: a middle block's forward or backward; head: the final norm and the output layer;
    loss: the loss; lossb: its backward; headb: the output layer's backward; last: the last block's backward;
    tail: what follows block 0's backward (the embedding's)."""
    kind, index = _owner(where)
    if where == "pre":
        return "pre", None
    if kind in ("fwd", "bwd") and index in mid:  # "bwd:i": the gradient of block i's output, its backward begins
        return kind, index
    if kind == "bwd" and index == layers - 1:
        return "last", index
    if kind == "fwd_end" and index == layers - 1:
        return "head", None
    if where in ("loss", "forward_end"):
        return "loss", None
    if where in ("backward_start", "lossb"):
        return "lossb", None
    if where in ("headb", "tail"):
        return where, None
    return None, None


def _groups(loc: str, block: int | None, kinds: list[str], period: int, alive: dict[int, None], tl: Timeline,
            polys: list[Poly]) -> dict:
    """The bytes alive, summed by owner group and class, for a moment at `loc` (in `block`)."""
    layers = len(kinds)
    role: dict[int, str] = {}
    if loc in ("fwd", "bwd"):
        role[block] = "self"
        role[block - 1] = "prev"
        role[block + 1] = "next"
        for j in range(period):
            role[j] = f"before:{kinds[j]}"
            role[layers - period + j] = f"far:{kinds[layers - period + j]}"
    elif loc == "last":
        role[block] = "self"
        role[block - 1] = "prev"
        for j in range(period):
            role[j] = f"before:{kinds[j]}"
    elif loc in ("head", "loss", "lossb", "headb"):
        role[layers - 1] = "prev"
        for j in range(period):
            role[j] = f"before:{kinds[j]}"
    elif loc == "tail":
        role[0] = "next"
        for j in range(period):
            role[layers - period + j] = f"far:{kinds[layers - period + j]}"
    groups: dict[str, dict[str, Poly]] = {}
    skipped = set()
    for index in alive:
        a = tl.allocs[index]
        kind, owner = _owner(a.region)
        who = "other" if owner is None else role.get(owner)
        if who is None:
            skipped.add(owner)  # a representative's twin: counted through the representative
            continue
        cls = "grad" if a.grad else ("act" if kind in _FORWARD else "tmp")
        _add_into(groups.setdefault(who, {}).setdefault(cls, {}), polys[index])
    groups = {who: {cls: {m: c for m, c in p.items() if c} for cls, p in g.items()} for who, g in groups.items()}
    return {"at": loc, "kind": kinds[block] if block is not None else None, "groups": groups}


def _add_into(out: Poly, p: Poly) -> None:
    """out += p in place (zero terms stay until the caller drops them): a moment sums hundreds of storages."""
    for m, c in p.items():
        out[m] = out.get(m, 0) + c


def _prune(instants: list[dict]) -> list[dict]:
    """Drop every moment another moment of the same place exceeds in every group, for any depth and sizes.

    The engines count a group's classes alike (kept, temporary, gradient), except the gradients of blocks whose
    backward is done, which FSDP2 has reduce-scattered and DDP keeps: those are compared apart."""
    def flat(x: dict) -> dict[str, Poly]:
        out: dict[str, Poly] = {}
        for g, cls in x["groups"].items():
            for c, p in cls.items():
                key = f"{g}.grad" if c == "grad" and g.startswith(("next", "far")) else g
                out[key] = add(out.get(key, {}), p)
        return out

    keep: list[tuple[dict, dict[str, Poly]]] = []  # each kept moment with its flat form, made once
    for x in instants:
        fx = flat(x)
        if any(k["at"] == x["at"] and k["kind"] == x["kind"] and _covers(fk, fx) for k, fk in keep):
            continue
        keep = [(k, fk) for k, fk in keep if not (k["at"] == x["at"] and k["kind"] == x["kind"] and _covers(fx, fk))]
        keep.append((x, fx))
    return [k for k, _ in keep]


def _covers(a: dict[str, Poly], b: dict[str, Poly]) -> bool:
    return all(dominates(a.get(k, {}), b.get(k, {})) for k in set(a) | set(b))


def _check_blocks_alike(tl: Timeline, polys: list[Poly], period: int, kinds: list[str]) -> None:
    """The template counts every block like its representative: blocks of one kind must keep alike (the last block
    aside, whose output the final norm keeps)."""
    kept: dict[int, Poly] = {}
    alive: set[int] = set()
    for kind, item in tl.events:
        if kind == "alloc":
            alive.add(item.index)
        elif kind == "free":
            alive.discard(item)
        elif item == "forward_end":
            break
    for index in alive:
        k, owner = _owner(tl.allocs[index].region)
        if k == "fwd":
            kept[owner] = add(kept.get(owner, {}), polys[index])
    for j in range(0, len(kinds) - 1 - period):
        if kept.get(j, {}) != kept.get(j + period, {}):
            raise TemplateError(f"the model's blocks {j} and {j + period} keep different activations")


def _summarise(timelines: list[Timeline], values: list[dict[str, int]], changed: list[str | None], period: int,
               kinds: list[str]) -> dict:
    """One step of the template from its probes' timelines."""
    polys = _alloc_polys(timelines, values, changed)
    _check_blocks_alike(timelines[0], polys, period, kinds)
    instants = _prune(_instants(timelines[0], polys, period, kinds))
    return {"instants": [
        {"at": x["at"], "kind": x["kind"], "event": x["event"], "block": x["block"],
         "groups": {g: {c: to_json(p) for c, p in cls.items() if p} for g, cls in sorted(x["groups"].items())}}
        for x in instants]}


def fit_template(arch: Architecture, computes=COMPUTES, recomputes=RECOMPUTES, reached=(True, False),
                 batch_one: bool = True) -> dict:
    """The whole template of arch's structure: every compute mode and recompute choice, the window reached or not.

    A micro-batch of one can take other paths than a larger one (matmul folds a broadcast batch of 1 into one mm:
    Falcon's math-fallback attention); where a step's operations at b = 1 differ, it gets a b = 1 step of its own
    (b fixed, the other sizes symbols). A part of the template alone (what a check needs, a fraction of the time):
    computes, recomputes, `reached` (the window placements fitted, for a windowed structure) and batch_one=False
    (no b = 1 steps)."""
    period = (arch.window_period or 1) if arch.sliding_window is not None else 1
    layers = PERIODS * period
    steps: dict[str, Any] = {}
    for window_reached in (reached if arch.sliding_window is not None else (False,)):
        values, changed = probes(arch, window_reached)
        traced = [trace_all(probe_architecture(arch, v, layers), v["s"], v["b"], computes, recomputes) for v in values]
        probe0 = probe_architecture(arch, values[0], layers)
        kinds = ["window" if probe0.windowed(i) else "full" for i in range(layers)]
        suffix = "/reached" if window_reached else ""
        names = [name for name in traced[0] if all(name in t for t in traced)]
        if not names:
            raise TemplateError("the model's step fails under fake tensors in every compute mode")
        for name in names:
            steps[name + suffix] = _summarise([t[name] for t in traced], values, changed, period, kinds)
        one = trace_all(probe0, values[0]["s"], 1, computes, recomputes) if batch_one else {}
        differ = [name for name in names if name in one and one[name].signature() != traced[0][name].signature()]
        if differ:  # b = 1 steps: the probes again with b = 1 (every probe but the one that changes b)
            keep = [i for i, c in enumerate(changed) if c != "b"]
            values1 = [{k: x for k, x in values[i].items() if k != "b"} for i in keep]  # b is 1: no symbol
            changed1 = [changed[i] for i in keep]
            # the first is probe0 at b = 1, traced above
            traced1 = [one] + [trace_all(probe_architecture(arch, v, layers), v["s"], 1, computes, recomputes)
                               for v in values1[1:]]
            for name in differ:
                steps[name + suffix + "/b1"] = _summarise([t[name] for t in traced1], values1, changed1, period, kinds)
    from .attention_probe import attention_kernel

    attention = attention_kernel(probe_architecture(arch, probes(arch, False)[0][0], 1), 64)
    return {"version": TEMPLATE_VERSION, "key": structure_key(arch), "symbols": free_symbols(arch),
            "trace_periods": PERIODS, "attention": attention, "steps": steps}


_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")


def config_with_layers(config: dict, layers: int) -> tuple[dict, int, list[str]]:
    """(the config with `layers` blocks, the period of its windowed/global alternation, each block's kind)."""
    cfg = {k: v for k, v in config.items() if k not in _LAYER_KEYS}
    cfg["num_hidden_layers"] = layers
    types = config.get("layer_types")
    if not isinstance(types, list) or not types:
        return cfg, 1, ["full"] * layers
    period = next(p for p in range(1, len(types) + 1) if all(types[i] == types[i % p] for i in range(len(types))))
    cfg["layer_types"] = [types[i % period] for i in range(layers * period)][:layers * period]
    cfg["num_hidden_layers"] = layers * period
    kinds = ["window" if "sliding" in str(t) else "full" for t in cfg["layer_types"]]
    return cfg, period, kinds


def fit_config_template(config: dict, computes=COMPUTES, recomputes=RECOMPUTES) -> dict:
    """The template of a model ZeroDesk has no layout for, from its config.json: its sizes stay as the config has
    them, so only the sequence and the micro-batch are symbols."""
    _, period, _ = config_with_layers(config, 1)
    cfg, _, kinds = config_with_layers(config, PERIODS)
    pools = _pools(Architecture(layers=1, hidden=8, heads=1, ffn=8, vocab=8))
    values = [{"s": pools["s"][0], "b": pools["b"][0]}, {"s": pools["s"][1], "b": pools["b"][0]},
              {"s": pools["s"][0], "b": pools["b"][1]}, {"s": pools["s"][2], "b": pools["b"][2]}]
    changed: list[str | None] = [None, "s", "b", None]
    traced = [trace_all(cfg, v["s"], v["b"], computes, recomputes) for v in values]
    steps: dict[str, Any] = {name: _summarise([t[name] for t in traced], values, changed, period, kinds)
                             for name in traced[0]}
    one = [trace_all(cfg, values[0]["s"], 1, computes, recomputes)]
    differ = [name for name in traced[0] if one[0][name].signature() != traced[0][name].signature()]
    if differ:  # b = 1 steps: the second probe at b = 1 too (s changed)
        one.append(trace_all(cfg, values[1]["s"], 1, computes, recomputes))
    for name in differ:
        steps[name + "/b1"] = _summarise([one[0][name], one[1][name]], [{"s": values[0]["s"]},
                                         {"s": values[1]["s"]}], [None, "s"], period, kinds)
    return {"version": TEMPLATE_VERSION, "key": config_key(config), "symbols": ["s", "b"], "trace_periods": PERIODS,
            "period": period, "kinds": kinds[:period], "steps": steps}


def config_key(config: dict) -> str:
    from ...core.step_template import config_key as key

    return key(config)


def main(argv: list[str] | None = None) -> None:
    """ARCH.json | --config CONFIG.json | - (an Architecture on stdin) | --config - (a config.json on stdin)."""
    argv = sys.argv[1:] if argv is None else argv
    t0 = time.perf_counter()
    try:
        from_config = argv[:1] == ["--config"]
        argv = argv[1:] if from_config else argv
        text = sys.stdin.read() if argv[:1] == ["-"] else open(argv[0], encoding="utf-8").read()
        if from_config:
            answer: dict[str, Any] = fit_config_template(json.loads(text))
        else:
            answer = fit_template(Architecture.model_validate(json.loads(text)))
        answer["fit_s"] = round(time.perf_counter() - t0, 1)
    except (TemplateError, FitError, ValueError) as exc:
        answer = {"error": str(exc).splitlines()[0]}
    print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
