"""The results view of a run cut short (issue 30, item 1): the result its measured steps make,
marked "interrupted after N of M steps", in English and Chinese. A real CPU run, cancelled after
some measured steps, through the real runner and report builder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from core.bench.run_report import build_report
from core.bench.runner import BenchRunner
from core.report.model import Report
from core.system import LiveSystem
from gui import i18n
from gui.bridge import Bridge
from gui.widgets.results_view import ResultsView
from tests.bench.helpers import run_worker, tiny


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    def stop_after_twelve(runner: BenchRunner, event: dict[str, Any]) -> None:
        if event.get("event") == "step" and event.get("phase") == "measure" and \
                event.get("index") == 11:
            runner.cancel()

    out, _ = run_worker(tiny("resnet50-train", steps=5000),
                        tmp_path_factory.mktemp("run"), on_event=stop_after_twelve)
    assert out.status == "cancelled"
    return build_report([out], LiveSystem())


def _view(qtbot: Any, bridge: Bridge, report: Report) -> ResultsView:
    view = ResultsView(bridge)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show_report(report)
    return view


def _save(view: ResultsView, name: str) -> None:
    """Render the view to a PNG where ROCMATE_SHOTS asks (to look at it)."""
    folder = os.environ.get("ROCMATE_SHOTS")
    if folder:
        view.grab().save(str(Path(folder) / name))


@pytest.mark.slow  # a real worker or app process: not in make check
def test_the_card_shows_the_interrupted_result(qtbot: Any, bridge: Bridge,
                                               report: Report) -> None:
    run = report.runs[0]
    assert run.result is not None and run.result.interrupted is not None
    n = run.result.interrupted.measured_steps
    view = _view(qtbot, bridge, report)
    (card,) = view.cards
    assert card.interrupted is not None
    assert card.interrupted.text().startswith(f"interrupted after {n} of 5,000 steps: ")
    assert card.headline is not None and "images/s" in card.headline.text()
    assert card.figures is not None
    assert card.error_message is not None  # what stopped it stays beside the result
    _save(view, "interrupted-en.png")


def test_the_card_in_chinese(qtbot: Any, bridge: Bridge, report: Report) -> None:
    run = report.runs[0]
    assert run.result is not None and run.result.interrupted is not None
    n = run.result.interrupted.measured_steps
    i18n.switch("zh_CN")
    try:
        view = _view(qtbot, bridge, report)
        (card,) = view.cards
        assert card.interrupted is not None
        assert card.interrupted.text().startswith(f"在5,000步中的第{n}步后中断："), \
            card.interrupted.text()
        _save(view, "interrupted-zh_CN.png")
    finally:
        i18n.switch("en")
