"""Probe fixes from a review: a WSL card is named by its whole Windows adapter name, an
HSA_OVERRIDE_GFX_VERSION value with anything after the stepping is invalid (as ROCm's runtime
sees it), and the RX 9070 GRE row's VRAM."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.diagnose.doctor import run_doctor
from core.knowledge.loader import load_knowledge
from core.knowledge.vendors import load_vendors
from core.probe.environment import probe_environment
from core.probe.gpus import GIB, probe_gpus
from core.probe.parse.kfd import override_to_gfx, parse_gfx_override
from core.probe.parse.windows import WinGpu
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
WSL_MACHINE = "wsl2-ubuntu2204-rx7900xtx-ready"
WSL_ADAPTER = "AMD Radeon RX 7900 XTX"
AMD = "Advanced Micro Devices, Inc."

# -- WSL: the card from the Windows adapter name ---------------------------------------------

# (Windows adapter name, the row it must name, gfx, VRAM in GiB from the row)
NAMED = [
    ("AMD Radeon RX 7600 XT", "Radeon RX 7600 XT", "gfx1102", 16),  # was RX 7600 (8 GiB)
    ("AMD Radeon RX 7600", "Radeon RX 7600", "gfx1102", 8),
    ("AMD Radeon RX 6800M", "Radeon RX 6800M", "gfx1031", None),  # was RX 6800 (gfx1030)
    ("AMD Radeon RX 6800S", "Radeon RX 6800S", "gfx1032", None),  # was RX 6800
    ("AMD Radeon RX 6800", "Radeon RX 6800", "gfx1030", 16),
    ("AMD Radeon RX 6800 XT", "Radeon RX 6800 XT", "gfx1030", 16),
    ("AMD Radeon RX 7700S", "Radeon RX 7700S", "gfx1102", None),  # was RX 7700 (gfx1101)
    ("AMD Radeon RX 7700", "Radeon RX 7700", "gfx1101", 16),
    ("AMD Radeon RX 7600M XT", "Radeon RX 7600M XT", "gfx1102", None),  # was RX 7600
    ("AMD Radeon RX 9070 GRE", "Radeon RX 9070 GRE", "gfx1201", None),  # was RX 9070
    ("AMD Radeon RX 7900 XTX", "Radeon RX 7900 XTX", "gfx1100", 24),
    ("AMD Radeon(TM) RX 6800M", "Radeon RX 6800M", "gfx1031", None),  # trademark mark
    ("AMD Radeon PRO W7900", "Radeon Pro W7900", "gfx1100", 48),  # case
]
# Adapter names with no row of their own: unknown, never another card's row.
UNKNOWN = [
    "AMD Radeon RX 6850M XT",  # Navi 22, not in gpus.toml: not RX 6800M, not RX 6800
    "AMD Radeon RX 6750 GRE",  # the 10 GB and 12 GB cards are different chips
    "AMD Radeon(TM) Graphics",  # what Windows calls many APUs
    "",
]


@pytest.mark.parametrize(("adapter", "row_name", "gfx", "vram_gib"), NAMED)
def test_row_by_whole_name(adapter: str, row_name: str, gfx: str, vram_gib: int | None) -> None:
    row = load_knowledge().gpu_by_name(adapter, vendor="amd")
    assert row is not None and row.name == row_name
    assert row.gfx == gfx
    if vram_gib is not None:
        assert row.vram_gib == vram_gib


@pytest.mark.parametrize("adapter", UNKNOWN)
def test_no_row_for_a_card_the_table_lacks(adapter: str) -> None:
    assert load_knowledge().gpu_by_name(adapter, vendor="amd") is None


@pytest.mark.parametrize(("adapter", "row_name", "gfx", "vram_gib"), NAMED)
def test_windows_adapter_through_probe_gpus(tmp_path: Path, adapter: str, row_name: str,
                                            gfx: str, vram_gib: int | None) -> None:
    # No KFD, no PCI sysfs, no rocminfo: only Windows names the card.
    facts = probe_gpus(SnapshotSystem(tmp_path), load_knowledge(), load_vendors(),
                       windows=(WinGpu(adapter, "32.0.11021.1011", AMD),))
    [gpu] = facts.gpus
    assert (gpu.vendor, gpu.gfx, gpu.sources) == ("amd", gfx, ("windows",))
    assert gpu.name == row_name
    if vram_gib is not None:
        assert gpu.vram_bytes == vram_gib * GIB


def test_unknown_windows_adapter_stays_unknown(tmp_path: Path) -> None:
    facts = probe_gpus(SnapshotSystem(tmp_path), load_knowledge(), load_vendors(),
                       windows=(WinGpu("AMD Radeon RX 6850M XT", "32.0.11021.1011", AMD),))
    [gpu] = facts.gpus
    assert (gpu.name, gpu.gfx, gpu.vram_bytes, gpu.arch) == ("Radeon RX 6850M XT", None, None, None)


def wsl_replay(tmp_path: Path, adapter: str) -> dict[str, Any]:
    """The WSL fixture with Windows reporting ``adapter`` and no rocminfo (ROCm's WSL runtime
    not working yet), so the Windows adapter name is all that identifies the card."""
    root = tmp_path / WSL_MACHINE
    shutil.copytree(MACHINES / WSL_MACHINE, root, symlinks=True)
    (root / "commands" / "rocminfo.txt").unlink()
    [adapters] = (root / "commands").glob("powershell.exe_*Win32_VideoController*.txt")
    text = adapters.read_text(encoding="utf-8")
    assert WSL_ADAPTER in text
    adapters.write_text(text.replace(WSL_ADAPTER, adapter), encoding="utf-8")
    torch = json.loads((root / "torch.json").read_text(encoding="utf-8"))
    torch["devices"] = [adapter]
    (root / "torch.json").write_text(json.dumps(torch), encoding="utf-8")
    return run_doctor(SnapshotSystem(root)).to_json()


def test_wsl_replay_rx_6800m_is_gfx1031_and_needs_the_override(tmp_path: Path) -> None:
    answer = wsl_replay(tmp_path, "AMD Radeon RX 6800M")
    [gpu] = answer["gpus"]
    assert (gpu["name"], gpu["gfx"], gpu["vram_bytes"]) == ("Radeon RX 6800M", "gfx1031", None)
    assert gpu["support"]["status"] == "override"
    assert gpu["support"]["override"] == "10.3.0"
    assert "gfx-needs-override" in {f["id"] for f in answer["findings"]}


def test_wsl_replay_rx_7600_xt_has_16_gib(tmp_path: Path) -> None:
    answer = wsl_replay(tmp_path, "AMD Radeon RX 7600 XT")
    [gpu] = answer["gpus"]
    assert (gpu["name"], gpu["gfx"]) == ("Radeon RX 7600 XT", "gfx1102")
    assert gpu["vram_bytes"] == 16 * GIB


def test_wsl_replay_unknown_card_takes_no_other_cards_facts(tmp_path: Path) -> None:
    answer = wsl_replay(tmp_path, "AMD Radeon RX 6850M XT")
    [gpu] = answer["gpus"]
    assert (gpu["name"], gpu["gfx"], gpu["vram_bytes"]) == ("Radeon RX 6850M XT", None, None)


def test_wsl_replay_recorded_adapter_unchanged(tmp_path: Path) -> None:
    answer = wsl_replay(tmp_path, WSL_ADAPTER)
    [gpu] = answer["gpus"]
    assert (gpu["name"], gpu["gfx"], gpu["vram_bytes"]) == ("Radeon RX 7900 XTX", "gfx1100",
                                                           24 * GIB)


# -- HSA_OVERRIDE_GFX_VERSION: libhsakmt's sscanf("%u.%u.%u%c") must match exactly 3 fields ---


@pytest.mark.parametrize(
    ("value", "fields", "gfx"),
    [
        ("10.3.0", (10, 3, 0), "gfx1030"),
        ("11.0.0", (11, 0, 0), "gfx1100"),
        (" 10.3.0", (10, 3, 0), "gfx1030"),  # %u skips leading whitespace
        ("10.3.0\r", None, None),  # CRLF shell file: %c takes the CR, 4 fields, runtime refuses
        ("10.3.0 ", None, None),
        ("10.3.0\n", None, None),
        ("10.3.0\r\n", None, None),
        ("10.3", None, None),
    ],
)
def test_override_value(value: str, fields: tuple[int, int, int] | None, gfx: str | None) -> None:
    assert parse_gfx_override(value) == fields
    assert override_to_gfx(value) == gfx


def override_replay(tmp_path: Path, value: str) -> tuple[SnapshotSystem, dict[str, Any]]:
    machine = "rx6700xt-override-etc-environment"  # an RX 6700 XT that needs 10.3.0
    root = tmp_path / machine
    shutil.copytree(MACHINES / machine, root, symlinks=True)
    env = json.loads((root / "env.json").read_text(encoding="utf-8"))
    env["HSA_OVERRIDE_GFX_VERSION"] = value
    (root / "env.json").write_text(json.dumps(env), encoding="utf-8")
    system = SnapshotSystem(root)
    return system, run_doctor(system).to_json()


def test_override_with_a_carriage_return_is_not_a_valid_value(tmp_path: Path) -> None:
    system, answer = override_replay(tmp_path, "10.3.0\r")
    # The environment probe hands the value on as the process has it, CR included.
    env = probe_environment(system, system.user())
    assert env.values["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0\r"
    found = {f["id"]: f for f in answer["findings"]}
    assert "override-ok" not in found
    assert found["override-wrong"]["severity"] == "error"
    assert "not a valid value" in found["override-wrong"]["detail"]


def test_override_without_trailing_characters_is_fine(tmp_path: Path) -> None:
    _, answer = override_replay(tmp_path, "10.3.0")
    ids = {f["id"] for f in answer["findings"]}
    assert "override-ok" in ids and "override-wrong" not in ids


# -- gpus.toml: RX 9070 GRE ------------------------------------------------------------------


def test_rx_9070_gre_row() -> None:
    """AMD's spec table (SPECS) says 16 GiB; the retail card is reported as 12 GB, which the
    research notes (rocm-facts 1.5 row 29, section 8) still mark [UNVERIFIED]. The row may say
    12 only with a source, and may keep 16 only with that doubt written next to it."""
    row = load_knowledge().gpu_by_pci("1002:7550", "c2")
    assert row is not None
    assert (row.name, row.gfx, row.arch) == ("Radeon RX 9070 GRE", "gfx1201", "RDNA4")
    assert row.vram_gib in (12, 16)
    if row.vram_gib == 16:
        assert row.note is not None and "12 GB" in row.note and "[UNVERIFIED]" in row.note
    else:  # 12 needs a source beyond SPECS, which says 16
        assert row.source != "IDS, SPECS"


# --- a start-up file saved with Windows line endings ---------------------------------------------


def test_a_crlf_startup_file_gives_the_value_with_its_carriage_return() -> None:
    from core.probe.environment import scan_file

    text = 'export HSA_OVERRIDE_GFX_VERSION="10.3.0"\r\nexport HIP_VISIBLE_DEVICES=0\n'
    found = [(s.name, s.value, s.line) for s in scan_file("/home/a/.bashrc", text)]
    assert found == [("HSA_OVERRIDE_GFX_VERSION", "10.3.0\r", 1), ("HIP_VISIBLE_DEVICES", "0", 2)]


def test_the_doctor_names_a_carriage_return_in_an_override(tmp_path: Path) -> None:
    """An RX 6700 XT whose ~/.bashrc (saved on Windows) sets 10.3.0\\r: bash exports it with the
    CR, the runtime refuses it; the doctor shows it escaped and says why."""
    import json
    import shutil

    from core.diagnose.doctor import run_doctor
    from core.system import SnapshotSystem

    root = tmp_path / "m"
    machines = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
    shutil.copytree(machines / "rx6700xt-override-etc-environment", root, symlinks=True)
    env = json.loads((root / "env.json").read_text())
    (root / "env.json").write_text(json.dumps(env | {"HSA_OVERRIDE_GFX_VERSION": "10.3.0\r"}))
    bashrc = root / "files/home/alice/.bashrc"
    bashrc.parent.mkdir(parents=True, exist_ok=True)
    bashrc.write_bytes(b"export HSA_OVERRIDE_GFX_VERSION=10.3.0\r\n")
    found = {f["id"]: f for f in run_doctor(SnapshotSystem(root)).to_json()["findings"]}
    wrong = found["override-wrong"]
    assert wrong["title"].startswith("HSA_OVERRIDE_GFX_VERSION=10.3.0\\r does not fit")
    assert "Windows line endings" in wrong["detail"] and ".bashrc line 1" in wrong["detail"]


def test_wsl_replay_rdna2_is_not_on_the_wsl_list(tmp_path: Path) -> None:
    """An RX 6800 XT (gfx1030, official on native Linux) under WSL 2: AMD's WSL list (ROCm 10.x
    wsl_targets) leaves RDNA2 out and users see no GPU in rocminfo there (ROCm/ROCm#5030)."""
    answer = wsl_replay(tmp_path, "AMD Radeon RX 6800 XT")
    found = {f["id"]: f for f in answer["findings"]}
    assert found["wsl-gpu-unsupported"]["title"] == (
        "Radeon RX 6800 XT (gfx1030) is not on AMD's list for ROCm on WSL 2")
    assert answer["verdict"] == "Not supported"
    answer = wsl_replay(tmp_path / "b", WSL_ADAPTER)  # the RX 7900 XTX is on it
    assert "wsl-gpu-unsupported" not in {f["id"] for f in answer["findings"]}
