"""Issue 16, item 7: the smaller rows of gpus.toml and overrides.toml, and where the doctor takes
a card's VRAM and "integrated" from.

Each test failed on the tables and the probe as they were before the item was fixed; the source
of each fact is in the row it checks (and in docs/knowledge.md for the rules).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.diagnose.doctor import run_doctor
from core.knowledge.loader import Knowledge, load_knowledge
from core.knowledge.vendors import load_vendors
from core.probe.gpus import GIB, probe_gpus
from core.probe.parse.rocminfo import RocmAgent, RocminfoReport
from core.probe.parse.windows import WinGpu
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
AMD = "Advanced Micro Devices, Inc."


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


def doctor(machine: str | Path) -> dict[str, Any]:
    root = machine if isinstance(machine, Path) else MACHINES / machine
    return run_doctor(SnapshotSystem(root)).to_json()


# -- RX 9070 GRE: 12 GB at retail ----------------------------------------------------------------


def test_rx_9070_gre_has_12_gib(kb: Knowledge) -> None:
    """AMD's spec table says 16 GiB; the card sold is 12 GB (AMD's product page). The row says
    12 and cites the product page."""
    row = kb.gpu_by_pci("1002:7550", "c2")
    assert row is not None and row.name == "Radeon RX 9070 GRE"
    assert row.vram_gib == 12
    assert "amd-radeon-rx-9070-gre" in row.source
    assert row.note is not None and "16" in row.note  # the disagreement is written down


# -- RX 9060 XT: 8 GB and 16 GB on one PCI id --------------------------------------------------


def test_rx_9060_xt_row_knows_both_sizes(kb: Knowledge) -> None:
    row = kb.gpu_by_pci("1002:7590", "c0")
    assert row is not None and row.name == "Radeon RX 9060 XT"
    assert row.vram_sizes_gib == (8, 16)


def test_rx_9060_xt_on_wsl_without_rocm_shows_no_vram_from_the_table() -> None:
    """Only the Windows adapter name is known: the table cannot tell 8 GB from 16 GB, so the
    doctor shows no VRAM instead of AMD's 16 GiB (an 8 GB owner was told 16)."""
    answer = doctor("k16d-wsl2-rx9060xt-no-rocm")
    [gpu] = answer["gpus"]
    assert (gpu["name"], gpu["gfx"]) == ("Radeon RX 9060 XT", "gfx1200")
    assert gpu["vram_bytes"] is None


def test_rx_9060_xt_windows_adapter_alone(tmp_path: Path, kb: Knowledge) -> None:
    facts = probe_gpus(SnapshotSystem(tmp_path), kb, load_vendors(),
                       windows=(WinGpu("AMD Radeon RX 9060 XT", "32.0.21013.1000", AMD),))
    [gpu] = facts.gpus
    assert (gpu.gfx, gpu.vram_bytes) == ("gfx1200", None)


def test_the_machine_vram_wins_over_the_table_through_rocminfo(tmp_path: Path,
                                                               kb: Knowledge) -> None:
    """No PCI sysfs (lspci reads /proc/bus/pci) but rocminfo runs: its VRAM pool (8 GB) is the
    card's, not the table's. Before, the agent's VRAM was dropped when it was merged into the
    card lspci found, and the 16 GiB of the spec table was shown."""
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "lspci_-nn.txt").write_text(
        "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] "
        "Navi 44 [Radeon RX 9060 XT] [1002:7590] (rev c0)\n", encoding="utf-8")
    eight_gb = 8176 * 1024 * 1024
    rocminfo = RocminfoReport(
        agents=(RocmAgent(index=2, name="gfx1200", marketing_name="AMD Radeon RX 9060 XT",
                          device_type="GPU", compute_units=32, gfx="gfx1200", chip_id="7590",
                          vram_bytes=eight_gb),),
        runtime_version="1.18", error=None, problems=())
    facts = probe_gpus(SnapshotSystem(tmp_path), kb, load_vendors(), rocminfo=rocminfo)
    [gpu] = facts.gpus
    assert (gpu.pci_id, gpu.gfx) == ("1002:7590", "gfx1200")
    assert gpu.vram_bytes == eight_gb


def test_sysfs_vram_of_an_8_gb_card_is_shown(tmp_path: Path) -> None:
    """Bare metal: the kernel's mem_info_vram_total is what the doctor prints, whatever the
    table says (this already held; kept as the rule's other half)."""
    root = tmp_path / "m"
    shutil.copytree(MACHINES / "rx9070xt-torch-arch-missing", root, symlinks=True)
    [slot] = [p for p in (root / "files/sys/devices").rglob("mem_info_vram_total")]
    (slot.parent / "device").write_text("0x7590\n")
    (slot.parent / "revision").write_text("0xc0\n")
    slot.write_text(f"{8 * GIB}\n")
    [gpu] = [g for g in doctor(root)["gpus"] if g["vendor"] == "amd"]
    assert gpu["name"] == "Radeon RX 9060 XT" and gpu["vram_bytes"] == 8 * GIB


# -- MI355X / MI350X: any revision ------------------------------------------------------------


@pytest.mark.parametrize(("pci", "name"), [
    ("1002:75a3", "Instinct MI355X"),
    ("1002:75a0", "Instinct MI350X"),
    ("1002:75b3", "Instinct MI355X VF"),
    ("1002:75b0", "Instinct MI350X VF"),
])
@pytest.mark.parametrize("revision", ["00", "c0", "c1", None])
def test_mi350_series_rows_take_any_revision(kb: Knowledge, pci: str, name: str,
                                             revision: str | None) -> None:
    """libdrm's amdgpu.ids names these ids with revision C0 (2025-11), ROCm's own copy of the
    table (ROCm/k8s-device-plugin) with 00: a row per device id that takes any revision."""
    row = kb.gpu_by_pci(pci, revision)
    assert row is not None and (row.name, row.gfx) == (name, "gfx950")
    assert row.revisions == ()


# -- 74b9: MI325X VF ----------------------------------------------------------------------------


def test_mi325x_vf_has_a_row(kb: Knowledge) -> None:
    row = kb.gpu_by_pci("1002:74b9", "00")
    assert row is not None
    assert (row.name, row.gfx, row.arch, row.integrated) == (
        "Instinct MI325X VF", "gfx942", "CDNA3", False)
    assert "74B9" in row.source


def test_the_recorded_mi325x_vf_guest_is_named_from_the_table() -> None:
    answer = doctor("mi325x-vf-x8-ubuntu2404")
    amd = [g for g in answer["gpus"] if g["vendor"] == "amd"]
    assert len(amd) == 8
    assert {(g["name"], g["gfx"], g["arch"]) for g in amd} == {
        ("Instinct MI325X VF", "gfx942", "CDNA3")}


# -- 69A0-69AF: Vega 12 (gfx904) ----------------------------------------------------------------


@pytest.mark.parametrize("device", ["69a0", "69a1", "69a2", "69a3", "69af"])
def test_vega_12_ids_are_gfx904(kb: Knowledge, device: str) -> None:
    """libhsakmt's gfxip_lookup_table maps 69A0, 69A1, 69A2, 69A3 and 69AF to 9.0.4 (Vega12);
    libdrm has no names for them, the PCI ID repository calls them 'Vega 12' (69af: Radeon Pro
    Vega 20)."""
    row = kb.gpu_by_pci(f"1002:{device}", "c0")
    assert row is not None
    assert (row.gfx, row.arch, row.family, row.integrated) == ("gfx904", "GCN5", "Vega 12", False)
    assert "gfxip_lookup_table" in row.source


def test_vega_12_without_a_driver_is_not_an_unknown_card(tmp_path: Path) -> None:
    """No amdgpu, device 69af: the table gives gfx904, so the doctor says what ROCm thinks of
    gfx904 instead of 'target unknown'."""
    root = tmp_path / "m"
    shutil.copytree(MACHINES / "kfd-missing-ubuntu2204-server", root, symlinks=True)
    slot = root / "files/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"
    (slot / "device").write_text("0x69af\n")
    lspci = root / "commands/lspci_-nn.txt"
    lspci.write_text(lspci.read_text().replace("744c", "69af"))
    answer = doctor(root)
    [gpu] = [g for g in answer["gpus"] if g["vendor"] == "amd"]
    assert gpu["gfx"] == "gfx904"
    assert "gfx-unknown" not in {f["id"] for f in answer["findings"]}


# -- gfx940 / gfx941: what early MI300 kernels report ------------------------------------------


def _mi300x_reporting(tmp_path: Path, version: int) -> dict[str, Any]:
    root = tmp_path / "m"
    shutil.copytree(MACHINES / "mi300x-x4-ubuntu2204", root, symlinks=True)
    for props in root.glob("files/sys/devices/virtual/kfd/kfd/topology/nodes/*/properties"):
        text = props.read_text()
        props.write_text(text.replace("gfx_target_version 90402",
                                      f"gfx_target_version {version}"))
    return doctor(root)


@pytest.mark.parametrize(("version", "gfx"), [(90400, "gfx940"), (90401, "gfx941")])
def test_gfx940_and_gfx941_are_explained_as_mi300_targets(kb: Knowledge, tmp_path: Path,
                                                         version: int, gfx: str) -> None:
    """The kernel reported gfx940 (MI300A) / gfx941 (MI300X) for GC 9.4.3 engineering samples
    (revision 0) and, in its first MI300 version, gfx940 for every GC 9.4.3; production cards
    on current drivers report gfx942 (Linux kernel kfd_device.c; 'drm/amdkfd: Drop workaround
    for GC v9.4.3 revID 0', amd-gfx 2025-03-27). The doctor must say so, not 'not in rocmate's
    knowledge base' and 'use a supported card (... Instinct)'.

    Needs support.toml rows for gfx940 and gfx941 (support.toml is not k16d's file)."""
    support = kb.support_for(gfx)
    assert support is not None, f"support.toml has no row for {gfx}"
    assert "gfx942" in str(support.note)
    answer = _mi300x_reporting(tmp_path, version)
    amd = [g for g in answer["gpus"] if g["vendor"] == "amd"]
    assert {g["gfx"] for g in amd} == {gfx}
    texts = " ".join(f["title"] + " " + (f["detail"] or "") for f in answer["findings"])
    assert "not in rocmate's knowledge base" not in texts


# -- Steam Deck (gfx1033) with 10.3.0: silently wrong numbers -----------------------------------


def test_steam_deck_override_warns_of_wrong_results(kb: Knowledge) -> None:
    rule = kb.override_rule("gfx1033")
    assert rule is not None and rule.override == "10.3.0" and rule.confidence == "experimental"
    assert "unslothai/unsloth#8412" in rule.source
    assert "wrong" in str(rule.caveat).lower()
    assert "错误" in rule.caveat.translations["zh_CN"]


def test_the_doctor_tells_a_steam_deck_owner_the_numbers_can_be_wrong() -> None:
    answer = doctor("steamdeck-steamos")
    found = {f["id"]: f for f in answer["findings"]}
    detail = found["gfx-needs-override"]["detail"]
    assert "wrong" in detail and "CPU" in detail
    assert "expect failures" not in detail


# -- unknown AMD cards with <= 2 GiB are not "integrated" -------------------------------------


def test_r7_370_with_2_gib_is_a_discrete_card() -> None:
    """R7 370 (Curacao PRO, 1002:6811 rev 81), 2 GiB, KFD refused it: nothing says it is an
    APU, so it is not 'integrated' (it was, from its VRAM size alone)."""
    answer = doctor("pitcairn-r7-370-kfd-no-node")
    [gpu] = answer["gpus"]
    assert gpu["pci_id"] == "1002:6811" and gpu["vram_bytes"] == 2 * GIB
    assert gpu["integrated"] is False


def test_r7_370_text_shows_its_memory_not_integrated(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "doctor", "--root",
         str(MACHINES / "pitcairn-r7-370-kfd-no-node"), "--color", "never"],
        capture_output=True, text=True, check=False, timeout=60,
        env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    gpu_line = next(line for line in out.stdout.splitlines() if "1002:6811" in line)
    assert "integrated" not in gpu_line and "2 GiB" in gpu_line


def test_a_known_apu_is_still_integrated() -> None:
    """The table's rows still say which products are APUs (163F: Steam Deck)."""
    answer = doctor("steamdeck-steamos")
    [gpu] = answer["gpus"]
    assert gpu["integrated"] is True


def test_an_unknown_amd_card_in_a_kfd_apu_node_is_integrated(tmp_path: Path) -> None:
    """A device id the table lacks, on a KFD node that has CPU cores as well as SIMDs (how the
    HSA runtime tells an APU node): integrated."""
    root = tmp_path / "m"
    shutil.copytree(MACHINES / "steamdeck-steamos", root, symlinks=True)
    for path in root.glob("files/sys/devices/**/device"):
        if path.is_file() and path.read_text().strip() == "0x163f":
            path.write_text("0x13fe\n")  # not in gpus.toml
    nodes = root.glob("files/sys/devices/virtual/kfd/kfd/topology/nodes/*/properties")
    props = next(p for p in nodes if "device_id 5695" in p.read_text())
    props.write_text(props.read_text().replace("device_id 5695", "device_id 5118")
                     .replace("cpu_cores_count 0", "cpu_cores_count 4"))
    answer = doctor(root)
    [gpu] = answer["gpus"]
    assert gpu["pci_id"] == "1002:13fe" and gpu["integrated"] is True


# -- the table still loads and the machines still replay ---------------------------------------


def test_fixture_machine_files_parse() -> None:
    machine = MACHINES / "k16d-wsl2-rx9060xt-no-rocm"
    assert json.loads((machine / "env.json").read_text())["WSL_DISTRO_NAME"]
    assert (machine / "SOURCE.md").is_file() and (machine / "expected.toml").is_file()
