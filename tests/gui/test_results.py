"""The results view and page over recorded reports: exactly the report's figures in core's
words, the cautions, the datasheet and cards like mine with their sources; a failed or
cancelled run shows its error and advice; save, copy as Markdown and open in the browser go
through core's writers off the GUI thread."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QLabel, QWizard

from core.bench.advice import app_advice_text
from core.operations.reports import cold_start, render_report
from core.report import formatting as fmt
from core.report.model import PEAK_SUFFIX, ErrorInfo, Report, from_json
from core.report.references import cards_like_mine
from core.report.steadiness import cautions
from core.report.writers import load_report_file
from gui.bridge import Bridge
from gui.pages.base import PageId
from gui.pages.results import ResultsPage
from gui.session import Session
from gui.widgets.results_view import ResultsView, RunCard

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
CPU = REPORTS / "cpu-tiny-resnet50-train.json"
H200 = REPORTS / "h200-resnet50-train-amp-bf16-cl-bs256.json"
SD15 = REPORTS / "h200-sd15-infer-eager-bs1-unsteady.json"
GEMM = REPORTS / "gpu" / "h200-health-resnet50-page.json"  # a real run of the Benchmark page
CANCELLED = REPORTS / "failed" / "cpu-tiny-resnet50-train-cancelled.json"
FAILED = ROOT / "tests" / "report" / "data" / "cpu-failed-missing-package.json"


def load(path: Path) -> Report:
    return from_json(path.read_text(encoding="utf-8"))


def _view(qtbot: Any, bridge: Bridge, report: Report) -> ResultsView:
    view = ResultsView(bridge)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show_report(report)
    return view


def _texts(card: RunCard) -> list[str]:
    return [label.text() for label in card.findChildren(QLabel)]


@pytest.mark.parametrize("path", [CPU, H200, SD15], ids=lambda p: p.name)
def test_each_card_shows_exactly_the_reports_figures(qtbot: Any, bridge: Bridge,
                                                     path: Path) -> None:
    report = load(path)
    view = _view(qtbot, bridge, report)
    assert len(view.cards) == len(report.runs) == 1
    card, run = view.cards[0], report.runs[0]
    r = run.result
    assert r is not None and card.headline is not None and card.figures is not None
    f = r.headline_figure
    assert card.headline.text() == f"{fmt.num(f.median)} {f.unit}"
    assert card.steady is not None and f"p10–p90 {fmt.spread(f)}" in card.steady.text()
    assert f"CV {fmt.cv(f)}" in card.steady.text()
    assert [[c.text() for c in row] for row in card.figures.cells] == [
        [fmt.figure_label(n), fmt.num(g.median), fmt.spread(g), fmt.cv(g), g.unit]
        for n, g in r.figures.items()]
    assert card.facts["warm-up"].text() == fmt.warmup_text(run)
    assert card.facts["measured"].text() == fmt.measure_text(run)
    start = cold_start(run)
    assert start is not None and card.cold_start is not None
    assert card.cold_start.text() == (
        f"the first step took {fmt.seconds(start.first_step_s)}, {fmt.ratio(start.ratio)} a "
        f"steady step ({fmt.num(start.steady_step_s)} s)")
    assert card.title.text() == f"{fmt.suite_title(run.suite)} — finished"
    flags = ", ".join(fmt.settings_flags(run.settings))
    assert card.device.text() == f"{fmt.device_label(run)} · {flags}"


def test_the_unsteady_run_says_each_caution_in_words(qtbot: Any, bridge: Bridge) -> None:
    report = load(SD15)
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    expected = cautions(report.runs[0])
    assert {c.kind for c in expected} == {"unsteady", "not-settled", "cpu-bound"}
    assert {k: label.text() for k, label in card.cautions.items()} == {
        c.kind: f"Caution: {c.text}" for c in expected}
    view.show_report(load(H200))
    assert view.cards[0].cautions == {} and not cautions(load(H200).runs[0])


@pytest.mark.parametrize("path", [H200, SD15, GEMM], ids=lambda p: p.name)
def test_the_datasheet_and_every_reference_with_its_source(qtbot: Any, bridge: Bridge,
                                                           path: Path) -> None:
    report = load(path)
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    run = report.runs[0]
    ref = run.reference
    assert ref is not None and ref.fractions and run.result is not None
    text = card.facts["datasheet"].text()
    lines = text.splitlines()
    for name, fraction in ref.fractions.items():
        if name.endswith(PEAK_SUFFIX):
            continue  # said on its sustained figure's line
        peak = ref.fractions.get(name + PEAK_SUFFIX)
        said = f"peak {fmt.pct(peak, 0)}, sustained " if peak is not None else ""
        assert (f"{fmt.figure_label(name)}: {said}{fmt.pct(fraction, 0)} of the datasheet's "
                f"{fmt.num(ref.peaks[name])} {run.result.figures[name].unit}") in lines
    if run.result.headline in ref.fractions:  # the headline's line first
        assert lines[0].startswith(fmt.figure_label(run.result.headline) + ":")
    refs = cards_like_mine(report, 0)
    assert refs.matches
    sources = [label.text() for c in card.references for label in c.findChildren(QLabel)
               if label.objectName() == "source"]
    assert sources == [f"Source: {m.row.source}" for m in refs.matches]
    shown = [c.isVisibleTo(card) for c in card.references]
    assert shown == [i < 3 for i in range(len(refs.matches))]
    if card.more_references is not None:  # the rest on demand
        card.more_references.click()
        assert all(c.isVisibleTo(card) for c in card.references)


def test_a_cpu_run_says_why_no_reference_fits(qtbot: Any, bridge: Bridge) -> None:
    report = load(CPU)
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    refs = cards_like_mine(report, 0)
    assert card.references == [] and card.references_note is not None
    assert card.references_note.text() == refs.note
    assert any(refs.warnings[0] in t for t in _texts(card))


@pytest.mark.parametrize("status", ["file", "cancelled", "interrupted"])
def test_a_run_that_did_not_finish_shows_its_error_and_advice(qtbot: Any, bridge: Bridge,
                                                              status: str) -> None:
    if status == "file":
        report = load(FAILED)
    else:  # the cancelled fixture, and a status this version does not know yet
        report = load(CANCELLED)
        report = copy.deepcopy(report)
        report.runs[0].status = status
    run = report.runs[0]
    assert run.error is not None and run.result is None
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    assert card.error_message is not None and card.error_advice is not None
    assert card.error_message.text() == run.error.message
    # the advice in the app's words (the recorded one names --python, a command-line flag)
    assert card.error_advice.text() == app_advice_text(run)
    assert "--python" not in card.error_advice.text()
    word = {"error": "failed"}.get(run.status, run.status)
    assert card.title.text() == f"{fmt.suite_title(run.suite)} — {word}"
    assert card.headline is None and card.figures is None and card.cautions == {}
    assert f"What happened ({run.error.kind}):" in _texts(card)


def test_a_status_other_than_ok_is_said_before_any_figures(qtbot: Any,
                                                          bridge: Bridge) -> None:
    report = copy.deepcopy(load(H200))
    run = report.runs[0]
    run.status = "interrupted"  # a status a later rocmate may write, with what it measured
    run.error = ErrorInfo("interrupted", "stopped after 40 of 55 steps", "Run it again.")
    view = _view(qtbot, bridge, report)
    card = view.cards[0]
    assert card.title.text() == "ResNet-50 training — interrupted"
    assert card.error_message is not None and card.error_advice is not None
    assert (card.error_message.text(), card.error_advice.text()) == (
        "stopped after 40 of 55 steps", "Run it again.")
    assert card.headline is not None and card.headline.text() == "4,624 images/s"
    labels = card.findChildren(QLabel)
    assert labels.index(card.error_message) < labels.index(card.headline)


def test_copy_as_markdown_puts_the_report_in_the_clipboard(qtbot: Any, aloop: Any,
                                                           bridge: Bridge) -> None:
    report = load(SD15)
    view = _view(qtbot, bridge, report)
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.copy_button.click()
    assert QGuiApplication.clipboard().text() == render_report(report, "md", references=True)
    assert "Copied as Markdown" in view.message.text()


def test_save_writes_a_report_that_loads_back(qtbot: Any, aloop: Any, bridge: Bridge,
                                              tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    report = load(H200)
    view = _view(qtbot, bridge, report)
    answers = [(str(tmp_path / "mine.json"), "Web page (*.html)"),  # the suffix decides
               (str(tmp_path / "post"), "Markdown (*.md)")]  # no suffix: the filter's
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: answers.pop(0))
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.save_button.click()
    back = load_report_file(tmp_path / "mine.json")
    assert render_report(back, "json") == render_report(report, "json")
    assert "mine.json (JSON)" in view.message.text()
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.save_button.click()
    assert (tmp_path / "post.md").read_text() == render_report(report, "md", references=True)


def test_a_save_that_fails_says_why_in_one_line(qtbot: Any, aloop: Any, bridge: Bridge,
                                                tmp_path: Path) -> None:
    view = _view(qtbot, bridge, load(H200))
    with qtbot.waitSignal(bridge.failed, timeout=30_000):
        view.save_to(tmp_path / "no-such-folder" / "r.html")
    text = view.message.text()
    assert text.startswith("Not saved: cannot write") and "does not exist" in text
    assert "\n" not in text and "Error" not in text


def test_open_in_the_browser_writes_the_page_and_opens_it(qtbot: Any, aloop: Any,
                                                          bridge: Bridge, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    report = load(H200)
    view = _view(qtbot, bridge, report)
    opened: list[QUrl] = []

    def browser(url: QUrl) -> bool:
        opened.append(url)
        return True

    view.open_url = browser
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.browser_button.click()
    page = Path(opened[0].toLocalFile())
    assert page.parent == tmp_path / "cache" / "rocmate" / "reports"
    assert page.read_text() == render_report(report, "html", references=True)
    # xdg-open started is not a browser shown: the words do not claim it (issue 31/17)
    assert view.message.text() == (f"Sent to the browser: {page}. If no window opens, use "
                                   "Show the file.")
    assert not view.show_file_button.isHidden() and view.show_file_button.isEnabled()
    view.show_file_button.click()
    assert opened[-1] == QUrl.fromLocalFile(str(page.parent))  # its folder, to the file manager
    view.open_url = lambda url: False  # no browser on this desktop
    with qtbot.waitSignal(bridge.finished, timeout=30_000):
        view.browser_button.click()
    assert view.message.text().startswith("No browser could be opened")
    assert str(page) in view.message.text()
    view.show_file_button.click()  # nor a file manager: where it is, in words
    assert view.message.text() == f"No file manager could be opened. The page is saved as {page}."


def test_several_runs_each_get_a_card_in_a_scrolled_column(qtbot: Any, bridge: Bridge) -> None:
    report = load(H200)
    report.runs = [*report.runs, *load(SD15).runs, *load(FAILED).runs]
    view = _view(qtbot, bridge, report)
    assert [c.run.suite for c in view.cards] == ["resnet50-train", "sd15-infer", "gemm"]
    view.show_report(load(CPU))  # a new report replaces the cards
    assert len(view.cards) == 1 and view.cards[0].run.suite == "resnet50-train"


def _page(qtbot: Any, bridge: Bridge, session: Session) -> tuple[QWizard, ResultsPage]:
    wizard = QWizard()
    qtbot.addWidget(wizard)
    page = ResultsPage(session, bridge)
    wizard.setPage(int(PageId.RESULTS), page)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard, page


def test_the_page_shows_the_benchmarks_report(qtbot: Any, bridge: Bridge) -> None:
    report = load(SD15)
    session = Session(bench_report=report, bench_history_ids=[7])
    _wizard, page = _page(qtbot, bridge, session)
    assert page.view.isVisible() and not page.empty.isVisible()
    assert page.view.cards[0].headline is not None
    assert page.view.cards[0].headline.text() == "0.7963 s/image"
    assert "#7" in page.stored.text()
    assert page.nextId() == -1


def test_the_page_before_any_benchmark_says_to_run_one(qtbot: Any, bridge: Bridge) -> None:
    _wizard, page = _page(qtbot, bridge, Session())
    assert page.empty.isVisible() and not page.view.isVisible()
    assert "run one first" in page.empty.text()
    assert page.nextId() == -1


def test_gemm_shows_its_peak_beside_the_sustained_figure(qtbot: Any, bridge: Bridge) -> None:
    report = load(GEMM)
    view = _view(qtbot, bridge, report)
    run = report.runs[0]
    assert run.suite == "gemm" and run.result is not None
    peak = run.result.peak_of("tflops_bf16")
    assert peak is not None and peak.median >= run.result.figures["tflops_bf16"].median
    headline = view.cards[0].headline
    assert headline is not None
    assert headline.text() == (f"{fmt.num(peak.median)} peak · "
                               f"{fmt.num(run.result.figures['tflops_bf16'].median)} TFLOP/s "
                               "sustained")
