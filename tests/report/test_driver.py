"""The GPU kernel driver in a report (``software.driver``): where it is read, how it reads in
every writer and in a comparison, and that reports written before it existed still load, render
and write back unchanged.

The AMD cases replay machines of tests/fixtures/machines (their SOURCE.md says where each file
came from): ``mi210-x4-ubuntu2204`` runs amdgpu-dkms 6.10.5 (``/sys/module/amdgpu/version``),
``dkms-build-failed-rx7800xt`` the in-tree amdgpu of its 6.8 kernel (no version file),
``nvidia-only-desktop`` NVIDIA's 550.120 module. The NVIDIA files of the other cases are built in
``tmp_path`` in the driver's own format: ``/sys/module/nvidia/version`` holds the bare version,
``/proc/driver/nvidia/version`` an ``NVRM version:`` line and a ``GCC version:`` line (dates,
builder and compiler typical of those lines, not recorded from one machine).
"""

from __future__ import annotations

import copy
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from core.bench.run_report import build_report, gpu_driver, machine
from core.bench.runner import RunOutcome
from core.bench.worker.options import BenchOptions
from core.probe.driver import nvidia_version, version_text
from core.report import formatting as fmt
from core.report.compare import compare
from core.report.model import Driver, Machine, Report, ReportError, from_json, to_dict, to_json
from core.report.privacy import Identity, scrub_report
from core.report.text import comparison_text, report_text
from core.report.writers import render
from core.system import SnapshotSystem
from tests.report.support import ALL_REPORTS, H200, load

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
NVRM = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Wed Oct  1 09:17:21 UTC "
        "2025\nGCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n")
NVRM_OPEN = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build  "
             "(dvs-builder@U16-I1-N07-12-3)  Fri Mar 14 13:12:07 UTC 2025\nGCC version:  gcc "
             "version 12.2.0 (Debian 12.2.0-14)\n")
DKMS = Driver(name="amdgpu", version="6.10.5", source="dkms", kernel="5.15.0-119-generic")
IN_TREE = Driver(name="amdgpu", version=None, source="in-tree", kernel="6.8.0-52-generic")
NVIDIA = Driver(name="nvidia", version="580.159.03", source="nvidia", kernel="6.8.0-90-generic")


def _with_driver(driver: Driver | None, base: Path = H200) -> Report:
    report = copy.deepcopy(load(base))
    report.software.driver = driver
    return report


def _tree(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    """A snapshot folder holding ``files`` (machine path -> text) and ``links``."""
    for path, text in files.items():
        host = root / "files" / path.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_text(text)
    for path, target in (links or {}).items():
        host = root / "files" / path.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, host)
    return root


# --- reports without the field --------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_REPORTS, ids=lambda p: p.name)
def test_a_report_written_before_the_driver_field_loads_renders_and_writes_back(
        path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "driver" not in json.loads(text)["software"]  # the old form
    report = from_json(text)
    assert report.software.driver is None
    assert render(report, "json") == text
    html, md = render(report, "html"), render(report, "md")
    assert "GPU driver" not in html and "GPU driver" not in md
    assert "driver" not in {d.key for d in compare(report, report).software}


def test_an_old_form_report_made_from_a_new_one_still_loads() -> None:
    data = to_dict(_with_driver(NVIDIA))
    assert data["software"]["driver"]["version"] == "580.159.03"
    del data["software"]["driver"]
    assert from_json(json.dumps(data)).software.driver is None
    data["software"]["driver"] = None  # null reads as absent too
    assert from_json(json.dumps(data)).software.driver is None


# --- the field itself -----------------------------------------------------------------------------


@pytest.mark.parametrize("driver", [DKMS, IN_TREE, NVIDIA], ids=["dkms", "in-tree", "nvidia"])
def test_the_driver_round_trips(driver: Driver) -> None:
    report = _with_driver(driver)
    text = to_json(report)
    assert json.loads(text)["software"]["driver"] == {
        "name": driver.name, "version": driver.version, "source": driver.source,
        "kernel": driver.kernel}
    again = from_json(text)
    assert again == report and to_json(again) == text
    assert json.loads(text)["schema"] == "rocmate.report/1"


def test_a_malformed_driver_is_refused_where_it_is() -> None:
    data = to_dict(_with_driver(NVIDIA))
    data["software"]["driver"] = {"version": "580.159.03"}
    with pytest.raises(ReportError, match=r"report\.software\.driver\.name: missing"):
        from_json(json.dumps(data))
    data["software"]["driver"] = {"name": "nvidia", "version": 580}
    with pytest.raises(ReportError, match=r"report\.software\.driver\.version: expected a string"):
        from_json(json.dumps(data))


@pytest.mark.parametrize(("driver", "text"), [
    (DKMS, "amdgpu 6.10.5 (DKMS)"),
    (IN_TREE, "amdgpu in-tree (kernel 6.8.0-52-generic)"),
    (NVIDIA, "nvidia 580.159.03"),
    (Driver(name="nvidia", source="nvidia"), "nvidia (version unknown)"),
    (Driver(name="amdgpu", source="in-tree"), "amdgpu in-tree"),
    (None, None),
])
def test_driver_text(driver: Driver | None, text: str | None) -> None:
    assert fmt.driver_text(driver) == text


# --- where it comes from ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "hello", "expected"), [
    ("mi210-x4-ubuntu2204", {"backend": "hip", "pci_bus_id": "0000:C3:00.0"}, DKMS),
    ("mi210-x4-ubuntu2204", None, DKMS),
    ("dkms-build-failed-rx7800xt", {"backend": "hip", "pci_bus_id": "0000:03:00.0"}, IN_TREE),
    ("nvidia-only-desktop", {"backend": "cuda", "pci_bus_id": "0000:01:00.0"},
     Driver(name="nvidia", version="550.120", source="nvidia", kernel="6.8.0-90-generic")),
    ("nvidia-only-desktop", {"backend": "cpu"},
     Driver(name="nvidia", version="550.120", source="nvidia", kernel="6.8.0-90-generic")),
    # WSL 2: the driver is Windows', no amdgpu module in the Linux kernel
    ("wsl2-ubuntu2204-rx7900xtx-ready", {"backend": "hip"}, None),
    # a Hainan card on the old radeon driver: no amdgpu, no ROCm driver to name
    ("hainan-radeon-laptop-arch", None, None),
    ("no-gpu-aspeed-server", {"backend": "cpu"}, None),
])
def test_the_driver_of_replayed_machines(name: str, hello: dict[str, Any] | None,
                                         expected: Driver | None) -> None:
    system = SnapshotSystem(MACHINES / name)
    assert gpu_driver(system, hello, machine(system)) == expected


def test_build_report_records_the_run_devices_driver() -> None:
    system = SnapshotSystem(MACHINES / "mi210-x4-ubuntu2204")
    hello = {"event": "hello", "backend": "hip", "pci_bus_id": "0000:e3:00.0",
             "device_name": "AMD Instinct MI210", "torch": "2.5.1+rocm6.2", "hip": "6.2.41133"}
    out = RunOutcome(suite="gemm", python="python3", options=BenchOptions("gemm"),
                     started="2026-01-01T00:00:00+00:00", hello=hello,
                     error={"kind": "other", "message": "stopped", "advice": "run it again"})
    report = from_json(to_json(build_report([out], system)))
    assert report.software.driver == DKMS
    assert report.machine.platform["kernel"] == DKMS.kernel


@pytest.mark.parametrize(("files", "version"), [
    ({"/sys/module/nvidia/version": "580.159.03\n"}, "580.159.03"),
    ({"/proc/driver/nvidia/version": NVRM}, "580.159.03"),
    ({"/proc/driver/nvidia/version": NVRM_OPEN}, "570.133.07"),
    ({"/sys/module/nvidia/version": "580.159.03\n", "/proc/driver/nvidia/version": NVRM_OPEN},
     "580.159.03"),
    ({"/sys/module/nvidia/version": "not a version at all\n",
      "/proc/driver/nvidia/version": NVRM}, "580.159.03"),
    ({"/proc/driver/nvidia/version": "GCC version: gcc 13\n"}, None),
], ids=["sysfs", "proc", "proc-open-modules", "sysfs-first", "bad-sysfs", "no-nvrm-line"])
def test_the_nvidia_version_is_read_from_files(tmp_path: Path, files: dict[str, str],
                                               version: str | None) -> None:
    system = SnapshotSystem(_tree(tmp_path, files))
    assert nvidia_version(system) == version
    facts = Machine(platform={"kernel": "6.8.0-90-generic"}, gpus=[{"vendor": "nvidia"}])
    assert gpu_driver(system, {"backend": "cuda"}, facts) == Driver(
        name="nvidia", version=version, source="nvidia", kernel="6.8.0-90-generic")


def _two_vendors(tmp_path: Path) -> SnapshotSystem:
    """amdgpu-dkms 6.10.5 at 0000:03:00.0 and NVIDIA 580.159.03 at 0000:01:00.0."""
    dev = "devices/pci0000:00/0000:00:01.1"
    return SnapshotSystem(_tree(tmp_path, {
        "/sys/module/amdgpu/version": "6.10.5\n",
        "/sys/module/nvidia/version": "580.159.03\n",
        "/proc/driver/nvidia/version": NVRM,
        "/sys/bus/pci/drivers/amdgpu/bind": "", "/sys/bus/pci/drivers/nvidia/bind": "",
        f"/sys/{dev}/0000:01:00.0/vendor": "0x10de\n",
        f"/sys/{dev}/0000:03:00.0/vendor": "0x1002\n",
    }, {
        f"/sys/{dev}/0000:01:00.0/driver": "../../../../bus/pci/drivers/nvidia",
        f"/sys/{dev}/0000:03:00.0/driver": "../../../../bus/pci/drivers/amdgpu",
        "/sys/bus/pci/devices/0000:01:00.0": f"../../../{dev}/0000:01:00.0",
        "/sys/bus/pci/devices/0000:03:00.0": f"../../../{dev}/0000:03:00.0",
    }))


@pytest.mark.parametrize(("hello", "name"), [
    ({"backend": "cuda", "pci_bus_id": "0000:01:00.0"}, "nvidia"),
    ({"pci_bus_id": "0000:01:00.0"}, "nvidia"),  # the bound driver alone tells
    ({"backend": "hip", "pci_bus_id": "0000:03:00.0"}, "amdgpu"),
    ({"backend": "cuda"}, "nvidia"),
    ({"backend": "hip", "pci_bus_id": "0000:09:00.0"}, "amdgpu"),  # unknown slot: the backend
    ({"backend": "cpu"}, "amdgpu"),  # no GPU used: the first GPU's
    (None, "amdgpu"),
])
def test_the_run_devices_driver_is_chosen(tmp_path: Path, hello: dict[str, Any] | None,
                                          name: str) -> None:
    facts = Machine(platform={"kernel": "6.8.0-45-generic"},
                    gpus=[{"vendor": "amd"}, {"vendor": "nvidia"}])
    got = gpu_driver(_two_vendors(tmp_path), hello, facts)
    assert got is not None and got.name == name
    assert got.version == {"nvidia": "580.159.03", "amdgpu": "6.10.5"}[name]
    assert got.kernel == "6.8.0-45-generic"


class _Broken:
    """A machine on which every read fails."""

    def __getattr__(self, name: str) -> Any:
        def fail(*args: Any, **kwargs: Any) -> Any:
            raise OSError(f"{name} failed")
        return fail


def test_a_failure_leaves_the_driver_out_and_the_report_is_built(
        caplog: pytest.LogCaptureFixture) -> None:
    facts = Machine(gpus=[{"vendor": "amd"}])
    with caplog.at_level(logging.WARNING, logger="core.bench.run_report"):
        assert gpu_driver(_Broken(), {"backend": "hip"}, facts) is None
        report = build_report([], _Broken(), machine_facts=facts)
    assert report.software.driver is None
    assert "GPU driver facts unavailable" in caplog.text
    assert "driver" not in json.loads(to_json(report))["software"]


def test_only_a_plain_version_string_is_kept() -> None:
    assert version_text("6.10.5\n") == "6.10.5"
    assert version_text("580.159.03") == "580.159.03"
    assert version_text("6.16.6-2238411.24.04") == "6.16.6-2238411.24.04"
    assert version_text("built by alice@rig on /home/alice") is None
    assert version_text("") is None


# --- how it reads -------------------------------------------------------------------------------


@pytest.mark.parametrize(("driver", "text"), [
    (DKMS, "amdgpu 6.10.5 (DKMS)"),
    (IN_TREE, "amdgpu in-tree (kernel 6.8.0-52-generic)"),
    (NVIDIA, "nvidia 580.159.03"),
], ids=["dkms", "in-tree", "nvidia"])
def test_html_markdown_and_text_show_the_driver(driver: Driver, text: str) -> None:
    report = _with_driver(driver)
    html = render(report, "html")
    assert f"<dt>GPU driver</dt><dd>{text}</dd>" in html
    md = render(report, "md")
    footer = md.split("\n\n")[2]  # heading, summary table, then the one line of software
    assert f"GPU driver {text}" in footer
    assert f"| GPU driver | {text} |" in md  # the details' machine and software table
    assert f"GPU driver {text}" in report_text(report)


def test_a_comparison_shows_a_different_driver() -> None:
    a, b = _with_driver(DKMS), _with_driver(IN_TREE)
    c = compare(a, b, "dkms", "in-tree")
    assert ("driver", "amdgpu 6.10.5 (DKMS)", "amdgpu in-tree (kernel 6.8.0-52-generic)") in [
        (d.key, d.a, d.b) for d in c.software]
    assert "driver: amdgpu 6.10.5 (DKMS) -> amdgpu in-tree (kernel 6.8.0-52-generic)" in \
        comparison_text(c)
    html = render(b, "html", baseline=a)
    assert ("<tr><td>driver</td><td>amdgpu 6.10.5 (DKMS)</td>"
            "<td>amdgpu in-tree (kernel 6.8.0-52-generic)</td></tr>") in html
    md = render(b, "md", baseline=a)
    assert "| driver | amdgpu 6.10.5 (DKMS) | amdgpu in-tree (kernel 6.8.0-52-generic) |" in md
    # an old report against a new one: the driver is unknown on one side
    old = compare(load(H200), _with_driver(NVIDIA))
    assert ("driver", "-", "nvidia 580.159.03") in [(d.key, d.a, d.b) for d in old.software]
    assert "driver" not in {d.key for d in compare(a, copy.deepcopy(a)).software}


def test_scrubbing_keeps_a_clean_driver_and_hides_a_name_in_it() -> None:
    for driver in (DKMS, IN_TREE, NVIDIA):
        report = _with_driver(driver)
        assert scrub_report(report) == report
        assert scrub_report(report, Identity.current()) == report
    named = _with_driver(Driver(name="amdgpu", source="in-tree", kernel="6.9.1-zebulonq"))
    scrubbed = scrub_report(named, Identity(users=frozenset({"zebulonq"})))
    assert scrubbed.software.driver is not None
    assert scrubbed.software.driver.kernel == "6.9.1-<user>"
