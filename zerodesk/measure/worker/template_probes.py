"""The probes a step template is fitted from (step_template.py's first part, split by job): the size symbols a
structure's step can depend on, and the probe sizes, each symbol a distinct prime times its multiplier, every probe
but the first changing one symbol alone; the probe's architecture, PERIODS blocks long. Worker side, no torch here.
"""

from __future__ import annotations

from ...core.architecture import Architecture
from ...core.step_template import SYMBOLS


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


def size_pools(arch: Architecture) -> dict[str, list[int]]:
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
    pools = size_pools(arch)
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
