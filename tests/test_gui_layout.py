"""The GUI's layout holds its shape: features in folders, few modules at the top, no import cycles.

Every import counts, also one inside a function: a cycle hidden that way is still a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

GUI = Path(__file__).resolve().parents[1] / "zerodesk" / "gui"


def _module(path: Path) -> str:
    parts = ["zerodesk", "gui", *path.relative_to(GUI).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each GUI module -> the GUI modules it imports anywhere in its body."""
    modules = {_module(p): p for p in GUI.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    deps.add(full if full in modules else target)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle, as a path of modules, or []."""
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> list[str]:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep] if dep in path else [node, dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return []


def test_the_gui_has_no_import_cycle_even_through_a_function_level_import():
    graph = _imports()
    assert len(graph) > 60 and "zerodesk.gui.window.main_window" in graph
    assert "zerodesk.gui.form.plan_form" in graph["zerodesk.gui.window.main_window"]
    assert _cycle(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_at_most_ten_modules_at_the_top_of_the_gui_and_features_in_folders():
    top = sorted(p.name for p in GUI.glob("*.py"))
    assert len(top) <= 10, top
    folders = {p.name for p in GUI.iterdir() if (p / "__init__.py").is_file()}
    assert {"base", "window", "form", "charts", "table", "glossary", "runs", "lesson"} <= folders
