"""The reproductions read as one layered design: no module of the package
imports, at the top or inside a function, one that imports it back."""

from __future__ import annotations

import re
from pathlib import Path

import fabricsim.reproduce as reproduce

PACKAGE = Path(reproduce.__file__).parent


def imports() -> dict[str, set[str]]:
    graph = {}
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        graph[path.stem] = set(re.findall(r"^\s*from \.(\w+) import", text, re.M)) - {path.stem}
    return graph


def test_the_reproduce_package_has_no_import_circle():
    graph = imports()
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, "import circle: " + " -> ".join(path + [module])
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            visit(dep, path + [module])
        state[module] = 2

    for module in sorted(graph):
        visit(module, [])


def test_the_policy_is_the_lowest_layer():
    graph = imports()
    assert graph["policy"] == set()
    assert graph["claims"] <= {"policy"} and "pipeline" not in set().union(*(v for k, v in graph.items() if k != "__init__"))
