"""The layout shows the pipeline: no import circles, and each stage imports only the stages below it.

Every ``import`` of the project's modules counts, wherever it is written (at the top, inside a function,
under ``TYPE_CHECKING``): a function-level import that closes a circle is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("expand", "frontends", "predication", "emit", "mathlib")

#: What each layer may import (prefixes of module names), from the ground up. A module belongs to the
#: first layer whose prefix it starts with (so ``expand.ir`` before ``expand``).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("expand.ir", ("expand.ir",)),
    ("expand.cache", ()),  # (where built things are kept: the vector libm, verify's precompiled headers)
    ("expand.analysis", ("expand.ir", "expand.analysis")),
    ("expand.passes", ("expand.ir", "expand.analysis", "expand.passes")),
    ("frontends", ("expand.ir", "expand.passes", "frontends")),
    ("predication", ("expand.ir", "expand.analysis", "expand.passes", "predication")),
    ("emit", ("expand.ir", "expand.analysis", "predication", "emit")),
    ("expand.abi", ("expand.ir", "expand.passes", "emit")),
    ("expand.vecmath", ("expand.ir", "expand.abi")),
    ("expand.driver", ("expand.ir", "expand.analysis", "expand.passes", "predication", "emit", "expand.abi",
                       "expand.vecmath")),
    # (mathlib.corpus: the cross-check's inputs; mathlib.libm: expand-fuzz builds the vector libm its programs
    # call, as the command line does)
    ("expand.check", ("expand.ir", "expand.analysis", "expand.passes", "frontends", "emit", "expand.driver",
                      "expand.vecmath", "expand.check", "expand.cache", "mathlib.corpus", "mathlib.libm")),
    ("expand.cli", ("expand.ir", "expand.outputs", "expand.abi", "expand.vecmath", "expand.driver",
                    "expand.check", "frontends", "emit", "mathlib.libm")),
    ("mathlib", ("expand.ir", "expand.abi", "expand.vecmath", "expand.driver", "expand.check", "expand.cache",
                 "frontends", "emit", "mathlib")),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (``from a.b import c`` counts ``a.b.c`` when that is a module)."""
    out: set[str] = set()
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {n: imports(n, p, known) for n, p in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def layer(mod: str) -> tuple[str, tuple[str, ...]] | None:
    for prefix, allowed in LAYERS:
        if mod == prefix or mod.startswith(prefix + "."):
            return prefix, allowed
    return None


def test_no_import_circle() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize("prefix", [p for p, _ in LAYERS])
def test_layer_imports_only_what_is_below(prefix: str) -> None:
    bad = []
    for mod, deps in graph().items():
        lay = layer(mod)
        if lay is None or lay[0] != prefix:
            continue
        for d in sorted(deps):
            if d in ("expand", "frontends", "predication", "emit", "mathlib"):
                continue  # a package's __init__: its docstring and version
            if not any(d == a or d.startswith(a + ".") for a in lay[1]):
                bad.append(f"{mod} imports {d}")
    assert bad == []


def test_the_checker_sees_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
