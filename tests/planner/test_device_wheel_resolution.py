"""A real pip resolution of the plan's ``torch[device-gfxNNNN]==...`` requirements (issue 33).

The network is not reachable here, so pip resolves against a local folder of small stand-in
wheels whose names, versions and metadata follow AMD's stable index
(https://stable.repo.amd.com/rocm/whl-next/, shared by ROCm 10.0 and 10.1): ``torch`` with one
``device-gfxNNNN`` extra per target of the torch.toml row (AMD's PyTorch install page for 10.0),
each extra requiring ``amd-torch-device-gfxNNNN`` of the same version, and the same for
torchvision (the package names of ROCm/pytorch#3518's pip list and of public install notes:
amd-torch-device-gfx1031, amd-torchvision-device-gfx1031). Real pip (the one in rocmate's own
development environment) decides what would be installed (``--dry-run --report``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.knowledge.wheels import TorchIndex
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
RX6700XT = "rx6700xt-ubuntu2204-needs-override"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel(folder: Path, name: str, version: str, requires: dict[str, list[str]]) -> None:
    """A pure-Python stand-in wheel: METADATA with ``Provides-Extra`` / ``Requires-Dist``
    (``requires``: extra -> requirements; "" for unconditional ones)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    for extra, reqs in requires.items():
        if extra:
            lines.append(f"Provides-Extra: {extra}")
        for req in reqs:
            lines.append(f'Requires-Dist: {req}; extra == "{extra}"' if extra
                         else f"Requires-Dist: {req}")
    files = {
        f"{dist}/__init__.py": b"",
        f"{info}/METADATA": ("\n".join(lines) + "\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: rocmate-test\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(folder / f"{dist}-{version}-py3-none-any.whl", "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)


def _stand_in_index(folder: Path, rows: list[TorchIndex]) -> None:
    """AMD's shared index as the rows describe it: every torch/torchvision pair of each
    release, with its device extras (the row's arch_list)."""
    for row in rows:
        assert row.local and row.arch_list, row.name
        for torch in row.torch:
            vision = row.torchvision_with(torch)
            assert vision is not None
            for name, version in (("torch", torch), ("torchvision", vision)):
                full = f"{version}+{row.local}"
                extras = {f"device-{gfx}": [f"amd-{name}-device-{gfx}=={full}"]
                          for gfx in row.arch_list}
                _wheel(folder, name, full, extras)
                for gfx in row.arch_list:
                    _wheel(folder, f"amd-{name}-device-{gfx}", full, {})


def _resolve(folder: Path, requirements: list[str], tmp: Path) -> tuple[dict[str, str], str]:
    report = tmp / "report.json"
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
         "--find-links", str(folder), "--report", str(report), "--disable-pip-version-check",
         *requirements],
        capture_output=True, text=True, check=False, timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    chosen = {item["metadata"]["name"]: item["metadata"]["version"] for item in data["install"]}
    return chosen, out.stdout + out.stderr


@pytest.fixture(scope="module")
def amd_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("whl-next")
    rows = [i for i in load_knowledge().torch_indexes
            if i.url == "https://stable.repo.amd.com/rocm/whl-next/"]
    assert {r.rocm for r in rows} == {"10.0", "10.1"}
    _stand_in_index(folder, rows)
    return folder


def _plan_packages(rocm: str) -> list[str]:
    facts = run_doctor(SnapshotSystem(MACHINES / RX6700XT), probe_torch=False).facts
    return list(make_plan(facts, load_knowledge(), Choices(rocm=rocm)).torch_packages)


def test_rocm_10_0_installs_10_0_and_the_override_targets_kernels(
    amd_index: Path, tmp_path: Path
) -> None:
    chosen, _ = _resolve(amd_index, _plan_packages("10.0"), tmp_path)
    assert chosen == {
        "torch": "2.13.0+rocm10.0.0",
        "amd-torch-device-gfx1030": "2.13.0+rocm10.0.0",
        "torchvision": "0.28.0+rocm10.0.0",
        "amd-torchvision-device-gfx1030": "0.28.0+rocm10.0.0",
    }


def test_rocm_10_1_installs_10_1(amd_index: Path, tmp_path: Path) -> None:
    chosen, _ = _resolve(amd_index, _plan_packages("10.1"), tmp_path)
    assert chosen["torch"] == "2.14.0+rocm10.1.0"
    assert chosen["amd-torch-device-gfx1030"] == "2.14.0+rocm10.1.0"


def test_what_the_old_plans_got(amd_index: Path, tmp_path: Path) -> None:
    """Before issue 33: the unpinned requirement took 10.1's wheels for --rocm 10.0, and the
    card's own extra (absent from the index) gave torch without any device kernels."""
    chosen, _ = _resolve(amd_index, ["torch[device-gfx1030]"], tmp_path)
    assert chosen["torch"] == "2.14.0+rocm10.1.0"
    chosen, said = _resolve(amd_index, ["torch[device-gfx1031]==2.13.0+rocm10.0.0"], tmp_path)
    assert set(chosen) == {"torch"}  # no amd-torch-device-* package at all
    assert "does not provide the extra" in said
