"""PCI Express link attributes as Linux writes them in sysfs (``current_link_speed``,
``max_link_width``, ...): pure functions from their text to numbers.

The kernel writes a speed as ``16.0 GT/s PCIe`` (older kernels: ``8 GT/s``, ``Unknown`` when
the link is down) and a width as a plain lane count (``16``); drivers/pci/pci-sysfs.c.
"""

from __future__ import annotations

import re

_SPEED = re.compile(r"^\s*([0-9]{1,3}(?:\.[0-9]{1,2})?)\s*GT/s")
_WIDTH = re.compile(r"^\s*x?([0-9]{1,2})\s*$")

GENERATIONS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
"""Transfer rate per lane (GT/s) of each PCIe generation (PCI-SIG)."""


def parse_link_speed(text: str | None) -> float | None:
    """GT/s per lane, or None for ``Unknown``, an empty or a malformed value."""
    match = _SPEED.match(text or "")
    if not match:
        return None
    value = float(match.group(1))
    return value if value > 0 else None


def parse_link_width(text: str | None) -> int | None:
    """Lanes (1 to 32), or None."""
    match = _WIDTH.match(text or "")
    if not match:
        return None
    lanes = int(match.group(1))
    return lanes if 1 <= lanes <= 32 else None


def generation(gt_s: float | None) -> int | None:
    """The PCIe generation of a lane rate (16.0 -> 4), None for a rate no generation has."""
    return GENERATIONS.get(gt_s) if gt_s is not None else None


def gbytes_per_s(gt_s: float, lanes: int) -> float:
    """What a link carries each way, in GB/s, after line coding: 8b/10b up to 5 GT/s,
    128b/130b from 8 GT/s (PCIe 3.0), FLIT mode at 64 GT/s (PCIe 6.0: 242 of 256 bytes)."""
    if gt_s <= 5.0:
        efficiency = 8 / 10
    elif gt_s < 64.0:
        efficiency = 128 / 130
    else:
        efficiency = 242 / 256
    return gt_s * lanes * efficiency / 8
