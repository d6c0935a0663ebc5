"""Issue 30/10: a history this user can read but not write is listed and shown as it is
(reading needs no write access: no switch to WAL, no -shm file, no migration), and a command
that would store a run says in one line why it cannot. The permissions are real: as root the
test drops the capabilities that let root write anything (``setpriv``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions import as_a_user
from tests.report.support import CPU, H200

ROOT = Path(__file__).resolve().parents[2]


def _rocmate(xdg: Path, *args: str, user: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(xdg)}
    return subprocess.run([*(as_a_user() if user else []), sys.executable, "-m", "core.cli",
                           "report", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("folder_writable", [False, True])
def test_a_read_only_history_is_listed_and_shown(tmp_path: Path, folder_writable: bool) -> None:
    xdg = tmp_path / "xdg"
    assert _rocmate(xdg, "import", str(CPU), user=False).returncode == 0
    folder = xdg / "rocmate"
    db = folder / "history.sqlite"
    before = db.read_bytes()
    db.chmod(0o444)
    folder.chmod(0o755 if folder_writable else 0o555)
    try:
        listed = _rocmate(xdg, "list")
        assert listed.returncode == 0, listed.stderr
        assert "resnet50-train" in listed.stdout and listed.stderr == ""
        as_json = _rocmate(xdg, "list", "--json")
        assert as_json.returncode == 0 and json.loads(as_json.stdout)[0]["id"] == 1
        shown = _rocmate(xdg, "show", "1")
        assert shown.returncode == 0 and "ResNet-50 training" in shown.stdout, shown.stderr
        stored = _rocmate(xdg, "import", str(H200))
        assert stored.returncode == 1 and stored.stderr.count("\n") == 1
        assert "Traceback" not in stored.stderr and "cannot be used" in stored.stderr
        assert db.read_bytes() == before
        if not folder_writable:
            assert sorted(p.name for p in folder.iterdir()) == ["history.sqlite"]
    finally:
        folder.chmod(0o755)
