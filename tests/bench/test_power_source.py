"""What the telemetry read its power from (issue 36): the hwmon file amdgpu gave, NVML's
reading and counter; the run file keeps it as a ``telemetry-source`` line, and a run rebuilt
from its run file (core.bench.recover) gets it back. The amdgpu tree is test_telemetry's
recorded layout; NVML is its fake (no NVIDIA library here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.bench import runner as runner_mod
from core.bench.recover import _take
from core.bench.run_report import suite_run
from core.bench.runner import RunOutcome
from core.bench.telemetry import AmdSysfsSampler, NvmlSampler
from core.bench.worker.options import BenchOptions
from core.system import SnapshotSystem
from tests.bench.helpers import run_worker, tiny
from tests.bench.test_telemetry import BDF, FakeNvml, amd_tree


def test_amdgpu_names_the_hwmon_file_it_read(tmp_path: Path) -> None:
    sampler = AmdSysfsSampler.find(SnapshotSystem(amd_tree(tmp_path)), BDF)
    assert sampler is not None
    assert sampler.power_reading() == (None, None)  # nothing read yet
    sampler.sample(0.0)
    assert sampler.power_reading() == ("hwmon power1_average", None)


def test_older_kernels_power1_input(tmp_path: Path) -> None:
    tree = amd_tree(tmp_path, power_file="power1_input", labels=False)
    sampler = AmdSysfsSampler.find(SnapshotSystem(tree), BDF)
    assert sampler is not None
    sampler.sample(0.0)
    assert sampler.power_reading() == ("hwmon power1_input", None)


def test_nvml_names_its_counter_only_where_the_card_has_one() -> None:
    with_counter = NvmlSampler(FakeNvml(energy_mj=5_000_000), handle=object())
    with_counter.sample(0.0)
    assert with_counter.power_reading() == ("nvmlDeviceGetPowerUsage",
                                            "nvmlDeviceGetTotalEnergyConsumption")
    without = NvmlSampler(FakeNvml(energy_mj=None), handle=object())
    without.sample(0.0)
    assert without.power_reading() == ("nvmlDeviceGetPowerUsage", None)


def test_a_recovered_run_gets_its_power_source_back() -> None:
    out = RunOutcome(suite="sd15-infer", python="python3",
                     options=BenchOptions(suite="sd15-infer"), started="2026-12-04T00:00:00Z")
    _take({"event": "telemetry-source", "rx_t": 1.0, "sampler": "amdgpu-sysfs",
           "power": "hwmon power1_average", "energy": None}, out)
    _take({"event": "telemetry-source", "rx_t": 2.0, "sampler": "nvml"}, out)  # first one kept
    assert out.power_source == {"sampler": "amdgpu-sysfs", "power": "hwmon power1_average",
                                "energy": None}


def test_the_runner_records_the_source_with_the_first_power_sample(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real CPU worker, sampled through the recorded amdgpu tree (this machine has no
    Radeon card): the run file says once what the power came from, and the report keeps it."""
    sampler = AmdSysfsSampler.find(SnapshotSystem(amd_tree(tmp_path / "tree")), BDF)
    monkeypatch.setattr(runner_mod, "open_sampler", lambda *_a: sampler)
    out, events = run_worker(tiny("gemm", steps=30), tmp_path, telemetry_interval_s=0.01)
    assert out.status == "ok"
    sources = [e for e in events if e["event"] == "telemetry-source"]
    assert len(sources) == 1
    assert {k: sources[0][k] for k in ("sampler", "power", "energy")} == {
        "sampler": "amdgpu-sysfs", "power": "hwmon power1_average", "energy": None}
    first = next(e for e in events if e["event"] == "telemetry")
    assert sources[0]["rx_t"] == first["rx_t"]
    run = suite_run(out)
    assert run.power_source is not None and run.power_source.power == "hwmon power1_average"
    assert run.efficiency == []  # the worker measured the CPU: no figure per watt
