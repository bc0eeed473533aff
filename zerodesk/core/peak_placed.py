"""A step template's moments placed in the plan's step structure (core.peak_traced's job, split by job): every
moment of a block's forward and backward at each block position the step has, as polynomials in the sequence length
and the micro-batch ([pair, class, part, power]), evaluated at a point with every template byte exact; and how a
moment's template bytes sum into its components (_Named). The positions and the engine's terms there are
core.peak_places'. Pure Python and numpy: no torch.
"""

from __future__ import annotations

from copy import copy
from functools import lru_cache
from math import frexp
from operator import itemgetter
from typing import Any

import numpy as np

from .cuda_kernels import blocks_keeping
from .peak_places import _counts, _weights, depth, engine_terms, positions
from .step_template import CLASSES, GROUPS, SYMBOLS, CompiledStep, block_kinds, symbol_values

BF16, FP32 = 2, 4
_TRACE_GRAD = {"bf16": BF16, "autocast": FP32, "fp32": FP32}  # the dtype of a .grad in the traced step


_NAMES = {  # (class, part) -> component; part 0 (no s, b: weights) is autocast's copies under autocast
    ("act", 1): "logits", ("act", 2): "activations", ("tmp", 1): "logits", ("tmp", 2): "temporaries",
}


@lru_cache(maxsize=8)
def _component_keys(compute: str, fsdp: bool) -> tuple[str, ...]:
    """The component each [class, part] of a moment's template bytes goes to, in [class, part] order."""
    keys = []
    for cls in CLASSES:
        for p in range(3):
            if cls == "grad":
                keys.append("unsharded_grads" if fsdp else "grads")
            elif p == 0:
                keys.append("cast_weights" if compute == "autocast" else ("activations" if cls == "act" else "temporaries"))
            else:
                keys.append(_NAMES[(cls, p)])
    return tuple(keys)


class _Placed:
    """A template's moments placed in one step structure (its blocks' kinds, FSDP2 or not, the gradients' scale, the
    sizes other than s and b), as polynomials in (s, b): what a fit's many (micro-batch, sequence) points share.

    Only the (place, moment) pairs that can win are kept (a moment of another place never does). Every coefficient
    is an integer (or a half under a gradient scale of 1/2), so the sums are exact in float64 below 2^53 bytes and
    evaluating the polynomials gives the bytes the full contraction gives, bit for bit."""

    def __init__(self, step: CompiledStep, kinds: list[str], fsdp: bool, grad_scale: float,
                 sizes: dict[str, int], every_block: bool = False, per_unit: int = 1) -> None:
        at, kind = step.at_array, step.kind_array
        self.places: list[tuple[str, str, str, int | None]] = []
        moments, weights, keeping = [], [], []
        picks: dict[tuple[str, str], np.ndarray] = {}  # the template's moments of a place (and block kind): a few

        def picked(place: str, own: str) -> np.ndarray:
            if (place, own) not in picks:
                pick = (at == place) & (kind == own) if place in ("fwd", "bwd", "last") else at == place
                if place == "last" and not pick.any():  # no last block of this kind traced: a middle block's moments
                    pick = (at == "bwd") & (kind == own)
                picks[place, own] = pick.nonzero()[0]
            return picks[place, own]

        for phase, name, place, i in positions(len(kinds), 2 if fsdp else 0, every_block, per_unit):
            ns = picked(place, kinds[i] if i is not None and place in ("fwd", "bwd", "last") else "")
            if len(ns):
                self.places.append((phase, name, place, i))
                moments.append(ns)
                weights.append(_weights(tuple(sorted(_counts(place, i, kinds).items())), fsdp, grad_scale))
                blocks, final = blocks_keeping(place, i, len(kinds))
                keeping.append((blocks, final, place in ("fwd", "bwd", "last")))
        self.moment = np.concatenate(moments)  # [pair]: the template's moment
        self.slot = np.repeat(np.arange(len(moments)), [len(ns) for ns in moments])  # [pair]: its place
        self.slots: list[int] = self.slot.tolist()
        named = [place[:2] for place in self.places]
        self.names = tuple(map(named.__getitem__, self.slots))  # [pair]: (phase, moment name)
        self._at: dict[tuple, tuple] = {}  # the last points evaluated (a plan's stages 2 and 3 share theirs)
        self.bounds = np.cumsum([0] + [len(ns) for ns in moments])  # place k's pairs: bounds[k]:bounds[k + 1]
        # the monomials' factors other than s and b, then the (s, b) powers they group into
        exps = step._exponents
        other = np.array([float(sizes.get(sym, 1)) for sym in SYMBOLS[2:]])
        factor = np.prod(other ** exps[:, 2:], axis=1) if step.monomials else np.zeros(1)
        self.powers, group = np.unique(exps[:, :2], axis=0, return_inverse=True)  # [power, (s, b)]
        by_power = np.zeros((len(factor), len(self.powers)))
        by_power[np.arange(len(factor)), group.ravel()] = factor  # [monomial, power]
        # each template moment's polynomials first, then weighed per place and picked per pair: the pairs are many
        # (a place per block, every_block) and the monomials more than the powers they group into. Every product and
        # sum is of integers (or halves) below 2^53, so the order of the sums leaves the bytes exact.
        by_moment = step.coef @ by_power  # [moment, group, class, part, power]
        w = np.array(weights)  # [place, group, class]
        placed = np.empty((len(w), *by_moment.shape[:1], *by_moment.shape[2:]))  # [place, moment, class, part, power]
        for c in range(by_moment.shape[2]):  # a product of matrices per class: [place, group] @ [group, moment...]
            per_group = by_moment[:, :, c].swapaxes(0, 1).reshape(by_moment.shape[1], -1)
            placed[:, :, c] = (w[:, :, c] @ per_group).reshape(len(w), len(by_moment), *by_moment.shape[3:])
        self.poly = placed[self.slot, self.moment]  # [pair, class, part, power]
        self._rows = self.poly.reshape(-1, self.poly.shape[-1])  # [pair x class x part, power]: one product a point
        # the current block's own kept activations (core.cuda_kernels' correction), as a polynomial
        self.own_poly = by_moment[:, GROUPS.index("self"), 0, 2, :][self.moment]  # [pair, power]
        blocks, final, current = (np.array(x) for x in zip(*keeping))
        self.current = current[self.slot].astype(bool)
        self.blocks_less = (blocks - current)[self.slot].astype(float)  # blocks that keep less_block less
        self.final_less = final[self.slot].astype(float)
        self._terms: dict[tuple, tuple[list[dict[str, int]], list[int]]] = {}

    def scaled(self, grad_scale: float) -> "_Placed":
        """The same placed moments with the gradients' class scaled (a power of two: exact), its memos its own."""
        out = copy(self)
        out.poly = self.poly.copy()
        out.poly[:, CLASSES.index("grad")] *= grad_scale
        out._rows = out.poly.reshape(-1, out.poly.shape[-1])
        out._at, out._terms = {}, {}
        out.__dict__.pop("_ends", None)
        return out

    def terms(self, stage: int, layers: int, sh: Any, eng: Any, dp: int, units: Any) -> list[dict[str, int]]:
        """engine_terms of every place, in order (read only), kept by what they depend on: a fit's variants and the
        policies a recomputation search tries (core.fit_recompute) share them (80 blocks' places a policy at 70B)."""
        return self._terms_and_sums(stage, layers, sh, eng, dp, units)[0]

    def term_sums(self, stage: int, layers: int, sh: Any, eng: Any, dp: int, units: Any) -> list[int]:
        """Each place's engine terms summed (terms)."""
        return self._terms_and_sums(stage, layers, sh, eng, dp, units)[1]

    def _terms_and_sums(self, stage: int, layers: int, sh: Any, eng: Any, dp: int,
                        units: Any) -> tuple[list[dict[str, int]], list[int]]:
        key = (stage, layers, sh, eng, dp, None if units is None else (units.per_unit, units.root_only, units.prefetch))
        found = self._terms.get(key)
        if found is None:
            if len(self._terms) >= 64:
                self._terms.clear()
            # by place, shared by every step placed in this structure (the steps of each recomputation a search tries)
            if len(_TERMS) >= 64 and key not in _TERMS:
                _TERMS.clear()
            at = _TERMS.setdefault(key, {})
            for _, _, place, i in self.places:
                if (place, i) not in at:
                    terms = engine_terms(stage, place, i, layers, sh, eng, dp, units)
                    at[place, i] = (terms, sum(terms.values()))
            pairs = [at[place, i] for _, _, place, i in self.places]
            found = self._terms[key] = ([t for t, _ in pairs], [n for _, n in pairs])
        return found

    def at(self, s: int, b: int, less_block: int, less_final: int) -> list:
        """[evaluate's bytes, their totals, each pair's bytes rounded as its components are and summed (None where
        they pass int64), each place's largest (best)], memoised for the last points asked (read only)."""
        key = (s, b, less_block, less_final)
        if key not in self._at:
            if len(self._at) >= 64:
                self._at.clear()
            r, totals = self.evaluate(s, b, less_block, less_final)
            flat = r.reshape(len(r), -1)
            rounded = np.rint(flat).astype(np.int64).sum(axis=1) if not flat.size or \
                np.abs(flat).max() * flat.shape[1] < 2.0**62 else None
            self._at[key] = [r, totals, rounded, None]
        return self._at[key]

    def best(self, found: list) -> tuple[list[int], list[float]]:
        """Each place's first largest pair and its total, at a point at() found (kept with it)."""
        if found[3] is None:
            totals = found[1]
            hit = np.flatnonzero(totals == np.maximum.reduceat(totals, self.bounds[:-1])[self.slot])
            _, first = np.unique(self.slot[hit], return_index=True)
            n = hit[first]
            found[3] = (n.tolist(), totals[n].tolist())
        return found[3]

    def evaluate(self, s: int, b: int, less_block: int, less_final: int) -> tuple[Any, Any]:
        """(template bytes [pair, class, part], their totals [pair]) at sequence s and micro-batch b."""
        mono = float(s) ** self.powers[:, 0] * float(b) ** self.powers[:, 1]
        r = (self._rows @ mono).reshape(self.poly.shape[:-1])  # a matrix by a vector: ~10x a stacked product's speed
        if less_block or less_final:
            # the blocks before the current one keep their whole forward: each keeps less_block less; the current
            # block's own saves are whole only from its forward's end to its backward's start, so it keeps less by
            # at most what it holds at that moment
            own = np.minimum(less_block, np.maximum(self.own_poly @ mono, 0))
            less = self.blocks_less * less_block + self.final_less * less_final
            r[:, 0, 2] -= np.where(self.current, less + own, less)
        return r, r.sum(axis=(1, 2))


_TERMS: dict[tuple, dict[tuple, tuple[dict[str, int], int]]] = {}  # engine_terms (and their sum) by place, per step


def _kinds_of(plan: Any, step: CompiledStep) -> list[str]:
    arch = plan.model.architecture
    return block_kinds(arch) if arch is not None else [step.kinds[j % len(step.kinds)] for j in range(depth(plan))]


def _placed(plan: Any, step: CompiledStep, fsdp: bool, grad_scale: float, every_block: bool = False,
            units: Any = None) -> _Placed:
    """The step's placed moments for this plan's structure (placed_form's memo: a plan edited or searched keeps its
    structure, so its moments are placed once)."""
    sizes = symbol_values(plan.model.architecture, 1, 1)
    per_unit = units.per_unit if fsdp and units is not None and not units.root_only else 1
    return placed_form(step, tuple(_kinds_of(plan, step)), fsdp, grad_scale, tuple(sorted(sizes.items())), every_block,
                       per_unit)


@lru_cache(maxsize=32)
def placed_form(step: CompiledStep, kinds: tuple[str, ...], fsdp: bool, grad_scale: float,
                sizes: tuple[tuple[str, int], ...], every_block: bool, per_unit: int = 1) -> _Placed:
    """A template's moments placed in one step structure, keyed by all it depends on (step: a template's compiled
    step, kept by its template for the process's life); cache_clear() to start cold (and _placed_unscaled's).

    The gradients' scale weighs only their class: under a power of two it scales those polynomials exactly, so the
    structure placed at scale 1 serves every such scale (a new scheme or dtype places no moment again)."""
    if grad_scale != 1 and grad_scale > 0 and frexp(grad_scale)[0] == 0.5:
        return _placed_unscaled(step, kinds, fsdp, sizes, every_block, per_unit).scaled(grad_scale)
    return _Placed(step, list(kinds), fsdp, grad_scale, dict(sizes), every_block, per_unit)


@lru_cache(maxsize=16)
def _placed_unscaled(step: CompiledStep, kinds: tuple[str, ...], fsdp: bool, sizes: tuple[tuple[str, int], ...],
                     every_block: bool, per_unit: int) -> _Placed:
    return placed_form(step, kinds, fsdp, 1.0, sizes, every_block, per_unit)


class _Named:
    """How a moment's template bytes [class, part] sum into components (_component_keys), for one compute mode."""

    _made: dict[tuple[str, bool], "_Named"] = {}

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = tuple(dict.fromkeys(keys))  # each component once, in [class, part] order
        self.of_entry = [self.keys.index(k) for k in keys]
        self.columns = np.zeros((len(keys), len(self.keys)), dtype=np.int64)  # [entry, component]: 1 where it goes
        self.columns[np.arange(len(keys)), self.of_entry] = 1
        self.bits = 1 << np.arange(len(keys), dtype=np.int64)
        self.present: dict[int, tuple] = {}  # learnt masks

    @classmethod
    def of(cls, compute: str, fsdp: bool) -> "_Named":
        if (compute, fsdp) not in cls._made:
            cls._made[compute, fsdp] = cls(_component_keys(compute, fsdp))
        return cls._made[compute, fsdp]

    def learn(self, mask: int) -> tuple[tuple[str, ...], Any]:
        """The components a moment has (one of its entries is not 0), in the order its entries name them, and a
        function that picks their sums from the moment's row of sums (a tuple)."""
        order = list(dict.fromkeys(self.of_entry[j] for j in range(len(self.of_entry)) if mask >> j & 1))
        pick = itemgetter(*order) if len(order) > 1 else (lambda row, j=order[0]: (row[j],)) if order else \
            (lambda row: ())
        self.present[mask] = (tuple(self.keys[j] for j in order), pick)
        return self.present[mask]
