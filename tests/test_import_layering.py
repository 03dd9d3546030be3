"""The house's shape, checked: one import direction, no cycles, every module importable.

The import graph is read from the source (every ``import``, also those inside functions and
under ``TYPE_CHECKING``), so a cycle fails here before it can bite at run time. The layers
are the ones the README's Layout section draws.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "reasongraph_mcp"
SKIP = {"tests", "evals", ".git", "build", "dist", "__pycache__"}


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (the repository's top level is the package)."""
    found: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if SKIP & set(rel.parts) or any(p.startswith(".") for p in rel.parts):
            continue
        parts = [PACKAGE, *rel.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _targets(name: str, path: Path) -> Iterator[str]:
    """The package modules that module ``name`` imports, wherever the import statement is."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{module}.{alias.name}"
                yield sub if sub in MODULES else module


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        if path.parent.name == "hooks" and path.name != "__init__.py":
            # The hook scripts import their siblings as plain scripts too (``import relay``).
            script_siblings = {p.stem for p in path.parent.glob("*.py")}
            graph[name] = {t for t in _targets(name, path) if t in MODULES and t != name}
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name in script_siblings:
                            graph[name].add(f"{PACKAGE}.hooks.{alias.name}")
            continue
        graph[name] = {t for t in _targets(name, path) if t in MODULES and t != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as a path that ends where it starts, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def _layer(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "package"
    if parts[0] == "memory" and len(parts) > 1 and (MODULES[module].name == "__init__.py"
                                                    or len(parts) > 2):
        return f"memory.{parts[1]}"
    if parts[0] == "memory":
        return "memory" if len(parts) == 1 else f"memory.{parts[1]}"
    return parts[0]


# What each layer may import (besides itself). Leaves first; arrows point downwards only.
LEAVES = {"memory.errors", "memory.records", "memory.timeutil", "memory.config",
          "memory.extract", "memory.prepared", "memory.progress", "hooks"}
ALLOWED: dict[str, set[str]] = {
    "hooks": set(),
    "memory.errors": set(),
    "memory.records": set(),
    "memory.progress": set(),
    "memory.timeutil": {"memory.errors", "hooks"},
    "memory.config": {"memory.errors"},
    "memory.extract": {"memory.errors", "memory.timeutil", "hooks"},
    "memory.prepared": {"memory.extract"},
    "memory.storage": LEAVES,
    "memory.ml": LEAVES,
    "memory.updates": LEAVES,
    "memory.read": LEAVES | {"memory.storage", "memory.ml"},
    "memory.causal": LEAVES | {"memory.storage", "memory.ml", "memory.read"},
    "memory.write": LEAVES | {"memory.storage", "memory.ml", "memory.read", "memory.causal",
                              "memory.updates"},
    "memory.prompt": LEAVES | {"memory.storage", "memory.ml", "memory.read", "memory.causal",
                               "memory.write", "memory.updates"},
    "memory.api": LEAVES | {"memory.storage", "memory.ml", "memory.read", "memory.causal",
                            "memory.write", "memory.updates", "memory.prompt"},
    "memory": {"memory.errors", "memory.records", "memory.api"},
}


def test_the_package_has_no_import_cycles() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_each_layer_imports_only_the_layers_below_it() -> None:
    wrong = []
    for module, targets in _graph().items():
        layer = _layer(module)
        if layer not in ALLOWED:  # the edges: server, views, cli, install, doctor, hook_service
            continue
        for target in targets:
            other = _layer(target)
            if other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_the_engine_knows_nothing_of_mcp_or_the_edges() -> None:
    edges = {"server", "views", "cli", "install", "uninstall", "doctor", "hook_service"}
    for module, targets in _graph().items():
        if _layer(module).startswith("memory"):
            assert not {t for t in targets if _layer(t) in edges}, module
            assert "import mcp" not in MODULES[module].read_text(), module


def _order(graph: dict[str, set[str]]) -> list[str]:
    done: list[str] = []
    seen: set[str] = set()

    def visit(node: str) -> None:
        if node in seen:
            return
        seen.add(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        done.append(node)

    for node in sorted(graph):
        visit(node)
    return done


def test_every_module_imports_alone() -> None:
    """Each module imports in a fresh interpreter with nothing loaded before it: a module that
    works only because another one was imported first fails here."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    def attempt(module: str) -> str | None:
        out = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                             text=True, timeout=120)
        return None if out.returncode == 0 else f"{module}: {out.stderr.strip()[-300:]}"

    modules = [m for m in _order(_graph()) if not m.endswith("__main__")]  # __main__ runs
    with ThreadPoolExecutor(4) as pool:
        failures = [f for f in pool.map(attempt, modules) if f]
    assert len(modules) > 50 and not failures, "\n".join(failures)


def test_the_hook_scripts_import_only_the_standard_library() -> None:
    stdlib = sys.stdlib_module_names
    for name, path in MODULES.items():
        if _layer(name) != "hooks":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            for imported in names:
                top = imported.split(".")[0]
                siblings = {p.stem for p in path.parent.glob("*.py")}
                assert top in stdlib or top in siblings or top == "__future__", (name, imported)


def test_the_public_api_is_one_facade() -> None:
    package = importlib.import_module(PACKAGE)
    assert package.__all__ == ["Memory"]
    assert package.Memory is importlib.import_module(f"{PACKAGE}.memory").Memory
