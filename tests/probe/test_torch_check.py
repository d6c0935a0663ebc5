"""The verification of PyTorch on the card, line by line: run for real in this machine's Python,
read from a replayed machine, and each kind of red line with what to do."""

from __future__ import annotations

import sys
from pathlib import Path

from core.operations.setup import verify_pytorch
from core.probe.torch_check import lines_from

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


def _by_name(check: object) -> dict[str, object]:
    return {line.name: line for line in check.lines}  # type: ignore[attr-defined]


def test_this_machines_torch_is_checked_for_real() -> None:
    check = verify_pytorch(None, sys.executable)
    lines = _by_name(check)
    assert lines["PyTorch"].ok is True  # type: ignore[attr-defined]
    assert lines["GPU visible (torch.cuda.is_available())"].ok is False  # type: ignore[attr-defined]
    assert not check.ok and not check.replayed


def test_a_python_that_is_not_there_is_a_red_line(tmp_path: Path) -> None:
    check = verify_pytorch(None, str(tmp_path / "python"))
    assert [(line.name, line.ok) for line in check.lines] == [("PyTorch", False)]
    assert "no Python" in check.lines[0].value


def test_a_replayed_machine_answers_with_its_recording() -> None:
    check = verify_pytorch(MACHINES / "popos2204-rx6800-ready")
    assert check.replayed and check.ok
    assert check.python.endswith("/bin/python3")
    assert check.lines[-1].ok is None  # the GPU computation is not replayed


def test_wrong_numbers_a_crash_and_a_hang_are_red_with_a_fix() -> None:
    base = {"version": "2.5.1+rocm6.2", "hip": "6.2", "available": True, "device": "RX 6600"}
    wrong = lines_from({**base, "matmul_ok": False, "matmul_error_max": 41.5}, "py")
    assert wrong.lines[-1].ok is False and "WRONG" in wrong.lines[-1].value
    assert "HSA_OVERRIDE_GFX_VERSION" in wrong.lines[-1].fix
    raised = lines_from({**base, "matmul_exception": "RuntimeError: HIP error: invalid device "
                                                     "function"}, "py")
    assert raised.lines[-1].ok is False and "invalid device function" in raised.lines[-1].value
    hung = lines_from({"hung": 120.0}, "py")
    assert hung.lines[0].ok is False and "120 s" in hung.lines[0].value
    crashed = lines_from({"crashed": "signal 11: "}, "py")
    assert crashed.lines[0].ok is False and not crashed.ok
    good = lines_from({**base, "matmul_ok": True, "matmul_error_max": 1e-6}, "py")
    assert good.ok and all(line.ok for line in good.lines)
