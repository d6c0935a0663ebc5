"""amd-smi beside the driver, and rocminfo failing with no card to blame (issue 32, item 2).

Real outputs only:
- ROCm/amdsmi#172 (amd-smi 26.1.0 on Debian 13 with amdgpu built into the kernel: "driver not
  initialized (amdgpu not found in modules)"), recorded as
  tests/fixtures/machines/rx7900xtx-debian13-amdgpu-builtin-amdsmi-fails;
- gpustack/gpustack#4338 (amdsmi's AmdSmiLibraryException, error code 34,
  AMDSMI_STATUS_DRIVER_NOT_LOADED) and gpustack/gpustack#3389 (error code 43,
  AMDSMI_STATUS_UNEXPECTED_DATA), as their threads printed them (tests/fixtures/outputs/amd-smi/);
- ROCm/TheRock#7952 (a Radeon 840M, gfx1152, kernel 7.0.0-31: rocminfo fails with
  HSA_STATUS_ERROR while KFD lists the GPU and no other card is there), recorded as
  tests/fixtures/machines/k32-strix-point-840m-mint223-rocminfo-fails;
- every amd-smi output under tests/fixtures/outputs/amd-smi/ (amd-smi 24.x to 26.x: version,
  list, static, metric, default table, --json, cut short): the parser never raises on them,
  nor on any cut of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import i18n
from core.diagnose.doctor import run_doctor
from core.diagnose.finding import Finding
from core.probe.parse.smi import amd_smi_failure, parse_amd_smi
from core.system import SnapshotSystem

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
OUTPUTS = ROOT / "tests" / "fixtures" / "outputs" / "amd-smi"
BUILTIN = MACHINES / "rx7900xtx-debian13-amdgpu-builtin-amdsmi-fails"
RADEON_840M = MACHINES / "k32-strix-point-840m-mint223-rocminfo-fails"
RX580 = MACHINES / "rx7800xt-rx580-debian13-rocm72"

def body(path: Path) -> str:
    """A fixture's text without its 3-line header."""
    return path.read_text(encoding="utf-8").split("\n", 4)[4]


def doctor(root: Path) -> dict:
    return run_doctor(SnapshotSystem(root), probe_torch=False).to_json()


def finding(data: dict, fid: str) -> dict | None:
    return next((f for f in data["findings"] if f["id"] == fid), None)


# -- the parser -------------------------------------------------------------------------------


def test_the_builtin_amdgpu_output_is_a_driver_failure() -> None:
    report = parse_amd_smi(body(OUTPUTS / "error-driver-not-initialized-amdgpu-builtin-26.1.txt"))
    assert report.gpus == () and report.tool_version == "26.1.0+b5522cc8"
    failure = amd_smi_failure(report)
    assert failure is not None and failure.kind == "driver"
    assert "amdgpu not found in modules" in failure.line


def test_the_librarys_status_codes_are_named() -> None:
    missing = amd_smi_failure(parse_amd_smi(body(OUTPUTS / "error-library-driver-not-loaded-"
                                                 "code34-gpustack.txt")))
    assert missing is not None and missing.kind == "driver"
    assert missing.status == "AMDSMI_STATUS_DRIVER_NOT_LOADED"
    other = amd_smi_failure(parse_amd_smi(body(OUTPUTS / "error-library-unexpected-data-"
                                               "code43-gpustack.txt")))
    assert other is not None and other.kind == "status"
    assert other.status == "AMDSMI_STATUS_UNEXPECTED_DATA"


@pytest.mark.parametrize("path", sorted(OUTPUTS.glob("*.txt")), ids=lambda p: p.stem)
def test_real_outputs_and_their_cuts_never_raise(path: Path) -> None:
    text = body(path)
    report = parse_amd_smi(text)
    if "error-" not in path.name and report.gpus:
        assert amd_smi_failure(report) is None  # a working amd-smi is no failure
    for cut in range(0, len(text), max(1, len(text) // 40)):
        amd_smi_failure(parse_amd_smi(text[:cut]))
        amd_smi_failure(parse_amd_smi(json.dumps(text[:cut])))


def test_nothing_to_say_without_an_answer() -> None:
    assert amd_smi_failure(None) is None


# -- amd-smi beside the driver ----------------------------------------------------------------


def test_amd_smi_missing_a_builtin_amdgpu_is_named_and_not_blamed_on_rocm() -> None:
    data = doctor(BUILTIN)
    found = finding(data, "amd-smi-disagrees")
    assert found is not None and found["severity"] == "warning"
    assert "Radeon RX 7900 XTX (0000:2f:00.0)" in found["title"]
    assert "/sys/module/amdgpu/initstate" in found["detail"] and "#172" in found["detail"]
    assert "does not stop them" in found["detail"]
    assert "PR #2689" in found["fix"]
    assert data["rocm"]["smi"]["tool"] == "amd-smi" and data["rocm"]["smi"]["gpus"] == []
    assert finding(data, "driver-not-started") is None  # the driver did start the card


@pytest.mark.parametrize("name", ["strix-point-890m-ubuntu2404",
                                  "r9700-x2-aspeed-ubuntu2404-rocm720",
                                  "rx9070xt-x2-ubuntu2404-rocm711", "mi325x-vf-x8-ubuntu2404"])
def test_a_working_amd_smi_raises_nothing(name: str) -> None:
    assert finding(doctor(MACHINES / name), "amd-smi-disagrees") is None


def in_chinese(root: Path, fid: str) -> Finding:
    i18n.set_language("zh_CN")
    try:
        report = run_doctor(SnapshotSystem(root), probe_torch=False)
    finally:
        i18n.set_language(None)
    (found,) = [f for f in report.findings if f.id == fid]
    return found


def test_the_amd_smi_finding_reads_in_chinese() -> None:
    found = in_chinese(BUILTIN, "amd-smi-disagrees")
    assert "amd-smi 看不到" in found.title and "ROCm/amdsmi#170" in found.detail


# -- rocminfo failing with no card to blame ---------------------------------------------------


def test_rocminfo_failing_on_a_supported_apu_names_the_driver_not_the_card() -> None:
    data = doctor(RADEON_840M)
    found = finding(data, "runtime-fails")
    assert found is not None and found["severity"] == "error"
    assert "Radeon 840M Graphics (gfx1152)" in found["title"]
    assert "HSA_STATUS_ERROR" in found["detail"] and "ROCm/TheRock#7952" in found["detail"]
    assert "the amdgpu of kernel 7.0.0-31-generic" in found["detail"]
    assert "#5433" in found["detail"] and "No fix is confirmed" in found["fix"]
    assert finding(data, "gpu-breaks-runtime") is None
    assert data["rocm"]["rocminfo"]["ok"] is False and data["rocm"]["rocminfo"]["gpu_agents"] == []


def test_an_unsupported_card_beside_keeps_its_own_finding() -> None:
    data = doctor(RX580)
    assert finding(data, "gpu-breaks-runtime") is not None
    assert finding(data, "runtime-fails") is None


def test_the_runtime_finding_reads_in_chinese() -> None:
    found = in_chinese(RADEON_840M, "runtime-fails")
    assert "ROCm 运行时无法" in found.title and "ROCm/TheRock#7952" in found.fix
