"""Where a growing peak crosses a limit, found from the peak's own shape rather than by a scan.

A predicted peak is the largest of a few moments, and each moment is a polynomial in the size searched: in the
micro-batch of degree 1 (states and buffers constant, activations linear), in the sequence length of degree 2
(s² terms), on pieces that change where a feature switches on (a sliding window at its length). So
`largest_fitting` fits every moment's polynomial exactly from consecutive points, solves where the first one
crosses the limit, and confirms the answer at the boundary: x fits, x + 1 does not. Where the model is wrong (the
answer lies on another piece, or the shape is not polynomial) it refits beside its last answer, and after a few
rounds bisects the bracket it has confirmed. Integer arithmetic throughout: exact for any byte count.

`smallest_fitting` finds the smallest of a few discrete sizes (data-parallel degrees) that fits, for a peak that
falls as the size grows and may rise again past a valley (tensors padded to Nd rows).
Pure Python: no torch, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt
from typing import Any, Callable, Mapping, Sequence

import numpy as np

Totals = Mapping[str, int]  # every moment's bytes at one size, by moment


def peak_of(totals: Totals) -> int:
    """The largest of the totals: their `peak` where they carry it (core.fit_peaks keeps it with each), else found."""
    top = getattr(totals, "peak", None)
    return max(totals.values()) if top is None else top


@dataclass(frozen=True)
class Crossing:
    """The largest size that fits (0: not even 1) and how it was found."""

    largest: int
    evaluations: int  # sizes evaluated for real
    modelled: bool  # the polynomial model's first answer was confirmed (no refit, no bisection)


def largest_fitting(totals: Callable[[int], Totals], limit: int, cap: int, degree: int = 1,
                    start: int = 1, rounds: int = 3) -> Crossing:
    """The largest x in [1, cap] whose peak (the largest of totals(x)) is at most limit, for a peak that grows with x.

    totals(x) gives every moment's bytes at size x; degree is the moments' polynomial degree in x (1 or 2); start is
    where to fit the model first (the size the plan has). The answer is confirmed at its boundary."""
    seen: dict[int, Totals] = {}

    def at(x: int) -> Totals:
        if x not in seen:
            seen[x] = totals(x)
        return seen[x]

    lo, hi = 0, cap + 1  # lo fits (0: nothing is known to), hi does not (cap + 1: nothing is known not to)

    def probe(x: int) -> None:
        nonlocal lo, hi
        if lo < x < hi:
            if peak_of(at(x)) <= limit:
                lo = x
            else:
                hi = x

    x0 = min(max(start, 1), max(cap - degree, 1))
    for round_ in range(rounds):
        points = [x for x in range(x0, x0 + degree + 1) if x <= cap]
        for x in points:
            probe(x)
        if hi == lo + 1:
            return Crossing(lo, len(seen), round_ == 0)
        guess = _model_answer([(x, at(x)) for x in points], limit, cap) if len(points) == degree + 1 else None
        if guess is None:  # the moments differ between the points: no model to fit
            break
        guess = min(max(guess, lo), hi - 1)
        probe(guess)
        probe(guess + 1)
        if hi == lo + 1:
            return Crossing(lo, len(seen), round_ == 0)
        x0 = min(max(guess - degree, 1), max(cap - degree, 1))  # refit where the crossing was expected
    if hi == cap + 1:
        probe(cap)
    while hi - lo > 1:
        probe((lo + hi) // 2)
    return Crossing(lo, len(seen), False)


def _model_answer(points: list[tuple[int, Totals]], limit: int, cap: int) -> int | None:
    """The largest x in [0, cap] that fits by the polynomial through consecutive points, for every moment at once."""
    first = points[0][1]
    x0 = points[0][0]
    names = getattr(first, "names", None)  # core.fit_peaks' totals: the labels and the bytes as rows already
    if names is not None and all(getattr(t, "names", None) is names for _, t in points[1:]):
        rows = [list(t.totals) for _, t in points]  # the same labels object: the same moments in the same order
    else:
        order = list(first)
        same = [list(t) == order for _, t in points[1:]]  # the usual: the same moments in the same order
        if not all(same) and any(t.keys() != first.keys() for _, t in points[1:]):
            return None
        rows = [list(t.values()) if s else [t[k] for k in order] for s, (_, t) in zip([True, *same], points)]
    if rows[0] and abs(limit) < _EXACT:
        try:
            ys = np.array(rows, dtype=np.int64)
        except OverflowError:  # past int64: the exact way below
            ys = None
        if ys is not None and -_EXACT < ys.min() and ys.max() < _EXACT:  # every |y| < _EXACT
            return _model_answer_arrays(ys, x0, limit, cap)
    answer = cap
    for ys in zip(*rows):
        d1 = ys[1] - ys[0]
        d2 = ys[2] - 2 * ys[1] + ys[0] if len(ys) > 2 else 0
        answer = min(answer, _moment_answer(ys[0], d1, d2, x0, limit, cap))
    return max(answer, 0)


_EXACT = 2**60  # bytes: below it every difference and quotient _model_answer_arrays takes stays exact in int64


def _model_answer_arrays(ys: Any, x0: int, limit: int, cap: int) -> int:
    """_model_answer for every moment at once ([point, moment] int64): the straight moments in one go, each curved
    one (d2 != 0) by _moment_answer."""
    d1 = ys[1] - ys[0]
    d2 = ys[2] - 2 * ys[1] + ys[0] if len(ys) > 2 else np.zeros_like(d1)
    room = limit - ys[0]
    straight = d2 == 0
    rising = straight & (d1 > 0)
    answer = cap
    if rising.any():
        answer = min(answer, int((x0 + room[rising] // d1[rising]).min()))
    flat = straight & ~rising
    if flat.any() and (room[flat] < 0).any():
        answer = 0
    for y0, a, b in zip(ys[0][~straight].tolist(), d1[~straight].tolist(), d2[~straight].tolist()):
        answer = min(answer, _moment_answer(y0, a, b, x0, limit, cap))
    return max(answer, 0)


def _moment_answer(y0: int, d1: int, d2: int, x0: int, limit: int, cap: int) -> int:
    """The largest x with q(x) <= limit, q(x0 + k) = y0 + k·d1 + k(k-1)/2·d2 (Newton's form), for q rising there."""
    room = limit - y0
    if d2 == 0:
        if d1 <= 0:  # flat or falling: it fits everywhere or nowhere
            return cap if room >= 0 else 0
        return x0 + room // d1  # floor division: exact for negative room too
    if d2 > 0:  # convex: d2·k² + (2·d1 - d2)·k - 2·room <= 0 up to its larger root
        b, c = 2 * d1 - d2, -2 * room
        disc = b * b - 4 * d2 * c
        if disc < 0:
            return 0
        k = (-b + isqrt(disc)) // (2 * d2)
        for _ in range(3):  # isqrt and floor land at most one off: settle on the exact integer
            if _q(k, d1, d2) <= room:
                break
            k -= 1
        else:
            return 0  # no whole size between the roots
        while _q(k + 1, d1, d2) <= room and x0 + k < cap:
            k += 1
        return x0 + k
    # concave (no peak grows so, but stay exact): the last x before it first passes the limit, by bisection
    lo, hi = 0, cap + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _q(mid - x0, d1, d2) <= room:
            lo = mid
        else:
            hi = mid
    return lo


def _q(k: int, d1: int, d2: int) -> int:
    """q(x0 + k) - q(x0); k(k-1) is even, so the division is exact."""
    return k * d1 + k * (k - 1) // 2 * d2


def smallest_fitting(sizes: Sequence[int], totals: Callable[[int], Totals], limit: int,
                     known: int | None = None) -> int | None:
    """The smallest of the ascending sizes whose peak (the largest of totals(size)) is at most limit, or None.

    The peak is taken to fall as the size grows (states shared among more ranks) and perhaps to rise again past a
    valley (tensors padded to Nd rows): one minimum, so the sizes that fit are one run. Where the largest size fits,
    the run ends there; where it does not and the peak still falls there, nothing fits; otherwise the valley's floor
    is found (walking downhill from where a + c/size + d·size, fitted through three sizes, has its minimum) and the
    run, if any, ends there. Its start is then found from a + c/size through two sizes and confirmed (it fits, the
    size before it does not), with a binary search where the model misses. `known`: a size already evaluated."""
    if not sizes:
        return None
    memo: dict[int, int] = {}
    seen: dict[int, Totals] = {}

    def at(i: int) -> Totals:
        if i not in seen:
            seen[i] = totals(sizes[i])
            memo[i] = peak_of(seen[i])
        return seen[i]

    def p(i: int) -> int:
        at(i)
        return memo[i]

    def points(indices: set[int]) -> list[tuple[int, Totals]]:
        return [(sizes[i], at(i)) for i in sorted(indices)]

    last = len(sizes) - 1
    first = sizes.index(known) if known in sizes else 0
    if p(last) <= limit:
        end = last
    elif last == 0 or p(last - 1) >= p(last):
        return None  # still falling at the largest size, and over: nothing fits
    else:
        modelled = _inverse_model(points({first, last - 1, last}), sizes)
        end = _floor(p, min(range(last), key=modelled.__getitem__) if modelled else last // 2, last)
        if p(end) > limit:
            return None
    modelled = _inverse_model(points({first if first < end else 0, end}), sizes[:end + 1])
    guess = next((i for i, y in enumerate(modelled) if y <= limit), end) if modelled else end
    return sizes[_first_fit(p, guess, end, limit)]


def _floor(p: Callable[[int], int], start: int, last: int) -> int:
    """The index of the lowest peak of a valley (one minimum before last): downhill from start, then bisection."""
    i = start
    for _ in range(4):
        if i > 0 and p(i - 1) < p(i):
            i -= 1
        elif i < last and p(i + 1) < p(i):
            i += 1
        else:
            return i
    lo, hi = 0, last  # the floor is where the peak stops falling
    while lo < hi:
        mid = (lo + hi) // 2
        if p(mid + 1) >= p(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _first_fit(p: Callable[[int], int], guess: int, end: int, limit: int) -> int:
    """The smallest index up to end whose peak fits, the peak falling up to end and fitting there: the guess walked
    a step or two to where it fits and the index before it does not, else a binary search."""
    i = min(max(guess, 0), end)
    for _ in range(3):
        if p(i) > limit:
            i += 1
        elif i > 0 and p(i - 1) <= limit:
            i -= 1
        else:
            return i
    lo, hi = 0, end
    while lo < hi:
        mid = (lo + hi) // 2
        if p(mid) <= limit:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _inverse_model(points: list[tuple[int, Totals]], sizes: Sequence[int]) -> list[float] | None:
    """The peak at every size by the model y = a + c/size + d·size of each moment through the points (two or three)."""
    if len(points) < 2:
        return None
    names = getattr(points[0][1], "names", None)  # core.fit_peaks' totals: the same labels object, the same moments
    if names is not None and all(getattr(t, "names", None) is names for _, t in points[1:]):
        order, ys = names, [[float(v) for v in t.totals] for _, t in points]  # the largest is the same in any order
    else:
        keys = set(points[0][1])
        if any(set(t) != keys for _, t in points[1:]):
            return None
        order = list(keys)
        ys = [[float(t[key]) for key in order] for _, t in points]
    ns = [n for n, _ in points]
    rows = [[1.0, 1 / n, float(n)][:len(ns)] for n in ns]
    # every moment at once: the same elimination (the rows are the moments' common sizes), column by column
    coef = _solve(rows, np.array(ys).reshape(len(points), -1))
    if coef is None:
        return None
    if not order:
        return [float("-inf")] * len(sizes)
    n = np.array(sizes, dtype=float)
    y = coef[0][:, None] * 1.0  # the terms added in the order a + c/size + d·size, as for one moment
    for c, f in zip(coef[1:], (1 / n, n)):
        y = y + c[:, None] * f
    return y.max(axis=0).tolist()


def _solve(rows: list[list[float]], ys: Any) -> Any:
    """Gaussian elimination for a 2x2 or 3x3 system (the model's coefficients), for every column of right-hand
    sides ys [row, column] at once; the coefficients [row, column], or None if singular."""
    a = [r[:] for r in rows]
    b = [np.array(y, dtype=float) for y in ys]
    n = len(a)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
                b[r] = b[r] - f * b[col]
    return [b[i] / a[i][i] for i in range(n)]
