"""The repair window's real path, driven as a user does on a live throwaway venv (issue 34):
Repair… in the System check's apps list, Start, the progress, the check in that Python after,
the record under "Earlier repairs" with its state in words, Roll back, and the freeze exactly as
it was; and a failed install that the window rolls back by itself and says so.

Real pip in a real venv, offline: the index is a local folder of stand-in wheels
(tests/install/repair_support.py: ``PIP_NO_INDEX=1`` and ``PIP_FIND_LINKS``, which every pip
the runner starts reads; the plan keeps its real index URL). The card is the RX 7900 XTX of the
recorded machine k34-comfyui-cpu-torch-rx7900xtx, through the test seam ``card`` of
:func:`core.operations.repair.plan_repair` (this computer has no AMD GPU): the plan is the one
the app offers that machine's user, download.pytorch.org/whl/rocm7.2 with torch 2.14.0. The
stand-in torch is a module with a version and nothing else, so the kernel check cannot pass
here: the repair ends "check-failed" (the new builds stay until Roll back), and the doctor run
in that Python after says it could not read PyTorch's answer, which the window shows as such.

``ROCMATE_REPAIR_SHOTS=DIR`` also saves the window after the repair and after the rollback,
in English and Chinese, to DIR (docs/screenshots/app-repair holds them).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton, QWidget

from core.install.repair_record import list_records
from core.operations.machine import check_machine
from core.operations.repair import check_after_repair
from gui import i18n
from gui.pages.base import PageId
from gui.repair import RepairDialog
from gui.session import Session
from gui.wizard import RocWizard
from tests.install.repair_support import freeze, make_venv, offline_env, wheel

MACHINE = str(Path(__file__).resolve().parents[1] / "fixtures" / "machines"
              / "k34-comfyui-cpu-torch-rx7900xtx")
START = ["torch==2.5.1+cpu", "torchvision==0.20.1+cpu", "torchaudio==2.5.1+cpu",
         "comfy-standin-dep==1.0"]
ROCM = {"torch": "2.14.0+rocm7.2", "torchvision": "0.29.0+rocm7.2",
        "torchaudio": "2.14.0+rocm7.2"}
"""What the plan for the recorded card installs (download.pytorch.org/whl/rocm7.2)."""
RUN_S = 300.0


def _wheels(folder: Path, triton: bool = True) -> Path:
    """Stand-ins of the CPU family the venv starts with and of the ROCm family the plan
    names; the ROCm torch requires pytorch-triton-rocm, as the real one does."""
    folder.mkdir()
    wheel(folder, "filelock", "3.16.1")
    wheel(folder, "comfy-standin-dep", "1.0", ("filelock",))
    wheel(folder, "torch", "2.5.1+cpu", ("filelock",))
    wheel(folder, "torchvision", "0.20.1+cpu", ("torch==2.5.1+cpu",))
    wheel(folder, "torchaudio", "2.5.1+cpu", ("torch==2.5.1+cpu",))
    wheel(folder, "torch", ROCM["torch"], ("filelock", "pytorch-triton-rocm"))
    for name in ("torchvision", "torchaudio"):
        wheel(folder, name, ROCM[name], (f"torch=={ROCM['torch']}",))
    if triton:
        wheel(folder, "pytorch-triton-rocm", "3.1.0", package="triton")
    return folder


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every pip the window starts reads no configuration and no index, only the wheels'
    folder; the repairs history goes to a throwaway data folder."""
    wheels = tmp_path / "wheels"
    for key, value in offline_env(wheels).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return wheels


def _system_check(qtbot: Any, python: Path) -> Any:
    """The System check of this computer, whose apps list holds the throwaway ComfyUI venv
    (the list finds apps under the real home only: the row is the one core makes for it)."""
    session = Session(root=None)
    report = check_machine(None)
    session.report = replace(report, apps=(check_after_repair(None, str(python),
                                                              "ComfyUI").app,))
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.next()
    assert wizard.currentId() == PageId.SYSTEM_CHECK
    return wizard.pages[PageId.SYSTEM_CHECK]


def _row(page: Any) -> list[str]:
    return [page.apps.item(0, c).text() for c in range(4)]


def _open_repair(qtbot: Any, page: Any, python: Path) -> RepairDialog:
    """Repair… of the row, with the window's plan made for the recorded card (the seam)."""
    page.keep_repair(RepairDialog(None, str(python), "ComfyUI", page.bridge, page,
                                  card=MACHINE))
    page.repair_dialogs[str(python)].load()
    button = page.apps.cellWidget(0, 4).findChildren(QPushButton)[0]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = page.repair_dialogs[str(python)]
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.plan is not None or dialog.refused is not None,
                    timeout=60_000)
    assert dialog.refused is None
    qtbot.waitUntil(lambda: dialog.start_button.isEnabled(), timeout=60_000)
    return dialog


def _click_and_wait(qtbot: Any, dialog: RepairDialog, button: QPushButton) -> float:
    """Click, see the progress, wait for the run and the check after it; seconds taken."""
    start = time.perf_counter()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.running or dialog.outcome is not None, timeout=10_000)
    assert dialog.progress.isVisible() and dialog.log.isVisible()
    qtbot.waitUntil(lambda: not dialog.running and not dialog.checking
                    and not dialog.loading and not dialog.calls, timeout=int(RUN_S * 1000))
    return time.perf_counter() - start


def _shots(dialog: QWidget, name: str) -> None:
    folder = os.environ.get("ROCMATE_REPAIR_SHOTS")
    if not folder:
        return
    for language in ("en", "zh_CN"):
        i18n.switch(language)
        QApplication.processEvents()
        dialog.grab().save(str(Path(folder) / f"{language}-{name}.png"))
    i18n.switch("en")


def _history(dialog: RepairDialog) -> list[list[str]]:
    return [[dialog.history.topLevelItem(i).text(c) for c in range(3)]
            for i in range(dialog.history.topLevelItemCount())]


@pytest.mark.slow  # real pip installs into a live venv
@pytest.mark.qt_log_ignore(r"^This plugin does not support raise\(\)")  # offscreen
def test_repair_and_roll_back_a_live_venv_in_the_window(qtbot: Any, aloop: Any, offline: Path,
                                                        tmp_path: Path) -> None:
    wheels = _wheels(offline)
    python = make_venv(tmp_path / "ComfyUI" / "venv", wheels, START)
    before = freeze(python, wheels)
    page = _system_check(qtbot, python)
    assert _row(page)[:3] == ["ComfyUI", str(tmp_path / "ComfyUI" / "venv"), "2.5.1+cpu"]
    dialog = _open_repair(qtbot, page, python)
    changes = [[dialog.changes.topLevelItem(i).text(c) for c in range(4)]
               for i in range(dialog.changes.topLevelItemCount())]
    assert changes == [["torch", "2.5.1+cpu", ROCM["torch"], "replaced"],
                       ["torchvision", "0.20.1+cpu", ROCM["torchvision"], "replaced"],
                       ["torchaudio", "2.5.1+cpu", ROCM["torchaudio"], "replaced"]]
    assert dialog.plan is not None and dialog.plan.replay is None
    assert not dialog.replay_note.isVisible() and dialog.history_note.text() == "None yet."
    assert not dialog.history.isVisible()  # no empty list
    # the plan's box is as high as the plan: no empty area under it
    assert dialog.plan_area.height() <= dialog.plan_page.sizeHint().height() + 40

    repair_s = _click_and_wait(qtbot, dialog, dialog.start_button)
    assert dialog.ended is not None and dialog.ended["state"] == "check-failed", dialog.ended
    state = dialog.state.text()
    assert state.startswith("The new builds are in place, but the check on the card failed: ")
    assert "Roll back" in state and "rolled back" not in state  # not called a failed repair
    assert "AttributeError" in state  # the stand-in torch: no torch.version, no GPU
    # the doctor in that Python after: why PyTorch could not answer, plainly (no traceback)
    check = dialog.check_words
    assert check.isVisible()
    assert check.text().startswith("PyTorch in that Python now (the doctor's check, run in "
                                   "it):")
    assert f"• rocmate could not read PyTorch's answer in {python}" in check.text()
    assert "Traceback" not in check.text()
    # the bar: the family and its dependencies done, the check not
    assert (dialog.progress.value(), dialog.progress.maximum()) == (2, 3)
    log = dialog.log.toPlainText()
    assert "== Replace the PyTorch family with ROCm builds" in log and "Successfully installed" \
        in log
    # the record, listed with its state in words; the apps list's row shows the new PyTorch
    [record] = list_records()
    assert record.state == "check-failed" and record.freeze_before() == before
    [row] = _history(dialog)
    assert row[1:] == [f"2.5.1+cpu → {ROCM['torch']}", "repaired; the check on the card failed"]
    assert dialog.rollback_button.isEnabled()
    # the family holds the new builds: Start would only reinstall them, and says so
    assert dialog.plan is not None and dialog.plan.nothing_to_do
    assert dialog.start_button.text() == "Re&install these builds"
    assert _row(page)[2] == ROCM["torch"]
    # the findings above the list are the check's from before the repair: the page says so
    assert page.message.text().startswith("ComfyUI's PyTorch changed: its row shows it now. "
                                          "The findings above are from the check before")
    reach_after = _row(page)[3]
    assert reach_after == "not checked"  # a ROCm build now; no kernel has run in it here
    after = freeze(python, wheels)
    assert sorted(set(after.splitlines()) ^ set(before.splitlines())) == sorted([
        "torch==2.5.1+cpu", "torchvision==0.20.1+cpu", "torchaudio==2.5.1+cpu",
        *(f"{name}=={version}" for name, version in ROCM.items()),
        "pytorch-triton-rocm==3.1.0"])
    i18n.switch("zh_CN")  # the same words in Chinese, the doctor's too
    QApplication.processEvents()
    assert dialog.state.text().startswith("新版本已装好，但在显卡上的检查失败：")
    assert dialog.check_words.text().startswith("该 Python 中的 PyTorch 现状")
    assert f"rocmate读不到 {python} 中PyTorch的回答" in dialog.check_words.text()  # reworded
    i18n.switch("en")
    QApplication.processEvents()
    assert dialog.state.text() == state
    _shots(dialog, "after-repair")
    _shots(page.window(), "system-check-after-repair")

    rollback_s = _click_and_wait(qtbot, dialog, dialog.rollback_button)
    assert dialog.ended is not None and dialog.ended["state"] == "rolled-back", dialog.ended
    assert dialog.state.text() == "Rolled back: pip freeze --all matches the record again."
    assert freeze(python, wheels) == before  # exactly
    assert [r[2] for r in _history(dialog)] == ["rolled back"]
    assert not dialog.rollback_button.isEnabled()  # nothing left to roll back
    assert _row(page)[2] == "2.5.1+cpu"
    assert "• rocmate could not read PyTorch's answer" in dialog.check_words.text()
    _shots(dialog, "after-rollback")
    print(f"repair {repair_s:.1f} s, rollback {rollback_s:.1f} s; row after the repair: "
          f"{reach_after!r}")
    assert repair_s < RUN_S and rollback_s < RUN_S


@pytest.mark.slow  # real pip installs into a live venv
@pytest.mark.qt_log_ignore(r"^This plugin does not support raise\(\)")  # offscreen
def test_a_failed_install_in_the_window_rolls_back_by_itself(qtbot: Any, aloop: Any,
                                                             offline: Path,
                                                             tmp_path: Path) -> None:
    """pytorch-triton-rocm is missing from the index: the family is replaced (--no-deps), the
    step that adds what torch needs fails, the runner puts the record back, and the window
    says so."""
    wheels = _wheels(offline, triton=False)
    python = make_venv(tmp_path / "ComfyUI" / "venv", wheels, START)
    before = freeze(python, wheels)
    page = _system_check(qtbot, python)
    dialog = _open_repair(qtbot, page, python)
    seconds = _click_and_wait(qtbot, dialog, dialog.start_button)
    assert dialog.ended is not None and dialog.ended["state"] == "failed-rolled-back"
    state = dialog.state.text()
    assert state.startswith("The repair failed at “Add what the new builds need”: "), state
    assert state.endswith("rocmate put the environment back by itself: pip freeze --all "
                          "matches the record again."), state
    assert dialog.compared is True
    assert "== Putting the environment back as it was" in dialog.log.toPlainText()
    assert freeze(python, wheels) == before
    assert [r[2] for r in _history(dialog)] == ["failed, rolled back"]
    assert not dialog.rollback_button.isEnabled()  # back already: nothing to roll back
    assert _row(page)[2] == "2.5.1+cpu"
    _shots(dialog, "failed-rolled-back")
    print(f"failed repair and automatic rollback {seconds:.1f} s")
