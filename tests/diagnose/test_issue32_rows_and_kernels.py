"""Issue 32, items 3 and 4, on replayed machines: an iGPU is integrated and never a data-parallel
rank; a target newer than the tables is "newer than rocmate knows"; a wheel whose rocBLAS lacks
the card's kernels is not "works as it is"; AMD's per-processor list for Ryzen APUs is named.

The machines are built from real public outputs (their SOURCE.md): granite-ridge-rx9070xt-bazzite
from a Bazzite desktop's fpaste (paste.centos.org/view/a5c704a7), vega56-torch212-rocm72-nightly
from pytorch/pytorch#179865. The variants below copy a recorded machine and change one recorded
fact (a CPU model, a KFD target, a table row), each named in its test.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import tomllib

from core.diagnose.context import data_parallel_gpus
from core.diagnose.doctor import run_doctor
from core.knowledge.loader import load_knowledge
from core.knowledge.math_libraries import (
    load_math_libraries,
    parse_math_libraries,
    processor_listed,
    routes_for,
    wheel_lacks,
)
from core.knowledge.rows import KnowledgeError
from core.resources import data_dir
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
GRANITE = MACHINES / "granite-ridge-rx9070xt-bazzite"
VEGA56 = MACHINES / "vega56-torch212-rocm72-nightly"
PHOENIX = MACHINES / "phoenix-780m-arch-laptop"
KFD = "files/sys/devices/virtual/kfd/kfd/topology/nodes"


def doctor(root: Path) -> Any:
    return run_doctor(SnapshotSystem(root))


def ids(report: Any) -> set[str]:
    return {f.id for f in report.findings}


def copy(machine: Path, tmp_path: Path) -> Path:
    target = tmp_path / machine.name
    shutil.copytree(machine, target, symlinks=True)
    return target


# -- item 3: the Granite Ridge iGPU beside an RX 9070 XT --------------------------------------


def test_granite_ridge_igpu_is_integrated_and_not_a_data_parallel_rank() -> None:
    report = doctor(GRANITE)
    gpus = report.facts.gpus.gpus
    igpu = next(g for g in gpus if g.pci_id == "1002:13c0")
    dgpu = next(g for g in gpus if g.pci_id == "1002:7550")
    assert igpu.integrated and not dgpu.integrated
    assert igpu.name == "Radeon Graphics (Granite Ridge)" and igpu.gfx == "gfx1036"
    assert data_parallel_gpus(gpus, report.supports) == [dgpu]
    assert "gpus-several" not in ids(report)
    assert report.primary_index == gpus.index(dgpu)


def test_an_unknown_igpu_id_is_integrated_by_its_target(tmp_path: Path) -> None:
    """Without the 13c0 rows (a newer revision or id than the tables know): a target only APUs
    have (gfx1036, from the KFD node) still makes it integrated."""
    data = tmp_path / "data"
    shutil.copytree(data_dir(), data)
    gpus_toml = data / "gpus.toml"
    text = gpus_toml.read_text()
    rows = re.split(r"(?=\n\[\[gpu\]\]\n)", text)
    kept = [r for r in rows if 'pci_id = "1002:13c0"' not in r]
    assert len(kept) == len(rows) - 1
    gpus_toml.write_text("".join(kept))
    kb = load_knowledge(data)
    assert kb.gpu_by_pci("1002:13c0", "cb") is None
    report = run_doctor(SnapshotSystem(GRANITE), kb=kb)
    igpu = next(g for g in report.facts.gpus.gpus if g.pci_id == "1002:13c0")
    assert igpu.integrated
    assert "gpus-several" not in ids(report)


# -- item 3: a target newer than the tables ---------------------------------------------------


def test_a_newer_target_is_not_called_unsupported(tmp_path: Path) -> None:
    """The 780M laptop with its KFD node saying gfx1170 (110700) and a device id no table has."""
    root = copy(PHOENIX, tmp_path)
    props = root / KFD / "1" / "properties"
    text = props.read_text()
    text = re.sub(r"gfx_target_version \d+", "gfx_target_version 110700", text)
    props.write_text(text)
    report = doctor(root)
    gpu = report.facts.gpus.gpus[0]
    assert gpu.gfx == "gfx1170"
    data = report.to_json()
    assert data["gpus"][0]["support"]["status"] == "unknown"
    found = ids(report)
    assert "gfx-newer" in found and "gfx-unsupported" not in found
    finding = next(f for f in report.findings if f.id == "gfx-newer")
    assert "newer than rocmate" in finding.title and "torch[device-gfx1170]" in finding.fix
    assert report.verdict != "Not supported"


def test_an_old_unknown_target_stays_unsupported(tmp_path: Path) -> None:
    """gfx1014 is not newer than the gfx10 targets rocmate knows (gfx1036): no "newer" claim."""
    root = copy(PHOENIX, tmp_path)
    props = root / KFD / "1" / "properties"
    props.write_text(re.sub(r"gfx_target_version \d+", "gfx_target_version 100104",
                            props.read_text()))
    report = doctor(root)
    assert report.to_json()["gpus"][0]["support"]["status"] == "unsupported"
    assert "gfx-newer" not in ids(report)


# -- item 4: math-library coverage, separate from torch's arch list -----------------------------


def test_vega56_with_a_rocm72_wheel_is_not_works_as_it_is() -> None:
    report = doctor(VEGA56)
    found = ids(report)
    assert "gfx-legacy-works" not in found
    assert "gfx-legacy-no-kernels" in found
    finding = next(f for f in report.findings if f.id == "gfx-legacy-no-kernels")
    assert finding.severity == "error"
    assert "rocBLAS" in finding.title
    assert "v2-staging/gfx900" in finding.detail  # TheRock's gfx900 builds
    assert "unverified" in finding.detail  # the older pytorch.org wheel is not proved
    assert "keep this PyTorch" not in finding.fix.lower().replace("do not keep", "")


def test_a_wheel_with_no_coverage_row_is_unverified_not_works(tmp_path: Path) -> None:
    """The same Vega 56 with torch 2.11.0+rocm7.1: no listing of that wheel's rocBLAS is public,
    so the doctor says unverified rather than "works as it is"."""
    root = copy(VEGA56, tmp_path)
    torch_json = root / "torch.json"
    torch_json.write_text(torch_json.read_text().replace("2.12.0.dev20260408+rocm7.2",
                                                         "2.11.0+rocm7.1"))
    found = ids(doctor(root))
    assert "gfx-legacy-unverified" in found
    assert not found & {"gfx-legacy-works", "gfx-legacy-no-kernels"}


def test_coverage_rows_name_their_evidence() -> None:
    math = load_math_libraries()
    lacking = wheel_lacks(math.coverage, "2.12.0.dev20260408+rocm7.2", "gfx900")
    assert lacking is not None and "pytorch/pytorch#179865" in lacking.source
    # 780M with the 2.13/2.14 rocm7.2 wheels: no public output either way, so nothing "lacks"
    assert wheel_lacks(math.coverage, "2.14.0+rocm7.2", "gfx1103") is None
    assert wheel_lacks(math.coverage, "2.6.0+rocm6.3", "gfx1103") is not None
    assert wheel_lacks(math.coverage, "2.12.0+rocm7.2", "gfx1201") is None
    # the arch list (torch.toml) and the kernels (math_libraries.toml) disagree on purpose
    kb = load_knowledge()
    rocm72 = next(i for i in kb.torch_indexes if i.name == "rocm7.2")
    assert "gfx900" in rocm72.arch_list and "gfx900" in lacking.lacks


def test_the_table_refuses_a_row_without_evidence() -> None:
    data = tomllib.loads((data_dir() / "math_libraries.toml").read_text())
    data["coverage"][0].pop("has")
    data["coverage"][0].pop("lacks")
    with pytest.raises(KnowledgeError, match="has or lacks"):
        parse_math_libraries(data)
    data = tomllib.loads((data_dir() / "math_libraries.toml").read_text())
    data["coverage"][0]["kernels"] = ["gfx900"]
    with pytest.raises(KnowledgeError, match="unknown key"):
        parse_math_libraries(data)


# -- item 4: AMD's list for Ryzen APUs is per processor model -----------------------------------


@pytest.mark.parametrize(("model", "listed"), [
    ("AMD Ryzen 7 260 w/ Radeon 780M Graphics", True),
    ("AMD Ryzen 5 PRO 215 w/ Radeon 740M Graphics", True),
    ("AMD Ryzen 9 7940HS w/ Radeon 780M Graphics", False),
    ("AMD Ryzen 7 8845HS w/ Radeon 780M Graphics", False),
    ("AMD Ryzen 7 8700G w/ Radeon 780M Graphics", False),
])
def test_the_gfx1103_list_names_the_ryzen_200_series(model: str, listed: bool) -> None:
    route = routes_for(load_math_libraries().routes, "gfx1103", "per-processor")[0]
    assert processor_listed(route, model) is listed


@pytest.mark.parametrize(("model", "severity", "words"), [
    ("AMD Ryzen 9 7940HS w/ Radeon 780M Graphics", "info", "does not name this processor"),
    ("AMD Ryzen 7 260 w/ Radeon 780M Graphics", "ok", "names this processor"),
])
def test_the_doctor_says_whether_amd_lists_the_processor(
    tmp_path: Path, model: str, severity: str, words: str
) -> None:
    """The 780M laptop with /proc/cpuinfo naming its processor."""
    root = copy(PHOENIX, tmp_path)
    (root / "files" / "proc").mkdir(parents=True, exist_ok=True)
    (root / "files" / "proc" / "cpuinfo").write_text(f"processor\t: 0\nmodel name\t: {model}\n")
    report = doctor(root)
    assert report.facts.gpus.cpu_model == model
    finding = next(f for f in report.findings if f.id == "apu-processor-list")
    assert finding.severity == severity and words in finding.title
    if severity == "info":
        assert "Ryzen 9 270" in finding.detail and "torch[device-gfx1103]" in finding.detail
        assert "unverified" in finding.detail


def test_a_usable_card_whose_wheel_lacks_its_kernels_is_told(tmp_path: Path) -> None:
    """The 780M laptop with a torch whose arch list has gfx1103 on ROCm 6.3's libraries (the
    case of ROCm/rocm-libraries#6320: torch built with gfx1103, rocBLAS without its kernels;
    ROCm 6.3.2's rocBLAS: ROCm/legacy-rocm-build#6049). Only the torch record is changed."""
    root = copy(PHOENIX, tmp_path)
    (root / "torch.json").write_text(json.dumps({
        "python": "/home/u/venv/bin/python3", "version": "2.6.0+rocm6.3",
        "hip": "6.3.42131-fa1d09cbd", "cuda": None, "available": True, "device_count": 1,
        "devices": ["AMD Radeon 780M Graphics"],
        "arch_list": ["gfx1100", "gfx1101", "gfx1102", "gfx1103"], "error": None}))
    report = doctor(root)
    finding = next(f for f in report.findings if f.id == "wheel-no-kernels")
    assert finding.severity == "error" and "gfx1103" in finding.title
    assert "legacy-rocm-build#6049" not in finding.detail  # sources stay in the data
    assert "torch[device-gfx1103]" in finding.detail
