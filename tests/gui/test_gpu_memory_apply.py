"""The GPU memory window's Apply… and Undo… (issue 35, item 3 in the app), driven as a user:
the question names the file, the line written and what is kept for Undo; saying no changes
nothing; on a replayed machine nothing runs; and, for real, as root in a throwaway Debian root,
Apply writes rocmate's ttm file through core's runner and the helper's ``ttm-limit`` verb, and
Undo puts back what was there (``ttm-restore``).

The facts are those of the recorded 128 GB Strix Halo (unslothai/unsloth#7960). Two things are
pointed away from this computer, because it is not that machine and its /etc must not change:
the route to root (pkexec: here a recorder, or ``chroot`` into the throwaway root) and where
core's file door reads rocmate's ttm file and its undo record (the throwaway root's
/etc/modprobe.d and /var/lib/rocmate). The runner, the helper and its verbs are the real ones."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core.install.privilege import Route
from core.operations.machine import check_machine
from gui.bridge import Bridge
from gui.memory import MemoryDialog
from gui.pages.base import PageId
from tests.gui.keys import answer_next_question
from tests.gui.support import MACHINES, click_next, open_wizard

STRIX_HALO = "k35-strix-halo-128g-gttsize-torch62"  # unslothai/unsloth#7960, #7878
CONF = "/etc/modprobe.d/rocmate-ttm.conf"
RECORD = "/var/lib/rocmate/rocmate-ttm.conf.before"
LINE = "options ttm pages_limit=28573696 page_pool_size=28573696"  # 109 GiB x 262144
OTHER = "# the user's own\noptions ttm pages_limit=12582912\n"


class _Inside:
    """The files of a throwaway root, read as core's door reads this computer's."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        target = self.root / path.lstrip("/")
        return target.read_text()[:limit] if target.is_file() else None


def _recorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The route to root is a script that notes it was called and exits as a dismissed pkexec
    does; returns the file it notes into."""
    called = tmp_path / "helper-was-called"
    script = tmp_path / "pkexec"
    script.write_text(f"#!{sys.executable}\nimport pathlib, sys\n"
                      f"pathlib.Path({str(called)!r}).write_text(' '.join(sys.argv))\n"
                      "sys.exit(126)\n")
    script.chmod(0o755)
    monkeypatch.setattr("core.operations.memory.helper_route",
                        lambda *args, **kwargs: Route([str(script)]))
    return called


def _live_window(qtbot: Any, files: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryDialog:
    """The window for this computer (no replay) with the Strix Halo's facts, reading rocmate's
    ttm file from ``files``."""
    from core.operations import machine, memory

    real = machine.open_machine
    monkeypatch.setattr(memory, "open_machine",
                        lambda root: _Inside(files) if root is None else real(root))
    dialog = MemoryDialog(check_machine(str(MACHINES / STRIX_HALO)), root=None,
                          bridge=Bridge())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.read_before()
    qtbot.waitUntil(lambda: dialog.before is not None, timeout=10_000)
    return dialog


def _ask(qtbot: Any, dialog: MemoryDialog, button: Any, answer: QMessageBox.StandardButton
         ) -> list[str]:
    """Click ``button`` as a user and answer its question; the questions asked."""
    asked: list[str] = []
    answer_next_question(answer, asked)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    return asked


def test_a_replayed_machine_shows_the_change_and_runs_nothing(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    called = _recorder(tmp_path, monkeypatch)
    wizard = open_wizard(qtbot, STRIX_HALO)
    click_next(qtbot, wizard)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    qtbot.mouseClick(page.memory, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    dialog: MemoryDialog = page.memory_dialog  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: dialog.before is not None, timeout=10_000)  # the snapshot's files
    shown = dialog.change_words.text()
    assert f"Writes {CONF} (as root):" in shown and LINE in shown
    assert "Kept for Undo: there is no such file now" in shown
    assert dialog.replay_note.isVisible() and "only shown" in dialog.replay_note.text()
    assert not dialog.apply_button.isEnabled() and not dialog.undo_button.isVisible()
    assert dialog.apply_button.text() == "&Apply…"
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(dialog, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
    asked: list[str] = []
    answer_next_question(QMessageBox.StandardButton.Yes, asked, tries=10)
    dialog.apply()  # Apply's own way in: core refuses the replayed plan, and nothing is asked
    qtbot.wait(300)
    assert asked == [] and not called.exists()
    assert "replayed machine" in dialog.state.text() and "nothing on this computer is " \
        "changed" in dialog.state.text()


def test_saying_no_or_closing_the_password_prompt_changes_nothing(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    called = _recorder(tmp_path, monkeypatch)
    files = tmp_path / "files"
    (files / "etc/modprobe.d").mkdir(parents=True)
    (files / CONF.lstrip("/")).write_text(OTHER)
    dialog = _live_window(qtbot, files, monkeypatch)
    assert dialog.apply_button.isEnabled() and not dialog.replay_note.isVisible()
    [question] = _ask(qtbot, dialog, dialog.apply_button, QMessageBox.StandardButton.No)
    assert f"rocmate writes {CONF} as root" in question and LINE in question
    assert "up to 109 GiB of system memory, from the next restart" in question
    assert "Kept for Undo: what the file holds now:\n    # the user's own\n    options ttm " \
        "pages_limit=12582912" in question
    assert dialog.state.text() == "Nothing was changed."
    assert not called.exists() and (files / CONF.lstrip("/")).read_text() == OTHER
    assert not (files / RECORD.lstrip("/")).exists()
    # yes, then the password prompt dismissed (the recorder exits as pkexec then does)
    _ask(qtbot, dialog, dialog.apply_button, QMessageBox.StandardButton.Yes)
    qtbot.waitUntil(lambda: called.exists() and not dialog.running, timeout=60_000)
    assert dialog.state.text().startswith("Stopped: "), dialog.state.text()
    assert "password prompt" in dialog.state.text(), dialog.state.text()
    assert (files / CONF.lstrip("/")).read_text() == OTHER and dialog.apply_button.isEnabled()


@pytest.fixture
def throwaway(debian_root: Path, tmp_path: Path) -> Iterator[Path]:
    """A throwaway Debian root with rocmate installed root-owned, a /proc/meminfo of a 128 GB
    Strix Halo (the helper reads the RAM itself) and the user's own ttm file."""
    from tests.install.support import copy_root
    from tests.install.test_helper_hostile import _prepared_root
    from tests.install.test_helper_ttm import MEMINFO

    if os.geteuid() != 0:
        pytest.skip("needs root (the helper runs as root in a chroot)")
    with copy_root(debian_root, tmp_path / "copy") as root:
        _prepared_root(root)
        (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
        (root / "proc/meminfo").write_text(MEMINFO)
        conf = root / CONF.lstrip("/")
        conf.write_text(OTHER)
        conf.chmod(0o640)
        yield root


@pytest.mark.root
@pytest.mark.slow
def test_apply_then_undo_for_real_in_a_throwaway_root(
        qtbot: Any, aloop: Any, throwaway: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.install.helper.policy import TTM_PAGES_PER_GIB, ttm_conf_text

    monkeypatch.setattr("core.operations.memory.helper_route", lambda *args, **kwargs: Route(
        ["chroot", str(throwaway), "/usr/bin/python3", "-I", "-m", "core.install.helper",
         "--cancel-on-eof"]))
    dialog = _live_window(qtbot, throwaway, monkeypatch)
    conf, record = throwaway / CONF.lstrip("/"), throwaway / RECORD.lstrip("/")
    [question] = _ask(qtbot, dialog, dialog.apply_button, QMessageBox.StandardButton.Yes)
    assert LINE in question
    qtbot.waitUntil(lambda: not dialog.running, timeout=120_000)
    assert conf.read_text() == ttm_conf_text(109 * TTM_PAGES_PER_GIB), dialog.log.toPlainText()
    assert conf.stat().st_mode & 0o777 == 0o644 and record.is_file()
    assert dialog.state.text().startswith("Done: the new limit is written. Restart the "
                                          "computer, then open rocmate again")
    assert dialog.progress.value() == dialog.progress.maximum() == 1
    assert "[done] Let the GPU map up to 109 GiB of system memory" in dialog.log.toPlainText()
    # the record read again: Undo is offered, and the next Apply keeps the same old file
    qtbot.waitUntil(lambda: dialog.undo_button.isVisible(), timeout=10_000)
    assert dialog.undo_button.isEnabled() and dialog.undo_button.text() == "&Undo…"
    kept = "\n    # the user's own\n    options ttm pages_limit=12582912"
    assert "Kept for Undo: what the file held before rocmate first changed it:" + kept \
        in dialog.change_words.text()
    [question] = _ask(qtbot, dialog, dialog.undo_button, QMessageBox.StandardButton.No)
    assert f"rocmate puts {CONF} back as root" in question and kept in question
    assert conf.read_text() == ttm_conf_text(109 * TTM_PAGES_PER_GIB)
    _ask(qtbot, dialog, dialog.undo_button, QMessageBox.StandardButton.Yes)
    qtbot.waitUntil(lambda: not dialog.running, timeout=120_000)
    assert conf.read_text() == OTHER and conf.stat().st_mode & 0o777 == 0o640, \
        dialog.log.toPlainText()
    assert not record.exists()
    assert dialog.state.text().startswith("Undone: the file is back as it was. Restart")
    qtbot.waitUntil(lambda: not dialog.undo_button.isVisible(), timeout=10_000)
