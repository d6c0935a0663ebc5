"""PCI vendors of display devices (resources/data/pci_vendors.toml): name, key, compute or not."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.knowledge.rows import check_top_level, read_table, rows, unique
from core.resources import data_dir

KEYS = ("amd", "nvidia", "intel", "other")
_VENDOR_ID = re.compile(r"^[0-9a-f]{4}$")


@dataclass(frozen=True)
class Vendor:
    id: str
    key: str
    names: tuple[str, ...]
    compute: bool
    source: str


@dataclass(frozen=True)
class VendorTable:
    vendors: tuple[Vendor, ...]

    def by_id(self, vendor_id: str) -> Vendor | None:
        wanted = vendor_id.lower()
        return next((v for v in self.vendors if v.id == wanted), None)

    def is_compute(self, pci_id: str | None) -> bool:
        """False for display-only devices (BMC VGA, emulated adapters); True otherwise."""
        if not pci_id:
            return True
        vendor = self.by_id(pci_id.split(":", 1)[0])
        return vendor.compute if vendor is not None else True

    def key_for_name(self, text: str) -> str:
        """ "amd", "nvidia", "intel" or "other" for a vendor or product name."""
        lowered = text.lower()
        for vendor in self.vendors:
            if vendor.compute and any(name.lower() in lowered for name in vendor.names):
                return vendor.key
        return "other"


def parse_vendors(data: Mapping[str, Any]) -> tuple[Vendor, ...]:
    file = "pci_vendors.toml"
    check_top_level(file, data, ["vendor"])
    vendors: list[Vendor] = []
    for r in rows(file, data, "vendor"):
        r.check_keys(["id", "key", "source"], ["names", "compute"])
        vendor_id = r.text("id").lower()
        if not _VENDOR_ID.match(vendor_id):
            raise r.fail(f"id {vendor_id!r} must be four hex digits (1002)")
        key = r.text("key")
        if key not in KEYS:
            raise r.fail(f"key {key!r} must be one of {', '.join(KEYS)}")
        vendors.append(Vendor(id=vendor_id, key=key, names=r.str_list("names"),
                              compute=r.flag("compute", default=True), source=r.source()))
    unique(file, "vendor", (v.id for v in vendors), "id")
    return tuple(vendors)


@lru_cache(maxsize=4)
def load_vendors(folder: Path | None = None) -> VendorTable:
    """The vendor table, checked as every knowledge table is (a bad row raises
    :class:`KnowledgeError` naming it)."""
    return VendorTable(parse_vendors(read_table(folder or data_dir(), "pci_vendors.toml")))
