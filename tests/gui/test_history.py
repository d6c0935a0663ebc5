"""The history window over a history made by importing recorded reports (through core's
import_report): its rows, sorting (numbers as numbers, times as times), filtering, opening,
deleting (after asking), importing, comparing two runs with core's ratios; a damaged database
and an empty history said in words. Every read and write runs through the bridge."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from core.operations.reports import HistoryAccess, compare_reports, list_runs, load_report
from core.report import formatting as fmt
from core.report.compare import compare
from core.report.history import History, HistoryEntry
from core.report.model import from_json
from gui.bridge import Bridge
from gui.compare import CompareView
from gui.history import HistoryWindow
from gui.history_rows import RESULT, WHEN, demo_history

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
DATA = ROOT / "tests" / "report" / "data"
CPU = REPORTS / "cpu-tiny-resnet50-train.json"
H200 = REPORTS / "h200-resnet50-train-amp-bf16-cl-bs256.json"
SD15 = REPORTS / "h200-sd15-infer-eager-bs1-unsteady.json"
CPU_SD15 = DATA / "cpu-tiny-sd15-infer.json"  # 2.866 s/image: "100.3" < "2.866" as text
FAILED = DATA / "cpu-failed-missing-package.json"
GEMM = DATA / "cpu-tiny-gemm.json"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "history.sqlite"
    demo_history(path, [CPU, H200, SD15, CPU_SD15, FAILED])
    return path


def _entries(path: Path) -> list[HistoryEntry]:
    with HistoryAccess(path) as access:
        return list_runs(access, limit=10_000).entries


def _window(qtbot: Any, bridge: Bridge, path: Path | None) -> HistoryWindow:
    window = HistoryWindow(bridge, path)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignals([bridge.finished], timeout=30_000, raising=True):
        window.reload()
    return window


def _by_id(path: Path) -> dict[int, HistoryEntry]:
    return {e.id: e for e in _entries(path)}


def test_a_row_for_each_run_with_its_figure_and_origin(qtbot: Any, aloop: Any, bridge: Bridge,
                                                       db: Path) -> None:
    window = _window(qtbot, bridge, db)
    entries = _entries(db)
    assert len(entries) == 5 and window.model.rowCount() == 5
    assert window.visible_ids() == [e.id for e in entries]  # newest first, as core lists them
    for r in range(window.proxy.rowCount()):
        row = [window.proxy.index(r, c).data() for c in range(window.proxy.columnCount())]
        e = _by_id(db)[window.visible_ids()[r]]
        result = f"{fmt.num(e.value)} {e.unit}" if e.value is not None else "-"
        assert row == [f"#{e.id}", fmt.suite_title(e.suite),
                       "finished" if e.status == "ok" else "failed",
                       e.device or "device unknown", result,
                       fmt.when_local(e.created), e.origin]
        tip = window.proxy.index(r, 2).data(Qt.ItemDataRole.ToolTipRole)
        assert tip == ("finished" if e.status == "ok" else f"failed: {e.error_kind}")
    assert window.message.text() == "5 runs in the history."


def test_sorted_by_figure_as_numbers_and_by_time_as_times(qtbot: Any, aloop: Any,
                                                          bridge: Bridge, db: Path) -> None:
    window = _window(qtbot, bridge, db)
    entries = _by_id(db)
    window.table.sortByColumn(RESULT, Qt.SortOrder.AscendingOrder)
    values = [entries[i].value for i in window.visible_ids()]
    numbers = [v for v in values if v is not None]
    assert numbers == sorted(numbers) and values[-1] is None  # a failed run after them
    # 2.866 before 100.3: not sorted as text
    assert [fmt.num(v) for v in numbers] == ["0.7963", "2.866", "100.3", "4,624"]
    window.table.sortByColumn(WHEN, Qt.SortOrder.AscendingOrder)
    times = [datetime.fromisoformat(entries[i].created) for i in window.visible_ids()]
    assert times == sorted(times) and times != [datetime.fromisoformat(e.created)
                                                for e in _entries(db)]


def test_filtered_by_suite_status_and_words(qtbot: Any, aloop: Any, bridge: Bridge,
                                            db: Path) -> None:
    window = _window(qtbot, bridge, db)
    entries = _by_id(db)
    window.suite_box.setCurrentIndex(window.suite_box.findData("sd15-infer"))
    assert sorted(window.visible_ids()) == sorted(
        i for i, e in entries.items() if e.suite == "sd15-infer")
    assert len(window.visible_ids()) == 2
    window.filter_edit.setText("h200")
    assert [entries[i].device for i in window.visible_ids()] == ["NVIDIA H200"]
    window.suite_box.setCurrentIndex(0)
    window.filter_edit.clear()
    window.status_box.setCurrentIndex(window.status_box.findData("error"))
    assert [entries[i].status for i in window.visible_ids()] == ["error"]
    assert window.status_box.currentText() == "failed"
    window.status_box.setCurrentIndex(0)
    window.filter_edit.setText("nothing matches this")
    assert window.visible_ids() == []


def test_open_shows_the_run_in_a_results_view(qtbot: Any, aloop: Any, bridge: Bridge,
                                              db: Path) -> None:
    window = _window(qtbot, bridge, db)
    sd15 = next(e for e in _entries(db) if e.device == "NVIDIA H200" and e.suite == "sd15-infer")
    window.select_ids([sd15.id])
    assert window.open_button.isEnabled() and not window.compare_button.isEnabled()
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        window.open_button.click()
    assert window.detail.currentWidget() is window.results
    card = window.results.cards[0]
    assert card.headline is not None and card.headline.text() == "0.7963 s/image"
    assert set(card.cautions) == {"unsteady", "not-settled", "cpu-bound"}
    assert window.results.label is not None and window.results.label.startswith(
        f"run {sd15.id} (sd15-infer on NVIDIA H200")


def test_enter_in_the_table_opens_the_run_and_in_the_filter_only_filters(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    window = _window(qtbot, bridge, db)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: pytest.fail("asked"))
    window.filter_edit.setFocus()
    qtbot.keyClicks(window.filter_edit, "H200")
    qtbot.keyClick(window.filter_edit, Qt.Key.Key_Return)
    assert not bridge.busy() and len(window.visible_ids()) == 2
    window.table.setFocus()
    window.select_ids(window.visible_ids()[:1])
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        qtbot.keyClick(window.table, Qt.Key.Key_Return)
    assert window.detail.currentWidget() is window.results
    assert window.shown_ids == set(window.visible_ids()[:1])


def test_delete_asks_first(qtbot: Any, aloop: Any, bridge: Bridge, db: Path) -> None:
    """A real question whose buttons say what they do (issue 31/17: it was Yes and No); Keep
    (the default, and Esc) keeps the run."""
    window = _window(qtbot, bridge, db)
    victim = _entries(db)[0].id
    window.select_ids([victim])
    asked: list[str] = []
    buttons: list[list[str]] = []

    def answer(reply: QMessageBox.StandardButton) -> None:
        def look(left: int = 200) -> None:
            box = QApplication.activeModalWidget()
            if isinstance(box, QMessageBox) and box.isVisible():
                asked.append(box.text())
                buttons.append(sorted(b.text() for b in box.buttons()))
                assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
                box.button(reply).click()
            elif left:
                QTimer.singleShot(20, lambda: look(left - 1))
        QTimer.singleShot(0, look)

    answer(QMessageBox.StandardButton.No)
    window.delete_button.click()
    assert asked == [f"Delete run #{victim} from the history? This cannot be undone."]
    assert buttons == [["&Delete", "&Keep"]]
    assert not bridge.busy() and victim in _by_id(db)
    answer(QMessageBox.StandardButton.Yes)
    window.delete_button.click()
    qtbot.waitUntil(lambda: victim not in window.visible_ids() and not bridge.busy(),
                    timeout=30_000)
    assert victim not in _by_id(db) and len(window.visible_ids()) == 4
    assert window.message.text() == f"Deleted #{victim}. 4 runs in the history."


def test_import_a_shared_report(qtbot: Any, aloop: Any, bridge: Bridge, db: Path,
                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    window = _window(qtbot, bridge, db)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(GEMM), ""))
    window.import_button.click()
    qtbot.waitUntil(lambda: len(window.visible_ids()) == 6 and not bridge.busy(),
                    timeout=30_000)
    new = max(_entries(db), key=lambda e: e.id)
    assert new.suite == "gemm" and new.imported and new.origin == GEMM.name
    assert window.message.text().startswith(f"Imported {GEMM.name} as #{new.id}")
    notes = tmp_path / "notes.json"
    notes.write_text('{"schema": "someone.else/1"}')
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(notes), ""))
    with qtbot.waitSignal(bridge.failed, timeout=30_000):
        window.import_button.click()
    text = window.message.text()
    assert text.startswith("Problem: notes.json: foreign schema") and "\n" not in text
    assert "Error" not in text and window.error
    assert len(_entries(db)) == 6


def test_importing_the_apps_own_web_page_says_what_to_import(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31/17: the page "Open in the browser" writes was taken, then failed with a JSON
    parser's error."""
    from core.report.html import render_html
    from core.report.model import from_json

    page = tmp_path / "rocmate-report.html"
    page.write_text(render_html(from_json(CPU.read_text())))
    window = _window(qtbot, bridge, db)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(page), ""))
    with qtbot.waitSignal(bridge.failed, timeout=30_000):
        window.import_button.click()
    text = window.message.text()
    assert "web page (HTML), not the report: import its JSON file" in text
    assert "Expecting value" not in text and "not JSON" not in text
    assert len(_entries(db)) == 5


def test_compare_two_rows_shows_cores_ratios(qtbot: Any, aloop: Any, bridge: Bridge,
                                             db: Path) -> None:
    window = _window(qtbot, bridge, db)
    resnet = [e for e in _entries(db) if e.suite == "resnet50-train"]
    older, newer = sorted(resnet, key=lambda e: e.created)
    window.select_ids([newer.id, older.id])
    assert window.compare_button.isEnabled() and not window.open_button.isEnabled()
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        window.compare_button.click()
    assert window.detail.currentWidget() is window.compare
    with HistoryAccess(db) as access:  # the older run is the baseline A
        a, b = load_report(str(older.id), access), load_report(str(newer.id), access)
    expected = compare(a.report, b.report, a.label, b.label)
    shown = window.compare.comparison
    assert shown is not None and (shown.a_label, shown.b_label) == (a.label, b.label)
    grid = window.compare.figure_grids[0]
    rows = [[cell.text() for cell in row] for row in grid.cells]
    assert rows == [[fmt.figure_label(d.name), fmt.num(d.a), fmt.num(d.b), fmt.ratio(d.ratio),
                     d.shown_verdict or "-", d.unit_text] for d in expected.runs[0].figures]
    assert rows[0][3:5] == ["46.1×", "better"]
    settings = window.compare.difference_grids["settings-1"]
    assert [[c.text() for c in row] for row in settings.cells] == [
        [fmt.setting_label(d.key), d.a, d.b] for d in expected.runs[0].settings]
    assert ["shapes", "tiny", "default"] in [[c.text() for c in row] for row in settings.cells]
    software = window.compare.difference_grids["software"]
    assert [row[0].text() for row in software.cells] == [fmt.setting_label(d.key)
                                                         for d in expected.software]


def test_compare_ids_and_start_compare_for_the_wizards_button(qtbot: Any, aloop: Any,
                                                              bridge: Bridge, db: Path) -> None:
    window = _window(qtbot, bridge, db)
    window.start_compare()
    assert "Compare the two" in window.placeholder.text()
    assert window.detail.currentWidget() is window.placeholder
    ids = [e.id for e in _entries(db)]
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        window.compare_ids(ids[1], ids[0])
    shown = window.compare.comparison
    assert shown is not None and shown.a_label.startswith(f"run {ids[1]} ")
    assert window.shown_ids == {ids[0], ids[1]}


def test_the_compare_view_alone_copies_cores_markdown_and_swaps(qtbot: Any, aloop: Any,
                                                                bridge: Bridge,
                                                                db: Path) -> None:
    view = CompareView(bridge)
    qtbot.addWidget(view)
    with HistoryAccess(db) as access:
        a, b = load_report(str(CPU), access), load_report(str(H200), access)
    view.show_comparison(a, b)
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.copy_button.click()
    assert QGuiApplication.clipboard().text() == compare_reports(a, b, kind="md")
    view.swap_button.click()
    assert view.comparison is not None and view.comparison.a_label == b.label
    ratio = view.figure_grids[0].cells[0][3].text()
    expected = compare(b.report, a.report).runs[0].figures[0].ratio
    assert ratio == fmt.ratio(expected)


def test_a_damaged_database_is_one_readable_line(qtbot: Any, aloop: Any, bridge: Bridge,
                                                 tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = tmp_path / "data" / "rocmate" / "history.sqlite"
    path.parent.mkdir(parents=True)
    damaged = b"SQLite format 3\x00" + bytes(range(256)) * 16
    path.write_bytes(damaged)
    window = HistoryWindow(bridge)  # the default history, as the app opens it
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(bridge.failed, timeout=30_000):
        window.reload()
    text = window.message.text()
    assert text.startswith("Problem: ") and str(path) in text
    assert "damaged" in text or "not a rocmate history" in text
    assert "\n" not in text and "Traceback" not in text and "HistoryError" not in text
    assert window.error and window.model.rowCount() == 0
    assert path.read_bytes() == damaged  # reading never moves it aside


def test_an_empty_history_says_how_to_make_a_first_run(qtbot: Any, aloop: Any,
                                                       bridge: Bridge, tmp_path: Path) -> None:
    window = _window(qtbot, bridge, tmp_path / "none-yet.sqlite")
    assert window.model.rowCount() == 0
    text = window.placeholder.text()
    assert text.startswith("No runs in the history yet.") and "Benchmark page" in text
    assert "Import a report" in text
    assert not (tmp_path / "none-yet.sqlite").exists()  # reading creates nothing


def test_a_thousand_runs_load_off_the_gui_thread_in_one_reset(qtbot: Any, aloop: Any,
                                                              bridge: Bridge,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "big.sqlite"
    demo_history(path, [CPU])
    with sqlite3.connect(path) as con:  # 1 row doubled ten times: 1,024 runs
        columns = ("created, suite, status, device, headline, value, unit, error_kind, "
                   "run_index, report_json, imported, origin, added, digest")
        for _ in range(10):
            con.execute(f"INSERT INTO runs ({columns}) SELECT {columns} FROM runs")
    window = HistoryWindow(bridge, path)
    qtbot.addWidget(window)
    resets: list[int] = []
    inserts: list[int] = []
    window.model.modelReset.connect(lambda: resets.append(1))
    window.model.rowsInserted.connect(lambda *_: inserts.append(1))
    window.reload()
    assert bridge.busy(f"{window.key}:load") and window.model.rowCount() == 0
    qtbot.waitUntil(lambda: window.model.rowCount() == 1024, timeout=60_000)
    assert resets == [1] and inserts == []
    assert window.message.text() == "1024 runs in the history."


def test_the_time_is_this_computers_and_utc_is_in_the_tooltip(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person reads their own clock (issue 31/17: the table was UTC only); the reports'
    UTC is a tooltip away."""
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        window = _window(qtbot, bridge, db)
        e = _by_id(db)[window.visible_ids()[0]]
        cell = window.proxy.index(0, 5)
        utc = fmt.when(e.created)
        assert utc.endswith(" UTC") and cell.data() != utc.removesuffix(" UTC")
        shown = datetime.strptime(cell.data(), "%Y-%m-%d %H:%M")
        in_utc = datetime.strptime(utc.removesuffix(" UTC"), "%Y-%m-%d %H:%M")
        assert shown - in_utc == timedelta(hours=8)
        assert cell.data(Qt.ItemDataRole.ToolTipRole) == utc
        assert window.model.headerData(5, Qt.Orientation.Horizontal) == "When"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_the_area_under_the_table_follows_the_persons_selection(
        qtbot: Any, aloop: Any, bridge: Bridge, db: Path) -> None:
    """A click on a run shows it; a comparison of other runs does not stay under a new
    selection (issue 31/17: a stale comparison under the table)."""
    window = _window(qtbot, bridge, db)
    ids = window.visible_ids()

    def click(row: int, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        rect = window.table.visualRect(window.proxy.index(row, 1))
        qtbot.mouseClick(window.table.viewport(), Qt.MouseButton.LeftButton, modifier,
                         rect.center())

    click(0)
    qtbot.waitUntil(lambda: window.shown_ids == {ids[0]}, timeout=30_000)
    assert window.detail.currentWidget() is window.results
    window.select_ids([ids[1], ids[2]])
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        window.compare_button.click()
    assert window.detail.currentWidget() is window.compare
    click(3)  # one other run: shown instead of the comparison
    qtbot.waitUntil(lambda: window.shown_ids == {ids[3]}, timeout=30_000)
    assert window.detail.currentWidget() is window.results
    click(4, Qt.KeyboardModifier.ControlModifier)  # two runs, not compared yet
    assert window.selected_ids() == [ids[3], ids[4]]
    assert window.detail.currentWidget() is window.placeholder
    assert "Compare the two" in window.placeholder.text()


def test_the_health_check_is_one_row_offered_under_each_suite(qtbot: Any, aloop: Any,
                                                              bridge: Bridge,
                                                              tmp_path: Path) -> None:
    """The health check's gemm and bandwidth, merged into one row as the Benchmark page keeps
    them (core's History.merge): one row titled by both suites, found under either, and the
    suite box offers each suite once, never the pair."""
    page = from_json((REPORTS / "gpu" / "h200-health-resnet50-page.json").read_text())
    path = tmp_path / "history.sqlite"
    with History(path) as history:
        ids = [i for run in page.runs[:2]
               for i in history.insert(replace(page, runs=[run]))]
        health = history.merge(ids, replace(page, runs=page.runs[:2]))
        (cpu,) = history.insert(from_json(CPU.read_text()))
    window = _window(qtbot, bridge, path)
    assert sorted(window.visible_ids()) == [health, cpu]
    assert window.proxy.index(window.visible_ids().index(health), 1).data() == \
        "Quick health check"  # the card's name: both suites' titles did not fit the column
    offered = [window.suite_box.itemData(i) for i in range(1, window.suite_box.count())]
    assert offered == ["bandwidth", "gemm", "resnet50-train"]
    for suite in ("gemm", "bandwidth"):
        window.suite_box.setCurrentIndex(window.suite_box.findData(suite))
        assert window.visible_ids() == [health]
    window.suite_box.setCurrentIndex(window.suite_box.findData("resnet50-train"))
    assert window.visible_ids() == [cpu]
