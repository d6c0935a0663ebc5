"""Telemetry the parent samples while a suite runs: load, memory, power, temperatures, clocks.

AMD: the amdgpu driver's sysfs files under the card's PCI device (gpu_busy_percent,
mem_info_vram_used/total, hwmon power/temperature/clock files), read through core.system.
NVIDIA: NVML (the nvidia-ml-py package), including its energy counter where the card has one.
The device is found by the PCI address the worker reports in ``hello``.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.report.model import TelemetrySample
from core.system import System

log = logging.getLogger(__name__)

PCI_DEVICES = "/sys/bus/pci/devices"
DRM = "/sys/class/drm"


@dataclass(frozen=True)
class DeviceIds:
    """PCI identity of the benchmarked device, for the knowledge base."""

    pci_id: str | None  # "1002:744c"
    revision: str | None  # "c8"
    name: str | None = None


class Sampler(Protocol):
    """Reads one telemetry sample (``t`` is filled in by the caller)."""

    kind: str

    def sample(self, t: float) -> TelemetrySample: ...

    def ids(self) -> DeviceIds: ...

    def power_reading(self) -> tuple[str | None, str | None]: ...

    def close(self) -> None: ...


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.strip().split()[0])
    except (ValueError, IndexError):
        return None


def _hex(text: str | None) -> str | None:
    if not text:
        return None
    t = text.strip().lower().removeprefix("0x")
    return t if re.fullmatch(r"[0-9a-f]+", t) else None


class AmdSysfsSampler:
    """amdgpu sysfs + hwmon of one card."""

    kind = "amdgpu-sysfs"

    def __init__(self, system: System, device_dir: str) -> None:
        self.system = system
        self.dir = device_dir.rstrip("/")
        self.hwmon = self._hwmon()
        self._labels = self._hwmon_labels()
        self._power_file: str | None = None  # the hwmon file the last power came from

    @classmethod
    def find(cls, system: System, pci_bus_id: str | None) -> AmdSysfsSampler | None:
        """The card at ``pci_bus_id``, else the only amdgpu card with a busy counter."""
        if pci_bus_id:
            d = f"{PCI_DEVICES}/{pci_bus_id.lower()}"
            if system.read_text(f"{d}/gpu_busy_percent") is not None:
                return cls(system, d)
        found = []
        for name in system.list_dir(DRM) or []:
            if not re.fullmatch(r"card\d+", name):
                continue
            d = system.resolve(f"{DRM}/{name}/device")
            if (system.read_text(f"{d}/vendor") or "").strip().lower() == "0x1002" and \
                    system.read_text(f"{d}/gpu_busy_percent") is not None:
                found.append(d)
        return cls(system, found[0]) if len(found) == 1 else None

    def _hwmon(self) -> str | None:
        names = self.system.list_dir(f"{self.dir}/hwmon") or []
        return f"{self.dir}/hwmon/{names[0]}" if names else None

    def _hwmon_labels(self) -> dict[str, str]:
        """hwmon file prefix (temp2, freq1, ...) -> label (junction, sclk, ...)."""
        labels: dict[str, str] = {}
        if not self.hwmon:
            return labels
        for name in self.system.list_dir(self.hwmon) or []:
            if name.endswith("_label"):
                text = self.system.read_text(f"{self.hwmon}/{name}")
                if text:
                    labels[name[: -len("_label")]] = text.strip().lower()
        return labels

    def _read(self, name: str) -> str | None:
        return self.system.read_text(f"{self.dir}/{name}")

    def _hw(self, name: str) -> float | None:
        return _num(self.system.read_text(f"{self.hwmon}/{name}")) if self.hwmon else None

    def sample(self, t: float) -> TelemetrySample:
        temps: dict[str, float] = {}
        clocks: dict[str, float] = {}
        power = None
        if self.hwmon:
            micro = self._hw("power1_average")
            self._power_file = "power1_average"
            if micro is None:
                micro = self._hw("power1_input")
                self._power_file = "power1_input" if micro is not None else None
            power = micro / 1e6 if micro is not None else None
            for i in range(1, 4):
                v = self._hw(f"temp{i}_input")
                if v is not None:
                    temps[self._labels.get(f"temp{i}", f"temp{i}")] = v / 1000.0
            for i in range(1, 3):
                v = self._hw(f"freq{i}_input")
                if v is not None:
                    clocks[self._labels.get(f"freq{i}", f"freq{i}")] = v / 1e6
        for key, fname in (("sclk", "pp_dpm_sclk"), ("mclk", "pp_dpm_mclk")):
            if key not in clocks:
                mhz = _current_dpm(self._read(fname))
                if mhz is not None:
                    clocks[key] = mhz
        used = _num(self._read("mem_info_vram_used"))
        total = _num(self._read("mem_info_vram_total"))
        return TelemetrySample(
            t=t,
            busy_pct=_num(self._read("gpu_busy_percent")),
            vram_used_bytes=int(used) if used is not None else None,
            vram_total_bytes=int(total) if total is not None else None,
            power_w=power,
            temps_c=temps,
            clocks_mhz=clocks,
        )

    def ids(self) -> DeviceIds:
        return _ids_from(self._read)

    def power_reading(self) -> tuple[str | None, str | None]:
        """What the power came from (hwmon's file) and the energy counter (amdgpu has none)."""
        return (f"hwmon {self._power_file}" if self._power_file else None), None

    def close(self) -> None:
        pass


def _current_dpm(text: str | None) -> float | None:
    """The starred level of pp_dpm_sclk/mclk ("1: 1000Mhz *")."""
    for line in (text or "").splitlines():
        if line.rstrip().endswith("*"):
            m = re.search(r"(\d+)\s*mhz", line, re.I)
            if m:
                return float(m.group(1))
    return None


class NvmlSampler:
    """NVML (nvidia-ml-py) for one NVIDIA GPU."""

    kind = "nvml"

    def __init__(self, nvml: Any, handle: Any) -> None:
        self.nvml = nvml
        self.handle = handle
        self._energy_ok = True

    @classmethod
    def find(cls, pci_bus_id: str | None) -> NvmlSampler | None:
        try:
            import pynvml as nvml
        except ImportError:
            log.info("no NVML telemetry: nvidia-ml-py is not installed")
            return None
        try:
            nvml.nvmlInit()
        except Exception as exc:  # no driver, no library
            log.info("no NVML telemetry: %s", exc)
            return None
        try:
            handle = cls._handle(nvml, pci_bus_id)
        except Exception as exc:  # NVMLError (GPU lost, unknown), a malformed bus id
            log.info("no NVML telemetry: %s", exc)
            handle = None
        if handle is None:
            with contextlib.suppress(Exception):
                nvml.nvmlShutdown()
            return None
        return cls(nvml, handle)

    @staticmethod
    def _handle(nvml: Any, pci_bus_id: str | None) -> Any:
        """The device by PCI address (both spellings NVML uses), else the only one."""
        if pci_bus_id and ":" in pci_bus_id:
            dom, rest = pci_bus_id.split(":", 1)
            spellings = [pci_bus_id]
            with contextlib.suppress(ValueError):
                spellings.append(f"{int(dom, 16):08x}:{rest}")
            for bus_id in spellings:
                try:
                    return nvml.nvmlDeviceGetHandleByPciBusId(bus_id.encode())
                except Exception:
                    continue
        if nvml.nvmlDeviceGetCount() == 1:
            return nvml.nvmlDeviceGetHandleByIndex(0)
        return None

    def _try(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(self.handle, *args)
        except Exception:
            return None

    def sample(self, t: float) -> TelemetrySample:
        n = self.nvml
        util = self._try(n.nvmlDeviceGetUtilizationRates)
        mem = self._try(n.nvmlDeviceGetMemoryInfo)
        power_mw = self._try(n.nvmlDeviceGetPowerUsage)
        temp = self._try(n.nvmlDeviceGetTemperature, n.NVML_TEMPERATURE_GPU)
        sm = self._try(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_SM)
        memclk = self._try(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_MEM)
        energy = self._try(n.nvmlDeviceGetTotalEnergyConsumption) if self._energy_ok else None
        if energy is None:
            self._energy_ok = False
        return TelemetrySample(
            t=t,
            busy_pct=float(util.gpu) if util is not None else None,
            vram_used_bytes=int(mem.used) if mem is not None else None,
            vram_total_bytes=int(mem.total) if mem is not None else None,
            power_w=power_mw / 1000.0 if power_mw is not None else None,
            temps_c={"gpu": float(temp)} if temp is not None else {},
            clocks_mhz={k: float(v) for k, v in (("sm", sm), ("mem", memclk)) if v is not None},
            energy_j=energy / 1000.0 if energy is not None else None,
        )

    def power_reading(self) -> tuple[str | None, str | None]:
        """NVML's power reading and, where the card has one, its energy counter."""
        return ("nvmlDeviceGetPowerUsage",
                "nvmlDeviceGetTotalEnergyConsumption" if self._energy_ok else None)

    def ids(self) -> DeviceIds:
        info = self._try(self.nvml.nvmlDeviceGetPciInfo)
        name = self._try(self.nvml.nvmlDeviceGetName)
        if isinstance(name, bytes):
            name = name.decode(errors="replace")
        if info is None:
            return DeviceIds(None, None, name)
        combined = int(info.pciDeviceId)  # device << 16 | vendor
        return DeviceIds(f"{combined & 0xFFFF:04x}:{combined >> 16:04x}", None, name)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.nvml.nvmlShutdown()


def _ids_from(read: Any) -> DeviceIds:
    vendor = _hex(read("vendor"))
    device = _hex(read("device"))
    rev = _hex(read("revision"))
    pci = f"{vendor.zfill(4)}:{device.zfill(4)}" if vendor and device else None
    return DeviceIds(pci_id=pci, revision=rev[-2:].zfill(2) if rev else None)


def sysfs_ids(system: System, pci_bus_id: str | None) -> DeviceIds | None:
    """The PCI vendor:device and revision of a device from sysfs (any vendor), for the datasheet
    look-up when no sampler gives them (telemetry off, no NVML); None when unreadable."""
    if not pci_bus_id or "/" in pci_bus_id or pci_bus_id.startswith("."):
        return None
    base = f"/sys/bus/pci/devices/{pci_bus_id.lower()}"
    ids = _ids_from(lambda name: system.read_text(f"{base}/{name}"))
    return ids if ids.pci_id else None


def open_sampler(system: System, hello: dict[str, Any]) -> Sampler | None:
    """The sampler for the device a worker said hello from; None for the CPU or when none works."""
    backend = hello.get("backend")
    bus = hello.get("pci_bus_id")
    if backend == "hip":
        return AmdSysfsSampler.find(system, bus)
    if backend == "cuda":
        return NvmlSampler.find(bus)
    return None


def energy(samples: Sequence[TelemetrySample], t0: float, t1: float) -> tuple[float, float | None,
                                                                              str] | None:
    """Energy (J) used between t0 and t1, its mean power and the method; None without data.

    A cumulative energy counter is preferred; otherwise the mean of the power samples inside the
    window times its length."""
    if t1 <= t0:
        return None
    inside = [s for s in samples if t0 <= s.t <= t1]
    counted = [s for s in inside if s.energy_j is not None]
    if len(counted) >= 2 and counted[-1].t > counted[0].t:
        a, b = counted[0], counted[-1]
        assert a.energy_j is not None and b.energy_j is not None
        joules = (b.energy_j - a.energy_j) * (t1 - t0) / (b.t - a.t)
        return joules, joules / (t1 - t0), "energy-counter"
    powers = [s.power_w for s in inside if s.power_w is not None]
    if len(powers) >= 2:
        mean = sum(powers) / len(powers)
        return mean * (t1 - t0), mean, "power-integral"
    return None
