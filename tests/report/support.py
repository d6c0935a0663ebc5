"""Shared helpers for the report tests: the recorded reports, and a report seeded with a fake
person's names in every field a name could reach."""

from __future__ import annotations

import copy
from pathlib import Path

from core.report.model import Driver, ErrorInfo, Report, from_json

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "reports"
DATA = Path(__file__).resolve().parent / "data"
CPU = FIXTURES / "cpu-tiny-resnet50-train.json"
H200 = FIXTURES / "h200-resnet50-train-amp-bf16-cl-bs256.json"
GEMM = DATA / "cpu-tiny-gemm.json"
SD15 = DATA / "cpu-tiny-sd15-infer.json"
FAILED = DATA / "cpu-failed-missing-package.json"
ALL_REPORTS = [CPU, H200, GEMM, SD15, FAILED]


def load(path: Path) -> Report:
    return from_json(path.read_text(encoding="utf-8"))


# A fake person. None of these may survive into anything rocmate writes.
USER = "zebulonq"
HOST = "quasar-rig-7"
HOME = f"/home/{USER}"
SERIAL = "PHX4471QZ88"
UUID = "GPU-4f1c2a7e-9b3d-4e5f-8a6b-1c2d3e4f5a6b"
MAC = "3c:7c:3f:aa:bb:cc"
EMAIL = "zeb.quasar@example.org"
SECRETS = [USER, HOST, HOME, SERIAL, UUID[4:], MAC, EMAIL, "quasar"]


def seeded(base: Path = H200) -> Report:
    """A real report with the fake person's names planted in every kind of field."""
    report = copy.deepcopy(load(base))
    report.machine.platform.update(
        hostname=HOST, nodename=f"{HOST}.lan", kernel=f"6.8.0-45-generic #45-Ubuntu SMP {HOST}")
    if report.machine.gpus:
        report.machine.gpus[0].update(serial=SERIAL, uuid=UUID, unique_id="0x1f2e3d4c5b6a")
    report.software.env.update({
        "HOME": HOME, "USER": USER, "HOSTNAME": HOST, "LOGNAME": USER,
        "MIOPEN_USER_DB_PATH": f"{HOME}/.config/miopen",
        "HIP_VISIBLE_DEVICES": "0", "SSH_CONNECTION": "192.0.2.7 51234 192.0.2.8 22"})
    report.software.packages["torch-wheel"] = f"file://{HOME}/wheels/torch-2.4.1.whl"
    # a kernel built on the host and named after it (make LOCALVERSION=-<host>)
    report.software.driver = Driver(name="nvidia", version="580.159.03", source="nvidia",
                                    kernel=f"6.8.0-45-{HOST}")
    run = report.runs[0]
    run.settings["model"] = f"{HOME}/models/sd15.safetensors"
    run.settings["note"] = f"started by {USER}@{HOST}:~$ rocmate bench (mail {EMAIL})"
    assert run.result is not None
    run.result.details.update({
        "cache": f"{HOME}/.cache/rocmate", "board_serial": SERIAL, "mac": MAC,
        "smi": f"Serial Number: {SERIAL}\nGPU UUID: {UUID}\nMAC {MAC}",
        "wsl_home": f"/mnt/c/Users/{USER}/AppData", "windows": f"C:\\Users\\{USER}\\Desktop",
    })
    if run.reference is not None:
        run.reference.note = f"looked up on {HOST}"
    failed = copy.deepcopy(run)
    failed.status, failed.result, failed.energy, failed.reference = "error", None, None, None
    failed.error = ErrorInfo(
        kind="no-binary-for-gpu",
        message=f"hipErrorNoBinaryForGpu in {HOME}/venv/lib/python3.12/site-packages/torch",
        advice=f"{USER}, set HSA_OVERRIDE_GFX_VERSION on {HOST} and run again",
        detail=(f"{HOST}:1234:1234 [0] NCCL INFO Bootstrap\nTraceback:\n  File "
                f"\"{HOME}/src/train.py\", line 3\n/var/home/{USER}/x /Users/{USER}/y"),
        source="parent")
    report.runs.append(failed)
    return report
