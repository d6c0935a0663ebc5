"""The language switch on the Benchmark page while its graphs show a recorded run: the graphs'
words (titles, the time axis, the cold-start and median marks, the note under them) are set
again, every curve keeps its points, and the switch back shows the English texts exactly.

The app's catalogue is the pseudo one of tests/gui/test_language.py (every app text wrapped in
⟦ ⟧, made from the code by lupdate), so a word not set again stands out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication

from core.report.model import from_json
from gui import i18n
from gui.bridge import Bridge
from gui.pages.benchmark import BenchmarkPage
from gui.session import Session
from gui.widgets.live_plots import LivePlots
from gui.widgets.plot_marks import Tag
from tests.gui.texts import CLOSE, OPEN, window_texts

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "tests" / "fixtures" / "reports" / "cpu-tiny-resnet50-train.json"


def _switch(qtbot: Any, plots: LivePlots, language: str) -> None:
    """The app in ``language``, the language change delivered and the graphs drawn again."""
    i18n.switch(language)
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()
    qtbot.waitUntil(lambda: plots.settled, timeout=5000)


def _points(plots: LivePlots) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {key: plots.points(key) for key in plots.counts()}


def _marks(plots: LivePlots) -> list[str]:
    """The texts of the marks on every plot shown (the cold start, the median)."""
    return sorted(item.toPlainText() for key in plots.visible_plots()
                  for item in plots.plot(key).scene().items()
                  if isinstance(item, Tag) and item.isVisible())


def _axis_labels(plots: LivePlots) -> list[str]:
    return [plots.plot(key).getPlotItem().getAxis("bottom").labelText
            for key in plots.visible_plots()]


def test_the_graphs_of_a_recorded_run_switch_language_and_keep_their_points(
        qtbot: Any, catalogue: set[str], tmp_path: Path) -> None:
    page = BenchmarkPage(Session(python=sys.executable, history_path=tmp_path / "h.sqlite"),
                         Bridge())
    qtbot.addWidget(page)
    page.initializePage()
    page.resize(900, 720)
    page.show()
    plots = page.plots
    retranslated = 0
    words = plots._retranslate

    def counted() -> None:
        nonlocal retranslated
        retranslated += 1
        words()

    plots._retranslate = counted  # type: ignore[method-assign]
    page.show_recorded(from_json(REPORT.read_text(encoding="utf-8")))
    qtbot.waitUntil(lambda: plots.settled, timeout=5000)
    assert retranslated == 0  # drawing a run (every frame of it) sets no words

    english = sorted(window_texts(page))
    marks = _marks(plots)
    counts = plots.counts()
    points = _points(plots)
    assert counts["throughput"] == counts["step_time"] == 7
    assert any(text.startswith("cold start ") for text in marks)
    assert any("median " in text for text in marks)
    assert set(_axis_labels(plots)) == {"seconds since the run started"}
    assert plots.telemetry_note()

    _switch(qtbot, plots, "zh_CN")
    assert retranslated == 1  # once for the language change, not at each redraw after it
    switched = sorted(window_texts(page))
    left = sorted({text for text in switched if text in catalogue and OPEN not in text})
    assert left == [], "texts not set again after the switch"
    assert set(_axis_labels(plots)) == {OPEN + "seconds since the run started" + CLOSE}
    marks_zh = _marks(plots)
    assert len(marks_zh) == len(marks)
    assert not any(text.startswith("cold start ") or ("median " in text and OPEN not in text)
                   for text in marks_zh)
    assert any(text.startswith(OPEN + "cold start ") for text in marks_zh)
    assert any(OPEN + "median " in text for text in marks_zh)
    assert plots.telemetry_note().startswith(OPEN)
    titles = {plots.plot(key).accessibleName() for key in plots.visible_plots()}
    assert {OPEN + "Throughput" + CLOSE, OPEN + "Step time" + CLOSE} <= {
        title.split(" (")[0] for title in titles}
    assert plots.counts() == counts  # every curve keeps its points
    for key, (x, y) in _points(plots).items():
        assert np.array_equal(x, points[key][0], equal_nan=True), key
        assert np.array_equal(y, points[key][1], equal_nan=True), key

    _switch(qtbot, plots, "en")
    assert retranslated == 2
    assert sorted(window_texts(page)) == english
    assert _marks(plots) == marks
    assert plots.counts() == counts
