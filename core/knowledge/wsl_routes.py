"""The WSL 2 table (resources/data/wsl.toml): AMD's WSL route per ROCm release (librocdxg, the
Adrenalin minimum, the variable, the runtime swap), what Windows must be, AMD's integrated GPU
names, and the targets AMD builds PyTorch for on Windows itself (issue 33, items 3 and 4)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.knowledge.rows import (
    KnowledgeError,
    Row,
    check_top_level,
    is_gfx,
    is_version,
    read_table,
    rows,
    version_tuple,
)
from core.resources import data_dir

FILE = "wsl.toml"
METHODS = ("rocdxg-build", "core-sdk")


@dataclass(frozen=True)
class WslRoute:
    rocm: str
    method: str
    ubuntu: tuple[str, ...]
    adrenalin_min: str
    adrenalin_min_verified: bool
    dxg_detection: bool
    runtime_swap: bool
    note: str
    source: str
    librocdxg_version: str | None = None
    targets: tuple[str, ...] = ()
    """The route's own card list where it has one (librocdxg's); () = the release's."""


@dataclass(frozen=True)
class WindowsPytorch:
    rocm: str
    targets: tuple[str, ...]
    verified: bool
    note: str
    source: str
    index: str | None = None


@dataclass(frozen=True)
class WslTable:
    min_build: int
    windows_source: str
    routes: tuple[WslRoute, ...]
    igpu_patterns: tuple[re.Pattern[str], ...]
    igpu_source: str
    memory_source: str
    windows_pytorch: tuple[WindowsPytorch, ...]

    def route(self, rocm: str) -> WslRoute | None:
        return next((r for r in self.routes if r.rocm == rocm), None)

    def is_integrated_name(self, name: str) -> bool:
        return any(p.search(name.strip()) for p in self.igpu_patterns)

    def windows_rows(self, gfx: str | None) -> list[WindowsPytorch]:
        """The Windows PyTorch rows that list ``gfx``, newest release first."""
        if not gfx:
            return []
        found = [w for w in self.windows_pytorch if gfx in w.targets]
        return sorted(found, key=lambda w: version_tuple(w.rocm), reverse=True)


def _section(data: dict[str, Any], name: str) -> Row:
    return Row(FILE, name, 0, data.get(name))


def parse_table(data: dict[str, Any]) -> WslTable:
    check_top_level(FILE, data, ("windows", "route", "igpu", "memory", "windows_pytorch"))
    windows = _section(data, "windows")
    windows.check_keys(("min_build", "source"), ())
    build = windows.data.get("min_build")
    if not isinstance(build, int) or build <= 0:
        raise windows.fail("min_build must be a positive whole number")
    routes = []
    for row in rows(FILE, data, "route"):
        row.check_keys(("rocm", "method", "ubuntu", "adrenalin_min", "adrenalin_min_verified",
                        "dxg_detection", "runtime_swap", "note", "source"),
                       ("librocdxg_version", "targets"))
        method = row.text("method")
        if method not in METHODS:
            raise row.fail(f"method must be one of {', '.join(METHODS)}")
        routes.append(WslRoute(
            rocm=row.version("rocm"), method=method,
            ubuntu=row.str_list("ubuntu", required=True, check=is_version, what="a version"),
            adrenalin_min=row.version("adrenalin_min"),
            adrenalin_min_verified=row.flag("adrenalin_min_verified"),
            dxg_detection=row.flag("dxg_detection"), runtime_swap=row.flag("runtime_swap"),
            note=row.text("note"), source=row.source(),
            librocdxg_version=row.opt_text("librocdxg_version"),
            targets=row.str_list("targets", check=is_gfx, what="a gfx target"),
        ))
    if len({r.rocm for r in routes}) != len(routes):
        raise KnowledgeError(f"{FILE}: two [[route]] rows for one release")
    igpu = _section(data, "igpu")
    igpu.check_keys(("patterns", "source"), ())
    try:
        patterns = tuple(re.compile(p) for p in igpu.str_list("patterns", required=True))
    except re.error as error:
        raise igpu.fail(f"a pattern does not compile: {error}") from error
    memory = _section(data, "memory")
    memory.check_keys(("source",), ())
    windows_rows = []
    for row in rows(FILE, data, "windows_pytorch"):
        row.check_keys(("rocm", "targets", "verified", "note", "source"), ("index",))
        windows_rows.append(WindowsPytorch(
            rocm=row.version("rocm"),
            targets=row.str_list("targets", required=True, check=is_gfx, what="a gfx target"),
            verified=row.flag("verified"), note=row.text("note"), source=row.source(),
            index=row.opt_text("index"),
        ))
    return WslTable(
        min_build=build, windows_source=windows.source(), routes=tuple(routes),
        igpu_patterns=patterns, igpu_source=igpu.source(), memory_source=memory.source(),
        windows_pytorch=tuple(windows_rows),
    )


def load_wsl_table(folder: Path | None = None) -> WslTable:
    if folder is None:
        return _default()
    return parse_table(read_table(folder, FILE))


@lru_cache(maxsize=1)
def _default() -> WslTable:
    return parse_table(read_table(data_dir(), FILE))
