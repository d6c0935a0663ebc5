"""The environment reader's parsers (core.probe.parse.python_dist) and the reader itself on
folders laid out as pip lays them out: METADATA headers, pyvenv.cfg, local version tags,
requirements lines. Damaged input never raises."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.python_dist import (
    Build,
    build_of,
    canonical_name,
    cfg_flag,
    minor,
    parse_metadata,
    parse_pyvenv_cfg,
    parse_requirements,
    release,
)
from core.probe.python_packages import app_requirements, read_environment
from core.system import LiveSystem, SnapshotSystem

# The head of torch 2.5.1+rocm6.2's METADATA as pip writes it (core metadata 2.1).
TORCH_METADATA = """Metadata-Version: 2.1
Name: torch
Version: 2.5.1+rocm6.2
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Home-page: https://pytorch.org/
Author: PyTorch Team
License: BSD-3
Requires-Python: >=3.8.0
Description-Content-Type: text/markdown
License-File: LICENSE
Requires-Dist: filelock
Requires-Dist: pytorch-triton-rocm==3.1.0; platform_system == "Linux"
Provides-Extra: opt-einsum

Name: not-this
Version: 9.9
"""

# pyvenv.cfg as `python3.11 -m venv` writes it (Python 3.11 on Debian 12).
PYVENV = """home = /usr/bin
include-system-site-packages = false
version = 3.11.2
executable = /usr/bin/python3.11
command = /usr/bin/python3 -m venv /home/alice/ComfyUI/venv
"""


def test_metadata_headers() -> None:
    assert parse_metadata(TORCH_METADATA) == ("torch", "2.5.1+rocm6.2")
    folded = "Name: x\nSummary: a\n  folded line\nVersion: 1.0\n"
    assert parse_metadata(folded) == ("x", "1.0")
    assert parse_metadata("Name: torch\n") is None
    assert parse_metadata("Name: bad name\nVersion: 1\n") is None
    assert parse_metadata("") is None


def test_pyvenv_cfg() -> None:
    cfg = parse_pyvenv_cfg(PYVENV)
    assert cfg["home"] == "/usr/bin"
    assert cfg_flag(cfg["include-system-site-packages"]) is False
    assert cfg["version"] == "3.11.2"
    assert cfg_flag("maybe") is None and cfg_flag(None) is None


def test_builds() -> None:
    assert build_of("2.5.1+cpu") == Build("cpu", "cpu")
    assert build_of("2.5.1+cu124") == Build("cuda", "cu124", "12.4")
    assert build_of("2.1.2+cu118") == Build("cuda", "cu118", "11.8")
    assert build_of("2.5.1+rocm6.2") == Build("rocm", "rocm6.2", "6.2")
    assert build_of("2.7.1+rocm6.2.4") == Build("rocm", "rocm6.2.4", "6.2.4")
    assert build_of("2.13.0+rocm10.0.0") == Build("rocm", "rocm10.0.0", "10.0.0")
    assert build_of("2.5.1") == Build("none")
    assert build_of("2.6.0+git1c2d3e4").kind == "other"
    assert release("2.5.1+cpu") == (2, 5, 1) and minor("2.5.1+cpu") == "2.5"
    assert release("junk") == () and minor("7") is None
    assert canonical_name("Pytorch_Triton.ROCm") == "pytorch-triton-rocm"


def test_requirements_lines() -> None:
    text = ("# ComfyUI\ntorch\ntorchsde\ntorchvision==0.20.1  # pinned\n"
            "torchaudio>=2.1; sys_platform == 'linux'\n--extra-index-url https://x/y\n"
            "-r other.txt\nhttps://example.org/x.whl\nnumpy>=1.25.0\n")
    found = {r.name: r for r in parse_requirements(text)}
    assert set(found) == {"torch", "torchsde", "torchvision", "torchaudio", "numpy"}
    assert found["torchvision"].pinned == "0.20.1"
    assert found["torchaudio"].spec == ">=2.1" and found["torchaudio"].pinned is None
    assert found["torch"].spec == ""


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_parsers_never_raise(text: str) -> None:
    parse_metadata(text)
    parse_pyvenv_cfg(text)
    parse_requirements(text)
    build_of(text)
    release(text)


def _dist(site: Path, name: str, version: str, metadata: str | None = None) -> None:
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(
        metadata if metadata is not None
        else f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nbody\n")
    (folder / "INSTALLER").write_text("pip\n")


def _venv(prefix: Path) -> Path:
    site = prefix / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").symlink_to("/usr/bin/python3")
    (prefix / "pyvenv.cfg").write_text(PYVENV)
    return site


def test_reader_live_and_replayed(tmp_path: Path) -> None:
    """The same venv read live and as a snapshot's files/ (the one door)."""
    root = tmp_path / "machine"
    prefix = root / "files" / "home" / "alice" / "ComfyUI" / "venv"
    site = _venv(prefix)
    _dist(site, "torch", "2.5.1+cpu", TORCH_METADATA.replace("+rocm6.2", "+cpu"))
    _dist(site, "torchvision", "0.20.1+cpu")
    _dist(site, "torchaudio", "2.5.1+cpu")
    _dist(site, "pip", "24.0")
    _dist(site, "broken", "1.0", "garbage\x00\n")
    (prefix.parent / "requirements.txt").write_text("torch\ntorchaudio==2.5.1\naiohttp\n")
    replayed = read_environment(SnapshotSystem(root), "/home/alice/ComfyUI/venv/bin/python")
    live = read_environment(LiveSystem(), str(prefix / "bin" / "python"))
    for env in (replayed, live):
        assert env.venv and env.version == "3.11" and env.home == "/usr/bin"
        assert env.include_system_site_packages is False
        assert [(m.name, m.version, m.build.kind) for m in env.family] == [
            ("torch", "2.5.1+cpu", "cpu"), ("torchvision", "0.20.1+cpu", "cpu"),
            ("torchaudio", "2.5.1+cpu", "cpu")]
        assert env.has_pip and env.externally_managed is None and not env.conda
        assert env.distribution("broken") is not None  # named from its folder
        assert any(p.startswith("damaged: ") for p in env.problems)
    assert replayed.prefix == "/home/alice/ComfyUI/venv"
    pins = app_requirements(SnapshotSystem(root), replayed)
    assert [(p.name, p.requirement.pinned) for p in pins] == [("torch", None),
                                                             ("torchaudio", "2.5.1")]


def test_reader_system_and_conda(tmp_path: Path) -> None:
    root = tmp_path / "machine"
    lib = root / "files" / "usr" / "lib" / "python3.12"
    lib.mkdir(parents=True)
    (lib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=use apt\n")
    _dist(root / "files" / "usr" / "lib" / "python3" / "dist-packages", "torch", "2.5.1")
    env = read_environment(SnapshotSystem(root), "/usr/bin/python3")
    assert not env.venv and env.prefix == "/usr"
    assert env.externally_managed == "/usr/lib/python3.12/EXTERNALLY-MANAGED"
    assert env.torch is not None and env.torch.build.kind == "none"
    conda = root / "files" / "opt" / "miniconda3"
    (conda / "conda-meta").mkdir(parents=True)
    (conda / "envs").mkdir()
    env = read_environment(SnapshotSystem(root), "/opt/miniconda3/bin/python")
    assert env.conda and env.conda_base and not env.venv


def test_reader_damage(tmp_path: Path) -> None:
    assert read_environment(LiveSystem(), "python3").problems == ("not an absolute path",)
    env = read_environment(SnapshotSystem(tmp_path), "/nowhere/bin/python")
    assert not env.exists and env.family == () and "no site-packages found" in env.problems
    root = tmp_path / "m"
    prefix = root / "files" / "v"
    _venv(prefix)
    (prefix / "pyvenv.cfg").write_bytes(b"\xff\xfe\x00 = = =\n")
    env = read_environment(SnapshotSystem(root), "/v/bin/python")
    assert env.venv and env.version == "3.11"  # from the lib/python3.11 folder
