"""Issue 35: an APU's GPU memory in the doctor and in ``rocmate memory``: the facts (RAM, carve-out,
GTT and where it comes from, ttm in force and configured, what PyTorch reported), the findings, and
the advice with its numbers, on recorded machines built from public outputs (each test names its
source) and on public texts for the parsers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from core.diagnose.doctor import DoctorReport, run_doctor
from core.diagnose.memory_advice import ENOUGH, RAISE, TOO_BIG, UNKNOWN, Goal, advise
from core.diagnose.rules_memory import conflicts
from core.knowledge.apu_memory import load_apu_memory
from core.operations.errors import OperationError
from core.operations.memory import memory_advice, memory_goal
from core.probe.gpus import Gpu
from core.probe.memory import (
    DEFAULT,
    GTTSIZE,
    PAGES_LIMIT,
    MemoryFacts,
    Setting,
    SystemMemory,
    gtt_source,
    probe_system_memory,
)
from core.probe.parse.memory import (
    parse_cmdline_options,
    parse_meminfo,
    parse_modprobe_options,
    parse_wslconfig_memory,
)
from core.probe.torch import torch_facts_from_json
from core.snapshot import RecordingSystem
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
GIB = 1 << 30
HALO_GTTSIZE = MACHINES / "k35-strix-halo-128g-gttsize-torch62"  # unslothai/unsloth#7960
HALO_TTM96 = MACHINES / "k35-strix-halo-128g-ttm96-cmdline"  # noamsto/nix-amd-ai#42
PHOENIX_TTM80 = MACHINES / "k35-phoenix-780m-arch-ttm80"  # ollama/ollama#2637
STRIX_POINT_TWO = MACHINES / "k35-strix-point-890m-debian13-gttsize-ttm56"  # llama.cpp#19818


def _report(machine: Path) -> DoctorReport:
    return run_doctor(SnapshotSystem(machine))


def _memory(report: DoctorReport) -> MemoryFacts:
    found = [g.memory for g in report.facts.gpus.gpus if g.memory is not None]
    assert len(found) == 1
    return found[0]


def _ids(report: DoctorReport) -> list[str]:
    return [f.id for f in report.findings]


# -- parsers, on public texts -------------------------------------------------------------------

def test_meminfo_in_bytes() -> None:
    found = parse_meminfo("MemTotal:       130988113 kB\nMemAvailable:   1000 kB\n"
                          "HugePages_Total:       0\nnot a line\n")
    assert found == {"MemTotal": 130988113 * 1024, "MemAvailable": 1024000,
                     "HugePages_Total": 0}


def test_modprobe_file_of_a_public_thread() -> None:
    # rjmalagon/ollama-linux-amd-apu#4: /etc/modprobe.d/ttm.conf for 48 GiB
    text = ("# nb of pages 4k, for 48Gb\noptions ttm pages_limit=12582912\n"
            "options ttm page_pool_size=12582912\n")
    assert parse_modprobe_options(text) == [("ttm", "pages_limit", "12582912"),
                                            ("ttm", "page_pool_size", "12582912")]
    # HarbourMasters/Shipwright#6048: ttm and the deprecated amdgpu gttsize in one file
    assert parse_modprobe_options("options ttm pages_limit=1048576\noptions amdgpu "
                                  "gttsize=8192\n") == [("ttm", "pages_limit", "1048576"),
                                                        ("amdgpu", "gttsize", "8192")]
    assert parse_modprobe_options("options ttm \\\n  pages_limit=5 # note\n") == [
        ("ttm", "pages_limit", "5")]
    assert parse_modprobe_options("options snd_hda_intel power_save=0\n") == []


def test_kernel_command_lines_of_public_threads() -> None:
    # ROCm/legacy-rocm-build#5595: a misspelt parameter the kernel ignores
    line = ("BOOT_IMAGE=/boot/vmlinuz-6.14.0-1014-oem "
            "root=UUID=d55f0c3f-88f5-4c65-a93a-285c1a30361c"
            " ro quiet splash amdgpu.gtt_size=122880 vt.handoff=7")
    assert parse_cmdline_options(line) == [("amdgpu", "gtt_size", "122880")]
    # ROCm/legacy-rocm-build#5562: AMD's DKMS module amdttm
    assert parse_cmdline_options("ro amdgpu.gttsize=128000 amdttm.pages_limit=32768000 "
                                 "amdttm.page_pool_size=32768000") == [
        ("amdgpu", "gttsize", "128000"), ("amdttm", "pages_limit", "32768000"),
        ("amdttm", "page_pool_size", "32768000")]


def test_wslconfig_memory() -> None:
    # learn.microsoft.com/windows/wsl/wsl-config: the example .wslconfig
    assert parse_wslconfig_memory("[wsl2]\nmemory=4GB \nprocessors=2\n") == 4 * GIB
    assert parse_wslconfig_memory("[wsl2]\nmemory=512MB\n") == 512 << 20
    assert parse_wslconfig_memory("[experimental]\nmemory=4GB\n") is None
    assert parse_wslconfig_memory("[wsl2]\nprocessors=2\n") is None


def test_torch_answer_total_memory() -> None:
    facts = torch_facts_from_json({"version": "2.13.0a0", "hip": "7.13", "available": True,
                                   "devices": ["x"], "total_memory": [67076651745, "x", -1]})
    assert facts is not None and facts.total_memory == (67076651745, None, None)
    old = torch_facts_from_json({"version": "2.5.1+rocm6.2", "devices": []})
    assert old is not None and old.total_memory == ()


def test_ttm_arithmetic() -> None:
    table = load_apu_memory()
    # noamsto/nix-amd-ai#42: pages_limit=25165824 gives mem_info_gtt_total 103079215104 (96 GiB)
    assert table.pages(96) == 25165824
    assert table.pages(96) * table.page_bytes == 103079215104
    # ROCm/rocm-systems#351: 48 GiB = 12582912 pages
    assert table.pages(48) == 12582912


# -- recorded machines --------------------------------------------------------------------------

def test_strix_halo_with_gttsize_and_torch_at_half() -> None:
    """unslothai/unsloth#7960 (review of 2026-08-09): 124.92 GiB of RAM, 0.50 GiB carve-out, GTT
    128 GiB from amdgpu.gttsize=131072, and PyTorch reports 62.47 GiB."""
    report = _report(HALO_GTTSIZE)
    memory = _memory(report)
    assert memory.system.ram_bytes == round(124.92 * (1 << 20)) * 1024
    assert memory.vram_bytes == 512 << 20
    assert memory.gtt_bytes == 128 * GIB
    assert memory.gtt_source == GTTSIZE
    assert memory.system.configured == (
        Setting("amdgpu", "gttsize", "131072", "/proc/cmdline"),)
    assert memory.torch_total_bytes == round(62.47 * GIB)
    assert memory.usable_bytes == round(62.47 * GIB)
    ids = _ids(report)
    assert {"apu-memory", "apu-memory-low", "apu-gttsize-deprecated",
            "apu-memory-conflict"} <= set(ids)
    low = next(f for f in report.findings if f.id == "apu-memory-low")
    assert low.title == ("The GPU can use only 62.5 GiB of 124.9 GiB of RAM; it could safely "
                         "have 109.3 GiB")
    assert "pages_limit=28573696 page_pool_size=28573696" in low.fix
    conflict = next(f for f in report.findings if f.id == "apu-memory-conflict")
    assert "amdgpu.gttsize asks for 128.0 GiB, more than the 124.9 GiB of RAM" in conflict.detail
    gpu = report.to_json()["gpus"][0]["memory"]
    assert gpu["gtt_source"] == "amdgpu.gttsize" and gpu["torch_total_bytes"] == round(62.47 * GIB)


def test_strix_halo_advice_with_numbers() -> None:
    """The same machine: an eighth of 124.92 GiB (15.6 GiB) stays, 109 GiB may go to the GPU:
    109 x 262144 = 28573696 pages."""
    memory = _memory(_report(HALO_GTTSIZE))
    advice = advise("8060S", memory)
    assert advice.floor_bytes == int(0.125 * memory.system.ram_bytes)
    assert advice.verdict == RAISE and advice.target_gib == 109 and advice.pages == 28573696
    assert [n.key for n in advice.notes] == ["gttsize-deprecated", "carve-out-vs-gtt",
                                             "expandable-segments", "how-to-set"]
    assert "sudo amd-ttm --set 109" in advice.notes[-1].text
    # an LLM of 40 GB fits the 62.47 GiB PyTorch sees; one of 100 GB (120 GB with the overhead)
    # needs more than the 109.3 GiB the machine can safely give
    assert advise("8060S", memory, memory_goal(llm_gb=40)).verdict == ENOUGH
    too_big = advise("8060S", memory, memory_goal(llm_gb=100))
    assert too_big.verdict == TOO_BIG and too_big.target_gib == 109
    sixty = advise("8060S", memory, memory_goal(llm_gb=60))  # 72 GB = 67.1 GiB
    assert sixty.verdict == RAISE and sixty.target_gib == 68


def test_strix_halo_with_ttm_on_the_command_line() -> None:
    """noamsto/nix-amd-ai#42: ttm.pages_limit=25165824 on the command line, GTT 96 GiB, 4 GiB
    carve-out; no free output, so the RAM is not known."""
    report = _report(HALO_TTM96)
    memory = _memory(report)
    assert memory.gtt_bytes == 103079215104 and memory.vram_bytes == 4 * GIB
    assert memory.gtt_source == PAGES_LIMIT
    assert [s.name for s in memory.system.configured] == ["ttm.pages_limit",
                                                          "ttm.page_pool_size"]
    assert memory.usable_bytes == 96 * GIB
    ids = _ids(report)
    assert "apu-memory" in ids
    assert not {"apu-memory-low", "apu-gttsize-deprecated", "apu-memory-conflict"} & set(ids)
    advice = advise("8060S", memory)
    assert advice.verdict == UNKNOWN and advice.target_gib is None and advice.safe_bytes is None


def test_780m_with_ttm_in_force() -> None:
    """ollama/ollama#2637: a 780M with pages_limit 20971520 in force, 2 GiB carve-out, 80 GiB
    GTT; SD 1.5 needs 6 GB, which it has."""
    report = _report(PHOENIX_TTM80)
    memory = _memory(report)
    assert memory.system.pages_limit == 20971520 and memory.system.ttm_module == "ttm"
    assert memory.gtt_bytes == 80 * GIB and memory.vram_bytes == 2 * GIB
    assert memory.gtt_source == PAGES_LIMIT
    assert memory.usable_bytes == 80 * GIB
    assert advise("780M", memory, memory_goal("sd15-infer")).verdict == ENOUGH


def test_890m_with_gttsize_and_ttm_that_disagree() -> None:
    """ggml-org/llama.cpp#19818: a Ryzen AI 9 HX 370 / Radeon 890M (gfx1150) on Debian 13 with
    ``amdgpu.gttsize=40960 ttm.pages_limit=14680064`` in GRUB. Worked by hand:
    gttsize 40960 MiB = 40960 / 1024 = 40 GiB = 42949672960 bytes;
    pages_limit 14680064 pages x 4096 bytes = 60129542144 bytes = 14680064 / 262144 = 56 GiB.
    The thread posts no free, mem_info_* or ttm parameters in force, and no PyTorch: RAM,
    carve-out, GTT and what the GPU can use stay unknown, and so does any amount to give."""
    report = _report(STRIX_POINT_TWO)
    memory = _memory(report)
    assert [g.gfx for g in report.facts.gpus.gpus] == ["gfx1150"]
    assert memory.system.configured == (
        Setting("amdgpu", "gttsize", "40960", "/proc/cmdline"),
        Setting("ttm", "pages_limit", "14680064", "/proc/cmdline"))
    assert memory.system.ram_bytes is None and memory.vram_bytes is None
    assert memory.gtt_bytes is None and memory.gtt_source == "unknown"
    assert memory.system.pages_limit is None and memory.system.ttm_module is None
    assert memory.torch_total_bytes is None and memory.usable_bytes is None
    assert not memory.known
    ids = _ids(report)
    assert {"apu-gttsize-deprecated", "apu-memory-conflict"} <= set(ids)
    # nothing of what the GPU may use is known: no facts finding, no "too low" with made-up numbers
    assert not {"apu-memory", "apu-memory-low"} & set(ids)
    conflict = next(f for f in report.findings if f.id == "apu-memory-conflict")
    assert conflict.detail == ("amdgpu.gttsize (40.0 GiB) and pages_limit (56.0 GiB) ask for "
                               "different sizes.")
    assert 40960 << 20 == 42949672960 and 14680064 * 4096 == 60129542144 == 56 * GIB
    deprecated = next(f for f in report.findings if f.id == "apu-gttsize-deprecated")
    assert "amdgpu.gttsize=40960 (/proc/cmdline)" in deprecated.detail
    assert "'amdgpu.gtt_size' is not a parameter" not in deprecated.detail
    gpu = report.to_json()["gpus"][0]["memory"]
    assert gpu["ram_bytes"] is None and gpu["gtt_bytes"] is None and gpu["usable_bytes"] is None
    assert [(c["option"], c["value"]) for c in gpu["configured"]] == [
        ("gttsize", "40960"), ("pages_limit", "14680064")]


def test_890m_advice_without_the_ram(capsys: pytest.CaptureFixture[str]) -> None:
    """The same machine: with MemTotal unknown the floor (max(8 GiB, RAM/8)) and the safe amount
    (RAM - floor) cannot be worked out, and with GTT unknown neither can what the GPU has; so no
    goal gets a verdict or a pages_limit, only the notes (gttsize deprecated first)."""
    memory = _memory(_report(STRIX_POINT_TWO))
    for goal in (None, memory_goal("sd15-infer"), memory_goal(llm_gb=24)):
        advice = advise("890M", memory, goal) if goal else advise("890M", memory)
        assert advice.verdict == UNKNOWN
        assert advice.floor_bytes is None and advice.safe_bytes is None
        assert advice.target_gib is None and advice.pages is None
        assert [n.key for n in advice.notes] == ["gttsize-deprecated", "carve-out-vs-gtt",
                                                 "expandable-segments", "how-to-set"]
    assert main(["memory", "--root", str(STRIX_POINT_TWO)]) == 1
    out = capsys.readouterr().out
    assert "The machine's RAM is not known" in out and "pages_limit=" not in out.split("Goal:")[1]


def test_carve_out_only_machine_and_discrete_cards() -> None:
    """strix-halo-8060s-fedora43 records a 64 GiB carve-out and no GTT or RAM: the
    carve-out alone says little, so nothing is said; a discrete card gets no memory facts and no
    memory finding."""
    report = _report(MACHINES / "strix-halo-8060s-fedora43")
    memory = _memory(report)
    assert memory.vram_bytes == 64 * GIB and memory.gtt_source == "unknown"
    assert memory.usable_bytes is None and not memory.known
    assert "apu-memory" not in _ids(report)  # recorded before these files were read
    discrete = _report(MACHINES / "rx7900xtx-ubuntu2404-ready")
    assert all("memory" not in g for g in discrete.to_json()["gpus"])
    assert not [i for i in _ids(discrete) if i.startswith("apu-")]
    assert memory_advice(discrete).advices == ()


def test_gtt_source_default_and_ttm_in_force() -> None:
    """The kernel's default is half of RAM: a GTT of exactly that with nothing configured is the
    default (rjmalagon/ollama-linux-amd-apu#4); a ttm limit in force that is not half of RAM was
    set somewhere rocmate could not see."""
    gpu = Gpu("amd", "780M", integrated=True, gtt_bytes=16 * GIB)
    half = SystemMemory(ram_bytes=32 * GIB, pages_limit=16 * GIB // 4096)
    assert gtt_source(gpu, half) == DEFAULT
    assert gtt_source(gpu, SystemMemory(ram_bytes=64 * GIB, pages_limit=16 * GIB // 4096)) == \
        PAGES_LIMIT
    assert gtt_source(gpu, SystemMemory()) == DEFAULT


def _facts(configured: list[Setting], *, ram: int | None = 124 * GIB,
           in_force: int | None = None) -> MemoryFacts:
    system = SystemMemory(ram_bytes=ram, pages_limit=in_force, configured=tuple(configured))
    return MemoryFacts(512 << 20, None, "unknown", system)


def test_conflicts_of_public_settings() -> None:
    # lmstudio-ai/lmstudio-bug-tracker#1480: pages_limit and gttsize ask for the same 124 GiB
    same = [Setting("ttm", "pages_limit", "32505856", "/proc/cmdline"),
            Setting("ttm", "page_pool_size", "32505856", "/proc/cmdline"),
            Setting("amdgpu", "gttsize", "126976", "/proc/cmdline")]
    assert conflicts(_facts(same)) == []
    # ROCm/legacy-rocm-build#5562: amdttm.pages_limit=32768000 configured, GTT came up at
    # 63973 MiB: the limit in force is not the one configured
    dkms = [Setting("amdttm", "pages_limit", "32768000", "/proc/cmdline")]
    problems = conflicts(_facts(dkms, ram=125 * GIB + 1, in_force=63973 * 256))
    assert len(problems) == 1 and "pages_limit=32768000 is configured" in problems[0]
    # two files that disagree, and a pool larger than the limit
    two = [Setting("ttm", "pages_limit", "12582912", "/etc/modprobe.d/ttm.conf"),
           Setting("ttm", "pages_limit", "25165824", "/etc/modprobe.d/zz.conf"),
           Setting("ttm", "page_pool_size", "26000000", "/etc/modprobe.d/zz.conf")]
    assert len(conflicts(_facts(two))) == 2


def test_goals_from_the_benchmark_table() -> None:
    """resources/data/bench.toml: ResNet-50 at batch 64 = (1.0 + 0.05 x 64) GB / 0.75."""
    goal = memory_goal("resnet50-train")
    assert goal == Goal("bench", "resnet50-train", int(4.2e9 / 0.75))
    assert memory_goal("sd15-infer").need_bytes == int(6.0e9)
    assert memory_goal("llm-train").need_bytes is None
    with pytest.raises(OperationError):
        memory_goal("nonsense")
    with pytest.raises(OperationError):
        memory_goal(llm_gb=-1)


# -- rocmate memory -----------------------------------------------------------------------------

def test_memory_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--root", str(HALO_GTTSIZE)]) == 1
    out = capsys.readouterr().out
    assert "Give the GPU 109 GiB: ttm pages_limit=28573696" in out
    assert "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in out
    assert main(["memory", "--root", str(PHOENIX_TTM80), "--goal", "sd15-infer"]) == 0
    assert "Nothing to change" in capsys.readouterr().out
    assert main(["memory", "--root", str(MACHINES / "rx7900xtx-ubuntu2404-ready")]) == 4
    capsys.readouterr()
    assert main(["memory", "--root", str(HALO_GTTSIZE), "--goal", "nope"]) == 2
    capsys.readouterr()
    assert main(["memory", "--root", str(HALO_GTTSIZE), "--llm-gb", "40", "--json"]) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert answer["schema"] == "rocmate.memory/1"
    assert answer["gpus"][0]["verdict"] == "enough"
    assert answer["gpus"][0]["goal"]["need_bytes"] == int(40e9 * 1.2)


def test_wsl_memory_limit_is_read(tmp_path: Path) -> None:
    """On WSL 2 the Windows user's .wslconfig (same name as the Linux user) is read through the
    snapshot door; outside WSL it is not."""
    root = tmp_path / "m"
    shutil.copytree(PHOENIX_TTM80, root, symlinks=True)
    config = root / "files/mnt/c/Users/alice/.wslconfig"
    config.parent.mkdir(parents=True)
    config.write_text("[wsl2]\nmemory=4GB \nprocessors=2\n")  # Microsoft's example
    system = SnapshotSystem(root)
    assert probe_system_memory(system, wsl=2, user="alice").wsl_memory_bytes == 4 * GIB
    assert probe_system_memory(system, wsl=None, user="alice").wsl_memory_bytes is None


def test_snapshot_records_the_memory_files(tmp_path: Path) -> None:
    """``rocmate snapshot`` records what the memory probe read (a replayed machine stands in for
    the live one), the kernel command line cut to the module options, and replays the same."""
    source = tmp_path / "m"
    shutil.copytree(HALO_GTTSIZE, source, symlinks=True)
    # ROCm/legacy-rocm-build#5595's command line, with this machine's gttsize
    (source / "files/proc/cmdline").write_text(
        "BOOT_IMAGE=/boot/vmlinuz-6.14.0-1014-oem root=UUID=d55f0c3f-88f5-4c65-a93a-285c1a30361c"
        " ro quiet splash amdgpu.gttsize=131072 vt.handoff=7\n")
    out = tmp_path / "snap"
    recorder = RecordingSystem(out, live=SnapshotSystem(source))  # type: ignore[arg-type]
    run_doctor(recorder)
    recorder.finish()
    files = out / "files"
    assert (files / "proc/meminfo").read_text() == (source / "files/proc/meminfo").read_text()
    assert (files / "proc/cmdline").read_text() == "amdgpu.gttsize=131072\n"
    gtt = "sys/devices/pci0000:00/0000:00:01.1/0000:c5:00.0/mem_info_gtt_total"
    assert (files / gtt).read_text() == "137438953472\n"
    replayed = _memory(run_doctor(SnapshotSystem(out)))
    assert replayed.gtt_source == GTTSIZE and replayed.system.ram_bytes == \
        _memory(_report(HALO_GTTSIZE)).system.ram_bytes
