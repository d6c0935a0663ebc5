"""How NVIDIA GPUs are connected (core.probe.parse.nvidia_topo, core.probe.links.nvidia_paths,
the NVIDIA side of core.diagnose.rules_links): ``nvidia-smi topo -m`` as real machines printed it
(tests/fixtures/outputs/nvidia-smi/, each with its source), and the doctor on the recorded
NVIDIA desktop given more cards of the same model (PCI folders written as Linux lays them out,
beside the recorded one) and a recorded matrix."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.probe.parse.nvidia_topo import GpuPath, parse_topo_matrix

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OUTPUTS = FIXTURES / "outputs" / "nvidia-smi"
MACHINES = FIXTURES / "machines"


def output(name: str) -> str:
    return (OUTPUTS / name).read_text()


def test_four_h100_with_nvlink_and_nics() -> None:
    paths = parse_topo_matrix(output("topo-m-4x-h100-nv6-nics.txt"))
    assert paths is not None and len(paths) == 6  # every pair once; the NIC columns not read
    assert {(p.a, p.b) for p in paths} == {(a, b) for a in range(4) for b in range(a + 1, 4)}
    assert all(p.code == "NV6" and p.nvlinks == 6 and p.kind == "nvlink" for p in paths)
    assert paths[0].to_json() == {"gpu_a": 0, "gpu_b": 1, "code": "NV6", "kind": "nvlink",
                                  "nvlinks": 6}


def test_two_rtx5090_over_the_host_bridge() -> None:
    assert parse_topo_matrix(output("topo-m-2x-rtx5090-phb.txt")) == (GpuPath(0, 1, "PHB"),)
    assert GpuPath(0, 1, "PHB").nvlinks is None and GpuPath(0, 1, "PHB").kind == "pcie"


def test_an_old_matrix_cut_short() -> None:
    """Eight GPUs, five rows shown: the pairs those rows show; PIX/PHB/SYS by how far apart."""
    paths = parse_topo_matrix(output("topo-m-8x-gpu-pix-phb-sys-2017.txt"))
    assert paths is not None
    codes = {(p.a, p.b): p.code for p in paths}
    assert len(codes) == 7 + 6 + 5 + 4 + 3
    assert (codes[(0, 1)], codes[(2, 3)], codes[(0, 2)], codes[(3, 4)], codes[(4, 5)]) == (
        "PIX", "PIX", "PHB", "SYS", "PIX")
    assert (5, 6) not in codes


def test_one_gpu_in_a_vm_with_ansi_escapes() -> None:
    """rocmate's own device machine: one H200, the header underlined with ANSI escapes."""
    text = output("topo-m-h200-single-vm.txt")
    assert "\x1b[4m" in text
    assert parse_topo_matrix(text) == ()


@pytest.mark.parametrize("text", [
    "", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n", "GPU0 X\n", "\tGPU0\tGPU1\n",
    "\tGPU0\tGPU1\nGPU0\t X \tNV999999\nGPU1\tFOO\t X \n", "\x1b[4m" * 1000,
])
def test_no_matrix_or_nothing_usable(text: str) -> None:
    paths = parse_topo_matrix(text)
    assert paths is None or paths == ()


def test_the_old_name_of_sys() -> None:
    text = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tSOC\t0-7\nGPU1\tSOC\t X \t8-15\n"
    assert parse_topo_matrix(text) == (GpuPath(0, 1, "SYS"),)


# --- the doctor ---------------------------------------------------------------------------------

DESKTOP = "nvidia-only-desktop"
RECORDED_GPU = "0000:01:00.0"


def desktop_with(tmp_path: Path, cards: int, topo: str | None) -> Path:
    """The recorded NVIDIA desktop with ``cards`` GPUs of its model (each more one a copy of the
    recorded card's PCI folder under a root port of its own) and ``topo`` as nvidia-smi's
    answer (a fixture's name; None: no nvidia-smi)."""
    root = tmp_path / DESKTOP
    shutil.copytree(MACHINES / DESKTOP, root, symlinks=True)
    files = root / "files"
    recorded = files / "sys/devices/pci0000:00/0000:00:01.1" / RECORDED_GPU
    for index in range(1, cards):
        slot = f"0000:{index + 1:02x}:00.0"
        real = f"sys/devices/pci0000:00/0000:00:0{index + 1}.1/{slot}"
        shutil.copytree(recorded, files / real, symlinks=False,
                        ignore=shutil.ignore_patterns("drm", "driver"))
        os.symlink(f"../../../{real.removeprefix('sys/')}", files / "sys/bus/pci/devices" / slot)
    if topo is not None:
        commands = root / "commands"
        commands.mkdir(exist_ok=True)
        body = "".join(line for line in output(topo).splitlines(keepends=True)
                       if not line.startswith("# "))
        (commands / "nvidia-smi_topo_-m.txt").write_text(body.lstrip("\n"))
    return root


def doctor(root: Path) -> dict[str, Any]:
    from core.diagnose.doctor import run_doctor
    from core.system import SnapshotSystem

    return run_doctor(SnapshotSystem(root)).to_json()


def test_four_nvidia_cards_on_nvlink(tmp_path: Path) -> None:
    answer = doctor(desktop_with(tmp_path, 4, "topo-m-4x-h100-nv6-nics.txt"))
    found = {f["id"]: f for f in answer["findings"]}
    several = found["gpus-several"]
    assert several["title"].startswith("4 GPUs for data-parallel training: 4 × NVIDIA ")
    assert several["detail"].startswith(
        "How they are connected: NVLink, directly (6 links between each pair). PyTorch trains "
        "on several GPUs")
    assert "NCCL here" in several["detail"]
    assert len(answer["links"]["nvidia"]) == 6
    assert answer["links"]["nvidia"][0]["kind"] == "nvlink"
    assert "no-amd-gpu" in found  # still the machine's news


def test_two_nvidia_cards_over_pcie(tmp_path: Path) -> None:
    answer = doctor(desktop_with(tmp_path, 2, "topo-m-2x-rtx5090-phb.txt"))
    found = {f["id"]: f for f in answer["findings"]}
    assert found["gpus-several"]["detail"].startswith(
        "How they are connected: PCIe, at worst through the CPU's PCIe host bridge (PHB).")


def test_cards_across_sockets_and_without_nvidia_smi(tmp_path: Path) -> None:
    answer = doctor(desktop_with(tmp_path, 2, "topo-m-8x-gpu-pix-phb-sys-2017.txt"))
    detail = {f["id"]: f for f in answer["findings"]}["gpus-several"]["detail"]
    assert detail.startswith("How they are connected: PCIe, at worst across the link between "
                             "the CPU sockets (SYS), the slowest way.")
    answer = doctor(desktop_with(tmp_path / "none", 2, None))
    detail = {f["id"]: f for f in answer["findings"]}["gpus-several"]["detail"]
    assert detail.startswith("How they are connected: not known (nvidia-smi topo -m did not "
                             "answer).")
    assert "nvidia" not in answer.get("links", {})


def test_one_nvidia_card_says_nothing_and_is_unchanged() -> None:
    answer = doctor(MACHINES / DESKTOP)
    assert "gpus-several" not in {f["id"] for f in answer["findings"]}
    assert "nvidia" not in answer.get("links", {})


def test_the_nvidia_words_in_chinese(tmp_path: Path) -> None:
    from core.i18n import set_language

    root = desktop_with(tmp_path, 4, "topo-m-4x-h100-nv6-nics.txt")
    set_language("zh_CN")
    try:
        answer = doctor(root)
    finally:
        set_language(None)
    detail = {f["id"]: f for f in answer["findings"]}["gpus-several"]["detail"]
    assert "NVLink" in detail and "6" in detail and "How they are" not in detail
