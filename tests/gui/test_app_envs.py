"""The System check's list of the apps' Python environments and the repair window, driven as a
user does on the recorded machine k34-comfyui-cpu-torch-rx7900xtx (ComfyUI's venv on a CPU
torch family): the list shows, Repair… opens the window with core's plan, and on a replayed
machine nothing is carried out and nothing of this computer is read or changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from gui.pages.base import PageId
from gui.repair import RepairDialog
from tests.gui.support import open_wizard

MACHINE = "k34-comfyui-cpu-torch-rx7900xtx"
COMFY = "/home/alice/ComfyUI/venv/bin/python3"


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """rocmate's data folder (where repairs are recorded) in the test's own folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def _system_check(qtbot: Any) -> Any:
    wizard = open_wizard(qtbot, MACHINE)
    wizard.next()
    assert wizard.currentId() == PageId.SYSTEM_CHECK
    return wizard.pages[PageId.SYSTEM_CHECK]


def test_the_system_check_lists_the_apps(qtbot: Any, aloop: Any) -> None:
    page = _system_check(qtbot)
    assert page.apps_box.isVisible()
    table = page.apps
    rows = [[table.item(r, c).text() for c in range(4)] for r in range(table.rowCount())]
    assert rows == [
        ["ComfyUI", "~/ComfyUI/venv", "2.5.1+cpu", "no: a CPU-only build"],
        ["Stability Matrix: ComfyUI", "~/StabilityMatrix/Packages/ComfyUI/venv",
         "2.3.1+rocm6.0", "not checked"]]
    assert table.item(1, 3).toolTip() == "a ROCm build; no kernel has run in it yet"
    first = table.cellWidget(0, 4).findChildren(QPushButton)
    assert [b.text() for b in first] == ["Rep&air…", "Chec&k"]
    card = next(c for c in page.findings.cards if c.finding_id == "app-torch-cannot-reach")
    assert card.commands == (f"rocmate install --repair {COMFY}",)
    assert card.app_way is not None and "Repair… in the list" in card.app_way.text()
    check = first[1]
    assert not check.isEnabled()  # a replay answers only for the Python it recorded
    texts = [b.text() for b in page.findChildren(QPushButton) if b.isVisible()]
    letters = [t[t.index("&") + 1].lower() for t in texts if "&" in t]
    assert len(letters) == len(set(letters)), texts  # one Alt+letter, one button
    assert {t for t in texts if "&" not in t} == {"Repair…", "Check", "Copy the command"}


@pytest.mark.qt_log_ignore(r"^This plugin does not support raise\(\)")  # offscreen
def test_repair_opens_the_window_with_the_plan_and_runs_nothing_on_a_replay(
        qtbot: Any, aloop: Any, data_home: Path) -> None:
    page = _system_check(qtbot)
    repair = page.apps.cellWidget(0, 4).findChildren(QPushButton)[0]
    qtbot.mouseClick(repair, Qt.MouseButton.LeftButton)
    dialog = page.repair_dialogs[COMFY]
    assert isinstance(dialog, RepairDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.plan is not None or dialog.refused is not None,
                    timeout=60_000)
    assert dialog.refused is None
    changes = dialog.changes
    rows = [[changes.topLevelItem(i).text(c) for c in range(4)]
            for i in range(changes.topLevelItemCount())]
    assert [r[:2] for r in rows] == [["torch", "2.5.1+cpu"], ["torchvision", "0.20.1+cpu"],
                                     ["torchaudio", "2.5.1+cpu"]]
    assert all(r[2].endswith("+rocm7.2") and r[3] == "replaced" for r in rows)
    assert dialog.source.text().startswith("From: https://download.pytorch.org/whl/rocm")
    assert "pip freeze" in dialog.record_words.text()
    # a replayed machine's plan is only shown: Start and Roll back are off, no history read
    assert not dialog.start_button.isEnabled()
    assert not dialog.rollback_button.isEnabled()
    assert "replayed machine" in dialog.replay_note.text() and dialog.replay_note.isVisible()
    assert f"(rocmate install --repair {COMFY})" in dialog.replay_note.text()
    assert "kept on that machine" in dialog.history_note.text()
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)  # does nothing
    assert not dialog.running and dialog.plan.replay is not None
    assert not data_home.exists()  # nothing written to this computer's rocmate data
    # a second click brings the same window forward
    qtbot.mouseClick(repair, Qt.MouseButton.LeftButton)
    assert page.repair_dialogs[COMFY] is dialog


def test_check_another_python_offers_repair_when_the_build_is_wrong(qtbot: Any,
                                                                    aloop: Any) -> None:
    """The recorded machine whose checked Python holds 2.5.1+cpu (torch-not-rocm)."""
    wizard = open_wizard(qtbot, "rx7900xtx-cpu-torch")
    page = wizard.pages[PageId.SYSTEM_CHECK]
    wizard.next()
    assert not page.repair_python.isVisible()  # rocmate's own check: Next sets it up
    page.session.python = "/home/alice/ComfyUI/venv/bin/python3"
    page.show_report(page.session.report)
    assert page.repair_python.isVisible()
    assert page.repair_python.text() == "Repair &this Python…"


def test_every_state_a_repair_record_can_hold_has_words() -> None:
    """The history list names each record's state (core.install.repair_record.STATES) in words:
    the window once expected "done" where core writes "repaired", and showed the others as ids."""
    from core.install.repair_record import STATES
    from gui.repair import STATE_WORDS

    assert set(STATE_WORDS) == set(STATES)
