"""Telemetry samplers and energy per item.

The amdgpu tree is laid out as the kernel's amdgpu documentation describes it (sysfs device
files, hwmon files with _label companions, pp_dpm_* with the current level starred) and read
through core.system's snapshot replay; the values are made up, typical of an RX 7900 XTX under
load, not recorded from a card."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core.bench.telemetry import AmdSysfsSampler, NvmlSampler, energy, open_sampler
from core.report.model import TelemetrySample
from core.system import SnapshotSystem

BDF = "0000:03:00.0"
REAL = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0"


def amd_tree(root: Path, *, power_file: str = "power1_average", labels: bool = True) -> Path:
    files = root / "files"
    dev = files / REAL
    hw = dev / "hwmon" / "hwmon2"
    hw.mkdir(parents=True)
    values = {
        "vendor": "0x1002", "device": "0x744c", "revision": "0xc8", "gpu_busy_percent": "97",
        "mem_info_vram_used": "12884901888", "mem_info_vram_total": "25753026560",
        "pp_dpm_sclk": "0: 500Mhz \n1: 1900Mhz \n2: 2526Mhz *\n",
        "pp_dpm_mclk": "0: 96Mhz \n1: 1249Mhz *\n",
    }
    for name, text in values.items():
        (dev / name).write_text(text + "\n")
    hwvals = {"name": "amdgpu", power_file: "325000000", "temp1_input": "61000",
              "temp2_input": "78000", "temp3_input": "70000", "freq1_input": "2500000000",
              "freq2_input": "1249000000"}
    if labels:
        hwvals |= {"temp1_label": "edge", "temp2_label": "junction", "temp3_label": "mem",
                   "freq1_label": "sclk", "freq2_label": "mclk", "power1_label": "PPT"}
    for name, text in hwvals.items():
        (hw / name).write_text(text + "\n")
    (files / "sys/bus/pci/devices").mkdir(parents=True)
    os.symlink("../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0",
               files / "sys/bus/pci/devices" / BDF)
    card = files / "sys/class/drm/card1"
    card.mkdir(parents=True)
    os.symlink("../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0",
               card / "device")
    (files / "sys/class/drm/renderD128").mkdir()
    return root


def test_amd_sysfs_sample_by_pci_address(tmp_path: Path) -> None:
    system = SnapshotSystem(amd_tree(tmp_path))
    sampler = AmdSysfsSampler.find(system, BDF)
    assert sampler is not None
    s = sampler.sample(1.5)
    assert s.t == 1.5 and s.busy_pct == 97.0
    assert s.vram_used_bytes == 12884901888 and s.vram_total_bytes == 25753026560
    assert s.power_w == pytest.approx(325.0)
    assert s.temps_c == {"edge": 61.0, "junction": 78.0, "mem": 70.0}
    assert s.clocks_mhz == {"sclk": 2500.0, "mclk": 1249.0}
    ids = sampler.ids()
    assert (ids.pci_id, ids.revision) == ("1002:744c", "c8")


def test_amd_sysfs_without_labels_or_address(tmp_path: Path) -> None:
    # older kernels: power1_input, no labels; the worker's torch gave no PCI address
    system = SnapshotSystem(amd_tree(tmp_path, power_file="power1_input", labels=False))
    sampler = open_sampler(system, {"backend": "hip", "pci_bus_id": None})
    assert isinstance(sampler, AmdSysfsSampler)
    s = sampler.sample(0.0)
    assert s.power_w == pytest.approx(325.0)
    assert s.temps_c == {"temp1": 61.0, "temp2": 78.0, "temp3": 70.0}
    assert s.clocks_mhz == {"freq1": 2500.0, "freq2": 1249.0, "sclk": 2526.0, "mclk": 1249.0}


def test_no_sampler_for_the_cpu_or_a_missing_card(tmp_path: Path) -> None:
    system = SnapshotSystem(tmp_path)
    assert open_sampler(system, {"backend": "cpu"}) is None
    assert open_sampler(system, {"backend": "hip", "pci_bus_id": BDF}) is None


class FakeNvml(SimpleNamespace):
    NVML_TEMPERATURE_GPU = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2

    def __init__(self, energy_mj: int | None) -> None:
        super().__init__()
        self.energy_mj = energy_mj

    def nvmlDeviceGetUtilizationRates(self, h: Any) -> Any:
        return SimpleNamespace(gpu=88, memory=40)

    def nvmlDeviceGetMemoryInfo(self, h: Any) -> Any:
        return SimpleNamespace(used=10 << 30, total=141 << 30, free=131 << 30)

    def nvmlDeviceGetPowerUsage(self, h: Any) -> int:
        return 612_345

    def nvmlDeviceGetTemperature(self, h: Any, which: int) -> int:
        return 55

    def nvmlDeviceGetClockInfo(self, h: Any, which: int) -> int:
        return 1980 if which == self.NVML_CLOCK_SM else 3201

    def nvmlDeviceGetTotalEnergyConsumption(self, h: Any) -> int:
        if self.energy_mj is None:
            raise RuntimeError("NVML_ERROR_NOT_SUPPORTED")
        return self.energy_mj

    def nvmlDeviceGetPciInfo(self, h: Any) -> Any:
        return SimpleNamespace(pciDeviceId=0x233510DE)

    def nvmlDeviceGetName(self, h: Any) -> str:
        return "NVIDIA H200"


def test_nvml_sample_and_ids() -> None:
    sampler = NvmlSampler(FakeNvml(energy_mj=5_000_000), handle=object())
    s = sampler.sample(2.0)
    assert s.busy_pct == 88.0 and s.power_w == pytest.approx(612.345)
    assert s.vram_used_bytes == 10 << 30 and s.vram_total_bytes == 141 << 30
    assert s.temps_c == {"gpu": 55.0} and s.clocks_mhz == {"sm": 1980.0, "mem": 3201.0}
    assert s.energy_j == pytest.approx(5000.0)
    assert sampler.ids().pci_id == "10de:2335" and sampler.ids().name == "NVIDIA H200"
    no_counter = NvmlSampler(FakeNvml(energy_mj=None), handle=object())
    assert no_counter.sample(0.0).energy_j is None


def test_energy_prefers_the_counter() -> None:
    samples = [TelemetrySample(t=t, power_w=100.0, energy_j=1000.0 + 300.0 * t)
               for t in (0.0, 1.0, 2.0, 3.0, 4.0)]
    joules, mean_w, method = energy(samples, 1.0, 3.0) or (0, 0, "")
    assert method == "energy-counter"
    assert joules == pytest.approx(600.0) and mean_w == pytest.approx(300.0)


def test_energy_from_power_samples() -> None:
    samples = [TelemetrySample(t=0.5 * i, power_w=200.0 + (i % 2) * 20) for i in range(10)]
    joules, mean_w, method = energy(samples, 1.0, 3.0) or (0, 0, "")
    assert method == "power-integral"
    assert mean_w == pytest.approx(sum(s.power_w or 0 for s in samples[2:7]) / 5)
    assert joules == pytest.approx(mean_w * 2.0)


def test_no_energy_without_power() -> None:
    assert energy([TelemetrySample(t=1.0)], 0.0, 2.0) is None
    assert energy([TelemetrySample(t=1.0, power_w=5.0)], 0.0, 2.0) is None  # one sample
    assert energy([], 2.0, 1.0) is None
