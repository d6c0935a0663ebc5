"""Issue 30/11: ``rocmate bench --out`` into a folder that cannot be written was found only
after the whole run; now it is refused before anything starts (exit 2, one line). The folder is
really read-only: as root the test drops the capability that lets root write anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.permissions import as_a_user

ROOT = Path(__file__).resolve().parents[2]


def _bench(tmp_path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    return subprocess.run([*as_a_user(), sys.executable, "-m", "core.cli", "bench", "gemm",
                           "--device", "cpu", "--size", "tiny", "--python", sys.executable,
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_a_read_only_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o555)
    try:
        out = _bench(tmp_path, closed / "deeper" / "report.json")
    finally:
        closed.chmod(0o755)
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""  # nothing ran
    assert out.stderr.startswith("rocmate bench: --out ") and "Permission denied" in out.stderr
    assert not (tmp_path / "xdg" / "rocmate" / "runs").exists()
    assert sorted(p.name for p in closed.iterdir()) == []  # the probe file is gone too


def test_a_folder_named_as_the_report_is_refused(tmp_path: Path) -> None:
    out = _bench(tmp_path, tmp_path)
    assert out.returncode == 2 and "is a folder: name the report file" in out.stderr
