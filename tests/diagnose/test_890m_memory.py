"""Issue 35 on a Radeon 890M (Strix Point, gfx1150) whose memory facts are all public: the
recorded machine ``k35-strix-point-890m-nixos-64g-default-gtt``, built from the fixtures
noamsto/nix-amd-ai copied from its 64 GB Strix Point host (pkgs/benchmark-go/internal/hw/testdata:
/proc/meminfo, mem_info_vram_total, mem_info_gtt_total, amdgpu_top --json) and the ROCm
llama.cpp logs of the same host (bench-logs/rocwmma-2026-05-19: 'VRAM: 27935 MiB').

The facts (RAM, carve-out, GTT and its source), the advice numbers, and the advice's wording on
NixOS, where /etc/modprobe.d is made from the system configuration (boot.extraModprobeConfig), so
rocmate tells the configuration line and does not write the file itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core import i18n
from core.cli import main
from core.diagnose.doctor import DoctorReport, run_doctor
from core.diagnose.memory_advice import ENOUGH, RAISE, advise
from core.operations.memory import memory_advice, memory_goal, plan_memory
from core.probe.memory import DEFAULT, MemoryFacts
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
STRIX_POINT_64G = MACHINES / "k35-strix-point-890m-nixos-64g-default-gtt"  # noamsto/nix-amd-ai
PHOENIX_TTM80 = MACHINES / "k35-phoenix-780m-arch-ttm80"  # ollama/ollama#2637 (Arch)
GIB = 1 << 30
MIB = 1 << 20

# The host's own numbers (noamsto/nix-amd-ai at 6968659, pkgs/benchmark-go/internal/hw/testdata)
MEMTOTAL_KB = 57212812
MEMAVAILABLE_KB = 24662244
CARVE_OUT = 8589934592  # mem_info_vram_total; amdgpu_top 'Total VRAM': 8192 MiB
GTT = 29292957696  # mem_info_gtt_total; amdgpu_top 'Total GTT': 27935 MiB
HIP_VRAM_MIB = 27935  # bench-logs/rocwmma-2026-05-19: ggml_cuda_init '... VRAM: 27935 MiB'


def _report() -> DoctorReport:
    return run_doctor(SnapshotSystem(STRIX_POINT_64G))


def _memory(report: DoctorReport) -> MemoryFacts:
    found = [g.memory for g in report.facts.gpus.gpus if g.memory is not None]
    assert len(found) == 1
    return found[0]


def test_the_recorded_files_are_the_hosts_own() -> None:
    gpu = STRIX_POINT_64G / "files/sys/devices/pci0000:00/0000:00:01.1/0000:c4:00.0"
    assert (gpu / "mem_info_vram_total").read_text() == f"{CARVE_OUT}\n"
    assert (gpu / "mem_info_gtt_total").read_text() == f"{GTT}\n"
    meminfo = (STRIX_POINT_64G / "files/proc/meminfo").read_text()
    assert f"MemTotal:       {MEMTOTAL_KB} kB" in meminfo
    assert f"MemAvailable:   {MEMAVAILABLE_KB} kB" in meminfo
    # amdgpu_top's own rounding of the two sysfs files
    assert CARVE_OUT // MIB == 8192 and GTT // MIB == HIP_VRAM_MIB


def test_facts_ram_carve_out_and_default_gtt() -> None:
    report = _report()
    gpu = next(g for g in report.facts.gpus.gpus if g.memory is not None)
    assert gpu.gfx == "gfx1150" and gpu.integrated
    memory = _memory(report)
    assert memory.system.ram_bytes == MEMTOTAL_KB * 1024
    assert memory.system.available_bytes == MEMAVAILABLE_KB * 1024
    assert memory.vram_bytes == CARVE_OUT
    assert memory.gtt_bytes == GTT
    # nothing configured, no ttm parameter posted: GTT is the kernel's half of RAM, to the page
    assert memory.system.configured == () and memory.system.pages_limit is None
    assert memory.gtt_source == DEFAULT
    assert GTT == (MEMTOTAL_KB * 1024 // 2) // 4096 * 4096
    # what the GPU can use is GTT, the figure HIP reports for this host (llama.cpp's 27935 MiB)
    assert memory.usable_bytes == GTT
    assert memory.usable_bytes // MIB == HIP_VRAM_MIB
    assert memory.torch_total_bytes is None  # no PyTorch on this host's public outputs


def test_doctor_findings() -> None:
    report = _report()
    ids = [f.id for f in report.findings]
    assert "apu-memory" in ids and "apu-memory-low" in ids
    assert "apu-gttsize-deprecated" not in ids and "apu-memory-conflict" not in ids
    info = next(f for f in report.findings if f.id == "apu-memory")
    assert "27.3 GiB of 54.6 GiB of RAM" in info.title
    assert "Physical RAM (MemTotal): 54.6 GiB; available now (MemAvailable): 23.5 GiB." \
        in info.detail
    assert "BIOS carve-out (VRAM): 8.0 GiB." in info.detail
    assert "27.3 GiB, set by the kernel's default (half of RAM)" in info.detail


def test_advice_numbers() -> None:
    report = _report()
    advice = advise("890M", _memory(report))
    ram = MEMTOTAL_KB * 1024
    # the floor: an eighth of RAM (6.8 GiB) is below the 8 GiB least, so 8 GiB stays
    assert advice.floor_bytes == 8 * GIB
    assert advice.safe_bytes == ram - 8 * GIB
    assert advice.verdict == RAISE
    assert advice.target_gib == 46  # floor(54.56 - 8) GiB
    assert advice.pages == 46 * 262144 == 12058624
    low = next(f for f in report.findings if f.id == "apu-memory-low")
    assert low.title == ("The GPU can use only 27.3 GiB of 54.6 GiB of RAM; it could safely "
                         "have 46.6 GiB")


def test_a_goal_the_default_gtt_already_covers() -> None:
    # the host's README: the default ~27 GB 'covers the 17-22 GB models this flake targets'
    report = _report()
    assert memory_advice(report, None).advices[0].verdict == RAISE
    advice = memory_advice(report, memory_goal(llm_gb=17)).advices[0]
    assert advice.verdict == ENOUGH and advice.target_gib is None


def test_how_to_set_on_nixos_is_the_configuration() -> None:
    report = _report()
    assert report.facts.platform.distro_id == "nixos"
    advice = memory_advice(report).advices[0]
    how = next(n for n in advice.notes if n.key == "how-to-set")
    assert "boot.extraModprobeConfig" in how.text
    assert "options ttm pages_limit=12058624 page_pool_size=12058624" in how.text
    assert "nixos-rebuild boot" in how.text
    assert "/etc/modprobe.d/ttm.conf" not in how.text
    assert "modprobe.nix" in how.source and "noamsto/nix-amd-ai" in how.source
    low = next(f for f in report.findings if f.id == "apu-memory-low")
    assert "boot.extraModprobeConfig" in low.fix and "/etc/modprobe.d/ttm.conf" not in low.fix


def test_how_to_set_elsewhere_is_still_a_modprobe_file() -> None:
    report = run_doctor(SnapshotSystem(PHOENIX_TTM80))
    advice = memory_advice(report).advices[0]
    how = next(n for n in advice.notes if n.key == "how-to-set")
    assert "/etc/modprobe.d/ttm.conf" in how.text and "nixos" not in how.text.lower()


def test_the_plan_does_not_write_into_a_nixos_etc() -> None:
    report = memory_advice(_report())
    plan = plan_memory(report, root=STRIX_POINT_64G)
    assert plan.steps == ()
    assert plan.blocked is not None
    assert "boot.extraModprobeConfig" in plan.blocked
    assert "pages_limit=12058624" in plan.blocked and "nixos-rebuild boot" in plan.blocked
    asked = plan_memory(report, gib=30, root=STRIX_POINT_64G)
    assert asked.blocked is not None and "pages_limit=7864320" in asked.blocked
    too_big = plan_memory(report, gib=50, root=STRIX_POINT_64G)
    assert too_big.blocked is not None and "50 GiB cannot be given" in too_big.blocked


def test_the_nixos_advice_in_chinese() -> None:
    i18n.set_language("zh_CN")
    try:
        advice = memory_advice(_report()).advices[0]
        plan = plan_memory(memory_advice(_report()), root=STRIX_POINT_64G)
    finally:
        i18n.set_language(None)
    how = next(n for n in advice.notes if n.key == "how-to-set")
    assert "boot.extraModprobeConfig" in how.text and "nixos-rebuild boot" in how.text
    assert any("\u4e00" <= c <= "\u9fff" for c in how.text)
    assert plan.blocked is not None and any("\u4e00" <= c <= "\u9fff" for c in plan.blocked)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    capsys.readouterr()
    main([*args, "--json"])
    return json.loads(capsys.readouterr().out)


def test_memory_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "memory", "--root", str(STRIX_POINT_64G))
    gpu = doc["gpus"][0]
    assert gpu["ram_bytes"] == MEMTOTAL_KB * 1024
    assert gpu["memory"]["vram_bytes"] == CARVE_OUT
    assert gpu["memory"]["gtt_bytes"] == GTT and gpu["memory"]["gtt_source"] == "default"
    assert gpu["usable_bytes"] == GTT
    assert gpu["target_gib"] == 46 and gpu["pages_limit"] == 12058624
