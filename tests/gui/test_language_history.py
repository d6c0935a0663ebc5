"""The history window switched to another language while open: its own words, the table's
(headers, status words), the run or comparison shown under it (core's words, the runs' labels)
and the message, all set again; the sorting, the filter and the selection kept. Switched to the
pseudo catalogue (every app text in ⟦ ⟧) it shows exactly what a window opened in that language
on the same history shows, and switched back, what it showed before. The same for the compare
and results views alone, and for what is being read from the history when the language
changes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QWidget

from core import i18n as core_i18n
from core.i18n import local
from core.operations.reports import HistoryAccess, LoadedReport, list_runs, load_report
from core.report.model import from_json
from core.report.references import cards_like_mine, kind_title
from gui import history, history_rows, i18n
from gui.bridge import Bridge
from gui.compare import CompareView
from gui.history import HistoryWindow
from gui.history_rows import RESULT, demo_history
from gui.pages.base import PageId
from gui.session import Session
from gui.widgets.results_view import ResultsView
from gui.wizard import RocWizard
from tests.gui.texts import OPEN, window_texts

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
CPU = REPORTS / "cpu-tiny-resnet50-train.json"
H200 = REPORTS / "h200-resnet50-train-amp-bf16-cl-bs256.json"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "history.sqlite"
    demo_history(path, [CPU, H200])
    return path


def _ids(path: Path) -> tuple[int, int]:
    """The CPU run's id and the H200 run's."""
    with HistoryAccess(path) as access:
        entries = list_runs(access).entries
    by_device = {e.device == "NVIDIA H200": e.id for e in entries}
    return by_device[False], by_device[True]


def _units(path: Path) -> set[str]:
    """The units of the runs' figures: the report's words, not the app's (though "s" is one
    of the app's texts too, the live plots' axis unit)."""
    with HistoryAccess(path) as access:
        reports = [load_report(f"#{i}", access).report for i in _ids(path)]
    return {f.unit for report in reports for run in report.runs if run.result is not None
            for f in run.result.figures.values()}


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


def _quiet(qtbot: Any, bridge: Bridge) -> None:
    """The language change handled, and what it asked of the bridge (the runs shown, read
    again for their labels) done."""
    _settle()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=30_000)
    _settle()


def _window(qtbot: Any, bridge: Bridge, path: Path, shown: str) -> HistoryWindow:
    """A window on the history, sorted by the figure (largest first), filtered to the H200 run
    and the finished runs, that run selected, and ``shown`` under the table: the comparison of
    the two runs, the H200 run, or nothing."""
    cpu, h200 = _ids(path)
    window = HistoryWindow(bridge, path)
    qtbot.addWidget(window)
    window.show()
    window.load_now()
    window.table.sortByColumn(RESULT, Qt.SortOrder.DescendingOrder)
    window.filter_edit.setText("h200")
    window.status_box.setCurrentIndex(window.status_box.findData("ok"))
    window.select_ids([h200])
    if shown == "compare":
        with qtbot.waitSignal(bridge.finished, timeout=30_000,
                              check_params_cb=_answer_to(window, "compare")):
            window.compare_ids(cpu, h200)
        assert window.detail.currentWidget() is window.compare
    elif shown == "open":
        with qtbot.waitSignal(bridge.finished, timeout=30_000,
                              check_params_cb=_answer_to(window, "open")):
            window.open_id(h200)
        assert window.detail.currentWidget() is window.results
    _settle()
    return window


def _answer_to(window: HistoryWindow, what: str) -> Callable[[str, object], bool]:
    """The bridge's ``finished`` of this window's own call (another window's, or another
    call's, is not the one waited for)."""
    return lambda key, _result: key == f"{window.key}:{what}"


def _texts(window: HistoryWindow) -> list[str]:
    return sorted(window_texts(window))


def _state(window: HistoryWindow) -> tuple[object, ...]:
    """The sorting, the filter, the selection and what is shown under the table (the
    comparison, the run opened or nothing, and which runs), nothing about to replace it."""
    header = window.table.horizontalHeader()
    return (header.sortIndicatorSection(), header.sortIndicatorOrder(), window.model.sort_by,
            [row.entry.id for row in window.model.rows], window.filter_edit.text(),
            window.status_box.currentData(), window.suite_box.currentData(),
            window.visible_ids(), window.selected_ids(),
            window.detail.currentWidget().objectName() or type(window.detail.currentWidget()),
            sorted(window.shown_ids), window._preview.isActive())


def _labelled_in_each_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs read from the history labelled in the language they were read in, as core labels
    them once its catalogue translates its labels (whatever that catalogue holds today)."""
    read = history_rows.load_report

    def load_report(ref: str, access: HistoryAccess) -> LoadedReport:
        loaded = read(ref, access)
        return LoadedReport(loaded.report, f"{loaded.label} [{core_i18n.language()}]")

    monkeypatch.setattr(history_rows, "load_report", load_report)


@pytest.mark.parametrize(("shown", "labels"), [("compare", False), ("compare", True),
                                               ("open", False), ("open", True),
                                               ("nothing", False)],
                         ids=["compare", "compare-relabelled", "open", "open-relabelled",
                              "nothing"])
def test_the_history_switched_to_chinese_shows_what_it_shows_when_opened_in_chinese(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path, catalogue: set[str],
        monkeypatch: pytest.MonkeyPatch, shown: str, labels: bool) -> None:
    if labels:
        _labelled_in_each_language(monkeypatch)
    window = _window(qtbot, bridge, db, shown)
    english, state = _texts(window), _state(window)
    _, h200 = _ids(db)
    assert window.visible_ids() == [h200] and window.selected_ids() == [h200]
    assert "Run" in english and "finished" in english  # a header, a status word

    assert i18n.switch("zh_CN")
    _settle()  # the language change handled
    # the language changed, not the selection: nothing is about to replace what is shown (a
    # preview of the one run selected did, PREVIEW_MS later: on a busy machine before the
    # texts below were read, else after them)
    assert not window._preview.isActive()
    _quiet(qtbot, bridge)
    assert core_i18n.language() == "zh_CN"
    switched = _texts(window)
    left = sorted({text for text in switched if text in catalogue and OPEN not in text}
                  - _units(db))
    assert left == [], "texts not set again after the switch"
    assert OPEN + "Run⟧" in switched and OPEN + "finished⟧" in switched
    if labels:  # the runs shown were read again for their labels
        assert any("[zh_CN]" in text for text in switched)
    assert _state(window) == state

    started = _window(qtbot, bridge, db, shown)  # the language is zh_CN by now
    assert _texts(started) == switched
    assert _state(started) == state

    started.close()
    i18n.switch("en")
    _quiet(qtbot, bridge)
    assert _texts(window) == english
    assert _state(window) == state


@pytest.mark.parametrize("view", ["compare", "results"])
def test_the_compare_and_results_views_alone_show_their_report_again(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path, catalogue: set[str],
        view: str) -> None:
    """Outside the history window (the results view on the Results page; each reads nothing
    again): the same report or comparison in the new language, the message too."""

    def make() -> QWidget:
        with HistoryAccess(db) as access:  # reports from files: labels of their own
            a, b = load_report(str(CPU), access), load_report(str(H200), access)
        widget: QWidget
        if view == "compare":
            widget = CompareView(bridge)
            widget.show_comparison(a, b)
            widget.say(lambda: widget.tr("Copied the comparison as Markdown: paste it into a "
                                         "forum post or an issue."))
        else:
            widget = ResultsView(bridge)
            widget.show_report(b.report, b.label)  # an H200 run: cards like it, with sources
            widget.say(lambda: widget.tr("Copied as Markdown: paste it into a forum post or an "
                                         "issue."))
        qtbot.addWidget(widget)
        widget.resize(900, 400)
        widget.show()
        _settle()
        return widget

    widget = make()
    english = sorted(window_texts(widget))
    bar = widget.area.verticalScrollBar()  # type: ignore[attr-defined]
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    scrolled = bar.value()
    assert i18n.switch("zh_CN")
    _settle()
    assert bar.value() == scrolled  # the same things in other words: the place kept
    switched = sorted(window_texts(widget))
    left = sorted({text for text in switched if text in catalogue and OPEN not in text}
                  - _units(db))
    assert left == [], "texts not set again after the switch"
    assert any(text.startswith(OPEN + "Copied") for text in switched)
    if view == "results":  # the references' own words (beside their English) in Chinese
        with HistoryAccess(db) as access:
            report = load_report(str(H200), access).report
        row = cards_like_mine(report, 0).matches[0].row
        assert local(row.source) != row.source and row.method is not None
        assert f"{OPEN}Source: {local(row.source)}⟧" in switched
        assert f"{OPEN}Method: {local(row.method)}⟧" in switched
        assert any(kind_title(row.kind) in text for text in switched)
    assert sorted(window_texts(make())) == switched
    i18n.switch("en")
    _settle()
    assert sorted(window_texts(widget)) == english


@pytest.mark.parametrize("shown", ["compare", "open", "nothing"])
def test_what_is_being_read_when_the_language_changes_comes_in_the_new_one(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path, catalogue: set[str],
        monkeypatch: pytest.MonkeyPatch, shown: str) -> None:
    """Read (its words made) in English, shown once the app is in Chinese: worded again. The
    runs of a comparison or the run opened (their labels), or the history read again (the
    table's words)."""
    _labelled_in_each_language(monkeypatch)
    window = _window(qtbot, bridge, db, "nothing")
    name = {"compare": "open_pair", "open": "open_run", "nothing": "load_rows"}[shown]
    reading = getattr(history, name)
    read, go = threading.Event(), threading.Event()

    def held(*args: Any) -> Any:
        result = reading(*args)  # in English
        read.set()
        assert go.wait(30)
        return result

    monkeypatch.setattr(history, name, held)
    cpu, h200 = _ids(db)
    if shown == "compare":
        window.compare_ids(cpu, h200)
    elif shown == "open":
        window.open_id(h200)
    else:
        window.reload()
    qtbot.waitUntil(read.is_set, timeout=30_000)
    assert i18n.switch("zh_CN")
    _settle()
    go.set()
    _quiet(qtbot, bridge)
    monkeypatch.setattr(history, name, reading)
    switched = _texts(window)
    if shown != "nothing":
        assert any("[zh_CN]" in text for text in switched)
        assert not any("[en]" in text for text in switched)
    assert OPEN + "finished⟧" in switched
    assert _texts(_window(qtbot, bridge, db, shown)) == switched


def test_the_results_page_shows_the_benchmarks_report_again(
        qtbot: Any, aloop: Any, catalogue: set[str], db: Path) -> None:
    """The Results page of the wizard, with the report the Benchmark page made (and kept in the
    history): the same report in the new language, as the page opened in it shows it."""

    def wizard() -> RocWizard:
        session = Session()
        session.bench_report = from_json(H200.read_text(encoding="utf-8"))
        session.bench_history_ids = [7]
        opened = RocWizard(session)
        qtbot.addWidget(opened)
        opened.show()
        opened.setStartId(int(PageId.RESULTS))
        opened.restart()
        _settle()
        return opened

    opened = wizard()
    english = sorted(window_texts(opened))
    assert "Kept in the history as #7 (History shows every run and compares two)." in english
    opened.set_language("zh_CN")
    _settle()
    switched = sorted(window_texts(opened))
    left = sorted({text for text in switched if text in catalogue and OPEN not in text}
                  - _units(db))
    assert left == [], "texts not set again after the switch"
    assert sorted(window_texts(wizard())) == switched
    opened.set_language("en")
    _settle()
    assert sorted(window_texts(opened)) == english
