"""Replays every recorded machine and checks the doctor's answer against its expected.toml.

The expectations were written from the sources (tests/fixtures/machines/*/SOURCE.md), not from
rocmate's output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from core.diagnose.doctor import run_doctor
from core.system import SnapshotSystem
from tests.conftest import machine_dirs

MACHINES = machine_dirs()


def _expected(machine: Path) -> dict[str, Any]:
    with open(machine / "expected.toml", "rb") as handle:
        return tomllib.load(handle)


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, Any]]:
    return {m.name: run_doctor(SnapshotSystem(m)).to_json() for m in MACHINES}


def test_enough_machines() -> None:
    assert len(MACHINES) >= 25


def test_every_required_finding_is_raised_by_some_machine(
    answers: dict[str, dict[str, Any]],
) -> None:
    from core.diagnose.finding import REQUIRED_IDS

    raised = {f["id"] for answer in answers.values() for f in answer["findings"]}
    assert set(REQUIRED_IDS) <= raised, set(REQUIRED_IDS) - raised


@pytest.mark.parametrize("machine", MACHINES, ids=lambda p: p.name)
def test_platform(machine: Path, answers: dict[str, dict[str, Any]]) -> None:
    expected = _expected(machine).get("platform", {})
    platform = answers[machine.name]["platform"]
    if "distro_id" in expected:
        assert platform["distro_id"] == expected["distro_id"]
    if "ubuntu_codename" in expected:
        assert platform["ubuntu_codename"] == expected["ubuntu_codename"]
    if "wsl" in expected:
        assert (platform["wsl"] or 0) == expected["wsl"]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda p: p.name)
def test_gpus(machine: Path, answers: dict[str, dict[str, Any]]) -> None:
    expected = _expected(machine).get("gpus", {})
    answer = answers[machine.name]
    amd = [g for g in answer["gpus"] if g["vendor"] == "amd"]
    if "amd_gfx" in expected:
        assert [g["gfx"] or "" for g in amd] == expected["amd_gfx"]
    if expected.get("statuses"):
        assert [g["support"]["status"] for g in amd] == expected["statuses"]
    if "vendors" in expected:
        assert [g["vendor"] for g in answer["gpus"]] == expected["vendors"]
    if "override" in expected:
        primary = answer["primary_gpu"]
        value = answer["gpus"][primary]["support"]["override"] if primary is not None else None
        assert (value or "") == expected["override"]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda p: p.name)
def test_findings(machine: Path, answers: dict[str, dict[str, Any]]) -> None:
    expected = _expected(machine).get("findings", {})
    ids = {f["id"] for f in answers[machine.name]["findings"]}
    missing = set(expected.get("include", [])) - ids
    unwanted = set(expected.get("exclude", [])) & ids
    assert not missing, f"missing {sorted(missing)}; got {sorted(ids)}"
    assert not unwanted, f"unexpected {sorted(unwanted)}; got {sorted(ids)}"


@pytest.mark.parametrize("machine", MACHINES, ids=lambda p: p.name)
def test_verdict(machine: Path, answers: dict[str, dict[str, Any]]) -> None:
    expected = _expected(machine).get("verdict", {})
    if "verdict" in expected:
        assert answers[machine.name]["verdict"] == expected["verdict"]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda p: p.name)
def test_findings_are_complete(machine: Path, answers: dict[str, dict[str, Any]]) -> None:
    for finding in answers[machine.name]["findings"]:
        assert finding["severity"] in {"error", "warning", "info", "ok"}
        assert finding["title"]
        if finding["severity"] in {"error", "warning"}:
            assert finding["detail"] and finding["fix"], finding["id"]


def test_cli_contract_on_a_machine() -> None:
    """`rocmate doctor --root DIR --json` prints one rocmate.doctor/1 object."""
    machine = MACHINES[0]
    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "doctor", "--root", str(machine), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    data = json.loads(out.stdout)
    # the exit status says the verdict (0 Ready, 1 after fixes, 4 Not supported)
    assert out.returncode == {"Ready": 0, "Ready after these fixes": 1,
                              "Not supported": 4}[data["verdict"]], out.stderr
    assert data["schema"] == "rocmate.doctor/1"
    for key in ("platform", "gpus", "rocm", "torch", "findings"):
        assert key in data
    for key in ("distro_id", "distro_version", "codename", "ubuntu_codename", "kernel", "wsl"):
        assert key in data["platform"]
    for gpu in data["gpus"]:
        for key in ("vendor", "pci_id", "name", "gfx", "vram_bytes", "integrated", "support"):
            assert key in gpu
        assert set(gpu["support"]) >= {"status", "override", "rocm"}
