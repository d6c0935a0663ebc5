"""Run *in the interpreter under test* by tests/bench/test_worker_python_versions.py: does code
meant for the user's Python hold up on this Python?

``python -I target_python_check.py ROOT SCRIPTS.json`` checks every ``.py`` under ROOT (a worker
folder made by core.bench.runner.prepare_worker_root) and each source in SCRIPTS.json (a JSON
object, name -> the source of a script rocmate sends with ``python -c``):

* it compiles (a construct newer than this Python, ``except*`` on 3.10, is a SyntaxError);
* every import of the standard library resolves here (``import tomllib`` on 3.10 does not), and
  so does every attribute read from a module imported so (``datetime.UTC``, ``typing.Self``),
  function bodies included, which an import does not run;
* every worker module imports (module-level code runs: a runtime ``int | None`` on 3.9 fails),
  save where the ML stack it needs is missing (the interpreters under test have no torch).

It prints one JSON object: ``problems`` (one line each; none: the code holds up), ``imported``
and ``needs_ml`` (the modules that imported, and those that stopped at a missing ML package).
This file runs on the oldest Python the worker supports, so it uses nothing newer.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import types
from pathlib import Path

NOT_STDLIB = {"torch", "torchvision", "diffusers", "transformers", "core", "__future__"}
"""Top-level packages not checked here: the ML stack (absent) and the worker itself."""
ML = NOT_STDLIB - {"core", "__future__"}


def _module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _has(module_name: str, attr: str) -> bool:
    module = _module(module_name)
    if module is None:
        return False
    return hasattr(module, attr) or _module(module_name + "." + attr) is not None


def static_problems(source: str, filename: str) -> list[str]:
    """Compile errors, and standard-library names this Python lacks."""
    try:
        tree = ast.parse(source, filename)
        compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"{filename}:{exc.lineno}: SyntaxError: {exc.msg}"]
    found: list[str] = []
    modules: dict[str, str] = {}  # the local name -> the module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in NOT_STDLIB:
                    continue
                if _module(alias.name) is None:
                    found.append(f"{filename}:{node.lineno}: import {alias.name}")
                else:
                    modules[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or node.module.split(".")[0] in NOT_STDLIB:
                continue
            for alias in node.names:
                if alias.name == "*":
                    continue
                if not _has(node.module, alias.name):
                    found.append(f"{filename}:{node.lineno}: "
                                 f"from {node.module} import {alias.name}")
                elif isinstance(getattr(_module(node.module), alias.name, None),
                                types.ModuleType):
                    modules[alias.asname or alias.name] = node.module + "." + alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name) and node.value.id in modules
                and not _has(modules[node.value.id], node.attr)):
            found.append(f"{filename}:{node.lineno}: {modules[node.value.id]}.{node.attr}")
    return found


def import_problems(root: Path) -> tuple[list[str], list[str], list[str]]:
    """Import every module under ``root`` (not ``__main__``: it would run the worker)."""
    problems: list[str] = []
    imported: list[str] = []
    needs_ml: list[str] = []
    sys.path.insert(0, str(root))
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] in ML:
                needs_ml.append(name)
                continue
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
        except Exception as exc:  # anything else is a module this Python cannot run
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
        else:
            imported.append(name)
    return problems, imported, needs_ml


def main(argv: list[str]) -> int:
    root = Path(argv[1])
    scripts = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
    problems: list[str] = []
    for path in sorted(root.rglob("*.py")):
        problems += static_problems(path.read_text(encoding="utf-8"),
                                    str(path.relative_to(root)))
    for name, source in sorted(scripts.items()):
        problems += static_problems(source, name)
    more, imported, needs_ml = import_problems(root)
    print(json.dumps({"python": list(sys.version_info[:2]), "problems": problems + more,
                      "imported": imported, "needs_ml": needs_ml}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
