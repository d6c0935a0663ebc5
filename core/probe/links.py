"""How each GPU is connected: its PCIe link to the host and the xGMI links between GPUs.

PCIe, from sysfs: the GPU's own ``*_link_*`` attributes are not the slot's on Radeon cards
since Navi. The card carries a PCIe switch of its own (an AMD upstream port, 1002:1478, and a
downstream port above the GPU), and the GPU's link to that switch reads 16 or 32 GT/s x16
whatever slot the card sits in; the slot's link is the one of the card's upstream port
(LACT#334, LACT#592, nokyan/resources#512). So the card is the GPU plus the AMD bridges right
above it, and the link that matters is the one from the card's top device up to the host:

* what the card can do: the top device's ``max_link_*``;
* what the way to the CPU allows: the smallest ``max_link_*`` of every bridge above the card
  (the root port a x16 slot wired x8 reports x8; a chipset slot adds the chipset's x4 uplink);
* what it runs at now: the smallest ``current_link_*`` from the card's top up. Cards lower the
  link speed when idle, so the current speed says little at rest; the widths do not depend
  on load on most cards, and the maxima never do.

xGMI (Infinity Fabric between Instinct GPUs), from the KFD topology: each GPU node's
``io_links/N/properties`` with ``type 11`` and ``node_to`` another GPU node (type 2 is PCIe;
kfd_crat.h ``CRAT_IOLINK_TYPE_*``).

NVLink (between NVIDIA GPUs), from ``nvidia-smi topo -m`` where the driver's tool is installed:
sysfs does not show it (core.probe.parse.nvidia_topo).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from core.probe.parse.kfd import parse_properties
from core.probe.parse.nvidia_topo import GpuPath, parse_topo_matrix
from core.probe.parse.pcie import gbytes_per_s, generation, parse_link_speed, parse_link_width
from core.system import System

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"
PCI_DEVICES = "/sys/bus/pci/devices"
_ADDRESS = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
AMD_VENDOR = 0x1002
PCI_BRIDGE = 0x0604
IOLINK_PCIE = 2
IOLINK_XGMI = 11
NVIDIA_TOPO = ("nvidia-smi", "topo", "-m")
TOOL_TIMEOUT = 15.0


@dataclass(frozen=True)
class PcieLink:
    """One GPU's PCIe link to the host (GT/s per lane, lanes); None where sysfs did not say."""

    slot: str
    """The device whose link this is: the card's top device (its upstream port, or the GPU)."""
    card_speed: float | None
    card_width: int | None
    path_speed: float | None
    """The most the bridges between the card and the CPU allow."""
    path_width: int | None
    speed: float | None
    """Now (cards lower it when idle)."""
    width: int | None

    @property
    def narrow(self) -> bool:
        """Fewer lanes than the card has, because of the slot or the way to the CPU (from the
        maxima only: some cards narrow the link at rest too, so the current width proves
        nothing at rest)."""
        return (self.card_width is not None and self.path_width is not None
                and self.path_width < self.card_width)

    @property
    def slower(self) -> bool:
        """A lower PCIe generation than the card's, because of the board (or a riser)."""
        return (self.card_speed is not None and self.path_speed is not None
                and self.path_speed < self.card_speed)

    @property
    def best_speed(self) -> float | None:
        known = [s for s in (self.card_speed, self.path_speed) if s is not None]
        return min(known) if known else self.speed

    @property
    def best_width(self) -> int | None:
        known = [w for w in (self.card_width, self.path_width) if w is not None]
        return min(known) if known else self.width

    @property
    def card_gbytes_per_s(self) -> float | None:
        """What the card's own link could carry each way in a slot that gives it all (GB/s)."""
        if self.card_speed and self.card_width:
            return gbytes_per_s(self.card_speed, self.card_width)
        return None

    @property
    def gbytes_per_s(self) -> float | None:
        """What the link can carry each way at its best (GB/s)."""
        speed, width = self.best_speed, self.best_width
        return gbytes_per_s(speed, width) if speed and width else None

    def to_json(self) -> dict[str, object]:
        return {"slot": self.slot, "card_speed_gt_s": self.card_speed,
                "card_width": self.card_width, "path_speed_gt_s": self.path_speed,
                "path_width": self.path_width, "speed_gt_s": self.speed, "width": self.width,
                "generation": generation(self.best_speed), "lanes": self.best_width,
                "gbytes_per_s": round(self.gbytes_per_s, 2) if self.gbytes_per_s else None,
                "narrow": self.narrow, "slower": self.slower}


@dataclass(frozen=True)
class PeerLink:
    """A direct link between two GPU nodes of the KFD topology."""

    from_node: int
    to_node: int
    kind: str
    """"xgmi" (Infinity Fabric) or "pcie" (a peer-to-peer PCIe link the KFD lists)."""
    max_bandwidth_mbs: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"from_node": self.from_node, "to_node": self.to_node, "kind": self.kind,
                "max_bandwidth_mbs": self.max_bandwidth_mbs}


def pcie_link(system: System, slot: str) -> PcieLink | None:
    """The PCIe link of the GPU at ``slot`` ("0000:03:00.0"), or None when sysfs does not show
    where the device sits (a snapshot without the device tree, lspci only, WSL)."""
    chain = _chain(system, slot)
    if not chain:
        return None
    top = len(chain) - 1  # the card: the GPU and the AMD bridges right above it
    while top > 0 and _amd_bridge(system, chain[top - 1]):
        top -= 1
    card, above = chain[top], chain[:top]
    card_speed, card_width = _link(system, card, "max")
    if card_speed is None and card_width is None:
        return None
    path = [_link(system, device, "max") for device in above]
    now = [_link(system, device, "current") for device in [card, *above]]
    return PcieLink(
        slot=card.rsplit("/", 1)[-1],
        card_speed=card_speed, card_width=card_width,
        path_speed=_least(s for s, _ in path), path_width=_least(w for _, w in path),
        speed=_least(s for s, _ in now), width=_least(w for _, w in now))


def peer_links(system: System, gpu_nodes: set[int]) -> tuple[PeerLink, ...] | None:
    """The xGMI (and listed peer-to-peer PCIe) links from each GPU node to another GPU node;
    None when a GPU node's ``io_links`` folder cannot be read (a snapshot that did not record
    it): then nothing is known about them, not that there are none."""
    found: list[PeerLink] = []
    for node in sorted(gpu_nodes):
        folder = f"{KFD_NODES}/{node}/io_links"
        names = system.list_dir(folder)
        if names is None:
            return None
        for name in sorted(names, key=lambda n: (len(n), n)):
            props = parse_properties(system.read_text(f"{folder}/{name}/properties") or "")
            to, kind = props.get("node_to"), props.get("type")
            if to not in gpu_nodes or to == node or kind not in (IOLINK_XGMI, IOLINK_PCIE):
                continue
            found.append(PeerLink(from_node=node, to_node=to,
                                  kind="xgmi" if kind == IOLINK_XGMI else "pcie",
                                  max_bandwidth_mbs=props.get("max_bandwidth") or None))
    return tuple(found)


def nvidia_paths(system: System) -> tuple[GpuPath, ...] | None:
    """How each pair of NVIDIA GPUs is connected (NVLink or the PCIe path), from ``nvidia-smi
    topo -m``; None when the tool is missing, fails or prints no matrix."""
    run = system.run(list(NVIDIA_TOPO), TOOL_TIMEOUT)
    if not run.found or run.timed_out or run.returncode not in (0, None):
        return None
    return parse_topo_matrix(run.output)


def _chain(system: System, slot: str) -> list[str]:
    """The sysfs folders of the PCI devices from the first below the host bridge down to
    ``slot`` (its own last), from where ``/sys/bus/pci/devices/<slot>`` really is."""
    real = system.resolve(f"{PCI_DEVICES}/{slot}")
    parts = real.split("/")
    if not real.startswith("/sys/devices/") or parts[-1] != slot:
        return []
    chain: list[str] = []
    for index, part in enumerate(parts):
        if _ADDRESS.fullmatch(part):
            chain.append("/".join(parts[: index + 1]))
    return chain


def _amd_bridge(system: System, device: str) -> bool:
    vendor = _hex(system.read_text(f"{device}/vendor"))
    pci_class = _hex(system.read_text(f"{device}/class"))
    return vendor == AMD_VENDOR and pci_class is not None and pci_class >> 8 == PCI_BRIDGE


def _link(system: System, device: str, which: str) -> tuple[float | None, int | None]:
    return (parse_link_speed(system.read_text(f"{device}/{which}_link_speed")),
            parse_link_width(system.read_text(f"{device}/{which}_link_width")))


Number = TypeVar("Number", int, float)


def _least(values: Iterable[Number | None]) -> Number | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def _hex(text: str | None) -> int | None:
    try:
        return int((text or "").strip(), 16)
    except ValueError:
        return None
