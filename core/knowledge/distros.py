"""distros.toml: Ubuntu releases, Ubuntu derivatives and distro families with their package
manager.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    check_top_level,
    rows,
    unique,
)

PACKAGE_MANAGERS = frozenset({"apt", "dnf", "yum", "zypper", "pacman"})


@dataclass(frozen=True)
class UbuntuRelease:
    version: str
    codename: str
    source: str
    lts: bool = False


@dataclass(frozen=True)
class DistroDerivative:
    """An Ubuntu derivative's os-release ID; it carries UBUNTU_CODENAME of its Ubuntu base."""

    id: str
    base: str
    name: str
    source: str
    note: str | None = None


@dataclass(frozen=True)
class DistroFamily:
    """os-release IDs (and ID_LIKE values) of one distro family and its package manager."""

    name: str
    ids: tuple[str, ...]
    id_like: tuple[str, ...]
    package_manager: str
    source: str
    note: str | None = None


def parse_distros(
    data: Mapping[str, Any],
) -> tuple[tuple[UbuntuRelease, ...], tuple[DistroDerivative, ...], tuple[DistroFamily, ...]]:
    file = "distros.toml"
    check_top_level(file, data, ["ubuntu", "derivative", "family"])
    ubuntu: list[UbuntuRelease] = []
    for r in rows(file, data, "ubuntu"):
        r.check_keys(["version", "codename", "source"], ["lts"])
        codename = r.text("codename")
        if codename != codename.lower() or not codename.isalpha():
            raise r.fail(f"codename {codename!r} must be one lowercase word")
        ubuntu.append(UbuntuRelease(
            version=r.version("version"),
            codename=codename,
            source=r.source(),
            lts=r.flag("lts", default=False),
        ))
    unique(file, "ubuntu", (u.version for u in ubuntu), "version")
    unique(file, "ubuntu", (u.codename for u in ubuntu), "codename")
    derivatives: list[DistroDerivative] = []
    for r in rows(file, data, "derivative"):
        r.check_keys(["id", "base", "name", "source"], ["note"])
        derivatives.append(DistroDerivative(
            id=r.text("id"), base=r.text("base"), name=r.text("name"), source=r.source(),
            note=r.opt_text("note"),
        ))
    unique(file, "derivative", (d.id for d in derivatives), "id")
    families: list[DistroFamily] = []
    for r in rows(file, data, "family"):
        r.check_keys(["name", "ids", "id_like", "package_manager", "source"], ["note"])
        manager = r.text("package_manager")
        if manager not in PACKAGE_MANAGERS:
            raise r.fail(f"package_manager must be one of {', '.join(sorted(PACKAGE_MANAGERS))}")
        families.append(DistroFamily(
            name=r.text("name"),
            ids=r.str_list("ids", required=True),
            id_like=r.str_list("id_like"),
            package_manager=manager,
            source=r.source(),
            note=r.opt_text("note"),
        ))
    unique(file, "family", (i for f in families for i in f.ids), "id")
    return tuple(ubuntu), tuple(derivatives), tuple(families)
