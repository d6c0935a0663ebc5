"""``nvidia-smi topo -m``: how each pair of NVIDIA GPUs is connected, as a pure function from the
matrix text to data.

nvidia-smi prints a header row (``GPU0 GPU1 ... NIC0 ... CPU Affinity ...``, with ANSI underline
escapes even into a file), one row per GPU (and per NIC), then a legend. A GPU row starts with its
name and has one code per column: ``X`` for itself, ``NV<n>`` for a bonded set of n NVLinks, and
for PCIe the path's widest hop: ``PIX`` (at most one PCIe switch), ``PXB`` (several switches, not
the host bridge), ``PHB`` (through the CPU's host bridge), ``NODE`` (between host bridges of one
NUMA node), ``SYS`` (across the link between CPU sockets; ``SOC`` in old versions). Only the GPU
columns are read; a matrix cut short gives the pairs its rows show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GPU = re.compile(r"^GPU(\d{1,3})$")
_NVLINK = re.compile(r"^NV(\d{1,3})$")
PCIE_PATHS = ("PIX", "PXB", "PHB", "NODE", "SYS")
"""The PCIe codes from the shortest path to the longest."""


@dataclass(frozen=True)
class GpuPath:
    """How two GPUs (nvidia-smi's indexes, ``a`` < ``b``) reach each other."""

    a: int
    b: int
    code: str

    @property
    def nvlinks(self) -> int | None:
        """The NVLinks bonded between them, or None over PCIe."""
        match = _NVLINK.match(self.code)
        return int(match.group(1)) if match else None

    @property
    def kind(self) -> str:
        """"nvlink" or "pcie"."""
        return "nvlink" if self.nvlinks else "pcie"

    def to_json(self) -> dict[str, object]:
        return {"gpu_a": self.a, "gpu_b": self.b, "code": self.code, "kind": self.kind,
                "nvlinks": self.nvlinks}


def _code(cell: str) -> str | None:
    cell = cell.strip().upper()
    if cell == "SOC":  # the name of SYS before driver 375
        return "SYS"
    if cell in PCIE_PATHS or _NVLINK.match(cell):
        return cell
    return None


def parse_topo_matrix(text: str) -> tuple[GpuPath, ...] | None:
    """Every pair of GPUs the matrix shows, once each (a < b); None when ``text`` has no GPU
    matrix (an error message, another tool's output)."""
    lines = [_ANSI.sub("", line) for line in text.splitlines()]
    header = next((line.split() for line in lines
                   if line.split()[:1] and _GPU.match(line.split()[0])
                   and not line.startswith("GPU")), None)
    if header is None:
        return None
    columns = []
    for name in header:
        match = _GPU.match(name)
        if match is None:
            break
        columns.append(int(match.group(1)))
    if not columns:
        return None
    found: dict[tuple[int, int], GpuPath] = {}
    for line in lines:
        words = line.split()
        row = _GPU.match(words[0]) if words and line.startswith("GPU") else None
        if row is None:
            continue
        me = int(row.group(1))
        for other, cell in zip(columns, words[1:1 + len(columns)], strict=False):
            code = _code(cell)
            if other == me or code is None:
                continue
            pair = (min(me, other), max(me, other))
            found.setdefault(pair, GpuPath(pair[0], pair[1], code))
    return tuple(found[pair] for pair in sorted(found))
