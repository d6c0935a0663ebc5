"""The command line, run as a user would run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROCMATE = [sys.executable, "-m", "core.cli"]


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROCMATE, *args], capture_output=True, text=True, input=stdin, timeout=120, check=False
    )


def test_plain_rocmate_runs_the_doctor() -> None:
    out = _run("--no-torch")
    assert out.returncode == 0, out.stderr
    assert "Verdict:" in out.stdout
    assert "Traceback" not in out.stderr


def test_doctor_json_on_this_machine() -> None:
    out = _run("doctor", "--json", "--no-torch")
    data = json.loads(out.stdout)
    assert data["schema"] == "rocmate.doctor/1"
    assert data["verdict"] in {"Ready", "Ready after these fixes", "Not supported"}
    assert data["timings"]["total_s"] < 5


def test_missing_root_is_a_clear_message(tmp_path: Path) -> None:
    out = _run("doctor", "--root", str(tmp_path / "nope"))
    assert out.returncode != 0
    assert "no snapshot folder" in out.stderr
    assert "Traceback" not in out.stderr


def test_empty_snapshot_folder_is_a_machine_with_nothing(tmp_path: Path) -> None:
    out = _run("doctor", "--root", str(tmp_path), "--json")
    data = json.loads(out.stdout)
    assert data["gpus"] == []
    assert "no-gpu" in {f["id"] for f in data["findings"]}


def test_explain_known_and_unknown_errors(tmp_path: Path) -> None:
    known = _run(
        "explain",
        "RuntimeError: HIP error: invalid device function",
        "--root",
        str(tmp_path),
    )
    assert known.returncode == 0, known.stderr
    assert "Cause:" in known.stdout
    unknown = _run("explain", "-", "--root", str(tmp_path), stdin="all good here")
    assert unknown.returncode == 1
    assert "does not recognise" in unknown.stdout
    as_json = _run("explain", "hipErrorNoBinaryForGpu", "--root", str(tmp_path), "--json")
    assert json.loads(as_json.stdout)["matches"]
