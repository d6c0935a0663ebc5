"""GPU facts: every graphics/compute device, its gfx target, VRAM and whether it is integrated.

Sources, best first: the KFD topology in sysfs (what ROCm itself enumerates, no ROCm needed),
PCI sysfs (every GPU, whatever its driver), ``lspci -nn`` where sysfs is missing, ``rocminfo`` and
the SMI tools where they run, and on WSL 2 the Windows side. Names come from the knowledge base.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.knowledge.gpus import GpuRow
from core.knowledge.loader import Knowledge
from core.knowledge.vendors import VendorTable
from core.probe.links import PcieLink, PeerLink, nvidia_paths, pcie_link, peer_links
from core.probe.parse.kfd import decode_gfx_target_version, parse_properties, pci_location
from core.probe.parse.lspci import PciDevice, is_display_class, parse_lspci
from core.probe.parse.nvidia_topo import GpuPath
from core.probe.parse.rocminfo import RocminfoReport
from core.probe.parse.smi import SmiReport
from core.probe.parse.windows import WinGpu
from core.system import System

if TYPE_CHECKING:
    from core.probe.memory_facts import MemoryFacts

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"
PCI_DEVICES = "/sys/bus/pci/devices"
GIB = 1 << 30
PLACEHOLDER_LABELS = {"amd": "AMD GPU", "nvidia": "NVIDIA GPU", "intel": "Intel GPU"}
PLACEHOLDER_PREFIXES = (*PLACEHOLDER_LABELS.values(), "GPU")


@dataclass(frozen=True)
class Gpu:
    vendor: str
    """"amd", "nvidia", "intel" or "other"."""
    name: str
    pci_id: str | None = None
    """"1002:744c" (vendor:device, lowercase hex)."""
    slot: str | None = None
    """PCI address "0000:03:00.0"."""
    revision: str | None = None
    gfx: str | None = None
    kfd_node: int | None = None
    vram_bytes: int | None = None
    integrated: bool = False
    gtt_bytes: int | None = None
    """The system memory the GPU may map (amdgpu's ``mem_info_gtt_total``): what an integrated
    GPU works in beside its small carve-out. None where the machine does not say."""
    driver: str | None = None
    compute_units: int | None = None
    render_minor: int | None = None
    arch: str | None = None
    sources: tuple[str, ...] = ()
    memory: MemoryFacts | None = None
    """An integrated AMD GPU's memory facts (core.probe.memory, issue 35); None for the others."""

    @property
    def is_amd(self) -> bool:
        return self.vendor == "amd"

    @property
    def name_is_placeholder(self) -> bool:
        """True when no source named the card (the name is "<Vendor> GPU <pci id>")."""
        return self.name.startswith(PLACEHOLDER_PREFIXES)

    def to_json(self) -> dict[str, object]:
        return {
            "vendor": self.vendor,
            "pci_id": self.pci_id,
            "slot": self.slot,
            "revision": self.revision,
            "name": self.name,
            "gfx": self.gfx,
            "arch": self.arch,
            "kfd_node": self.kfd_node,
            "vram_bytes": self.vram_bytes,
            "integrated": self.integrated,
            "gtt_bytes": self.gtt_bytes,
            "driver": self.driver,
            "compute_units": self.compute_units,
            "render_minor": self.render_minor,
            "sources": list(self.sources),
            **({"memory": self.memory.to_json()} if self.memory is not None else {}),
        }


def work_memory(gpu: Gpu) -> int | None:
    """The memory a benchmark may fill on ``gpu``: a discrete card's VRAM; for an integrated
    GPU the system memory it may map (GTT) or its carve-out, whichever is larger. None for an
    integrated GPU whose GTT size is not known: its carve-out alone (often 512 MiB) says little
    of what it can use."""
    if not gpu.integrated:
        return gpu.vram_bytes
    if gpu.gtt_bytes is None:
        return None
    return max(gpu.gtt_bytes, gpu.vram_bytes or 0)


@dataclass(frozen=True)
class KfdNode:
    """One GPU node of the KFD topology."""

    node: int
    gfx: str | None
    gfx_target_version: int
    vendor_id: str
    device_id: str
    slot: str | None
    render_minor: int | None
    compute_units: int | None
    vram_bytes: int | None
    cpu_cores: int


@dataclass(frozen=True)
class GpuFacts:
    gpus: tuple[Gpu, ...]
    kfd_present: bool
    kfd_nodes: tuple[KfdNode, ...] = ()
    cpu_nodes: tuple[int, ...] = ()
    problems: tuple[str, ...] = field(default=())
    pcie: tuple[tuple[str, PcieLink], ...] = ()
    """Each discrete GPU's PCIe link to the host, by the GPU's slot (core.probe.links)."""
    peers: tuple[PeerLink, ...] | None = ()
    """Direct links between GPU nodes of the KFD topology (xGMI); None when the topology's
    io_links could not be read."""
    nvidia: tuple[GpuPath, ...] | None = ()
    """How each pair of NVIDIA GPUs is connected (NVLink or the PCIe path, by nvidia-smi's
    indexes), where there are two or more; None when ``nvidia-smi topo -m`` did not answer."""
    cpu_model: str | None = None
    """The processor's model name (/proc/cpuinfo, else rocminfo's CPU agent): AMD's ROCm lists
    name Ryzen APUs by processor model, not by GPU (issue 32)."""

    def link_of(self, gpu: Gpu) -> PcieLink | None:
        return next((link for slot, link in self.pcie if slot == gpu.slot), None)

    @property
    def amd(self) -> list[Gpu]:
        return [g for g in self.gpus if g.is_amd]


def probe_gpus(
    system: System,
    kb: Knowledge,
    vendors: VendorTable,
    rocminfo: RocminfoReport | None = None,
    smi: SmiReport | None = None,
    windows: tuple[WinGpu, ...] = (),
) -> GpuFacts:
    """Every GPU of the machine, merged from all the sources that answered."""
    problems: list[str] = []
    kfd_present = system.is_dir(KFD_NODES)
    nodes, cpu_nodes = read_kfd_nodes(system, problems) if kfd_present else ([], [])
    pci = _pci_devices(system, vendors, problems)
    gpus = _merge_pci_and_kfd(pci, nodes, vendors)
    if rocminfo is not None and not nodes:
        gpus = _add_rocminfo_agents(gpus, rocminfo)
    if not gpus and windows:
        gpus = [_from_windows(w, vendors) for w in windows]
    gpus = [_name_and_classify(g, kb, smi, rocminfo) for g in gpus]
    return GpuFacts(
        gpus=tuple(_ordered(gpus)),
        kfd_present=kfd_present,
        kfd_nodes=tuple(nodes),
        cpu_nodes=tuple(cpu_nodes),
        problems=tuple(problems),
        pcie=tuple(_pcie_links(system, gpus)),
        peers=peer_links(system, {n.node for n in nodes}) if len(nodes) > 1 else (),
        nvidia=nvidia_paths(system) if sum(g.vendor == "nvidia" for g in gpus) > 1 else (),
        cpu_model=cpu_model(system, rocminfo),
    )


def cpu_model(system: System, rocminfo: RocminfoReport | None = None) -> str | None:
    """The first ``model name`` of /proc/cpuinfo, else the marketing name of rocminfo's first
    CPU agent; None when neither says."""
    for line in (system.read_text("/proc/cpuinfo") or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return " ".join(value.split())
    if rocminfo is not None:
        for agent in rocminfo.agents:
            if (agent.device_type or "").upper() == "CPU" and agent.marketing_name:
                return " ".join(agent.marketing_name.split())
    return None


def _pcie_links(system: System, gpus: list[Gpu]) -> list[tuple[str, PcieLink]]:
    """The PCIe link of each discrete GPU that PCI sysfs lists."""
    found = []
    for gpu in gpus:
        if gpu.slot and not gpu.integrated and "pci" in gpu.sources:
            link = pcie_link(system, gpu.slot)
            if link is not None:
                found.append((gpu.slot, link))
    return found


# -- KFD ------------------------------------------------------------------------------------


def read_kfd_nodes(system: System, problems: list[str]) -> tuple[list[KfdNode], list[int]]:
    """GPU nodes and CPU node ids of the KFD topology, in node order."""
    names = system.list_dir(KFD_NODES) or []
    gpu_nodes: list[KfdNode] = []
    cpu_nodes: list[int] = []
    for name in sorted((n for n in names if re.fullmatch(r"[0-9]+", n)), key=int):
        text = system.read_text(f"{KFD_NODES}/{name}/properties")
        if text is None:
            problems.append(f"KFD node {name}: properties unreadable")
            continue
        props = parse_properties(text)
        if props.get("simd_count", 0) <= 0:
            cpu_nodes.append(int(name))
            continue
        gpu_nodes.append(_kfd_node(system, int(name), props))
    return gpu_nodes, cpu_nodes


def _kfd_node(system: System, node: int, props: dict[str, int]) -> KfdNode:
    version = props.get("gfx_target_version", 0)
    location = props.get("location_id")
    simd_per_cu = props.get("simd_per_cu", 0)
    return KfdNode(
        node=node,
        gfx=decode_gfx_target_version(version),
        gfx_target_version=version,
        vendor_id=f"{props.get('vendor_id', 0):04x}",
        device_id=f"{props.get('device_id', 0):04x}",
        slot=pci_location(location, props.get("domain", 0)) if location else None,
        render_minor=props.get("drm_render_minor"),
        compute_units=props["simd_count"] // simd_per_cu if simd_per_cu else None,
        vram_bytes=_kfd_vram(system, node),
        cpu_cores=props.get("cpu_cores_count", 0),
    )


def _kfd_vram(system: System, node: int) -> int | None:
    banks = system.list_dir(f"{KFD_NODES}/{node}/mem_banks") or []
    total = 0
    for bank in banks:
        props = parse_properties(
            system.read_text(f"{KFD_NODES}/{node}/mem_banks/{bank}/properties") or ""
        )
        # heap types 1 and 2 are the frame buffer (public / private); 0 is system memory.
        if props.get("heap_type") in (1, 2):
            total += props.get("size_in_bytes", 0)
    return total or None


# -- PCI ------------------------------------------------------------------------------------


def _pci_devices(system: System, vendors: VendorTable, problems: list[str]) -> list[Gpu]:
    slots = system.list_dir(PCI_DEVICES)
    if slots:
        found = [_pci_sysfs(system, slot) for slot in slots]
        return [g for g in found if g is not None and vendors.is_compute(g.pci_id)]
    result = system.run(["lspci", "-nn"], timeout=5)
    if not result.found:
        return []
    if result.timed_out:
        problems.append("lspci -nn timed out")
    devices = [d for d in parse_lspci(result.output) if is_display_class(d)]
    return [
        _from_lspci(d, vendors)
        for d in devices
        if vendors.is_compute(f"{d.vendor_id}:{d.device_id}" if d.vendor_id else None)
    ]


def _pci_sysfs(system: System, slot: str) -> Gpu | None:
    base = f"{PCI_DEVICES}/{slot}"
    pci_class = _hex_value(system.read_text(f"{base}/class"))
    # 0x03xxxx display controllers; 0x12xxxx processing accelerators (Instinct cards).
    if pci_class is None or (pci_class >> 16) not in (0x03, 0x12):
        return None
    vendor = _hex_value(system.read_text(f"{base}/vendor"))
    device = _hex_value(system.read_text(f"{base}/device"))
    if vendor is None or device is None:
        return None
    if (pci_class >> 16) == 0x12 and vendor != 0x1002:
        return None
    revision = _hex_value(system.read_text(f"{base}/revision"))
    driver_link = system.readlink(f"{base}/driver")
    vram = _int_value(system.read_text(f"{base}/mem_info_vram_total"))
    gtt = _int_value(system.read_text(f"{base}/mem_info_gtt_total"))
    return Gpu(
        vendor=_vendor_key(vendor),
        name="",
        pci_id=f"{vendor:04x}:{device:04x}",
        slot=slot,
        revision=f"{revision:02x}" if revision is not None else None,
        driver=driver_link.rstrip("/").rsplit("/", 1)[-1] if driver_link else None,
        vram_bytes=vram or None,
        gtt_bytes=gtt or None,
        sources=("pci",),
    )


def _from_lspci(device: PciDevice, vendors: VendorTable) -> Gpu:
    vendor_id = device.vendor_id or ""
    pci_id = f"{vendor_id}:{device.device_id}" if device.vendor_id and device.device_id else None
    return Gpu(
        vendor=_vendor_key(int(vendor_id, 16)) if vendor_id else "other",
        name=device.name,
        pci_id=pci_id,
        slot=device.slot,
        revision=device.revision,
        driver=device.driver,
        sources=("lspci",),
    )


def _merge_pci_and_kfd(pci: list[Gpu], nodes: list[KfdNode], vendors: VendorTable) -> list[Gpu]:
    """Attach each KFD node to its PCI device (by slot, else by device id)."""
    merged = list(pci)
    for node in nodes:
        index = _matching_pci(merged, node)
        if index is None:
            merged.append(
                Gpu(
                    vendor=_vendor_key(int(node.vendor_id, 16)),
                    name="",
                    pci_id=f"{node.vendor_id}:{node.device_id}",
                    slot=node.slot,
                    sources=(),
                )
            )
            index = len(merged) - 1
        gpu = merged[index]
        merged[index] = replace(
            gpu,
            gfx=node.gfx,
            kfd_node=node.node,
            slot=gpu.slot or node.slot,
            render_minor=node.render_minor,
            compute_units=node.compute_units,
            vram_bytes=gpu.vram_bytes or node.vram_bytes,
            integrated=gpu.integrated or node.cpu_cores > 0,
            sources=(*gpu.sources, "kfd"),
        )
    return merged


def _matching_pci(gpus: list[Gpu], node: KfdNode) -> int | None:
    for i, gpu in enumerate(gpus):
        if gpu.kfd_node is None and node.slot and gpu.slot == node.slot:
            return i
    for i, gpu in enumerate(gpus):
        if gpu.kfd_node is None and gpu.pci_id == f"{node.vendor_id}:{node.device_id}":
            return i
    return None


# -- ROCm runtime and Windows ---------------------------------------------------------------


def _add_rocminfo_agents(gpus: list[Gpu], report: RocminfoReport) -> list[Gpu]:
    """Without KFD sysfs (WSL 2, or a replay without it) rocminfo's GPU agents give the gfx."""
    agents = [a for a in report.agents if (a.device_type or "").upper() == "GPU" and a.gfx]
    amd = [i for i, g in enumerate(gpus) if g.is_amd and g.gfx is None]
    result = list(gpus)
    for position, agent in enumerate(agents):
        if position < len(amd):
            i = amd[position]
            result[i] = replace(
                result[i],
                gfx=agent.gfx,
                name=result[i].name or (agent.marketing_name or ""),
                compute_units=agent.compute_units,
                # the runtime's memory pool is the card's own: it beats the table's figure
                vram_bytes=result[i].vram_bytes or agent.vram_bytes,
                sources=(*result[i].sources, "rocminfo"),
            )
        else:
            result.append(
                Gpu(
                    vendor="amd",
                    name=agent.marketing_name or agent.name,
                    pci_id=f"1002:{agent.chip_id}" if agent.chip_id else None,
                    gfx=agent.gfx,
                    compute_units=agent.compute_units,
                    vram_bytes=agent.vram_bytes,
                    sources=("rocminfo",),
                )
            )
    return result


def _from_windows(win: WinGpu, vendors: VendorTable) -> Gpu:
    return Gpu(
        vendor=vendors.key_for_name(" ".join(filter(None, [win.vendor, win.name]))),
        name=win.name,
        sources=("windows",),
    )


# -- naming ---------------------------------------------------------------------------------


def _name_and_classify(
    gpu: Gpu, kb: Knowledge, smi: SmiReport | None, rocminfo: RocminfoReport | None
) -> Gpu:
    row = kb.gpu_by_pci(gpu.pci_id, gpu.revision) if gpu.pci_id else None
    if row is None and gpu.name and gpu.vendor == "amd":
        row = kb.gpu_by_name(gpu.name, vendor="amd")
    name = _best_name(gpu, row, smi, rocminfo)
    gfx = gpu.gfx or (row.gfx if row is not None else None)
    if row is not None and row.gfx and "kfd" not in gpu.sources:
        # Without KFD sysfs the gfx came from the runtime, which reports an override's target.
        gfx = row.gfx
    vram = gpu.vram_bytes
    if vram is None and row is not None and row.vram_gib and not row.vram_sizes_gib:
        # Only the machine knows which size a card sold with several sizes has.
        vram = int(row.vram_gib * GIB)
    # An APU is known from its KFD node (CPU cores and SIMDs) or from its row, never from its
    # memory size: a discrete card can have 2 GiB (R7 370) and an APU a large carve-out.
    integrated = gpu.integrated or bool(row is not None and row.integrated)
    if row is None and gpu.is_amd and gfx and _apu_only_target(kb, gfx):
        # An id no table names yet (a new APU's revision or device id, matched by class in the
        # kernel): a target that only APUs have (gfx1036, gfx1103, gfx115x) is an iGPU's.
        integrated = True
    return replace(
        gpu,
        name=name,
        gfx=gfx,
        vram_bytes=vram,
        integrated=integrated,
        arch=row.arch if row is not None else gpu.arch,
    )


def _apu_only_target(kb: Knowledge, gfx: str) -> bool:
    """True when every row of ``gfx`` in gpus.toml is an integrated GPU (and there is one)."""
    rows = kb.gpus_by_gfx(gfx)
    return bool(rows) and all(row.integrated for row in rows)


def _best_name(
    gpu: Gpu, row: GpuRow | None, smi: SmiReport | None, rocminfo: RocminfoReport | None
) -> str:
    runtime_named = bool(gpu.name) and ("rocminfo" in gpu.sources or "windows" in gpu.sources)
    if row is not None and (row.revisions or not runtime_named):
        return _with_vendor(row.name, gpu.vendor)
    if gpu.name:
        # The runtime's marketing name beats a generic row ("RX 6700 series") found by device id.
        return gpu.name.removeprefix("AMD ").strip()
    if smi is not None and gpu.slot:
        for card in smi.gpus:
            if card.pci_bus == gpu.slot and card.name:
                return card.name
    if rocminfo is not None and gpu.gfx:
        for agent in rocminfo.agents:
            if agent.gfx == gpu.gfx and agent.marketing_name:
                return agent.marketing_name
    label = PLACEHOLDER_LABELS.get(gpu.vendor, "GPU")
    return f"{label} {gpu.pci_id}" if gpu.pci_id else label


def _with_vendor(name: str, vendor: str) -> str:
    """Knowledge-base names carry no vendor; NVIDIA's and Intel's read better with it."""
    label = {"nvidia": "NVIDIA", "intel": "Intel"}.get(vendor)
    return f"{label} {name}" if label and not name.lower().startswith(label.lower()) else name


def _ordered(gpus: list[Gpu]) -> list[Gpu]:
    """AMD GPUs in ROCm's order (KFD node), then the rest in PCI order."""

    def key(gpu: Gpu) -> tuple[int, int, str]:
        group = 0 if gpu.is_amd else 1
        node = gpu.kfd_node if gpu.kfd_node is not None else 1 << 20
        return (group, node, gpu.slot or "~")

    return sorted(gpus, key=key)


def _vendor_key(vendor: int) -> str:
    return {0x1002: "amd", 0x10DE: "nvidia", 0x8086: "intel"}.get(vendor, "other")


def _hex_value(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return int(text.strip(), 16)
    except ValueError:
        return None


def _int_value(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None
