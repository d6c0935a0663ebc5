"""torch.toml: PyTorch wheel indexes per ROCm series, and TheRock's nightly indexes per gfx
family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    check_top_level,
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
    """gfx targets compiled into the wheels; empty = not known."""
    vendor: str = "pytorch"
    device_extra: bool = False
    """True when the wheel needs a per-GPU extra, e.g. ``torch[device-gfx1100]`` (AMD's index)."""
    note: str | None = None

    @property
    def newest_torch(self) -> str | None:
        return max(self.torch, key=version_tuple) if self.torch else None


@dataclass(frozen=True)
class TheRockIndex:
    """A TheRock (ROCm nightly) pip index for one gfx family."""

    family: str
    url: str
    targets: tuple[str, ...]
    preview: bool
    source: str
    note: str | None = None


def parse_torch(
    data: Mapping[str, Any],
) -> tuple[tuple[TorchIndex, ...], tuple[TheRockIndex, ...]]:
    file = "torch.toml"
    check_top_level(file, data, ["index", "therock"])
    indexes: list[TorchIndex] = []
    for r in rows(file, data, "index"):
        r.check_keys(["name", "url", "rocm", "torch", "stable", "source"],
                     ["torchvision", "arch_list", "vendor", "device_extra", "note"])
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        vendor = r.opt_text("vendor") or "pytorch"
        if vendor not in ("pytorch", "amd"):
            raise r.fail("vendor must be pytorch or amd")
        indexes.append(TorchIndex(
            name=r.text("name"),
            url=url,
            rocm=r.version("rocm"),
            torch=r.str_list("torch", required=True, check=is_wheel_version, what="a version"),
            stable=r.flag("stable"),
            source=r.source(),
            torchvision=r.str_list("torchvision", check=is_wheel_version, what="a version"),
            arch_list=r.str_list("arch_list", check=is_gfx, what="a gfx target"),
            vendor=vendor,
            device_extra=r.flag("device_extra", default=False),
            note=r.opt_text("note"),
        ))
    unique(file, "index", (i.name for i in indexes), "name")
    therock: list[TheRockIndex] = []
    for r in rows(file, data, "therock"):
        r.check_keys(["family", "url", "targets", "preview", "source"], ["note"])
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        therock.append(TheRockIndex(
            family=r.text("family"),
            url=url,
            targets=r.str_list("targets", required=True, check=is_gfx, what="a gfx target"),
            preview=r.flag("preview"),
            source=r.source(),
            note=r.opt_text("note"),
        ))
    unique(file, "therock", (t.family for t in therock), "family")
    return tuple(indexes), tuple(therock)
