"""gpus.toml: one row per product, a PCI device id (and revisions) with its name, gfx target,
VRAM and datasheet peaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    PCI_RE,
    REVISION_RE,
    Row,
    check_top_level,
    rows,
)

VENDORS = frozenset({"amd", "nvidia", "intel"})


@dataclass(frozen=True)
class GpuRow:
    """One product in gpus.toml: a PCI device id (and revisions) with its name and gfx target."""

    pci_id: str
    name: str
    vendor: str
    integrated: bool
    source: str
    revisions: tuple[str, ...] = ()
    """Lowercase two-digit hex revisions; empty = any revision (the fallback row for the id)."""
    gfx: str | None = None
    arch: str | None = None
    family: str | None = None
    vram_gib: float | None = None
    vram_sizes_gib: tuple[float, ...] = ()
    """The memory sizes one PCI id and revision is sold with, when there is more than one (RX
    9060 XT: 8 and 16): the table cannot say which card it is, so only the machine can."""
    peak_tflops_fp32: float | None = None
    peak_tflops_fp16: float | None = None
    peak_tflops_bf16: float | None = None
    peak_tflops_tf32: float | None = None
    mem_bandwidth_gbs: float | None = None
    note: str | None = None


GPU_OPTIONAL = (
    "revisions", "gfx", "arch", "family", "vram_gib", "vram_sizes_gib", "peak_tflops_fp32",
    "peak_tflops_fp16", "peak_tflops_bf16", "peak_tflops_tf32", "mem_bandwidth_gbs", "note",
)


def parse_gpus(data: Mapping[str, Any]) -> tuple[GpuRow, ...]:
    file = "gpus.toml"
    check_top_level(file, data, ["gpu"])
    parsed: list[GpuRow] = []
    seen: dict[tuple[str, str], str] = {}
    for r in rows(file, data, "gpu"):
        r.check_keys(["pci_id", "name", "vendor", "integrated", "source"], GPU_OPTIONAL)
        pci = r.text("pci_id")
        if not PCI_RE.match(pci):
            raise r.fail(f"pci_id {pci!r} must look like 1002:744c (lowercase hex)")
        vendor = r.text("vendor")
        if vendor not in VENDORS:
            raise r.fail(f"vendor {vendor!r} must be one of {', '.join(sorted(VENDORS))}")
        revisions = r.str_list("revisions", check=lambda v: bool(REVISION_RE.match(v)),
                               what="a two-digit lowercase hex revision")
        gfx = r.opt_gfx()
        if vendor == "amd" and gfx is None:
            raise r.fail("AMD rows need a gfx target")
        if vendor != "amd" and gfx is not None:
            raise r.fail("only AMD rows have a gfx target")
        name = r.text("name")
        if name.startswith("AMD "):
            raise r.fail("name is written without the 'AMD ' prefix")
        for rev in revisions or ("",):
            key = (pci, rev)
            if key in seen:
                what = f"revision {rev}" if rev else "a row without revisions"
                raise r.fail(f"{pci} {what} is already used by {seen[key]!r}")
            seen[key] = name
        vram = r.opt_float("vram_gib")
        parsed.append(GpuRow(
            pci_id=pci,
            name=name,
            vendor=vendor,
            integrated=r.flag("integrated"),
            source=r.source(),
            revisions=revisions,
            gfx=gfx,
            arch=r.opt_text("arch"),
            family=r.opt_text("family"),
            vram_gib=vram,
            vram_sizes_gib=_vram_sizes(r, vram),
            peak_tflops_fp32=r.opt_float("peak_tflops_fp32"),
            peak_tflops_fp16=r.opt_float("peak_tflops_fp16"),
            peak_tflops_bf16=r.opt_float("peak_tflops_bf16"),
            peak_tflops_tf32=r.opt_float("peak_tflops_tf32"),
            mem_bandwidth_gbs=r.opt_float("mem_bandwidth_gbs"),
            note=r.opt_text("note"),
        ))
    return tuple(parsed)


def _vram_sizes(r: Row, vram: float | None) -> tuple[float, ...]:
    """vram_sizes_gib: two or more sizes, ascending; vram_gib, when given, is one of them."""
    if "vram_sizes_gib" not in r.data:
        return ()
    value = r.data["vram_sizes_gib"]
    if (not isinstance(value, list) or len(value) < 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
                       for v in value)):
        raise r.fail("vram_sizes_gib must list two or more positive sizes")
    sizes = tuple(float(v) for v in value)
    if list(sizes) != sorted(set(sizes)):
        raise r.fail("vram_sizes_gib must be ascending, without repeats")
    if vram is not None and vram not in sizes:
        raise r.fail(f"vram_gib {vram:g} is not one of vram_sizes_gib")
    return sizes
