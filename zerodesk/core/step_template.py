"""What one rank's step holds beyond its states, from the real module's own code: its step template (no torch).

A template belongs to a structure (the family and every knob that changes the step's operations; sizes aside:
see structure_key) and was fitted by zerodesk.measure.worker.step_template from the step's timeline under fake
tensors: every moment where memory stops rising, its bytes as exact polynomials in the sizes (s, b, hidden,
heads, ...), summed by who made them (the block the moment is in, the block before it, earlier blocks, the
block after it, later ones, the rest) and by what they are (kept from forward, made in backward, gradients).
So one template answers for any depth and any sizes of its structure: core.peak places each moment in the
step of a plan and adds what the engines hold then. Built-in structures ship theirs
(resources/step_templates/, written by scripts/make_step_templates.py); a plan may carry its own.

Evaluating a template is a few hundred multiplications: well under a millisecond.
"""

from __future__ import annotations

import gzip
import json
from contextlib import contextmanager
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Any, Iterable, Iterator

from .architecture import Architecture
from .options import RECOMPUTE

TEMPLATE_VERSION = 1
COMPUTES = ("bf16", "autocast", "fp32")
RECOMPUTES = RECOMPUTE.values
SYMBOLS = ("s", "b", "u", "kv", "g", "hd", "f", "V", "E", "k", "r", "w", "e")  # u: hidden per head
CLASSES = ("act", "tmp", "grad")


# Architecture's sizes, which templates take as symbols (or, like activation and window_period, read through the
# structure below); every other field is structure.
SIZE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "max_positions", "position_offset",
               "experts", "top_k", "rotary_dim", "sliding_window", "window_period", "embed_dim", "attn_softcap",
               "final_softcap", "activation")
_STRUCTURE = ("family", "mlp", "tied_embeddings", "bias", "head_bias", "norm", "positions", "embed_norm", "qk_norm",
              "parallel", "parallel_norms", "final_norm")


def structure_key(arch: Architecture) -> str:
    """Everything about arch that changes its step's operations, in one stable string (sizes are symbols)."""
    kv, heads = arch.n_kv_heads, arch.heads
    derived = (
        ("attention", "mha" if kv == heads else "mqa" if kv == 1 else "gqa"), ("act", arch.act),
        ("partial_rotary", arch.rotary_dim is not None and arch.rotary_dim < arch.dim_per_head),
        ("window", "none" if arch.sliding_window is None else f"every {arch.window_period}" if arch.window_period
         else "all"),
        ("softcap", (arch.attn_softcap is not None, arch.final_softcap is not None)),
        ("moe", arch.experts is not None),
        ("embed_projection", arch.embed_dim is not None and arch.embed_dim != arch.hidden),
        ("wide_heads", arch.dim_per_head > 256),  # transformers and the attention kernels change course above 256
    )
    return _key(tuple((k, getattr(arch, k)) for k in _STRUCTURE) + derived)


@lru_cache(maxsize=256)
def _key(items: tuple) -> str:
    return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in items}, sort_keys=True,
                      separators=(",", ":"))


def config_key(config: dict) -> str:
    """The key of a template fitted from a config.json (a model type without a layout): the config itself, its
    depth aside (a template counts blocks for any depth)."""
    import hashlib

    skip = ("num_hidden_layers", "n_layer", "num_layers", "n_layers", "layer_types", "_name_or_path", "architectures")
    body = json.dumps({k: v for k, v in config.items() if k not in skip}, sort_keys=True, default=str)
    return "config:" + hashlib.sha256(body.encode()).hexdigest()[:16]


def symbol_values(arch: Architecture | None, seq: int, batch: int) -> dict[str, int]:
    """The value of every size symbol for this architecture and micro-batch (a config's template: only s and b)."""
    if arch is None:
        return {"s": seq, "b": batch}
    kv = arch.n_kv_heads
    return {"s": seq, "b": batch, "u": arch.hidden // arch.heads, "kv": kv, "g": arch.heads // kv, "hd": arch.dim_per_head,
            "f": arch.ffn, "V": arch.vocab, "E": arch.experts or 1, "k": arch.routed_experts,
            "r": arch.rotary_dim or arch.dim_per_head, "w": arch.sliding_window or 0, "e": arch.embed_dim or arch.hidden}


def block_kinds(arch: Architecture) -> list[str]:
    """Each block's kind as templates name it: 'window' (sliding-window attention) or 'full'."""
    return _kinds(arch.layers, arch.sliding_window is not None, arch.window_period)


@lru_cache(maxsize=256)
def _kinds(layers: int, windowed: bool, period: int | None) -> list[str]:
    if not windowed:
        return ["full"] * layers
    return ["window" if period is None or (i + 1) % period else "full" for i in range(layers)]


# ---------------------------------------------------------------- compiled steps

GROUPS = ("other", "self", "prev", "next", "before:full", "before:window", "far:full", "far:window")
PARTS = ("const", "vocab", "rest")  # no s or b in the term (weights: autocast's copies), the vocabulary (logits), rest


@lru_cache(maxsize=4096)  # a step names the same few monomials thousands of times
def _monomial(text: str) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((s, int(e or 1)) for s, _, e in (f.partition("^") for f in text.split("*") if f)))


@lru_cache(maxsize=4096)
def _part(mono: tuple[tuple[str, int], ...]) -> int:
    syms = {s for s, _ in mono}
    return 0 if not syms & {"s", "b"} else 1 if "V" in syms else 2


class _Flat(tuple):
    """One step's moments as a template file gives them, flattened: (each moment's place, each moment's block kind,
    every term's (moment, group index, class index) as an array [term, 3], their coefficients as an array, their
    monomials' texts as a tuple), in the file's order. Arrays, and tuples of strings, which Python's cyclic collector
    does not walk: a template's terms are some 30,000 small lists as JSON reads them, and a process keeps its
    templates for life, so every full collection walked them all (~20-40 ms each with two templates loaded, on an
    edit that happened to trigger one). Made with a few objects per step (the terms read in C), so that making it
    sets off no collection of its own."""

    __slots__ = ()


_GROUP_AT = {g: i for i, g in enumerate(GROUPS)}
_CLASS_AT = {c: i for i, c in enumerate(CLASSES)}


def flatten(instants: list[dict]) -> _Flat:
    """A step's instants (a template file's JSON) as _Flat."""
    import numpy as np

    where: list[tuple[int, int, int]] = []
    counts: list[int] = []
    coefs: list = []
    texts: list[str] = []
    first, second = itemgetter(0), itemgetter(1)
    for n, x in enumerate(instants):
        for g, cls in x["groups"].items():
            for c, terms in cls.items():
                if terms:
                    where.append((n, _GROUP_AT[g], _CLASS_AT[c]))
                    counts.append(len(terms))
                    coefs.extend(map(first, terms))
                    texts.extend(map(second, terms))
    index = np.repeat(np.array(where, dtype=np.intp).reshape(-1, 3), counts, axis=0)  # [term, (moment, group, class)]
    return _Flat((tuple(x["at"] for x in instants), tuple(x["kind"] for x in instants), index,
                  np.array(coefs, dtype=float), tuple(texts)))


class CompiledStep:
    """One step's moments as a coefficient array: [moment, group, class, part, monomial]."""

    def __init__(self, instants: list[dict] | "_Flat", attention: str | None = None,
                 kinds: list[str] | None = None) -> None:
        import numpy as np

        self.attention = attention
        self.kinds = kinds or ["full"]
        at, kind, index, values, texts = instants if isinstance(instants, _Flat) else flatten(instants)
        # each monomial numbered where it first appears (as the terms name it), its part with it; then every term's
        # coefficient added in place in one go (np.add.at adds in the terms' order, as a loop would)
        monos: dict[tuple, int] = {}
        of_text: dict[str, tuple[int, int]] = {}
        for text in dict.fromkeys(texts):
            m = _monomial(text)
            of_text[text] = (monos.setdefault(m, len(monos)), _part(m))
        mono_part = np.array([of_text[t] for t in texts], dtype=np.intp).reshape(-1, 2)
        self._exponents = np.array([[dict(m).get(sym, 0) for sym in SYMBOLS] for m in monos] or [[0] * len(SYMBOLS)],
                                   dtype=float)  # [monomial, symbol]
        self.at = list(at)
        self.kind = list(kind)
        self.at_array, self.kind_array = np.array(self.at), np.array([k or "" for k in self.kind])
        self.monomials = list(monos)
        coef = np.zeros((len(at), len(GROUPS), len(CLASSES), len(PARTS), max(1, len(monos))))
        np.add.at(coef, (index[:, 0], index[:, 1], index[:, 2], mono_part[:, 1], mono_part[:, 0]), values)
        self.coef = coef

    def values(self, v: dict[str, int]) -> Any:
        """Bytes of every moment at sizes v: an array [moment, group, class, part]."""
        import numpy as np

        sizes = np.array([float(v.get(sym, 1)) for sym in SYMBOLS])
        mono = np.prod(sizes ** self._exponents, axis=1) if self.monomials else np.zeros(1)
        return self.coef @ mono


class StepTemplate:
    """A structure's fitted step, ready to evaluate."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("version") != TEMPLATE_VERSION:
            raise ValueError(f"step template version {data.get('version')} is not {TEMPLATE_VERSION}")
        self.key: str = data["key"]
        self.symbols: tuple[str, ...] = tuple(data["symbols"])
        self.attention: str | None = data.get("attention")  # the CPU kernel its trace ran (cuda_kernels reads it)
        self.kinds: list[str] = data.get("kinds") or ["full"]  # a config's blocks, one period of its alternation
        # each step's moments flattened now, the JSON's lists and dicts let go (see _Flat); compiled when asked
        self._data = {name: flatten(step["instants"]) for name, step in data["steps"].items()}
        self._compiled: dict[str, CompiledStep] = {}

    def step(self, arch: Architecture | None, seq: int, compute: str, recompute: str,
             batch: int = 2) -> CompiledStep | None:
        """The step for this compute mode and recompute choice, the window reached or not as seq says, and the
        micro-batch of one's own where its operations differ."""
        reached = arch is not None and arch.sliding_window is not None and seq >= arch.sliding_window
        name = f"{compute}/{recompute}" + ("/reached" if reached else "")
        if batch == 1 and name + "/b1" in self._data:
            name += "/b1"
        if name not in self._compiled:
            if name not in self._data:
                return None
            self._compiled[name] = CompiledStep(self._data[name], self.attention, self.kinds)
        return self._compiled[name]


# ---------------------------------------------------------------- where templates come from

TEMPLATES_DIR = "step_templates"  # one gzipped JSON per structure, named by template_file(key)
_INSTALLED: dict[str, dict] = {}


def template_file(key: str) -> str:
    """The file name of a structure's shipped template: its key's digest (one small file read per structure used)."""
    import hashlib

    return hashlib.sha256(key.encode()).hexdigest()[:20] + ".json.gz"


def _shipped(key: str) -> dict | None:
    if key in _INSTALLED:
        return _INSTALLED[key]
    from ..resources import resource

    path = Path(resource(TEMPLATES_DIR, template_file(key)))
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return data if data.get("key") == key and data.get("version") == TEMPLATE_VERSION else None


@lru_cache(maxsize=64)
def _compiled(key: str, text: str | None = None) -> StepTemplate | None:
    data = json.loads(text) if text is not None else _shipped(key)
    return StepTemplate(data) if data else None


INSTALLS = [0]  # how many times templates were installed


def install(templates: list[dict]) -> None:
    """Make templates known as if shipped (tests and benchmarks that fit their own)."""
    _INSTALLED.update({t["key"]: t for t in templates})
    _compiled.cache_clear()
    INSTALLS[0] += 1  # who keeps a template found (core.peak_totals) asks again


_OFF: list[bool] = []


@contextmanager
def closed_form_only() -> Iterator[None]:
    """Within it no template answers: the peak uses ZeroDesk's closed-form activation model (its tests, and a
    comparison of the two)."""
    _OFF.append(True)
    try:
        yield
    finally:
        _OFF.pop()


def template_for(arch: Architecture | None, carried: dict | None = None) -> StepTemplate | None:
    """The template of arch's structure: one the plan carries, else a built-in one; None without. Without an
    architecture (a model type read by transformers) only a carried template of its config answers."""
    if _OFF:
        return None
    if arch is None:
        if carried is not None and str(carried.get("key", "")).startswith("config:") \
                and carried.get("version") == TEMPLATE_VERSION:
            return _compiled(carried["key"], json.dumps(carried, sort_keys=True))
        return None
    key = structure_key(arch)
    if carried is not None and carried.get("key") == key and carried.get("version") == TEMPLATE_VERSION:
        return _compiled(key, json.dumps(carried, sort_keys=True))
    return _compiled(key)


def shipped(arch: Architecture) -> bool:
    """Whether arch's structure has a built-in (or installed) template."""
    return _shipped(structure_key(arch)) is not None
