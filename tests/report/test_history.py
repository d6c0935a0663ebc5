"""The history database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.report.history import SCHEMA_VERSION, History, HistoryError, default_path
from core.report.model import from_json

REPORT = Path(__file__).resolve().parents[1] / "fixtures" / "reports" / \
    "cpu-tiny-resnet50-train.json"


def test_default_path_follows_xdg() -> None:
    assert default_path({"XDG_DATA_HOME": "/d", "HOME": "/h"}) == Path(
        "/d/rocmate/history.sqlite")
    assert default_path({"HOME": "/h"}) == Path("/h/.local/share/rocmate/history.sqlite")
    assert default_path({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.local/share/rocmate/history.sqlite")


def test_insert_list_and_read_back(tmp_path: Path) -> None:
    report = from_json(REPORT.read_text())
    path = tmp_path / "deep" / "history.sqlite"
    with History(path) as h:
        ids = h.insert(report)
        failed = from_json(REPORT.read_text())
        failed.created = "2099-01-01T00:00:00+00:00"
        run = failed.runs[0]
        run.status, run.result = "error", None
        from core.report.model import ErrorInfo

        run.error = ErrorInfo(kind="oom", message="out of memory", advice="smaller batch")
        h.insert(failed)
        rows = h.list()
        assert [r.status for r in rows] == ["error", "ok"]  # newest first
        assert rows[0].error_kind == "oom" and rows[0].value is None
        ok = rows[1]
        assert ok.id == ids[0] and ok.suite == "resnet50-train" and ok.headline == "throughput"
        assert ok.value == pytest.approx(report.runs[0].result.headline_figure.median)  # type: ignore[union-attr]
        assert h.report(ok.id) == report
        assert h.list(suite="gemm") == []
        assert len(h.list(limit=1)) == 1
        with pytest.raises(KeyError):
            h.report(12345)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    stored = db.execute("SELECT report_json FROM runs WHERE id = ?", (ids[0],)).fetchone()[0]
    assert json.loads(stored)["schema"] == "rocmate.report/1"
    db.close()


def test_reopening_keeps_rows(tmp_path: Path) -> None:
    report = from_json(REPORT.read_text())
    path = tmp_path / "h.sqlite"
    with History(path) as h:
        h.insert(report)
    with History(path) as h:
        assert len(h.list()) == 1


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(HistoryError, match="newer rocmate"):
        History(path)
