"""No import cycle between the modules of predictkit.

The graph has an edge ``a -> b`` when module ``a`` imports module ``b``
anywhere: at module level (including inside ``if`` / ``try`` blocks) and
inside functions and methods. Module-level imports are what can make an
import fail on a half-initialised module; imports deferred into functions
cannot, but a cycle through them is still two modules that each need the
other, which is what this test keeps out (the metrics <-> simulate cycle went
through such imports). The one exception is the body of a module-level
``__getattr__``: that is how a deprecated name (kept for one release) reaches
its new home, and it goes away with the name. Relative imports are resolved
to module names; ``from package import name`` counts as an import of
``package.name`` when that is a module, else of ``package``. A package's
``__init__`` is the module named by the package.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "predictkit"


def module_names():
    """Module name -> file of every module of predictkit."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _import_nodes(body):
    """Every import statement of a module, except in a module-level ``__getattr__``."""
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            continue
        for inner in ast.walk(node):
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                yield inner


def imports_of(name, path, modules):
    """The predictkit modules ``name`` imports (see the module docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _import_nodes(tree.body):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules
                       else origin for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:   # a name inside a module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph():
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycles(graph):
    """Every strongly connected group of two or more modules (Tarjan), as sorted lists."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def cycle_path(graph, group):
    """One cycle through the first module of a group: ``a -> b -> ... -> a``."""
    members = set(group)
    start = group[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    return " -> ".join(paths[node] + [start])
                if target not in paths:
                    paths[target] = paths[node] + [target]
                    nxt.append(target)
        frontier = nxt
    return " <-> ".join(group)


def test_no_import_cycle_between_modules():
    graph = import_graph()
    cycles = [cycle_path(graph, group) for group in find_cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_graph_sees_relative_and_absolute_imports(tmp_path):
    modules = {"predictkit", "predictkit.a", "predictkit.sub", "predictkit.sub.b",
               "predictkit.sub.c"}
    source = tmp_path / "b.py"
    source.write_text("from . import c\nfrom ..a import thing\nimport predictkit.sub\n"
                      "try:\n    from .c import x\nexcept ImportError:\n    pass\n")
    assert imports_of("predictkit.sub.b", source, modules) == {
        "predictkit.sub.c", "predictkit.a", "predictkit.sub"}
    source.write_text("def later():\n    from .. import a\n"
                      "def __getattr__(name):\n    from .c import old\n")
    assert imports_of("predictkit.sub.b", source, modules) == {"predictkit.a"}


def test_cycles_are_found_and_named():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}, "p.e": set()}
    assert find_cycles(graph) == [["p.a", "p.b", "p.c"]]
    assert cycle_path(graph, ["p.a", "p.b", "p.c"]) == "p.a -> p.b -> p.c -> p.a"

