"""The shape of the house: no import circles, a fenced worker and a fenced root helper.

Imports are read from every module's source by grimp (the engine behind import-linter), imports
inside functions and under ``TYPE_CHECKING`` included. The layers themselves are an import-linter
contract in pyproject.toml (``make test`` runs ``lint-imports``); here are the checks a contract
cannot state: circles of any length, and allow-lists rather than deny-lists.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("core", include_external_packages=True)


def _edges(graph: grimp.ImportGraph, names: Iterable[str], key: object = None
           ) -> dict[str, set[str]]:
    keyed = key if callable(key) else (lambda m: m)
    out: dict[str, set[str]] = {}
    for module in names:
        for target in graph.find_modules_directly_imported_by(module):
            if not target.startswith("core"):
                continue
            a, b = keyed(module), keyed(target)
            if a != b:
                out.setdefault(a, set()).add(b)
    return out


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _core_modules(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.modules if m == "core" or m.startswith("core."))


def test_no_import_circle_between_modules(graph: grimp.ImportGraph) -> None:
    assert _circles(_edges(graph, _core_modules(graph))) == []


def _package(module: str) -> str:
    """core.probe.parse.kfd -> core.probe; core.system -> core.system."""
    return ".".join(module.split(".")[:2])


def test_no_import_circle_between_the_packages_of_core(graph: grimp.ImportGraph) -> None:
    edges = _edges(graph, [m for m in _core_modules(graph) if m != "core"], _package)
    edges = {a: {b for b in bs if b != "core"} for a, bs in edges.items()}
    assert _circles(edges) == []


@pytest.fixture(scope="module")
def gui_graph() -> grimp.ImportGraph:
    return grimp.build_graph("gui", "core", include_external_packages=True)


def _gui_edges(graph: grimp.ImportGraph, key: object = None) -> dict[str, set[str]]:
    keyed = key if callable(key) else (lambda m: m)
    out: dict[str, set[str]] = {}
    for module in sorted(m for m in graph.modules if m.startswith("gui.")):
        for target in graph.find_modules_directly_imported_by(module):
            if target.startswith("gui.") and keyed(module) != keyed(target):
                out.setdefault(keyed(module), set()).add(keyed(target))
    return out


def test_no_import_circle_between_gui_modules(gui_graph: grimp.ImportGraph) -> None:
    """A page that needs something of the app's start (gui.app) takes it from a module below
    both: gui.app -> gui.wizard -> gui.pages.benchmark -> gui.app was such a circle."""
    assert _circles(_gui_edges(gui_graph)) == []


def test_the_circle_finder_finds_circles() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def _imports_outside(graph: grimp.ImportGraph, package: str, allowed: set[str]) -> list[str]:
    stdlib = set(sys.stdlib_module_names)
    bad = []
    for module in sorted(graph.find_descendants(package) | {package}):
        for target in graph.find_modules_directly_imported_by(module):
            top = target.split(".")[0]
            if top in stdlib or target == package or target.startswith(package + "."):
                continue
            if target in allowed or (top != "core" and top in allowed):
                continue  # a third-party package whole; inside core, only the named modules
            bad.append(f"{module} -> {target}")
    return bad


# What runs in the user's PyTorch Python, copied alone into a clean folder (core/bench/runner.py).
WORKER_MAY_IMPORT = {"torch", "torchvision", "diffusers", "transformers", "core", "core.bench"}

# What runs as root: the standard library, the knowledge loader and where the data lives.
HELPER_MAY_IMPORT = {
    "core.knowledge.loader", "core.knowledge.rows", "core.knowledge.gpus",
    "core.knowledge.releases", "core.knowledge.wheels", "core.knowledge.overrides",
    "core.knowledge.support", "core.knowledge.distros", "core.knowledge.error_patterns",
    "core.knowledge.checks", "core.knowledge.names", "core.knowledge.known_bad",
    "core.knowledge.apu_memory",  # the floor the ttm-limit verb keeps for the system
    "core.resources",
    "core.i18n",  # a row's text and its translations beside it (stdlib and core.resources)
}


def test_the_worker_imports_only_the_stdlib_the_ml_stack_and_itself(
        graph: grimp.ImportGraph) -> None:
    assert _imports_outside(graph, "core.bench.worker", WORKER_MAY_IMPORT) == []


def test_the_root_helper_imports_only_the_stdlib_and_the_knowledge_loader(
        graph: grimp.ImportGraph) -> None:
    assert _imports_outside(graph, "core.install.helper", HELPER_MAY_IMPORT) == []
    # ... and what the knowledge loader imports stays inside that list too
    for module in HELPER_MAY_IMPORT:
        assert _imports_outside(graph, module, HELPER_MAY_IMPORT | {"tomllib"}) == [], module


def test_the_allow_list_check_catches_a_stray_import(graph: grimp.ImportGraph) -> None:
    assert _imports_outside(graph, "core.bench.worker", {"torch", "core"}) != []


def test_naming_core_allows_its_package_init_not_every_core_module() -> None:
    """"core" is on the worker's list for the package's __init__; it once let any core.*
    module through, so only the import-linter contract fenced the worker."""
    stray = grimp.ImportGraph()
    for module in ("core", "core.bench", "core.bench.worker", "core.bench.worker.x",
                   "core.system"):
        stray.add_module(module)
    stray.add_import(importer="core.bench.worker.x", imported="core")
    assert _imports_outside(stray, "core.bench.worker", WORKER_MAY_IMPORT) == []
    stray.add_import(importer="core.bench.worker.x", imported="core.system")
    assert _imports_outside(stray, "core.bench.worker", WORKER_MAY_IMPORT) == [
        "core.bench.worker.x -> core.system"]


def test_the_gui_reads_no_machine_files_and_starts_nothing() -> None:
    """gui/ shows what core returns: no /sys, /proc or /dev paths, no os.system, os.popen,
    os.exec* or os.spawn* (subprocess itself is an import-linter contract)."""
    import re
    from pathlib import Path

    gui = Path(__file__).resolve().parents[1] / "gui"
    banned = re.compile(r"[\"'](/sys/|/proc/|/dev/)|\bos\.(system|popen|exec\w*|spawn\w*)\b")
    found = [f"{p.name}:{n}" for p in gui.rglob("*.py")
             for n, line in enumerate(p.read_text().splitlines(), 1) if banned.search(line)]
    assert found == []
