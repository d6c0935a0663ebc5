"""Issue 32, item 2: the runtime's own answer (PCI, bound driver, KFD nodes, rocminfo, the kernel
log) beats the tables.

Machines (tests/fixtures/machines/<name>/SOURCE.md names their sources):
- mi210-x2-probe-failed-error12: ROCm/legacy-rocm-build#6281, two MI210s that amdgpu failed to
  probe (error -12): no driver bound, KFD only the CPU node;
- rx7800xt-rx580-debian13-rocm72: ROCm/legacy-rocm-build#5942, an RX 580 beside an RX 7800 XT
  makes rocminfo fail with HSA_STATUS_ERROR.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from core.diagnose.doctor import run_doctor
from core.probe.driver import KERNEL_LOG_COMMANDS
from core.probe.parse.kernel_log import (
    MAX_LINES,
    MAX_WIDTH,
    failed_probes,
    kernel_log_excerpt,
    kernel_log_record,
    log_refused,
)
from core.snapshot import RecordingSystem
from core.system import DEFAULT_TIMEOUT, CommandResult, LiveSystem, SnapshotSystem

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests/fixtures/machines"
MI210 = MACHINES / "mi210-x2-probe-failed-error12"
RX580 = MACHINES / "rx7800xt-rx580-debian13-rocm72"
MI210_LOG = ROOT / "tests/fixtures/outputs/errors/dmesg-amdgpu-probe-failed-error12-2x-mi210.txt"


def _doctor(root: Path) -> dict[str, Any]:
    answer: dict[str, Any] = run_doctor(SnapshotSystem(root), probe_torch=False).to_json()
    return answer


def _finding(answer: dict[str, Any], fid: str) -> dict[str, Any] | None:
    return next((f for f in answer["findings"] if f["id"] == fid), None)


def _copy(machine: Path, tmp_path: Path) -> Path:
    out = tmp_path / machine.name
    shutil.copytree(machine, out, symlinks=True)
    return out


# -- (a) the driver did not start --------------------------------------------------------------


def test_probe_failed_gpus_are_not_counted_as_working() -> None:
    answer = _doctor(MI210)
    found = _finding(answer, "driver-not-started")
    assert found is not None and found["severity"] == "error"
    assert "0000:83:00.0" in found["detail"] and "0000:c3:00.0" in found["detail"]
    assert "error -12" in found["detail"]
    assert "Fatal error during GPU init" in found["detail"]  # the user reads the log's words
    assert "Above 4G Decoding" in found["fix"]
    # a GPU the driver did not start is offered for no data-parallel run
    assert _finding(answer, "gpus-several") is None
    assert answer["verdict"] != "Ready"


def test_the_kernel_log_excerpt_is_in_the_json() -> None:
    driver = _doctor(MI210)["driver"]
    log = driver["kernel_log"]
    assert log["source"] == "dmesg" and not log["refused"]
    assert any("probe of 0000:c3:00.0 failed with error -12" in line for line in log["lines"])


def test_a_dkms_not_built_for_the_running_kernel_is_the_cause(tmp_path: Path) -> None:
    """No kernel log, the amdgpu-dkms tree present, the running kernel's own amdgpu loaded."""
    root = _copy(MI210, tmp_path)
    (root / "commands/dmesg.txt").unlink()
    (root / "files/sys/module/amdgpu/version").unlink()
    (root / "files/lib/modules/5.15.0-119-generic/modules.dep").write_text(
        "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko: kernel/drivers/gpu/drm/ttm/ttm.ko\n")
    found = _finding(_doctor(root), "driver-not-started")
    assert found is not None
    assert "amdgpu-dkms 6.16.13-2278356.22.04 is installed" in found["detail"]
    assert "dkms autoinstall" in found["fix"]


def test_a_refused_kernel_log_says_how_to_read_it(tmp_path: Path) -> None:
    root = _copy(MI210, tmp_path)
    (root / "commands/dmesg.txt").write_text(
        "dmesg: read kernel buffer failed: Operation not permitted\n")
    (root / "commands/dmesg.rc").write_text("1\n")
    answer = _doctor(root)
    found = _finding(answer, "driver-not-started")
    assert found is not None
    assert "may not read the kernel log" in found["detail"]
    assert "sudo dmesg" in found["fix"]
    assert answer["driver"]["kernel_log"] == {"source": None, "lines": [], "refused": True}


def test_a_card_left_for_a_vm_is_not_a_failed_driver(tmp_path: Path) -> None:
    root = _copy(MI210, tmp_path)
    for slot in ("0000:83:00.0", "0000:c3:00.0"):
        device = next((root / "files/sys/devices").rglob(slot))
        (device / "driver").symlink_to("../../../bus/pci/drivers/vfio-pci")
    assert _finding(_doctor(root), "driver-not-started") is None


def test_working_machines_read_no_kernel_log() -> None:
    for name in ("rx7900xtx-ubuntu2404-ready", "dkms-build-failed-rx7800xt",
                 "mi210-x4-ubuntu2204"):
        answer = _doctor(MACHINES / name)
        assert "kernel_log" not in answer["driver"], name
        assert _finding(answer, "driver-not-started") is None, name


# -- (b) a card that breaks the runtime ----------------------------------------------------------


def test_an_unsupported_card_that_breaks_rocminfo_is_named_with_the_fix() -> None:
    answer = _doctor(RX580)
    found = _finding(answer, "gpu-breaks-runtime")
    assert found is not None and found["severity"] == "error"
    assert "RX 580" in found["title"] and "gfx803" in found["title"]
    assert "HSA_STATUS_ERROR" in found["detail"]
    # KFD order: node 1 = RX 580 (ROCm index 0), node 2 = RX 7800 XT (index 1)
    assert "export ROCR_VISIBLE_DEVICES=1" in found["fix"]
    # no longer "will not be used, nothing to do"
    assert _finding(answer, "gpu-not-usable") is None


def test_the_value_follows_kfd_order(tmp_path: Path) -> None:
    """Swap the nodes: the RX 7800 XT first (index 0) keeps ROCR_VISIBLE_DEVICES=0."""
    root = _copy(RX580, tmp_path)
    nodes = root / "files/sys/devices/virtual/kfd/kfd/topology/nodes"
    (nodes / "1").rename(nodes / "x")
    (nodes / "2").rename(nodes / "1")
    (nodes / "x").rename(nodes / "2")
    found = _finding(_doctor(root), "gpu-breaks-runtime")
    assert found is not None
    assert "export ROCR_VISIBLE_DEVICES=0" in found["fix"]


def test_no_finding_when_rocminfo_works(tmp_path: Path) -> None:
    root = _copy(RX580, tmp_path)
    mi210 = MACHINES / "mi210-x4-ubuntu2204/commands/rocminfo.txt"
    shutil.copy(mi210, root / "commands/rocminfo.txt")
    (root / "commands/rocminfo.rc").unlink()
    answer = _doctor(root)
    assert _finding(answer, "gpu-breaks-runtime") is None
    assert _finding(answer, "gpu-not-usable") is not None


def test_a_single_unsupported_card_is_not_called_a_breaker() -> None:
    """rx580-polaris-ubuntu2004 has no other card: the support finding speaks, not this one."""
    answer = _doctor(MACHINES / "rx580-polaris-ubuntu2004")
    assert _finding(answer, "gpu-breaks-runtime") is None


# -- the kernel log parser and what a snapshot keeps ---------------------------------------------


def _real_log() -> str:
    """The real dmesg lines of legacy-rocm-build#6281 amid lines that are not amdgpu's."""
    body = MI210_LOG.read_text(encoding="utf-8").split("\n\n", 1)[1].split("\n\n", 1)[0]
    noise = ("[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=UUID=1234 ro quiet\n"
             "[    3.100000] usb 1-4: Product: Secret Keyboard, SerialNumber: ABC123\n"
             "[   12.000000] wlp5s0: associated with 12:34:56:78:9a:bc\n")
    return noise + body + "\n" + noise


def test_excerpt_keeps_only_amdgpu_lines_bounded() -> None:
    lines = kernel_log_excerpt(_real_log())
    assert len(lines) == 12 and all("amdgpu" in line for line in lines)
    assert failed_probes(lines) == {"0000:c3:00.0": "-12", "0000:83:00.0": "-12"}
    many = "\n".join(f"[{i}] amdgpu: " + "x" * 500 for i in range(500))
    cut = kernel_log_excerpt(many)
    assert len(cut) == MAX_LINES and all(len(line) <= MAX_WIDTH for line in cut)
    assert cut[-1].startswith("[499]")  # the last lines, where the latest boot is
    assert kernel_log_excerpt(None) == []  # type: ignore[arg-type]
    assert log_refused("dmesg: read kernel buffer failed: Operation not permitted\n")
    assert not log_refused(_real_log())


class _MachineWithLog(LiveSystem):
    """Stands in for an AMD machine's kernel log (we have no MI210 here): answers dmesg with
    the real lines of legacy-rocm-build#6281 amid others; everything else is this machine's."""

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            extra_env: Mapping[str, str | None] | None = None) -> CommandResult:
        if tuple(argv) in KERNEL_LOG_COMMANDS:
            return CommandResult(tuple(argv), output=_real_log(), returncode=0)
        return super().run(argv, timeout, extra_env)


def test_a_snapshot_keeps_only_the_excerpt(tmp_path: Path) -> None:
    recorder = RecordingSystem(tmp_path, live=_MachineWithLog())
    result = recorder.run(["dmesg"])
    assert "Secret Keyboard" in result.output  # the probe itself cuts it (kernel_log_excerpt)
    kept = (tmp_path / "commands/dmesg.txt").read_text(encoding="utf-8")
    assert kept == kernel_log_record(_real_log())
    for private in ("Secret Keyboard", "root=UUID", "12:34:56:78:9a:bc"):
        assert private not in kept
    assert "probe of 0000:83:00.0 failed with error -12" in kept


def test_doctor_json_stays_additive() -> None:
    answer = _doctor(RX580)
    json.dumps(answer)
    for key in ("platform", "gpus", "rocm", "findings", "driver", "verdict"):
        assert key in answer
    assert "kernel_log" not in answer["driver"]  # both cards have amdgpu and a KFD node


def test_the_plan_hides_the_card_that_breaks_the_runtime() -> None:
    """The set-up writes the finding's ROCR_VISIBLE_DEVICES into the managed environment (the RX
    580 beside the RX 7800 XT of ROCm/legacy-rocm-build#5942: the RX 7800 XT is ROCm's 1); a
    machine whose cards all start gets no such variable."""
    from core.operations.setup import plan_setup

    assert plan_setup(str(RX580)).env.get("ROCR_VISIBLE_DEVICES") == "1"
    assert "ROCR_VISIBLE_DEVICES" not in plan_setup(
        str(MACHINES / "rx9070xt-x2-ubuntu2404-rocm711")).env


def test_a_gpu_the_driver_did_not_start_is_not_called_official() -> None:
    """The GPU line and the JSON say the driver did not start the MI210s
    (ROCm/legacy-rocm-build#6281), not plain "official" (the issue: "the doctor counts the GPUs
    as official"); a GPU that started has no such key."""
    from core.diagnose.doctor_text import render_text
    from core.termstyle import Style

    report = run_doctor(SnapshotSystem(MI210))
    assert report.not_started == (0, 1)
    data = report.to_json()
    assert [g.get("driver_started") for g in data["gpus"]] == [False, False]
    text = render_text(report, Style(False))
    assert "the driver did not start it (official once it does)" in text
    fine = run_doctor(SnapshotSystem(MACHINES / "mi210-x4-ubuntu2204"))
    assert fine.not_started == () and all("driver_started" not in g
                                          for g in fine.to_json()["gpus"])
