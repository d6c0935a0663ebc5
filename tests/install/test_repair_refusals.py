"""The environments a repair refuses, each with one line (issue 34): a system Python, one its
distribution manages (PEP 668), conda's base, a venv nobody may write, one without PyTorch or
without pip. The folders are real (this computer, live); no AMD GPU is needed, since the
refusal comes before the card is looked at.

Read-only: the tests run as root here, and root passes every permission bit (``test -w`` says
yes to root for a folder its owner made read-only). rocmate therefore judges a venv by its
owner's view when it runs as root: the owner's write bit of site-packages and bin/ decides
(core.probe.python_packages.writable), which is what the owner's own pip would meet
("Permission denied" writing there); a root-run pip would instead leave root-owned files in a
user's venv. As another user, ``test -w`` is the kernel's own answer (a read-only mount too).
Running the owner's pip as an unprivileged user is not shown here: this machine's interpreter
lives under /root, which such a user cannot reach.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.operations.repair import RepairRefused, plan_repair
from core.probe.python_packages import writable
from core.system import LiveSystem
from tests.install.repair_support import make_venv, site_packages, wheel


def _dist(site: Path, name: str, version: str) -> None:
    folder = site / f"{name}-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _prefix(root: Path, torch: bool = True) -> Path:
    """A Python installed into ``root`` as a distribution or `make install` lays it out."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python3").symlink_to(sys.executable)
    site = root / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    if torch:
        _dist(site, "torch", "2.5.1")
    return root / "bin" / "python3"


def _refused(python: Path | str) -> RepairRefused:
    with pytest.raises(RepairRefused) as caught:
        plan_repair(None, str(python))
    said = str(caught.value)
    assert "\n" not in said and said  # one line
    return caught.value


def test_system_python(tmp_path: Path) -> None:
    refused = _refused(_prefix(tmp_path / "opt" / "python3.11"))
    assert refused.reason == "system-python"
    assert "not a virtual environment" in str(refused)


def test_externally_managed(tmp_path: Path) -> None:
    python = _prefix(tmp_path / "usr")
    (tmp_path / "usr" / "lib" / "python3.11" / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=To install Python packages system-wide, try apt install\n")
    refused = _refused(python)
    assert refused.reason == "externally-managed" and "PEP 668" in str(refused)


def test_conda_base(tmp_path: Path) -> None:
    python = _prefix(tmp_path / "miniconda3")
    (tmp_path / "miniconda3" / "conda-meta").mkdir()
    (tmp_path / "miniconda3" / "envs").mkdir()
    assert _refused(python).reason == "conda-base"


def test_no_torch_points_to_install(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel(wheels, "filelock", "3.16.1")
    python = make_venv(tmp_path / "venv", wheels, ["filelock"])
    refused = _refused(python)
    assert refused.reason == "no-torch"
    assert f"rocmate install --venv {tmp_path / 'venv'}" in str(refused)


def test_torch_of_the_system_through_the_venv(tmp_path: Path) -> None:
    """A venv made with --system-site-packages whose PyTorch is the system's (a distribution's
    python-pytorch-rocm): that one is not the venv's to change."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(tmp_path / "venv")], check=True, timeout=120)
    refused = _refused(tmp_path / "venv" / "bin" / "python")
    assert refused.reason == "no-torch" and "include-system-site-packages = true" in str(refused)


def test_no_pip(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")],
                   check=True, timeout=120)
    _dist(site_packages(tmp_path / "venv"), "torch", "2.5.1+cpu")
    assert _refused(tmp_path / "venv" / "bin" / "python").reason == "no-pip"


def _chmod_read_only(prefix: Path) -> None:
    for folder in (site_packages(prefix), prefix / "bin"):
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o555)


def test_read_only_venv(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel(wheels, "torch", "2.5.1+cpu")
    wheel(wheels, "filelock", "3.16.1")
    prefix = tmp_path / "venv"
    python = make_venv(prefix, wheels, ["torch==2.5.1+cpu"])
    site = str(site_packages(prefix))
    assert writable(LiveSystem(), site) is True
    _chmod_read_only(prefix)
    try:
        assert writable(LiveSystem(), site) is False
        refused = _refused(python)
        assert refused.reason == "read-only"
        assert "cannot be written by its owner" in str(refused)
        if os.geteuid() == 0:
            # another owner's venv: its bits decide, not root's power to write anywhere
            subprocess.run(["chown", "-R", "65534:65534", str(prefix)], check=True)
            assert writable(LiveSystem(), site) is False
            site_packages(prefix).chmod(0o755)
            assert writable(LiveSystem(), site) is True
    finally:
        for path in prefix.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
