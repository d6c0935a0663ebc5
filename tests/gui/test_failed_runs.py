"""Failed and cancelled runs as the app shows them (issue 31/12): the progress bar does not read
100 %, empty graphs say why they are empty, the advice names no command-line option (the app has
a setting or a page for it), History tells cancelled from failed by its mark and its words, and
Compare does not call a difference inside a run's own noise "better" or "worse" in bold.

The runs are real: a tiny CPU run in a Python that lacks diffusers (a missing package), and a
run cancelled before its first step."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWizard

from core.operations.reports import HistoryAccess, load_report
from gui.bridge import Bridge
from gui.compare import CompareView
from gui.history import HistoryWindow
from gui.history_rows import STATUS, demo_history
from gui.pages.base import PageId
from gui.session import Session
from gui.wizard import RocWizard
from tests.bench.helpers import python_without_diffusers
from tests.waits import while_benchmark_runs

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
FAILED = ROOT / "tests" / "report" / "data" / "cpu-failed-missing-package.json"
CANCELLED = REPORTS / "failed" / "cpu-tiny-resnet50-train-cancelled.json"
UNSTEADY = REPORTS / "h200-sd15-infer-eager-bs1-unsteady.json"
RUN_MS = 240_000
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")  # --python, --batch-size, --device ...


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return Session(python=sys.executable, history_path=tmp_path / "history.sqlite")


def _benchmark(qtbot: Any, session: Session) -> tuple[RocWizard, Any]:
    """The wizard at its Benchmark page, a tiny CPU run of ``key`` chosen."""
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.open_at(PageId.BENCHMARK)
    wizard.show()
    page = wizard.pages[PageId.BENCHMARK]
    settings = page.advanced
    settings.device.setCurrentIndex(settings.device.findData("cpu"))
    settings.tiny.setChecked(True)
    settings.steps.setValue(2)
    return wizard, page


def _done(qtbot: Any, page: Any) -> None:
    qtbot.waitUntil(lambda: not page.busy and page.sequence is None, timeout=RUN_MS)


def _said_hello() -> bool:
    """Whether the worker has started (its hello is in the run file)."""
    runs = Path(os.environ["XDG_DATA_HOME"]) / "rocmate" / "runs"
    return any('"event":"hello"' in f.read_text() for f in runs.glob("*.jsonl"))


def _bar_full(page: Any) -> bool:
    bar = page.progress
    return bar.isVisible() and bar.value() >= bar.maximum()


def test_a_failed_run_says_why_in_the_apps_words(qtbot: Any, aloop: Any, session: Session,
                                                 tmp_path: Path) -> None:
    session.python = str(python_without_diffusers(tmp_path / "nodiff"))
    wizard, page = _benchmark(qtbot, session)
    page.choose("sd15-infer")
    page.start_button.click()
    _done(qtbot, page)
    assert page.result is not None and page.result.status == "error"
    assert not _bar_full(page)
    text = page.message.text()
    assert "diffusers" in text and not FLAG.search(text), text
    assert "failed before its first step" in page.plots.empty_words()
    wizard.button(QWizard.WizardButton.NextButton).click()
    assert wizard.currentId() == int(PageId.RESULTS)
    (card,) = wizard.pages[PageId.RESULTS].view.cards
    assert card.error_advice is not None
    advice = card.error_advice.text()
    assert "diffusers" in advice and not FLAG.search(advice), advice


def test_a_run_cancelled_before_its_first_step(qtbot: Any, aloop: Any,
                                               session: Session) -> None:
    _, page = _benchmark(qtbot, session)
    page.choose("resnet50-train")
    page.advanced.tiny.setChecked(False)  # full shapes: the first step takes a while on a CPU
    page.start_button.click()
    while_benchmark_runs(qtbot, page, _said_hello, timeout_ms=RUN_MS,
                         what="the worker's hello")
    page.cancel_button.click()
    _done(qtbot, page)
    assert page.result is not None and page.result.status == "cancelled"
    assert not _bar_full(page)
    assert page.plots.steps_seen == 0
    assert "cancelled before its first step" in page.plots.empty_words()


def test_history_tells_cancelled_from_failed(qtbot: Any, aloop: Any, bridge: Bridge,
                                             tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite"
    demo_history(db, [FAILED, CANCELLED])
    window = HistoryWindow(bridge, db)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignals([bridge.finished], timeout=30_000):
        window.reload()
    model = window.model
    marks, words = {}, {}
    for row in range(model.rowCount()):
        index = model.index(row, STATUS)
        status = model.rows[row].entry.status
        marks[status] = model.data(index, 1).cacheKey()  # Qt.DecorationRole
        words[status] = model.data(index, 0)
    assert set(marks) == {"error", "cancelled"}
    assert marks["error"] != marks["cancelled"]
    assert words["error"] != words["cancelled"]


def test_compare_does_not_call_noise_worse(qtbot: Any, bridge: Bridge, tmp_path: Path) -> None:
    data = json.loads(UNSTEADY.read_text())
    for figure in data["runs"][0]["result"]["figures"].values():  # B: 4 % slower throughout
        factor = 0.96 if figure["higher_is_better"] else 1 / 0.96
        for key in ("median", "p10", "p90", "mean", "min", "max"):
            figure[key] *= factor
    slower = tmp_path / "slower.json"
    slower.write_text(json.dumps(data))
    view = CompareView(bridge)
    qtbot.addWidget(view)
    with HistoryAccess(tmp_path / "h.sqlite") as access:
        a, b = load_report(str(UNSTEADY), access), load_report(str(slower), access)
    view.show_comparison(a, b)
    rows = view.figure_grids[0].cells
    throughput = next(r for r in rows if r[0].text().lower().startswith("throughput"))
    assert throughput[3].text() == "0.96×"
    for row in rows:
        assert row[4].text() not in ("better", "worse") and not row[4].font().bold(), \
            [c.text() for c in row]


def test_an_older_reports_missing_torch_advice_reads_in_the_apps_words() -> None:
    """The recorded failed run (written by an earlier rocmate, whose missing-torch advice named
    --python) reads in the app's words and in Chinese: the Results page showed it in English
    with a command-line flag."""
    from core.bench.advice import app_advice_text
    from core.i18n import set_language
    from core.report.model import from_json

    run = from_json(FAILED.read_text()).runs[0]
    assert run.error is not None and "--python" in run.error.advice  # as it was written
    said = app_advice_text(run)
    assert "--python" not in said and "System check" in said
    try:
        set_language("zh_CN")
        assert "--python" not in app_advice_text(run) and "系统检查" in app_advice_text(run)
    finally:
        set_language("en")
