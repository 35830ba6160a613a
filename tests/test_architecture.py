"""The layout shows the architecture: layers in folders, no module loose in app/, no cycles."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import grimp
from pydantic import BaseModel

APP = Path(__file__).resolve().parents[1] / "app"
TOP_LEVEL = {"__init__.py", "main.py", "settings.py"}
# The command line is an entry point like main.py, a package of its own (one module per group
# of commands); every other package is a layer.
ENTRY_PACKAGES = {"cli"}
LAYERS = {
    "api",
    "web",
    "mcp",
    "views",
    "http",
    "charts",
    "services",
    "store",
    "ingest",
    "schemas",
    "domain",
}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: every group of modules that import each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return groups


def test_only_the_entry_points_and_settings_sit_directly_in_app() -> None:
    loose = {p.name for p in APP.glob("*.py")} - TOP_LEVEL
    assert loose == set()


def test_every_package_in_app_is_a_named_layer() -> None:
    packages = {p.parent.name for p in APP.glob("*/__init__.py")}
    assert packages == LAYERS | ENTRY_PACKAGES


def test_no_module_of_app_takes_part_in_an_import_cycle() -> None:
    graph = grimp.build_graph("app")
    modules = graph.modules
    edges = {m: set(graph.find_modules_directly_imported_by(m)) & modules for m in modules}
    assert strongly_connected(edges) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache"], capture_output=True, text=True, cwd=APP.parent, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert "6 kept, 0 broken" in result.stdout


def pydantic_models_outside_schemas(root: Path) -> list[str]:
    """Pydantic model classes defined under `root` but in app/schemas and the settings."""
    names = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).with_suffix("")
        name = ".".join(relative.parts).removesuffix(".__init__")
        # __main__ modules run a program when imported.
        if name.startswith("app.schemas") or name == "app.settings" or name.endswith("__main__"):
            continue
        names.append(name)
    return models_in(names)


def models_in(names: list[str]) -> list[str]:
    """The pydantic model classes these modules define: "module:Class"."""
    found = []
    for name in names:
        module = importlib.import_module(name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, BaseModel):
                found.append(f"{name}:{cls_name}")
    return found


def test_every_input_model_lives_in_app_schemas() -> None:
    assert pydantic_models_outside_schemas(APP) == []
    # The finder sees models: those of app/schemas, looked for as if they lived elsewhere.
    assert "app.schemas.sweeps:SweepQuery" in models_in(["app.schemas.sweeps"])
