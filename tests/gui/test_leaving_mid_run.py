"""Leaving the wizard while it works, with the keys and buttons a user has: Esc and the
wizard's Cancel ask the same question as closing the window, "No" leaves the work running,
"Yes" stops it cleanly (the benchmark kept in the history as cancelled) and closes the window
only once it has stopped. "Cancel the run" stops a worker that ignores SIGINT (an app started
with SIGINT ignored, as ``sh -c 'rocmate &'`` does) and the run is kept as cancelled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWizard

from core.install.plan import Plan, Step
from core.install.runner import Runner
from core.operations.machine import check_machine
from core.operations.setup import finished_steps, verify_pytorch
from core.report.history import History
from gui.pages.base import PageId
from gui.pages.benchmark import BenchmarkPage
from gui.session import Session
from gui.wizard import RocWizard
from tests.gui.keys import answer_next_question, press
from tests.gui.support import MACHINES
from tests.waits import while_benchmark_runs

ROOT = Path(__file__).resolve().parents[2]
RUN_MS = 240_000  # a tiny CPU run takes seconds; a loaded machine gets slack
YES, NO = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
QUESTION = "Cancel the benchmark and close?"


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    """A ready recorded machine, checked; its benchmark runs on this computer's CPU."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    root = str(MACHINES / "popos2204-rx6800-ready")
    return Session(root=root, python=sys.executable, report=check_machine(root),
                   check=verify_pytorch(root), history_path=tmp_path / "history.sqlite")


def _wizard(qtbot: Any, session: Session) -> RocWizard:
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def _to_benchmark(qtbot: Any, wizard: RocWizard) -> BenchmarkPage:
    """Welcome, System check, Verify, Benchmark: each with the wizard's Next button."""
    for _ in range(3):
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.NextButton),
                         Qt.MouseButton.LeftButton)
    assert wizard.currentId() == PageId.BENCHMARK
    page = wizard.pages[PageId.BENCHMARK]
    assert isinstance(page, BenchmarkPage)
    return page


def _start_long_run(qtbot: Any, page: BenchmarkPage, *, steps: int = 100_000) -> None:
    """ResNet-50 at tiny size on the CPU, started with Start; back once it measures."""
    page.choose("resnet50-train")
    page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
    page.advanced.tiny.setChecked(True)
    page.advanced.steps.setValue(steps)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    while_benchmark_runs(qtbot, page, lambda: page.plots.steps_seen >= 2, timeout_ms=RUN_MS,
                         what="2 steps in the graphs")


def _worker_pids() -> list[int]:
    """The pids the workers said hello with (their run files)."""
    runs = Path(os.environ["XDG_DATA_HOME"]) / "rocmate" / "runs"
    return [json.loads(line)["pid"] for f in sorted(runs.glob("*.jsonl"))
            for line in f.read_text().splitlines() if '"event":"hello"' in line]


def _history_statuses(session: Session) -> list[str]:
    assert session.history_path is not None
    with History(session.history_path) as history:
        return [row.status for row in history.list()]


@pytest.mark.slow  # a real worker or app process: not in make check
@pytest.mark.parametrize("leave", ["escape", "cancel-button"])
def test_leaving_a_benchmark_asks_first_and_keeps_the_run(
        qtbot: Any, aloop: Any, session: Session, leave: str) -> None:
    wizard = _wizard(qtbot, session)
    page = _to_benchmark(qtbot, wizard)
    busy_when_closed: list[bool] = []
    wizard.closed.connect(lambda: busy_when_closed.append(wizard.bridge.busy()))
    _start_long_run(qtbot, page)

    def leave_now() -> None:
        if leave == "escape":
            press(qtbot, wizard, Qt.Key.Key_Escape)
        else:
            qtbot.mouseClick(wizard.button(QWizard.WizardButton.CancelButton),
                             Qt.MouseButton.LeftButton)

    asked: list[str] = []
    answer_next_question(NO, asked)
    leave_now()
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5_000)
    assert asked[0].startswith(QUESTION)
    seen = page.plots.steps_seen
    while_benchmark_runs(qtbot, page, lambda: page.plots.steps_seen > seen, timeout_ms=RUN_MS,
                         what="another step after No")  # it runs on
    assert wizard.isVisible() and page.busy and busy_when_closed == []

    answer_next_question(YES, asked)
    leave_now()
    qtbot.waitUntil(lambda: not wizard.isVisible(), timeout=RUN_MS)
    assert len(asked) == 2 and not page.busy
    assert page.result is not None and page.result.status == "cancelled"
    assert _history_statuses(session) == ["cancelled"]  # as the question said
    # the app's loop ends when the window says it closed: nothing may still run then
    assert busy_when_closed and not any(busy_when_closed)


def test_escape_during_a_set_up_asks_and_stops_after_the_step(
        qtbot: Any, aloop: Any, tmp_path: Path) -> None:
    plan = Plan(strategy="pip-only", rocm="7.2", torch_index=None, env={}, steps=(
        Step("slow", "A slow step", "sleeps", argv=(sys.executable, "-c",
                                                    "import time; print('going'); "
                                                    "time.sleep(60)")),
        Step("after", "The step after it", "never runs", argv=(sys.executable, "-c", "pass")),
    ))
    state = tmp_path / "state"
    wizard = RocWizard(Session(plan=plan))
    qtbot.addWidget(wizard)
    page: Any = wizard.pages[PageId.RUN_SETUP]
    page.make_runner = lambda plan, emit, resume: Runner(plan, emit, None, folder=state)
    page.earlier_steps = lambda plan: finished_steps(plan, state)
    wizard.setStartId(int(PageId.RUN_SETUP))
    wizard.show()
    qtbot.waitExposed(wizard)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.items["slow"].text(1) == "running", timeout=30_000)
    asked: list[str] = []
    answer_next_question(NO, asked)
    press(qtbot, wizard, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5_000)
    assert asked[0].startswith("Stop the set-up")
    assert wizard.isVisible() and page.busy
    answer_next_question(YES, asked)
    press(qtbot, wizard, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not wizard.isVisible(), timeout=30_000)
    assert page.items["slow"].text(1) == "stopped"
    assert page.items["after"].text(1) in ("waiting", "not run")  # never started


APP = r'''
import os, sys
from pathlib import Path
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox
from gui import app
from gui.pages.base import PageId
from gui.session import Session

def wizard():
    return next(w for w in QApplication.topLevelWidgets()
                if w.objectName() == "rocmate-wizard" and w.isVisible())

def answer_yes():
    box = QApplication.activeModalWidget()
    if isinstance(box, QMessageBox) and box.isVisible():
        print("asked:", box.text(), flush=True)
        box.button(QMessageBox.StandardButton.Yes).click()
    else:
        QTimer.singleShot(20, answer_yes)

def user():
    """What the user does, one step each time the last one's wait is over."""
    w = wizard()
    w.next()
    yield lambda: w.currentId() == PageId.SYSTEM_CHECK and w.currentPage().isComplete()
    w.next()
    yield lambda: w.currentId() == PageId.VERIFY and w.currentPage().isComplete()
    w.next()
    yield lambda: w.currentId() == PageId.BENCHMARK
    page = w.currentPage()
    page.choose("resnet50-train")
    page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
    page.advanced.tiny.setChecked(True)
    page.advanced.steps.setValue(100000)
    page.start_button.click()
    yield lambda: page.plots.steps_seen >= 2
    QTimer.singleShot(0, answer_yes)
    QTest.keyClick(w, Qt.Key.Key_Escape)
    yield lambda: False

steps = None
def tick(wait=[lambda: True]):
    global steps
    try:
        if steps is None:
            steps = user()
        if wait[0]():
            wait[0] = next(steps)
    except StopIteration:
        return
    QTimer.singleShot(50, tick)

app.application()  # the timers need the application
QTimer.singleShot(300, tick)
QTimer.singleShot(100_000, lambda: os._exit(3))  # a hang fails the test, never waits forever
session = Session(root=sys.argv[1], python=sys.executable, history_path=Path(sys.argv[2]))
raise SystemExit(app.run(session, language="en"))
'''


@pytest.mark.slow  # a real worker or app process: not in make check
def test_the_app_ends_cleanly_after_esc_mid_run(tmp_path: Path) -> None:
    """The real app and its event loop: Esc mid-run, "Yes": the app ends with no error once
    the run has stopped, and the run is in the history as cancelled."""
    history = tmp_path / "history.sqlite"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "OMP_NUM_THREADS": "1",
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-c", APP, str(MACHINES / "popos2204-rx6800-ready"),
                           str(history)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=150, check=False)
    assert "asked: " + QUESTION in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    with History(history) as kept:
        assert [row.status for row in kept.list()] == ["cancelled"]


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """This process ignores SIGINT, as an app started with ``sh -c 'rocmate &'`` does: the
    workers it starts inherit it."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.slow  # a real worker or app process: not in make check
def test_cancel_stops_a_worker_that_ignores_sigint(
        qtbot: Any, aloop: Any, session: Session, sigint_ignored: None) -> None:
    wizard = _wizard(qtbot, session)
    page = _to_benchmark(qtbot, wizard)
    _start_long_run(qtbot, page)
    workers = _worker_pids()
    assert workers
    asked = time.monotonic()
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.busy, timeout=RUN_MS)
    took = time.monotonic() - asked
    assert page.result is not None and page.result.status == "cancelled"
    assert _history_statuses(session) == ["cancelled"]
    assert took < 8.0, f"the worker took {took:.1f} s to stop"
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
