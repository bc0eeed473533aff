"""No import cycles in the core, counting the imports a function or `if TYPE_CHECKING:` hides."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: str) -> dict[str, set[str]]:
    """Every module of `package` (a folder under the repository) -> the modules of ours it imports anywhere in it."""
    modules = {_module_name(p): p for p in (ROOT / package).rglob("*.py")}
    ours = {_module_name(p) for p in (ROOT / "zerodesk").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package_parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package_parts[: len(package_parts) - node.level + 1] if node.level else []
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                # `from pkg import mod` imports pkg.mod (pkg is already being imported by then); `from mod import x`, mod
                candidates = [f"{target}.{a.name}" if f"{target}.{a.name}" in ours else target for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            found |= {c for c in candidates if c in ours and c != name}
        graph[name] = found
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_core_has_no_import_cycle():
    graph = import_graph("zerodesk/core")
    assert "zerodesk.core.plan" in graph and "zerodesk.core.evidence_records" in graph["zerodesk.core.plan"]
    assert cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle_hidden_in_a_function():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
