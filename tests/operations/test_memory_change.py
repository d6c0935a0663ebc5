"""``rocmate memory plan | apply | undo`` (issue 35, items 3 and 4): the plan made for the recorded
APU machines, what blocks it, the undo plan from the record the helper really writes, and
``rocmate memory`` after the restart showing rocmate's value in force (or waiting for the restart).

The machines are the recorded public ones of tests/diagnose/test_apu_memory.py; the undo record and
rocmate's ttm file are written by the helper's own code on a fake system (tests/install/
test_helper_ttm.py runs the same for real, as root, in a throwaway Debian root).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core import i18n
from core.cli import main
from core.cli.memory import render_change_plan
from core.diagnose.memory_advice import advise
from core.install.helper import main as helper
from core.install.helper.policy import TTM_CONF, TTM_PAGES_PER_GIB, TTM_UNDO, ttm_conf_text
from core.install.helper.validate import check_input
from core.install.memory_plan import STRATEGY, memory_plan
from core.operations.errors import OperationError
from core.operations.memory import (
    check_memory,
    plan_memory,
    plan_memory_undo,
    prepare_memory_change,
)
from tests.install.support import plan as plan_doc
from tests.install.support import trusting_policy
from tests.install.test_helper_ttm import ttm_target

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
HALO_GTTSIZE = MACHINES / "k35-strix-halo-128g-gttsize-torch62"  # unslothai/unsloth#7960
PHOENIX_TTM80 = MACHINES / "k35-phoenix-780m-arch-ttm80"  # ollama/ollama#2637
GIB_PAGES = TTM_PAGES_PER_GIB


def _plan(machine: Path, gib: int | None = None) -> Any:
    return plan_memory(check_memory(machine), gib, machine)


def test_the_plan_for_a_strix_halo_with_128_gb() -> None:
    """124.9 GiB of RAM, less the floor of an eighth: 109 GiB, one root step, a restart."""
    plan = _plan(HALO_GTTSIZE)
    assert plan.strategy == STRATEGY and plan.blocked is None
    [step] = plan.steps
    assert step.id == "ttm-limit" and step.privileged and step.after == "reboot"
    assert step.file is not None and step.file.path == TTM_CONF
    assert step.file.content == ttm_conf_text(109 * GIB_PAGES)
    assert step.file.content.endswith("options ttm pages_limit=28573696 page_pool_size=28573696\n")
    notes = " ".join(plan.notes)
    assert "after a restart" in notes and "update-initramfs -u" in notes
    assert "amdgpu.gttsize=131072 is also configured in /proc/cmdline" in notes  # the thread's
    doc = plan.to_json()
    assert doc["schema"] == "rocmate.plan/1" and doc["strategy"] == "apu-memory"


def test_what_the_helper_accepts_of_the_plan(tmp_path: Path) -> None:
    """The plan's root step as the runner sends it is accepted on a machine of that RAM."""
    plan = _plan(HALO_GTTSIZE, 96)
    target = ttm_target(tmp_path)
    doc = json.dumps({"schema": "rocmate.plan/1", "steps": [s.to_json() for s in plan.steps]})
    assert check_input(doc.encode(), target, trusting_policy()).ok


@pytest.mark.parametrize(("gib", "words"), [(0, "between 1 and 109"), (110, "between 1 and 109"),
                                             (-4, "between 1 and 109")])
def test_sizes_out_of_bounds_are_blocked(gib: int, words: str) -> None:
    plan = _plan(HALO_GTTSIZE, gib)
    assert plan.blocked is not None and words in plan.blocked and not plan.steps


def test_no_ram_no_plan() -> None:
    """The 780M's thread shows no /proc/meminfo: no size can be called safe."""
    plan = _plan(PHOENIX_TTM80)
    assert plan.blocked is not None and "RAM is not known" in plan.blocked


def test_amdttm_is_not_written_for() -> None:
    advice = check_memory(HALO_GTTSIZE).advices[0]
    memory = advice.memory
    dkms = replace(memory, system=replace(memory.system, ttm_module="amdttm"))
    plan = memory_plan(advise(advice.gpu, dkms, advice.goal))
    assert plan.blocked is not None and "amdttm" in plan.blocked


def test_no_apu_no_plan(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OperationError) as raised:
        _plan(MACHINES / "rx7900xtx-ubuntu2404-ready")
    assert raised.value.status == 4
    assert main(["memory", "plan", "--root", str(MACHINES / "rx7900xtx-ubuntu2404-ready")]) == 4


def test_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "plan", "--root", str(HALO_GTTSIZE), "--gib", "96"]) == 0
    out = capsys.readouterr().out
    assert "Let the GPU map up to 96 GiB of system memory [root]" in out
    assert "options ttm pages_limit=25165824 page_pool_size=25165824" in out
    assert main(["memory", "plan", "--root", str(HALO_GTTSIZE), "--gib", "200"]) == 1
    assert main(["memory", "apply", "--root", str(HALO_GTTSIZE), "--yes"]) == 2
    assert "can only be planned" in capsys.readouterr().err
    assert main(["memory", "undo", "--root", str(HALO_GTTSIZE)]) == 0
    assert "Nothing to undo" in capsys.readouterr().out


def test_a_replayed_plan_is_never_carried_out() -> None:
    with pytest.raises(OperationError) as raised:
        prepare_memory_change(_plan(HALO_GTTSIZE), lambda event: None)
    assert raised.value.status == 2


def _helper_run(target_root: Path, steps: list[dict[str, Any]]) -> None:
    target = ttm_target(target_root)
    checked = check_input(plan_doc(*steps), target, trusting_policy())
    assert checked.ok
    assert helper.run_plan(checked, lambda event: None, target) == 0


def _machine_with(tmp_path: Path, source: Path, files: dict[str, bytes]) -> Path:
    root = tmp_path / "machine"
    shutil.copytree(source, root, symlinks=True)
    for path, data in files.items():
        dest = root / "files" / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return root


def test_the_undo_plan_reads_the_helpers_record(tmp_path: Path) -> None:
    """The helper's own record of a file that was there (amd-ttm's line, say) and of none."""
    fake = tmp_path / "fake"
    old = b"options ttm pages_limit=12582912\n"
    (fake / "etc/modprobe.d").mkdir(parents=True)
    (fake / TTM_CONF.lstrip("/")).write_bytes(old)
    _helper_run(fake, [_plan(HALO_GTTSIZE, 96).steps[0].to_json()])
    record = (fake / TTM_UNDO.lstrip("/")).read_bytes()
    machine = _machine_with(tmp_path, HALO_GTTSIZE, {TTM_UNDO: record})
    plan = plan_memory_undo(machine)
    [step] = plan.steps
    assert step.argv == ("ttm-restore", TTM_CONF) and step.after == "reboot"
    assert "gets back what it held before: options ttm pages_limit=12582912" in plan.notes[0]
    (fake / TTM_UNDO.lstrip("/")).unlink()
    (fake / TTM_CONF.lstrip("/")).unlink()
    _helper_run(fake, [_plan(HALO_GTTSIZE, 64).steps[0].to_json()])
    absent = (fake / TTM_UNDO.lstrip("/")).read_bytes()
    other = _machine_with(tmp_path / "2", HALO_GTTSIZE, {TTM_UNDO: absent})
    assert "is removed (there was none before)" in plan_memory_undo(other).notes[0]


def test_after_the_restart_the_value_is_in_force(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The 780M runs with pages_limit 20971520 (80 GiB): rocmate's file with that value is in
    force; with another, it waits for the restart."""
    same = _machine_with(tmp_path / "a", PHOENIX_TTM80,
                         {TTM_CONF: ttm_conf_text(20971520).encode()})
    assert main(["memory", "--root", str(same)]) in (0, 1)
    out = capsys.readouterr().out
    assert f"ttm.pages_limit=20971520 ({TTM_CONF}) - in force" in out
    later = _machine_with(tmp_path / "b", PHOENIX_TTM80,
                          {TTM_CONF: ttm_conf_text(96 * GIB_PAGES).encode()})
    main(["memory", "--root", str(later)])
    assert f"ttm.pages_limit=25165824 ({TTM_CONF}) - takes effect after a restart" in \
        capsys.readouterr().out


def test_the_plan_in_chinese() -> None:
    plan = _plan(HALO_GTTSIZE, 96)
    i18n.set_language("zh_CN")
    try:
        chinese = render_change_plan(_plan(HALO_GTTSIZE, 96))
    finally:
        i18n.set_language("en")
    assert "GPU内存计划" in chinese and "允许GPU映射最多96 GiB系统内存" in chinese
    assert "重新生成initramfs" in chinese and "新上限在重启后生效" in chinese
    assert "options ttm pages_limit=25165824 page_pool_size=25165824" in chinese
    assert "GPU memory plan" in render_change_plan(plan)
