"""The Benchmark page drives the real worker on the CPU at tiny size: every suite card, the
graphs fed with every step, Cancel (no worker left, a cancelled history row), an out-of-memory
and a missing package as one readable message, and the window closed mid-run."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from core.report.history import History
from gui.bridge import Bridge
from gui.pages.base import PageId
from gui.pages.benchmark import BenchmarkPage
from gui.session import Session
from gui.wizard import RocWizard
from tests.bench.helpers import python_without_diffusers
from tests.gui.keys import answer_next_question
from tests.gui.test_live_plots import assert_star_inside
from tests.waits import while_benchmark_runs

RUN_S = 240_000  # ms: a tiny CPU run takes seconds; a loaded CI machine gets slack


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a shared 2-core machine: no spin-waiting
    return Session(python=sys.executable, history_path=tmp_path / "history.sqlite")


def make_page(qtbot: Any, session: Session) -> BenchmarkPage:
    page = BenchmarkPage(session, Bridge())
    qtbot.addWidget(page)
    page.initializePage()
    page.show()
    return page


def choose(page: BenchmarkPage, key: str, *, steps: int = 2, batch: int = 0,
           tiny: bool = True) -> None:
    page.choose(key)
    settings = page.advanced
    settings.device.setCurrentIndex(settings.device.findData("cpu"))
    settings.tiny.setChecked(tiny)
    settings.steps.setValue(steps)
    settings.batch.setValue(batch)


def run_files(session: Session) -> list[list[dict[str, Any]]]:
    runs = Path(os.environ["XDG_DATA_HOME"]) / "rocmate" / "runs"
    return [[json.loads(line) for line in f.read_text().splitlines()]
            for f in sorted(runs.glob("*.jsonl"))]


def wait_done(qtbot: Any, page: BenchmarkPage) -> None:
    qtbot.waitUntil(lambda: not page.busy and page.sequence is None, timeout=RUN_S)


@pytest.mark.slow  # a real worker or app process: not in make check
@pytest.mark.parametrize(("key", "suites"), [("health", ["gemm", "bandwidth"]),
                                             ("resnet50-train", ["resnet50-train"]),
                                             ("sd15-infer", ["sd15-infer"]),
                                             ("llm-train", ["llm-train"])])
def test_each_suite_runs_for_real_and_feeds_the_graphs(
        qtbot: Any, aloop: Any, session: Session, key: str, suites: list[str]) -> None:
    page = make_page(qtbot, session)
    choose(page, key)
    assert not page.isComplete()
    page.start_button.click()
    assert page.busy and not page.start_button.isEnabled() and page.cancel_button.isEnabled()
    wait_done(qtbot, page)
    assert page.result is not None and page.result.status == "ok", page.message.text()
    report = session.bench_report
    assert report is not None and [r.suite for r in report.runs] == suites
    assert page.isComplete() and page.nextId() == int(PageId.RESULTS)
    events = [e for run in run_files(session) for e in run]
    steps = [e for e in events if e["event"] == "step"]
    assert steps and sum(len(r.steps) for r in report.runs) == len(steps)
    # the graphs got every step of the last suite (each suite starts them afresh)
    last = run_files(session)[-1]
    assert page.plots.steps_seen == sum(e["event"] == "step" for e in last)
    assert any(e["event"] == "phase" and e.get("phase") == "setup" for e in events)
    # one choice, one row in the (real SQLite) history, holding every suite it ran: the
    # health check's gemm and bandwidth were two rows, one stored by each suite's run
    assert session.history_path is not None
    with History(session.history_path) as history:
        (row,) = history.list()
        assert history.count() == 1 and session.bench_history_ids == [row.id]
        assert row.suite == "+".join(suites) and row.status == "ok"
        assert [r.suite for r in history.run_report(row.id).runs] == suites
        assert all(history.list(suite=suite) == [row] for suite in suites)
    assert "Done" in page.status.text() and not page.message.isVisible()
    # the first step's star lies whole inside each step plot (issue 31/15)
    for plot in ("throughput", "step_time"):
        assert_star_inside(page.plots, plot)
    # each suite's graphs can be shown again once the run is done, not only the last one's
    assert page.run_row.isVisible() == (len(suites) > 1)
    if len(suites) > 1:
        assert [page.run_choice.itemText(i) for i in range(page.run_choice.count())] == [
            "GEMM (matrix multiply) (tiny shapes, each dtype)",
            "Memory bandwidth (tiny shapes)"]
        assert page.run_choice.currentIndex() == 1
        page.run_choice.setFocus()
        qtbot.keyClick(page.run_choice, Qt.Key.Key_Up)  # as a user picks the first suite
        first = run_files(session)[0]
        assert page.run_choice.currentIndex() == 0
        assert page.plots.steps_seen == sum(e["event"] == "step" for e in first)


@pytest.mark.slow  # a real worker or app process: not in make check
def test_cancel_mid_run_leaves_no_worker_and_a_cancelled_row(
        qtbot: Any, aloop: Any, session: Session) -> None:
    page = make_page(qtbot, session)
    choose(page, "resnet50-train", steps=100_000)
    page.start_button.click()
    while_benchmark_runs(qtbot, page, lambda: page.plots.steps_seen >= 2, timeout_ms=RUN_S,
                         what="2 steps in the graphs")
    (hello,) = [e for e in run_files(session)[0] if e["event"] == "hello"]
    page.cancel_button.click()
    wait_done(qtbot, page)
    with pytest.raises(ProcessLookupError):
        os.kill(hello["pid"], 0)
    assert page.result is not None and page.result.status == "cancelled"
    assert "Cancelled" in page.status.text()
    assert session.history_path is not None
    with History(session.history_path) as history:
        (row,) = history.list()
    assert row.status == "cancelled" and row.suite == "resnet50-train"
    assert page.isComplete()  # the cancelled run's steps can be looked at


def _wrapper(tmp_path: Path, name: str, body: str) -> str:
    """A "python" that is this test set-up's Python, started the way ``body`` says."""
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\n{body}\nexec {sys.executable} \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.slow  # a real worker or app process: not in make check
def test_out_of_memory_is_one_readable_message(qtbot: Any, aloop: Any, session: Session,
                                               tmp_path: Path) -> None:
    # torch + torchvision map ~3.7 GB of address space; 300k tiny images need ~3.7 GB more
    session.python = _wrapper(tmp_path, "capped-python", "ulimit -v 5242880")
    page = make_page(qtbot, session)
    choose(page, "resnet50-train", batch=300_000)
    page.start_button.click()
    wait_done(qtbot, page)
    assert page.result is not None and page.result.status == "error"
    text = page.message.text()
    assert page.message.isVisible() and "memory" in text.lower() and "batch" in text
    assert "Traceback" not in text


def test_a_missing_package_is_one_readable_message(qtbot: Any, aloop: Any, session: Session,
                                                   tmp_path: Path) -> None:
    session.python = str(python_without_diffusers(tmp_path / "nodiff"))
    page = make_page(qtbot, session)
    choose(page, "sd15-infer")
    page.start_button.click()
    wait_done(qtbot, page)
    assert page.result is not None and page.result.status == "error"
    text = page.message.text()
    assert "diffusers" in text and "pip install diffusers" in text and "Traceback" not in text


def test_bad_settings_are_said_before_anything_starts(qtbot: Any, aloop: Any,
                                                      session: Session) -> None:
    page = make_page(qtbot, session)
    choose(page, "sd15-infer")
    page.advanced.model.setText("/no/such/weights.safetensors")
    page.start_button.click()
    assert not page.busy and page.message.isVisible()
    assert "no such file" in page.message.text()


def test_the_cards_are_sized_to_the_card(qtbot: Any, session: Session) -> None:
    from core.operations.machine import check_machine
    from tests.gui.support import MACHINES

    session.report = check_machine(str(MACHINES / "rx6700xt-ubuntu2204-needs-override"))
    page = make_page(qtbot, session)
    resnet = next(c for c in page.cards if c.plan.choice.key == "resnet50-train")
    assert resnet.plan.batch_size == 128  # 12 GB
    assert "batch 128" in resnet.facts.text() and "about" in resnet.facts.text()
    page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
    assert resnet.plan.batch_size is None and "batch" not in resnet.facts.text()


@pytest.mark.slow  # a real worker or app process: not in make check
def test_closing_the_window_mid_run_asks_then_cancels(qtbot: Any, aloop: Any,
                                                      session: Session,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.open_at(PageId.BENCHMARK)
    wizard.show()
    page = wizard.pages[PageId.BENCHMARK]
    assert isinstance(page, BenchmarkPage)
    choose(page, "resnet50-train", steps=100_000)
    page.start_button.click()
    while_benchmark_runs(qtbot, page, lambda: page.plots.steps_seen >= 1, timeout_ms=RUN_S,
                         what="a step in the graphs")
    answer_next_question(QMessageBox.StandardButton.No, [])  # the real question: keep going
    wizard.close()
    assert wizard.isVisible() and page.busy
    answer_next_question(QMessageBox.StandardButton.Yes, [])  # stop it and close
    wizard.close()
    qtbot.waitUntil(lambda: not wizard.isVisible(), timeout=RUN_S)
    assert session.history_path is not None
    with History(session.history_path) as history:
        (row,) = history.list()
    assert row.status == "cancelled"


@pytest.mark.slow  # a real worker or app process: not in make check
def test_the_advanced_settings_of_a_run_are_offered_again_next_time(
        qtbot: Any, aloop: Any, session: Session) -> None:
    """What a run was started with is there again in a new window (issue 31/17: the advanced
    settings were forgotten); a value that no longer reads is left at its default."""
    from PySide6.QtCore import QSettings

    page = make_page(qtbot, session)
    choose(page, "health", steps=3)
    page.advanced.precision.setCurrentIndex(page.advanced.precision.findData("fp32"))
    page.advanced.measure.setValue(7)
    page.start_button.click()
    wait_done(qtbot, page)
    again = make_page(qtbot, session)
    advanced = again.advanced
    assert advanced.device.currentData() == "cpu" and advanced.tiny.isChecked()
    assert advanced.steps.value() == 3 and advanced.measure.value() == 7
    assert advanced.precision.currentData() == "fp32"
    QSettings().setValue("benchmark/advanced/steps", "many")  # a hand-edited file
    QSettings().setValue("benchmark/advanced/device", "cuda:7")  # not offered here
    third = make_page(qtbot, session).advanced
    assert third.steps.value() == 0 and third.device.currentData() == "cuda:0"


def test_a_known_bad_stack_is_said_before_a_run(qtbot: Any, session: Session) -> None:
    """On a machine whose linux-firmware public reports show hanging its card, the page says
    so before Start (issue 32, item 6: core's warning, from the System check's facts); a
    machine without one says nothing."""
    from core.operations.machine import check_machine
    from tests.gui.support import MACHINES

    session.report = check_machine(str(MACHINES / "k32-strix-halo-fedora43-firmware-20251125"))
    page = make_page(qtbot, session)
    assert page.stack_warning.isVisible()
    text = page.stack_warning.text()
    assert text.startswith("Before a long run: ") and "20251125" in text and "hang" in text
    session.report = check_machine(str(MACHINES / "rx7900xtx-ubuntu2404-ready"))
    assert not make_page(qtbot, session).stack_warning.isVisible()
