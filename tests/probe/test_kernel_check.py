"""The kernel check's real paths: the CPU path with the real torch of rocmate's own environment
(supervisor, worker, every operation and the comparison with the CPU), the H200's recorded
answer (a real GPU run, tests/fixtures/kernel_check/SOURCE.md), and the doctor's verdict before
the check has run (--no-torch, a replay without a recorded check). The failing cases are in
test_kernel_check_standin.py."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.diagnose.engine import NOT_PROVED, READY, READY_AFTER_FIXES
from core.probe.kernel_check import OPS, kernel_check_from_json, run_kernel_check
from core.system import LiveSystem, SnapshotSystem

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "tests" / "fixtures" / "kernel_check" / "h200-snapshot"
READY_MACHINE = ROOT / "tests" / "fixtures" / "machines" / "rx7900xtx-ubuntu2404-ready"


def test_the_cpu_path_runs_every_operation_with_real_torch() -> None:
    pytest.importorskip("torch")
    answer = run_kernel_check(LiveSystem(), sys.executable, ["cpu"])
    check = kernel_check_from_json(answer)
    assert check is not None and check.ok, answer
    (device,) = check.devices
    assert [op.op for op in device.ops] == list(OPS)
    for op in device.ops:
        assert op.outcome == "ok"
        assert op.difference is not None and op.tolerance is not None
        assert op.difference <= op.tolerance
    # fp16 and bf16 really differ from the fp32 reference, fp32 does not: the comparison is real
    by_op = {op.op: op for op in device.ops}
    assert by_op["matmul-fp16"].difference and by_op["matmul-bf16"].difference
    assert by_op["matmul-bf16"].difference > by_op["matmul-fp16"].difference


def test_the_h200_answer_proves_the_card_and_sits_on_its_gpu() -> None:
    report = run_doctor(SnapshotSystem(H200))
    ids = [f.id for f in report.findings]
    assert "kernel-check-ok" in ids and "kernel-check-not-run" not in ids
    data = report.to_json()
    assert data["kernel_check"]["ran"] and data["kernel_check"]["ok"]
    gpu = data["gpus"][0]
    assert gpu["name"] == "NVIDIA H200"
    assert [op["outcome"] for op in gpu["kernel_check"]["ops"]] == ["ok"] * 5
    ok = next(f for f in report.findings if f.id == "kernel-check-ok")
    assert ok.title.startswith("Kernels ran on NVIDIA H200:")  # no "(NVIDIA H200)" as a gfx


def test_a_replay_without_a_recorded_check_is_not_yet_proved() -> None:
    report = run_doctor(SnapshotSystem(READY_MACHINE))
    assert report.verdict == NOT_PROVED
    finding = next(f for f in report.findings if f.id == "kernel-check-not-run")
    assert finding.severity == "info" and "rocmate snapshot" in finding.fix
    assert report.to_json()["kernel_check"] == {"ran": False, "reason": "replay"}


def test_no_torch_is_not_yet_proved() -> None:
    report = run_doctor(SnapshotSystem(READY_MACHINE), probe_torch=False)
    assert report.verdict == NOT_PROVED
    assert report.to_json()["kernel_check"] == {"ran": False, "reason": "no-torch"}
    finding = next(f for f in report.findings if f.id == "kernel-check-not-run")
    assert "--no-torch" in finding.title


def _with_check(tmp_path: Path, answer: dict) -> Path:
    machine = tmp_path / "machine"
    shutil.copytree(READY_MACHINE, machine, symlinks=True)
    (machine / "kernel-check.json").write_text(json.dumps(answer))
    return machine


def _answer(outcome: str) -> dict:
    ops = [{"op": op, "outcome": "ok", "difference": 0.0, "tolerance": 1e-3} for op in OPS]
    if outcome != "ok":
        ops[0] = {"op": "matmul-fp32", "outcome": outcome, "signal": 6,
                  "log": "rocBLAS error: Cannot read TensileLibrary.dat: Illegal seek for GPU "
                         "arch : gfx1100"}
    return {"schema": "rocmate.kernel-check/1", "python": "/home/alice/venvs/torch/bin/python3",
            "devices": [{"device": "0", "name": "AMD Radeon RX 7900 XTX",
                         "gfx": "gfx1100", "ops": ops}]}


def test_a_recorded_check_that_passed_makes_the_machine_ready(tmp_path: Path) -> None:
    report = run_doctor(SnapshotSystem(_with_check(tmp_path, _answer("ok"))))
    assert report.verdict == READY
    data = report.to_json()
    assert data["gpus"][0]["kernel_check"]["ok"] is True
    assert "kernel_check_s" in data["timings"]


def test_a_recorded_check_that_failed_needs_a_fix(tmp_path: Path) -> None:
    report = run_doctor(SnapshotSystem(_with_check(tmp_path, _answer("crashed"))))
    assert report.verdict == READY_AFTER_FIXES
    finding = next(f for f in report.findings if f.id == "kernel-check-no-kernels")
    assert finding.title == ("rocBLAS in this PyTorch has no kernels for AMD Radeon RX 7900 XTX "
                             "(gfx1100)")
    assert "torch[device-gfx1100]" in finding.fix  # a target without a row: the general advice


def test_a_damaged_record_is_not_taken_as_a_pass(tmp_path: Path) -> None:
    machine = _with_check(tmp_path, {})
    (machine / "kernel-check.json").write_text("{not json")
    report = run_doctor(SnapshotSystem(machine))
    assert report.verdict != READY
    assert "snapshot-damaged" in [f.id for f in report.findings]


def test_verify_is_proved_only_by_computations_on_the_card() -> None:
    """The Verify page's "PyTorch works on the card" needs something computed on the card: a
    replay without a recorded kernel check is not proved (its matrix product line is "not
    run"); the H200 snapshot's recorded kernel check ran every operation (its lines replace
    the replay's "not run" matrix product)."""
    from core.operations.setup import verify_pytorch

    machines = Path(__file__).resolve().parents[1] / "fixtures"
    plain = verify_pytorch(str(machines / "machines" / "popos2204-rx6800-ready"))
    assert plain.ok and not plain.computed and not plain.proved
    h200 = verify_pytorch(str(machines / "kernel_check" / "h200-snapshot"))
    assert h200.computed
    assert "Matrix product on the GPU" not in [line.name for line in h200.lines]
    assert [line.ok for line in h200.lines if "matrix product (" in line.name] == [True] * 3
