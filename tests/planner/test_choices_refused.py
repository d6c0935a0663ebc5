"""Issue 30/11: choices that cannot be right are refused before a plan is made, in the user's
language: a ROCm release that is no release (``--rocm abc`` was "no stable PyTorch index for ROCm
abc"), an environment folder that is the system's (``--venv /``, ``--venv /etc`` were planned),
and a benchmark option's bad value said in Chinese under ``--lang zh_CN``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MACHINE = str(ROOT / "tests/fixtures/machines/rx6600-ubuntu2404-fresh")


def _rocmate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("release", ["abc", "7", "7.x", "../6.4", ""])
def test_a_release_that_is_no_release_is_a_usage_error(release: str) -> None:
    out = _rocmate("install", "--dry-run", "--root", MACHINE, "--rocm", release)
    assert out.returncode == 2 and out.stdout == ""
    assert "is not a ROCm release: give one such as 6.4, 7.2, 10.1" in out.stderr


@pytest.mark.parametrize("venv", ["/", "/etc", "/usr", "/usr/local/torch", "/home", "/opt",
                                  "/home/alice", "/home/alice/"])
def test_a_system_folder_is_no_environment_folder(venv: str) -> None:
    out = _rocmate("install", "--dry-run", "--root", MACHINE, "--venv", venv)
    assert out.returncode == 2 and out.stdout == "", out.stdout
    assert "is a folder of the system or your home itself" in out.stderr
    assert "/home/alice/venvs/torch" in out.stderr


@pytest.mark.parametrize("venv", ["/home/alice/venvs/torch", "/opt/rocmate", "/srv/ml/venv"])
def test_a_folder_of_its_own_is_planned(venv: str) -> None:
    out = _rocmate("install", "--dry-run", "--json", "--root", MACHINE, "--venv", venv)
    assert out.returncode == 0, out.stderr
    assert venv in out.stdout


def test_bad_values_are_said_in_chinese() -> None:
    out = _rocmate("--lang", "zh_CN", "bench", "gemm", "--device", "cpu", "--steps", "-1")
    assert out.returncode == 2 and out.stderr == "rocmate bench: --steps 至少为 1（而不是 -1）\n"
    out = _rocmate("--lang", "zh_CN", "bench", "gemm", "--device", "cuda:x")
    assert out.returncode == 2 and "必须是 cpu、cuda 或 cuda:N" in out.stderr
    out = _rocmate("--lang", "zh_CN", "install", "--dry-run", "--root", MACHINE, "--rocm", "abc")
    assert out.returncode == 2 and "不是 ROCm 版本" in out.stderr
