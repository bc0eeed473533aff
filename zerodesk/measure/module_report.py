"""The peak's composition by module and by FSDP2 unit, in words and JSON (`simulate|measure --by-module`). Torch-free.

The worker reports every part of the model with its bytes by category at the step's peak moment (Result.by_module,
worker/module_ledger.py); here they are ranked, and summed per FSDP2 unit into what a unit holds: the activations
it saved, its gathered parameters (the unsharded copies and all-gather buffers) and its gradients (unsharded,
reduce-scatter buffers and the sharded ones).
"""

from __future__ import annotations

from .cli_text import aligned, in_unit
from .protocol import ModuleShare, Result

TOP = 5
# What a unit holds, from the tracker's categories.
UNIT_TERMS = {
    "activations": ("activations",),
    "gathered_params": ("unsharded_params", "all_gather"),
    "gradients": ("grads", "unsharded_grads", "reduce_scatter"),
}
SHOWN = ("activations", "unsharded_params", "all_gather", "grads", "unsharded_grads", "reduce_scatter", "temporaries",
         "params", "optimizer")


def add_by_module_argument(group) -> None:
    """--by-module, for `simulate` and `measure`."""
    group.add_argument("--by-module", action="store_true",
                       help=f"also print the peak by module (embedding, each block's attention and MLP, head, loss) "
                            f"and by FSDP2 unit (activations saved, gathered parameters, gradients), the top {TOP}")


def label(module: str) -> str:
    """A part's name as printed: its path, '(rest of the model)' for the model's own forward, or '(loss)' as it is."""
    return module or "(rest of the model)"


def unit_label(unit: str) -> str:
    return unit or "(root)"


def by_unit(shares: list[ModuleShare]) -> list[dict]:
    """Per FSDP2 unit, largest first: {"unit", "activations", "gathered_params", "gradients", "total"} in bytes, the
    total over every category of its parts. Empty for DDP's stages (no units)."""
    units: dict[str, dict] = {}
    for share in shares:
        if share.unit is None:
            continue
        row = units.setdefault(share.unit, {"unit": share.unit, **{term: 0 for term in UNIT_TERMS}, "total": 0})
        for term, cats in UNIT_TERMS.items():
            row[term] += sum(share.bytes.get(c, 0) for c in cats)
        row["total"] += share.total
    return sorted(units.values(), key=lambda r: r["total"], reverse=True)


def by_module_json(result: Result) -> dict:
    """The keys --json adds to a result asked --by-module: "by_unit" (the parts' "by_module" come with the result)."""
    return {"by_unit": by_unit(result.by_module or [])}


def module_lines(result: Result, unit: str, top: int = TOP) -> list[str]:
    """The top parts of one result's peak and, for FSDP2, the top units, as aligned text."""
    shares = result.by_module or []
    if not shares:
        return []
    where = f"stage {result.stage}" + (f" rank {result.rank}" if result.source == "measured" else "")
    cats = [c for c in SHOWN if any(s.bytes.get(c) for s in shares[:top])]
    lines = [f"Peak of {where} by module, top {min(top, len(shares))} of {len(shares)} ({unit}):"]
    with_unit = any(s.unit is not None for s in shares)
    rows = [["module", "kind", *(["FSDP2 unit"] if with_unit else []), "total", *cats]]
    for s in shares[:top]:
        rows.append([label(s.module), s.kind, *([unit_label(s.unit) if s.unit is not None else "-"] if with_unit else []),
                     in_unit(s.total, unit), *(in_unit(s.bytes.get(c, 0), unit) for c in cats)])
    lines += aligned(rows, left_first=True)
    units = by_unit(shares)
    if units:
        lines.append(f"by FSDP2 unit, top {min(top, len(units))} of {len(units)} ({unit}):")
        rows = [["unit", "activations saved", "gathered parameters", "gradients", "total"]]
        rows += [[unit_label(u["unit"]), *(in_unit(u[t], unit) for t in UNIT_TERMS), in_unit(u["total"], unit)]
                 for u in units[:top]]
        lines += aligned(rows, left_first=True)
    return lines
