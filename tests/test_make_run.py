"""``make run``, the first command a newcomer types (README): it succeeds when rocmate ran,
whatever the doctor's verdict, while ``rocmate doctor`` keeps its exit status for scripts.

The test runs the real recipe with make itself on a recorded machine without a GPU (the doctor
says "Not supported", exit 4). ``-o`` keeps make from installing the venv or rebuilding the
catalogues: the recipe runs as it is, on what .venv already holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROCMATE = REPO / ".venv" / "bin" / "rocmate"
NO_GPU = REPO / "tests" / "fixtures" / "machines" / "no-gpu-aspeed-server"


def terminal_env(tmp: Path) -> dict[str, str]:
    """A terminal without a desktop (plain ``rocmate`` then runs the doctor), its own folders."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp / name.lower())
    env["LANG"] = "C.UTF-8"
    return env


def make_run(args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``make run ARGS=...`` with the venv and the catalogues taken as they are."""
    if shutil.which("make") is None or not ROCMATE.is_file():
        pytest.skip("needs make and .venv/bin/rocmate (make run installs it)")
    return subprocess.run(["make", "--no-print-directory", "-o", ".venv/.stamp-app", "-o", "qm",
                           "run", f"ARGS={args}"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_make_run_succeeds_when_the_doctor_says_not_supported(tmp_path: Path) -> None:
    env = terminal_env(tmp_path)
    done = make_run(f"--root {NO_GPU}", env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Not supported" in done.stdout
    assert "Error" not in done.stderr, done.stderr
    # the doctor itself still says it to scripts
    doctor = subprocess.run([str(ROCMATE), "--root", str(NO_GPU)], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert doctor.returncode == 4, doctor.stderr


def test_make_run_still_fails_when_rocmate_could_not_do_its_job(tmp_path: Path) -> None:
    """A command line rocmate refuses is not a verdict: make run reports the failure."""
    done = make_run("bench no-such-suite", terminal_env(tmp_path))
    assert done.returncode != 0
    assert "no-such-suite" in done.stderr
