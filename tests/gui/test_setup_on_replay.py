"""A replayed machine is only shown: Run set-up's Start carries nothing out on this computer
(core refuses a replayed plan, the page says so), and Save snapshot saves the replayed machine
(a copy of its folder), not this computer. Walked from Welcome through the wizard's own
buttons, on the real wizard and a real recorded machine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QWizard

from core.install.privilege import Route
from gui.pages.base import PageId
from tests.gui.support import MACHINES, open_wizard, walk_to
from tests.waits import call_ends

MACHINE = "rx6600-ubuntu2404-fresh"


def _recording_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Whatever route to root the run would take (pkexec, or the helper itself as root) is a
    script that records that it was called and exits as a dismissed pkexec does (so nothing
    after it runs either). Returns the file it records into."""
    called = tmp_path / "helper-was-called"
    recorder = tmp_path / "pkexec"
    recorder.write_text(f"#!{sys.executable}\nimport pathlib, sys\n"
                        f"pathlib.Path({str(called)!r}).write_text(' '.join(sys.argv))\n"
                        "sys.exit(126)\n")
    recorder.chmod(0o755)
    monkeypatch.setattr("core.operations.setup.helper_route",
                        lambda *args, **kwargs: Route([str(recorder)]))
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    return called


def test_start_on_a_replayed_machine_carries_nothing_out_here(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    called = _recording_helper(tmp_path, monkeypatch)
    wizard = open_wizard(qtbot, MACHINE, checked=False)
    walk_to(qtbot, wizard, PageId.RUN_SETUP)
    page = wizard.pages[PageId.RUN_SETUP]
    assert page.items, "the replayed plan's steps are shown"
    # the page's subtitle does not claim its steps are "carried out" on a replay
    assert "never carried out here" in page.subTitle() and "password" not in page.subTitle()
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(page, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # &Start
    page.start(resume=True)  # Resume's way in: core refuses it too
    qtbot.wait(300)
    assert not called.exists(), "Start reached pkexec or the helper on a replayed machine"
    assert not page.start_button.isEnabled()
    assert "replayed" in page.outcome.text() and "nothing" in page.outcome.text().lower()
    assert all(item.text(1) == "waiting" for item in page.items.values())
    onward = wizard.button(QWizard.WizardButton.CommitButton)  # the replay's pages go on
    assert onward.isEnabled()
    qtbot.mouseClick(onward, Qt.MouseButton.LeftButton)
    assert wizard.currentId() == int(PageId.OVERRIDE_TESTER) and not called.exists()


def test_save_snapshot_on_a_replay_saves_the_replayed_machine(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "saved"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    wizard = open_wizard(qtbot, MACHINE, checked=False)
    walk_to(qtbot, wizard, PageId.SYSTEM_CHECK)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    qtbot.waitUntil(page.isComplete, timeout=60_000)
    with call_ends(qtbot, page.bridge, timeout_ms=60_000):
        qtbot.mouseClick(page.save_snapshot, Qt.MouseButton.LeftButton)
    replayed = MACHINES / MACHINE
    assert (out / "files/etc/os-release").read_text() == \
        (replayed / "files/etc/os-release").read_text()
    assert (out / "user.json").read_text() == (replayed / "user.json").read_text()
    assert "replayed" in page.message.text() and str(out) in page.message.text()
