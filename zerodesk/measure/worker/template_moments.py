"""From a structure's probe timelines to its step template's moments (step_template.py's second half, split by job):
each storage's bytes as a polynomial in the size symbols, the moments where memory stops rising, and the bytes alive
there summed by who made them (the block, its neighbours, earlier and later blocks, the rest) and by what they are
(kept from forward, made in backward, gradients). Worker side; the timelines come from step_trace.py.
"""

from __future__ import annotations

from fractions import Fraction

from .poly import Poly, add, dominates, fit_dimension, mul, to_json
from .step_trace import Timeline
from .template_probes import TemplateError, primes_of


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


def summarise(timelines: list[Timeline], values: list[dict[str, int]], changed: list[str | None], period: int,
               kinds: list[str]) -> dict:
    """One step of the template from its probes' timelines."""
    polys = _alloc_polys(timelines, values, changed)
    _check_blocks_alike(timelines[0], polys, period, kinds)
    instants = _prune(_instants(timelines[0], polys, period, kinds))
    return {"instants": [
        {"at": x["at"], "kind": x["kind"], "event": x["event"], "block": x["block"],
         "groups": {g: {c: to_json(p) for c, p in cls.items() if p} for g, cls in sorted(x["groups"].items())}}
        for x in instants]}
