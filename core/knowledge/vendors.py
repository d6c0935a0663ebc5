"""PCI vendors of display devices (resources/data/pci_vendors.toml): name, key, compute or not."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tomllib

from core.resources import data_dir


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


@lru_cache(maxsize=4)
def load_vendors(folder: Path | None = None) -> VendorTable:
    path = (folder or data_dir()) / "pci_vendors.toml"
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    rows = tuple(
        Vendor(
            id=str(row["id"]).lower(),
            key=str(row["key"]),
            names=tuple(row.get("names", [])),
            compute=bool(row.get("compute", True)),
            source=str(row["source"]),
        )
        for row in data.get("vendor", [])
    )
    return VendorTable(rows)
