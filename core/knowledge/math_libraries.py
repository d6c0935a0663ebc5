"""math_libraries.toml: which gfx targets the math libraries of a PyTorch wheel (or of the ROCm
release it bundles) carry kernels for, and the routes for a target they lack.

Separate from torch's arch list (torch.toml): a wheel may name a target and still have no rocBLAS
kernels for it (pytorch/pytorch#179865). A target a row neither ``has`` nor ``lacks`` is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.i18n import Localized
from core.knowledge.rows import check_top_level, is_gfx, is_version, read_table, rows
from core.resources import data_dir

FILE = "math_libraries.toml"

LIBRARIES = frozenset({"rocblas", "hipblaslt", "miopen"})
WHERE = frozenset({"pytorch.org", "rocm", "therock"})
EFFECTS = frozenset({"abort", "fallback"})
ROUTE_KINDS = frozenset({"wheel", "therock", "per-processor"})
LIBRARY_NAMES = {"rocblas": "rocBLAS", "hipblaslt": "hipBLASLt", "miopen": "MIOpen"}


@dataclass(frozen=True)
class Coverage:
    """One observation of one library's kernels (math_libraries.toml [[coverage]])."""

    library: str
    where: str
    rocm: str
    has: tuple[str, ...]
    lacks: tuple[str, ...]
    effect: str
    note: Localized
    source: str
    index: str | None = None
    torch: tuple[str, ...] = ()

    @property
    def library_name(self) -> str:
        return LIBRARY_NAMES[self.library]


@dataclass(frozen=True)
class Route:
    """What to do for a target (math_libraries.toml [[route]])."""

    gfx: str
    kind: str
    note: Localized
    problems: Localized
    source: str
    index: str | None = None
    requirement: str | None = None
    processors: tuple[str, ...] = ()


def parse_math_libraries(data: Mapping[str, Any]) -> tuple[tuple[Coverage, ...], tuple[Route, ...]]:
    file = FILE
    check_top_level(file, data, ["coverage", "route"])
    coverage: list[Coverage] = []
    for r in rows(file, data, "coverage"):
        r.check_keys(["library", "where", "rocm", "effect", "note", "source"],
                     ["index", "torch", "has", "lacks"])
        library, where, effect = r.text("library"), r.text("where"), r.text("effect")
        if library not in LIBRARIES:
            raise r.fail(f"library must be one of {', '.join(sorted(LIBRARIES))}")
        if where not in WHERE:
            raise r.fail(f"where must be one of {', '.join(sorted(WHERE))}")
        if effect not in EFFECTS:
            raise r.fail(f"effect must be one of {', '.join(sorted(EFFECTS))}")
        has = r.str_list("has", check=is_gfx, what="a gfx target")
        lacks = r.str_list("lacks", check=is_gfx, what="a gfx target")
        if not has and not lacks:
            raise r.fail("a coverage row needs has or lacks")
        if set(has) & set(lacks):
            raise r.fail(f"{', '.join(sorted(set(has) & set(lacks)))} both in has and lacks")
        rocm = r.text("rocm")
        if not is_version(rocm):
            raise r.fail(f"rocm {rocm!r} is not a version like 7.2")
        coverage.append(Coverage(
            library=library, where=where, rocm=rocm, has=has, lacks=lacks, effect=effect,
            note=r.words("note"), source=r.source(), index=r.opt_text("index"),
            torch=r.str_list("torch"),
        ))
    routes: list[Route] = []
    for r in rows(file, data, "route"):
        r.check_keys(["gfx", "kind", "note", "problems", "source"],
                     ["index", "requirement", "processors"])
        kind = r.text("kind")
        if kind not in ROUTE_KINDS:
            raise r.fail(f"kind must be one of {', '.join(sorted(ROUTE_KINDS))}")
        processors = r.str_list("processors")
        if kind == "per-processor" and not processors:
            raise r.fail("a per-processor route lists its processors")
        if kind != "per-processor" and not r.opt_text("requirement"):
            raise r.fail("a wheel route names its requirement")
        routes.append(Route(
            gfx=r.gfx(), kind=kind, note=r.words("note"), problems=r.words("problems"),
            source=r.source(), index=r.opt_text("index"), requirement=r.opt_text("requirement"),
            processors=processors,
        ))
    return tuple(coverage), tuple(routes)


@dataclass(frozen=True)
class MathLibraries:
    coverage: tuple[Coverage, ...]
    routes: tuple[Route, ...]


@lru_cache(maxsize=4)
def load_math_libraries(folder: Path | None = None) -> MathLibraries:
    """The table of ``folder`` (default resources/data), read and checked once; raises
    :class:`core.knowledge.rows.KnowledgeError` naming the row that is wrong."""
    coverage, routes = parse_math_libraries(read_table(folder or data_dir(), FILE))
    return MathLibraries(coverage, routes)


def torch_rocm(version: str | None) -> str | None:
    """``"2.12.0.dev20260408+rocm7.2"`` -> ``"7.2"``; ``"2.5.1+rocm6.2.4"`` -> ``"6.2"``."""
    match = re.search(r"\+rocm(\d+)\.(\d+)", version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def wheel_lacks(coverage: tuple[Coverage, ...], torch_version: str | None,
                gfx: str) -> Coverage | None:
    """The observation that a pytorch.org wheel of ``torch_version`` has no kernels for ``gfx``
    in a library whose lack aborts (rocBLAS): the wheel's own listing first, then the ROCm
    release it bundles. None when nothing says so (which is not proof that it has them)."""
    series = torch_rocm(torch_version)
    if series is None:
        return None
    candidates = [c for c in coverage if c.rocm == series and c.effect == "abort"
                  and c.where in ("pytorch.org", "rocm") and gfx in c.lacks]
    candidates.sort(key=lambda c: c.where != "pytorch.org")
    return candidates[0] if candidates else None


def wheel_has(coverage: tuple[Coverage, ...], torch_version: str | None, gfx: str) -> bool:
    """True when a listing of the rocBLAS kernels of this wheel's ROCm release shows ``gfx``."""
    series = torch_rocm(torch_version)
    return series is not None and any(
        c.rocm == series and c.library == "rocblas" and c.where in ("pytorch.org", "rocm")
        and gfx in c.has for c in coverage)


def routes_for(routes: tuple[Route, ...], gfx: str, kind: str | None = None) -> list[Route]:
    return [r for r in routes if r.gfx == gfx and (kind is None or r.kind == kind)]


def processor_listed(route: Route, cpu_model: str | None) -> bool | None:
    """Whether ``cpu_model`` (``"AMD Ryzen 7 260 w/ Radeon 780M Graphics"``) is one of the
    route's processors; None when the model is not known."""
    if not cpu_model:
        return None
    words = re.sub(r"\s+", " ", cpu_model.replace("(TM)", " ").replace("(R)", " ")).strip()
    words = words.split(" w/ ", 1)[0].removeprefix("AMD ").strip()
    return any(re.fullmatch(re.escape(p) + r"(?: [A-Z]{1,3})?", words) for p in route.processors)
