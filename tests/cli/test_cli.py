"""The command line, run as a user would run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROCMATE = [sys.executable, "-m", "core.cli"]


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROCMATE, *args], capture_output=True, text=True, input=stdin, timeout=120, check=False
    )


def test_plain_rocmate_runs_the_doctor() -> None:
    out = _run("--no-torch")
    verdict = out.stdout.rsplit("Verdict: ", 1)[1].split(" (")[0].strip()
    assert out.returncode == {"Ready": 0, "Ready after these fixes": 1,
                              "Not supported": 4, "Not yet proved": 5}[verdict], out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(("machine", "status"), [
    ("popos2204-rx6800-ready", 5), ("rx6700xt-ubuntu2204-needs-override", 1),
    ("nvidia-only-desktop", 4), ("rx580-polaris-ubuntu2004", 4)])
def test_the_exit_status_says_the_verdict(machine: str, status: int) -> None:
    root = f"tests/fixtures/machines/{machine}"
    for extra in ((), ("--json",)):
        out = _run("doctor", "--root", root, *extra)
        assert out.returncode == status, (machine, extra, out.stderr)


def test_a_mistyped_command_is_named_with_the_one_meant() -> None:
    out = _run("docter")
    assert out.returncode == 2
    assert out.stderr == "rocmate: unknown command 'docter'; did you mean 'doctor'?\n"


def test_a_folder_named_like_a_command_is_still_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "report"
    folder.mkdir()
    out = subprocess.run([*ROCMATE, "--root", "report", "--json"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, check=False,
                         env={**__import__("os").environ,
                              "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    data = json.loads(out.stdout)
    assert data["findings"][0]["id"] == "snapshot-empty", out.stderr


def test_doctor_json_on_this_machine() -> None:
    out = _run("doctor", "--json", "--no-torch")
    data = json.loads(out.stdout)
    assert data["schema"] == "rocmate.doctor/1"
    assert data["verdict"] in {"Ready", "Ready after these fixes", "Not supported",
                               "Not yet proved"}
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
