"""One choice, one history row: the runs of the health check (gemm, then bandwidth), stored one
by one as each ends, are merged into one row of their combined report (core.report.history
History.merge; core.operations.suites SuiteSequence's ``groups``), in the real SQLite file.

The report is a real H200 run from the app's Benchmark page (tests/fixtures/reports/gpu/
h200-health-resnet50-page.json: the health check's gemm and bandwidth, then ResNet-50)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from core.report.formatting import suite_title
from core.report.history import History
from core.report.model import Report, from_json

REPORT = Path(__file__).resolve().parents[1] / "fixtures" / "reports" / "gpu" / \
    "h200-health-resnet50-page.json"


def _health() -> tuple[Report, Report, Report]:
    """The page's report, its gemm run alone and its bandwidth run alone (as each suite's own
    run stored it)."""
    report = from_json(REPORT.read_text())
    gemm, bandwidth = report.runs[:2]
    assert (gemm.suite, bandwidth.suite) == ("gemm", "bandwidth")
    return replace(report, runs=[gemm, bandwidth]), replace(report, runs=[gemm]), \
        replace(report, runs=[bandwidth])


def test_the_runs_of_one_choice_become_one_row(tmp_path: Path) -> None:
    both, gemm, bandwidth = _health()
    path = tmp_path / "history.sqlite"
    with History(path) as history:
        other = history.import_report(gemm, origin="theirs.json")[0]
        ids = history.insert(gemm) + history.insert(bandwidth)
        assert history.count() == 3
        merged = history.merge(ids, both)
        assert merged == ids[0] and history.count() == 2
        row = history.entry(merged)
        assert row.suite == "gemm+bandwidth" and row.status == "ok" and row.run_index == -1
        assert row.value == pytest.approx(gemm.runs[0].result.headline_figure.median)  # type: ignore[union-attr]
        assert history.report(merged) == both and history.run_report(merged) == both
        # a suite filter finds the row of several runs that holds it, and only those
        assert [e.id for e in history.list(suite="gemm")] == [merged, *other]
        assert [e.id for e in history.list(suite="bandwidth")] == [merged]
        assert history.list(suite="gemm+bandwidth") == [row]
        assert history.list(suite="band") == [] and history.list(suite="resnet50-train") == []
        # an imported row, or one that is gone, is never merged; nothing changes then
        with pytest.raises(KeyError):
            history.merge([merged, *other], both)
        with pytest.raises(KeyError):
            history.merge([merged, 999], both)
        assert history.count() == 2 and history.entry(merged) == row
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
    db.close()
    assert suite_title("gemm+bandwidth") == "Quick health check"  # the Benchmark page's card
    assert suite_title("resnet50-train+sd15-infer") == \
        "ResNet-50 training + Stable Diffusion 1.5 images"
