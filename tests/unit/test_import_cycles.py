"""No import circles among the installed package's modules.

The graph has an edge ``a -> b`` for every ``import b`` / ``from b import x`` in module ``a``:
at module level, inside functions and under ``TYPE_CHECKING`` alike (a circle through a
function-level import is still a circle in the design). ``from package import module`` points at
the module. Importing ``a.b`` also runs ``a/__init__``, but that parent link is no edge here:
Python always initialises a package before its modules, so it makes no circle of its own.
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
from collections.abc import Iterator, Mapping
from importlib.machinery import ModuleSpec

ROOT = "spark_savepoint"


def _modules(root: str = ROOT) -> dict[str, str]:
    """{module name: source file} of every module of ``root``: the modules below each package's
    ``__path__``, and every module of ``root`` some module imports (an editable install maps
    sub-packages to folders of their own, which no walk of the root's folder finds)."""
    found: dict[str, str] = {}
    pending = [root]
    while pending:
        name = pending.pop()
        spec = None if name in found else _spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        found[name] = spec.origin
        if spec.submodule_search_locations is not None:
            infos = pkgutil.iter_modules(spec.submodule_search_locations, name + ".")
            pending += [info.name for info in infos]
        pending += [target for target in _imported(name, spec.origin) if target.startswith(root)]
    return found


def _spec(name: str) -> ModuleSpec | None:
    """The module ``name``'s spec; None when no module has that name (a function, a class)."""
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a name below a module, not below a package
        return None


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name an ``ImportFrom`` names (``from . import x`` resolved)."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts[: len(parts) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _imported(module: str, path: str) -> set[str]:
    """Every name ``module`` (source ``path``) imports, anywhere in it; for ``from a import b``
    both ``a`` and ``a.b`` (``b`` may be a module)."""
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    is_package = path.endswith("__init__.py")
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return targets - {module}


def import_graph(root: str = ROOT) -> dict[str, set[str]]:
    """{module: the package's modules it imports}."""
    modules = _modules(root)
    return {name: _imported(name, path) & modules.keys() for name, path in modules.items()}


def tangles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One circle per group of :func:`tangles`, as ``[a, b, ..., a]``."""
    return [_circle(graph, group) for group in tangles(graph)]


def _circle(graph: Mapping[str, set[str]], group: list[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    return paths[node] + [start]
                if target not in paths:
                    paths[target] = paths[node] + [target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start} in {group}")


def _short(name: str) -> str:
    return name.removeprefix(ROOT + ".")


def _report(graph: Mapping[str, set[str]]) -> Iterator[str]:
    for group in tangles(graph):
        circle = " -> ".join(map(_short, _circle(graph, group)))
        yield f"{circle} (all {len(group)} in the tangle: {', '.join(map(_short, group))})"


def test_the_graph_covers_every_sub_package() -> None:
    graph = import_graph()
    assert {f"{ROOT}.catalog.bridge", f"{ROOT}.sql_ext.session", f"{ROOT}.udfs.history"} <= set(
        graph
    )
    assert f"{ROOT}.catalog.bridge" in graph[f"{ROOT}.sql_ext.session"]
    # a function-level import counts
    assert f"{ROOT}.sql_ext.transaction" in graph[f"{ROOT}.udfs.transform_with_state"]


def test_the_cycle_finder_names_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]


def test_no_import_cycles() -> None:
    found = list(_report(import_graph()))
    assert found == [], "import cycles:\n" + "\n".join(found)
