"""The import graph of the core: no cycles, and no function-local import of one kmeviz
module by another (a lazy import hides a cycle instead of removing it).

Read from the sources with ``ast``: ``from .x import y`` is an edge to module ``x.y`` when
that is a module, else to ``x``; a package's ``__init__`` has edges to what it imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "kmeviz"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in CORE.rglob("*.py")}


def resolve(node: ast.ImportFrom | ast.Import, here: str, is_package: bool) -> list[str]:
    """The kmeviz modules an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "kmeviz"]
    package = here if is_package else here.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    base = ".".join(p for p in (package if node.level else "", node.module or "") if p)
    if base.split(".")[0] != "kmeviz":
        return []
    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
               for a in node.names]
    return [t for t in dict.fromkeys(targets) if t in MODULES]


def imports(path: Path):
    """(top-level kmeviz imports, function-local kmeviz imports with their line)."""
    tree = ast.parse(path.read_text())
    here, is_package = module_name(path), path.name == "__init__.py"
    top = {t for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
           for t in resolve(node, here, is_package)}
    nested = [(node.lineno, t) for node in ast.walk(tree)
              if isinstance(node, ast.Import | ast.ImportFrom) and node not in tree.body
              for t in resolve(node, here, is_package)]
    return top, nested


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_core_has_no_import_cycle():
    graph = {}
    for name, path in MODULES.items():
        top, _ = imports(path)
        # a package's own __init__ is loaded before its submodules run: no edge back to it
        graph[name] = {t for t in top if not (name.startswith(t + ".") and
                                              MODULES[t].name == "__init__.py")}
    assert cycles(graph) == []


def test_the_cycle_check_can_fail():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_function_local_import_between_kmeviz_modules():
    local = {f"{name}:{line} -> {target}" for name, path in MODULES.items()
             for line, target in imports(path)[1]}
    assert local == set()
