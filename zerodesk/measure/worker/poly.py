"""Exact polynomials in the step's sizes, fitted from a storage's dimensions at several probe sizes.

A probe gives every size symbol its own large prime (times 2 where the model needs it even), so a dimension's
value factors into the symbols it is made of: (b, s, heads·head_dim) reads back as b, s and kv·g·hd. What is
left after the symbols' primes is a constant (1/2 for head_dim // 2) or, for a fused projection such as
(heads + 2·kv_heads)·head_dim, an affine cofactor solved from the probes that change one symbol each.
Every fit is checked on a probe that changes all symbols at once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Mapping

Mono = tuple[tuple[str, int], ...]  # sorted (symbol, exponent); () is the constant
Poly = dict[Mono, Fraction]


class FitError(ValueError):
    """A storage whose size is no product of (affine) functions of the sizes."""


def mono(**exps: int) -> Mono:
    return tuple(sorted((k, v) for k, v in exps.items() if v))


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            exps = dict(ma)
            for sym, e in mb:
                exps[sym] = exps.get(sym, 0) + e
            key = mono(**exps)
            out[key] = out.get(key, Fraction(0)) + ca * cb
    return {k: v for k, v in out.items() if v}


def add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, Fraction(0)) + sign * v
    return {k: v for k, v in out.items() if v}


def evaluate(p: Poly, values: Mapping[str, int]) -> Fraction:
    total = Fraction(0)
    for m, c in p.items():
        term = c
        for sym, e in m:
            term *= values[sym] ** e
        total += term
    return total


def dominates(a: Poly, b: Poly) -> bool:
    """a >= b for every positive value of the symbols, by coefficients (sufficient, not necessary)."""
    return all(v >= 0 for v in add(a, b, -1).values())


def _multiplicity(n: int, p: int) -> int:
    if p < 2:
        return 0
    k = 0
    while n and n % p == 0:
        n //= p
        k += 1
    return k


def fit_dimension(values: list[int], probes: list[dict[str, int]], primes: list[dict[str, int]],
                  changed: list[str | None]) -> Poly:
    """The polynomial a dimension is, from its value at each probe.

    probes[i]: every symbol's value at probe i; primes[i]: the prime each symbol's value carries there;
    changed[i]: the one symbol probe i changes from probe 0 (None for probe 0 and for the all-changed check)."""
    base = values[0]
    if all(v == base for v in values):
        return {(): Fraction(base)} if base else {}
    exps: dict[str, int] = {}
    for sym in probes[0]:
        e = _multiplicity(base, primes[0][sym])
        for i, what in enumerate(changed):
            if what == sym:
                e = min(e, _multiplicity(values[i], primes[i][sym]))
        if e:
            exps[sym] = e
    m = mono(**exps)

    def cofactor(i: int) -> Fraction:
        return Fraction(values[i]) / evaluate({m: Fraction(1)}, probes[i])

    c0 = cofactor(0)
    if all(cofactor(i) == c0 for i in range(len(values))):
        return {m: c0}
    # an affine cofactor: alpha + sum beta_y * y, one symbol at a time
    betas: dict[str, Fraction] = {}
    for i, what in enumerate(changed):
        if what is not None:
            step = probes[i][what] - probes[0][what]
            beta = (cofactor(i) - c0) / step
            if beta:
                betas[what] = beta
    alpha = c0 - sum(b * probes[0][y] for y, b in betas.items())
    affine: Poly = {mono(**{y: 1}): b for y, b in betas.items()}
    if alpha:
        affine[()] = alpha
    poly = mul({m: Fraction(1)}, affine)
    for i, v in enumerate(values):
        if evaluate(poly, probes[i]) != v:
            raise FitError(f"a dimension of {values} at the probes is no product of affine functions of the sizes")
    return poly


def to_json(p: Poly) -> list[list]:
    """[[coefficient, "s*b*h^2"], ...]: integers where exact, else floats."""
    out = []
    for m, c in sorted(p.items()):
        coef = int(c) if c.denominator == 1 else float(c)
        out.append([coef, "*".join(s if e == 1 else f"{s}^{e}" for s, e in m)])
    return out


def total(polys: Iterable[Poly]) -> Poly:
    out: Poly = {}
    for p in polys:
        out = add(out, p)
    return out
