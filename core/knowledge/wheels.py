"""torch.toml: PyTorch wheel indexes per ROCm series, and TheRock's nightly pip indexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    check_top_level,
    gfx_base,
    is_gfx,
    is_wheel_version,
    rows,
    unique,
    version_tuple,
)


@dataclass(frozen=True)
class TorchIndex:
    """A PyTorch wheel index for one ROCm series (download.pytorch.org or AMD's own)."""

    name: str
    url: str
    rocm: str
    torch: tuple[str, ...]
    stable: bool
    source: str
    torchvision: tuple[str, ...] = ()
    arch_list: tuple[str, ...] = ()
    """gfx targets compiled into the wheels (the union over the torch versions listed); empty =
    not known."""
    arch_from: tuple[tuple[str, str], ...] = ()
    """For a target of ``arch_list`` that only later torch versions carry: (target, the first
    such torch version), e.g. ``("gfx1103", "2.13.0")``; a target not named here is in every
    version listed."""
    vendor: str = "pytorch"
    device_extra: bool = False
    """True when the wheel needs a per-GPU extra, e.g. ``torch[device-gfx1100]`` (AMD's index)."""
    local: str | None = None
    """The local version label every wheel of this release carries (``rocm10.0.0``) on an index
    several releases share: the plan pins ``==<version>+<local>`` so pip cannot take a later
    release's wheels. With it, ``torchvision[i]`` is the torchvision made with ``torch[i]``."""
    note: str | None = None

    @property
    def newest_torch(self) -> str | None:
        return max(self.torch, key=version_tuple) if self.torch else None

    def torchvision_with(self, torch: str) -> str | None:
        """The torchvision paired with ``torch`` (same position in the lists), where the row
        pairs them (``local`` set); None otherwise."""
        if not self.local or torch not in self.torch:
            return None
        position = self.torch.index(torch)
        return self.torchvision[position] if position < len(self.torchvision) else None

    def torch_for(self, gfx: str) -> str | None:
        """The newest torch on this index whose wheels carry code for ``gfx``; None when none
        does or the index's arch list is not known."""
        target = gfx_base(gfx)
        if target not in self.arch_list:
            return None
        first = dict(self.arch_from).get(target)
        carrying = [v for v in self.torch
                    if first is None or version_tuple(v) >= version_tuple(first)]
        return max(carrying, key=version_tuple) if carrying else None


@dataclass(frozen=True)
class TheRockIndex:
    """A TheRock (ROCm nightly) pip index: the multi-arch one, or a legacy per-family one."""

    family: str
    """The index's name: the gfx family of a per-family index, ``whl-multi-arch`` for the
    index that serves every target."""
    url: str
    targets: tuple[str, ...]
    preview: bool
    source: str
    note: str | None = None
    device_extra: bool = False
    """True when the card is chosen with a pip extra, ``torch[device-gfx1100]`` (multi-arch)."""
    frozen: bool = False
    """True for an index that gets no new builds (TheRock's per-family indexes): never planned."""
    untested: tuple[str, ...] = ()
    """Targets of ``targets`` that AMD builds device packages for but no public output shows
    PyTorch working with: the plan says so."""
    python_min: str | None = None
    """The oldest CPython minor the index's torch wheels are built for (None: not recorded)."""
    python_max: str | None = None
    """The newest CPython minor the index's torch wheels are built for."""
    python_source: str | None = None
    """Where python_min and python_max were read (docs/knowledge.md's source rule)."""


def current_therock(indexes: Iterable[TheRockIndex], gfx: str) -> TheRockIndex | None:
    """The first TheRock index that still gets builds and carries ``gfx``."""
    wanted = gfx_base(gfx)
    return next((t for t in indexes if not t.frozen and wanted in t.targets), None)


def parse_torch(
    data: Mapping[str, Any],
) -> tuple[tuple[TorchIndex, ...], tuple[TheRockIndex, ...]]:
    file = "torch.toml"
    check_top_level(file, data, ["index", "therock"])
    indexes: list[TorchIndex] = []
    for r in rows(file, data, "index"):
        r.check_keys(["name", "url", "rocm", "torch", "stable", "source"],
                     ["torchvision", "arch_list", "arch_from", "vendor", "device_extra", "local",
                      "note"])
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        vendor = r.opt_text("vendor") or "pytorch"
        if vendor not in ("pytorch", "amd"):
            raise r.fail("vendor must be pytorch or amd")
        torch = r.str_list("torch", required=True, check=is_wheel_version, what="a version")
        arch_list = r.str_list("arch_list", check=is_gfx, what="a gfx target")
        arch_from: list[tuple[str, str]] = []
        for gfx, first in r.str_map("arch_from").items():
            if gfx not in arch_list:
                raise r.fail(f"arch_from names {gfx}, which arch_list does not list")
            if not isinstance(first, str) or not is_wheel_version(first):
                raise r.fail(f"arch_from {gfx} must be a torch version")
            if not any(version_tuple(v) >= version_tuple(first) for v in torch):
                raise r.fail(f"arch_from {gfx} = {first}: no torch version listed is that new")
            arch_from.append((gfx, first))
        local = r.opt_text("local")
        torchvision = r.str_list("torchvision", check=is_wheel_version, what="a version")
        if local is not None:
            if not re.fullmatch(r"[a-z0-9]+(?:\.[a-z0-9]+)*", local):
                raise r.fail("local must be a local version label like rocm10.0.0")
            if len(torchvision) != len(torch):
                raise r.fail("with local, torchvision must pair one version with each torch")
        indexes.append(TorchIndex(
            name=r.text("name"),
            url=url,
            rocm=r.version("rocm"),
            torch=torch,
            stable=r.flag("stable"),
            source=r.source(),
            torchvision=torchvision,
            arch_list=arch_list,
            arch_from=tuple(arch_from),
            vendor=vendor,
            device_extra=r.flag("device_extra", default=False),
            local=local,
            note=r.opt_text("note"),
        ))
    unique(file, "index", (i.name for i in indexes), "name")
    therock: list[TheRockIndex] = []
    for r in rows(file, data, "therock"):
        r.check_keys(["family", "url", "targets", "preview", "source"],
                     ["note", "device_extra", "frozen", "untested", "python_min", "python_max",
                      "python_source"])
        pythons = [k for k in ("python_min", "python_max", "python_source") if k in r.data]
        if pythons and len(pythons) != 3:
            raise r.fail("python_min, python_max and python_source come together")
        python_min = r.version("python_min") if pythons else None
        python_max = r.version("python_max") if pythons else None
        if python_min and python_max and version_tuple(python_min) > version_tuple(python_max):
            raise r.fail("python_min is newer than python_max")
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        targets = r.str_list("targets", required=True, check=is_gfx, what="a gfx target")
        untested = r.str_list("untested", check=is_gfx, what="a gfx target")
        stray = [g for g in untested if g not in targets]
        if stray:
            raise r.fail(f"untested names {', '.join(stray)}, which targets does not list")
        therock.append(TheRockIndex(
            family=r.text("family"),
            url=url,
            targets=targets,
            preview=r.flag("preview"),
            source=r.source(),
            note=r.opt_text("note"),
            device_extra=r.flag("device_extra", default=False),
            frozen=r.flag("frozen", default=False),
            untested=untested,
            python_min=python_min,
            python_max=python_max,
            python_source=r.text("python_source") if pythons else None,
        ))
    unique(file, "therock", (t.family for t in therock), "family")
    return tuple(indexes), tuple(therock)
