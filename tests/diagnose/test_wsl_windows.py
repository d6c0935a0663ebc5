"""The Windows side of WSL 2, read and judged (issue 33, item 3), and PyTorch on Windows itself
(item 4), on recorded WSL machines built from public threads (their SOURCE.md names them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.diagnose.finding import Finding
from core.knowledge.loader import load_knowledge
from core.knowledge.wsl_routes import load_wsl_table
from core.probe.parse.windows import parse_adrenalin
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
OLD_ADRENALIN = "k33-wsl2-ubuntu2204-rx7700xt-adrenalin-24"  # ROCm/legacy-rocm-build#4215
STRIX_HALO = "k33-wsl2-ubuntu2404-strix-halo-8060s"  # andweng/wsl-rocm, legacy-rocm-build#5509
WINDOWS_10 = "k33-wsl2-ubuntu2604-rx9060xt-win10-igpu"  # ROCm/legacy-rocm-build#6323
RX6800S = "k33-wsl2-ubuntu2204-rx6800s-laptop"  # ROCm/legacy-rocm-build#4215, second poster
OLD_SNAPSHOT = "wsl2-ubuntu2204-rx7900xtx-ready"  # recorded before the registry was read


def _doctor(machine: str):  # type: ignore[no-untyped-def]
    return run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False)


def _finding(machine: str, finding_id: str) -> Finding | None:
    return next((f for f in _doctor(machine).findings if f.id == finding_id), None)


@pytest.mark.parametrize(("text", "version"), [
    ("26.2.2\r\n", "26.2.2"),
    ("\ufeff25.5.1\n", "25.5.1"),  # a byte-order mark before it
    ("  24.12.1  \n", "24.12.1"),
    ("", None),
    ("Get-ItemProperty : Cannot find path 'HKLM:\\SOFTWARE\\AMD\\CN'\r\n", None),
    ("32.0.12033.1030\r\n", None),  # a WDDM version is not Adrenalin's
])
def test_the_adrenalin_version_from_the_registry(text: str, version: str | None) -> None:
    assert parse_adrenalin(text) == version


def test_the_windows_facts_of_a_replayed_machine() -> None:
    windows = _doctor(OLD_ADRENALIN).facts.windows
    assert windows is not None and windows.checked
    assert windows.adrenalin == "24.12.1"
    assert windows.windows_version == "10.0.26100.2605" and windows.windows_build == 26100
    assert windows.wslconfig_memory_bytes == 8 << 30
    data = windows.to_json()
    assert data["adrenalin"] == "24.12.1" and data["windows_build"] == 26100
    assert data["wslconfig_memory_bytes"] == 8 << 30


def test_an_older_snapshot_replays_as_not_known() -> None:
    """No registry answer recorded: the Adrenalin version is not known, never "too old"."""
    report = _doctor(OLD_SNAPSHOT)
    assert report.facts.windows is not None and report.facts.windows.adrenalin is None
    assert report.facts.windows.windows_build == 22631  # its wsl --version (Chinese labels)
    ids = [f.id for f in report.findings]
    assert "wsl-adrenalin-unknown" in ids and "wsl-adrenalin-old" not in ids


def test_an_adrenalin_below_the_minimum_is_an_error() -> None:
    found = _finding(OLD_ADRENALIN, "wsl-adrenalin-old")
    assert found is not None and found.severity == "error"
    assert "24.12.1" in found.title and "26.2.2" in found.title and "ROCm 10.1" in found.title
    assert "unverified" in found.detail  # AMD's own minimum for 10.1 was not read
    assert "wsl --shutdown" in found.fix and "amd.com" in found.fix


def test_an_adrenalin_at_the_minimum_or_newer_is_ok() -> None:
    for machine in (STRIX_HALO, WINDOWS_10):
        found = _finding(machine, "wsl-adrenalin-ok")
        assert found is not None and found.severity == "ok"
        assert _finding(machine, "wsl-adrenalin-old") is None


def test_windows_10_and_an_integrated_gpu_beside_the_card() -> None:
    old = _finding(WINDOWS_10, "wsl-windows-10")
    assert old is not None and old.severity == "error" and "10.0.19045.6456" in old.title
    igpu = _finding(WINDOWS_10, "wsl-windows-igpu")
    assert igpu is not None and igpu.severity == "warning"
    assert "AMD Radeon(TM) Graphics" in igpu.title and "RX 9060 XT" in igpu.title
    assert _finding(STRIX_HALO, "wsl-windows-igpu") is None  # the APU alone is the card
    assert _finding(STRIX_HALO, "wsl-windows-10") is None


def test_wslconfig_memory_below_the_vram() -> None:
    found = _finding(OLD_ADRENALIN, "wsl-memory-below-vram")
    assert found is not None and found.severity == "warning"
    assert "memory=12GB" in found.fix
    assert _finding(STRIX_HALO, "wsl-memory-below-vram") is None  # an APU: no VRAM to compare


@pytest.mark.parametrize("machine", [OLD_ADRENALIN, STRIX_HALO, WINDOWS_10])
def test_pytorch_on_windows_itself_for_a_card_on_the_list(machine: str) -> None:
    found = _finding(machine, "windows-native-pytorch")
    assert found is not None and found.severity == "info"
    assert "HSA_OVERRIDE_GFX_VERSION" in found.detail and "WSL or Linux only" in found.detail
    assert "unverified" in found.detail
    gfx = _doctor(machine).facts.gpus.gpus[-1].gfx
    lines = found.fix.splitlines()
    assert lines[0] == "In PowerShell on Windows:"
    assert any(f'"torch[device-{gfx}]"' in line for line in lines)
    assert any("https://stable.repo.amd.com/rocm/whl-next/" in line for line in lines)
    assert lines[1].startswith("py -3.12 -m venv")


def test_no_windows_words_for_a_card_not_on_the_list() -> None:
    report = _doctor(RX6800S)
    ids = [f.id for f in report.findings]
    assert "windows-native-pytorch" not in ids
    assert "wsl-gpu-unsupported" in ids and report.verdict == "Not supported"


def test_every_route_names_a_release_rocm_toml_knows() -> None:
    kb, table = load_knowledge(), load_wsl_table()
    for route in table.routes:
        assert kb.release(route.rocm) is not None, route.rocm
        # the variable only before 7.13, where ROCm turned DXG detection on by default
        assert route.dxg_detection == (tuple(map(int, route.rocm.split("."))) < (7, 13))
    assert table.route("7.2") is not None and table.route("7.2").runtime_swap  # type: ignore
    assert not any(r.runtime_swap for r in table.routes if r.method == "core-sdk")
    assert {"26.04", "24.04", "22.04"} <= set(table.route("10.1").ubuntu)  # type: ignore


def test_the_windows_steps_are_labelled_steps_not_fix(chinese: None) -> None:
    """Nothing is wrong where PyTorch also runs on Windows: its PowerShell steps read "Steps:",
    while the findings that need action keep "Fix:" (English, then Chinese)."""
    from core.diagnose.doctor_text import render_text
    from core.i18n import set_language
    from core.termstyle import Style

    for lang, steps, fix in (("en", "Steps:", "Fix:"), ("zh_CN", "操作步骤：", "解决办法：")):
        set_language(lang)  # the fixture sets English again after the test
        lines = render_text(_doctor(STRIX_HALO), Style(False)).splitlines()
        at = next(i for i, line in enumerate(lines) if "Windows" in line and line[:1] == "i")
        below = next(line.strip() for line in lines[at + 1:] if line.startswith("    ")
                     and line.strip().startswith((steps, fix)))
        assert below.startswith(steps)
        assert any(line.strip().startswith(fix) for line in lines)  # WSL's ROCm still to fix
