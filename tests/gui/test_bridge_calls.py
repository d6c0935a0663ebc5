"""Each background call carries its own callbacks (issue 38): a call's failure reaches the
page that made it and frees it, no other page hears of it, and a call that was restarted or
cancelled delivers nothing, however late its work ends."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, Qt

from core.operations.errors import OperationError


def _settle(qtbot: Any) -> None:
    for _ in range(5):
        QCoreApplication.processEvents()
        qtbot.wait(20)


def test_a_failed_call_reaches_its_page_only_and_frees_it(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    """The Windows side's re-check fails (its recorded machine gone): that page is free and
    says why; the system check page, on the same bridge, is told nothing and is not busy."""
    from core.operations.machine import check_machine
    from gui.pages.base import PageId
    from gui.session import Session
    from gui.wizard import RocWizard
    from tests.gui.support import MACHINES

    root = tmp_path / "machine"
    shutil.copytree(MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready", root, symlinks=True)
    session = Session(root=str(root))
    session.report = check_machine(str(root))
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.setStartId(int(PageId.WINDOWS_SIDE))
    wizard.show()
    page = wizard.pages[PageId.WINDOWS_SIDE]
    other = wizard.pages[PageId.SYSTEM_CHECK]
    said_before = other.message.text()  # type: ignore[attr-defined]
    shutil.rmtree(root)
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: not wizard.bridge.busy(), timeout=30_000)
    _settle(qtbot)
    assert not page.busy and page.isComplete()
    assert page.message.text().startswith("The check could not finish: ")  # type: ignore
    assert not other.busy and not other.failed_check  # type: ignore[attr-defined]
    assert other.message.text() == said_before  # type: ignore[attr-defined]
    assert not any(p.busy for p in wizard.pages.values())
    assert wizard.bridge.calls == {}


def test_two_callers_each_hear_their_own_call(qtbot: Any, aloop: Any, bridge: Any) -> None:
    """One caller's work fails while another's runs: the failure reaches the first only; the
    second gets its own result, later, and nothing else."""
    release = threading.Event()
    heard: dict[str, list[object]] = {"a": [], "b": []}

    def fails() -> None:
        raise OperationError("the recorded machine is gone")

    def slow() -> str:
        release.wait(10)
        return "b's result"

    bridge.run("b:work", slow, owner=None,
               on_done=lambda r: heard["b"].append(("done", r)),
               on_failed=lambda m, d: heard["b"].append(("failed", m)))
    bridge.run("a:work", fails, owner=None,
               on_done=lambda r: heard["a"].append(("done", r)),
               on_failed=lambda m, d: heard["a"].append(("failed", m, d)))
    qtbot.waitUntil(lambda: heard["a"] != [], timeout=10_000)
    assert heard == {"a": [("failed", "the recorded machine is gone", "")], "b": []}
    assert not bridge.busy("a:work") and bridge.busy("b:work")
    release.set()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=10_000)
    _settle(qtbot)
    assert heard == {"a": [("failed", "the recorded machine is gone", "")],
                     "b": [("done", "b's result")]}


def test_a_restarted_call_delivers_nothing_late(qtbot: Any, aloop: Any, bridge: Any) -> None:
    """A second call with the same key (a Re-check) replaces the first: the first one's
    result, its failure and its steps are dropped, even when its work ends after the second's;
    a cancelled call delivers nothing either."""
    release, ended = threading.Event(), threading.Event()
    done: list[object] = []
    failed: list[str] = []
    steps: list[object] = []

    def first() -> str:
        release.wait(10)
        ended.set()
        return "old"

    def first_fails() -> str:
        release.wait(10)
        ended.set()
        raise OperationError("old failure")

    old = bridge.run("check", first, owner=None,
                     on_done=done.append,
                     on_failed=lambda m, d: failed.append(m), on_progress=steps.append)
    _settle(qtbot)  # the first call's work is under way in its thread
    bridge.run("check", lambda: "new", owner=None,
               on_done=done.append,
               on_failed=lambda m, d: failed.append(m), on_progress=steps.append)
    old.report("a step of the old call")
    qtbot.waitUntil(lambda: done == ["new"], timeout=10_000)
    release.set()  # the old work ends now, after the new one was delivered
    assert ended.wait(10)  # the old work has ended
    _settle(qtbot)
    assert done == ["new"] and failed == [] and steps == []

    release.clear()
    ended.clear()
    gone = bridge.run("other", first_fails, owner=None,
                      on_done=done.append,
                      on_failed=lambda m, d: failed.append(m))
    _settle(qtbot)
    bridge.cancel("other")
    release.set()
    assert ended.wait(10)
    _settle(qtbot)
    assert gone.cancelled and done == ["new"] and failed == []
    assert not bridge.busy() and bridge.calls == {}


def test_a_call_whose_window_is_gone_delivers_nothing(qtbot: Any, aloop: Any,
                                                     bridge: Any) -> None:
    """A window closed and deleted while its call runs: the result is dropped (its callbacks
    would touch deleted widgets), as the broadcast's disconnected slots dropped it before."""
    from PySide6.QtWidgets import QLabel

    release, ended = threading.Event(), threading.Event()
    label = QLabel()
    said: list[object] = []

    def work() -> str:
        release.wait(10)
        ended.set()
        return "late"

    def done(result: object) -> None:
        said.append(result)
        label.setText(str(result))  # would raise: the label is deleted

    bridge.run("window:read", work, owner=label, on_done=done,
               on_failed=lambda m, d: said.append(m))
    _settle(qtbot)
    shiboken6.delete(label)  # its C++ object gone, as a window closed with DeleteOnClose
    _settle(qtbot)
    assert not shiboken6.isValid(label)
    release.set()
    assert ended.wait(10)
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=10_000)
    _settle(qtbot)
    assert said == [] and bridge.calls == {}
