"""``rocmate report ...``: every command, and one clear line (no traceback) for every error."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main as rocmate
from core.cli.report import add_parsers, run
from core.report.history import SCHEMA_VERSION
from core.report.model import from_json
from tests.report.support import CPU, FAILED, GEMM, H200, ROOT


def main(argv: list[str]) -> int:
    """``rocmate report ARGV``."""
    return rocmate(["report", *argv])


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "data" / "history.sqlite")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def filled(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, _ = _run(capsys, "--db", db, "import", str(CPU), str(H200), str(FAILED))
    assert code == 0 and out.count("imported") == 3
    return db


def test_wired_like_core_cli(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="rocmate")
    sub = parser.add_subparsers(dest="command")
    add_parsers(sub)
    args = parser.parse_args(["report", "--db", db, "list"])
    assert args.func is run and args.func(args) == 0
    assert "no runs in the history yet" in capsys.readouterr().out
    args = parser.parse_args(["report", "list", "--db", db])  # --db after the command too
    assert args.db == db
    args = parser.parse_args(["report"])
    assert args.func(args) == 2
    assert "choose a command" in capsys.readouterr().err


def test_list_shows_time_suite_device_headline_status(filled: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--db", filled, "list")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["id", "time", "suite", "device", "result", "status"]
    h200 = next(line for line in lines if "H200" in line)
    assert "#2" in h200 and "2026-11-30 07:15 UTC" in h200 and "resnet50-train" in h200
    assert "4,624 images/s" in h200 and "ok (imported: h200-resnet50" in h200
    assert any("error: missing-package" in line for line in lines)
    code, out, _ = _run(capsys, "--db", filled, "list", "--json", "--status", "error")
    rows = json.loads(out)
    assert [r["suite"] for r in rows] == ["gemm"] and rows[0]["imported"] is True


def test_show_by_id_and_by_file(filled: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--db", filled, "show", "#2")
    assert code == 0 and "ResNet-50 training on NVIDIA H200" in out and "4,624" in out
    code, out, _ = _run(capsys, "--db", filled, "show", str(H200), "--references")
    assert code == 0 and "Reference results for ResNet-50 training" in out
    code, out, _ = _run(capsys, "--db", filled, "show", "2", "--json")
    assert from_json(out) == from_json(H200.read_text())
    code, out, _ = _run(capsys, "--db", filled, "show", "2", "--format", "md")
    assert out.startswith("### rocmate: ResNet-50 training on NVIDIA H200")


@pytest.mark.parametrize("suffix", ["json", "html", "md"])
def test_export_by_suffix(filled: str, tmp_path: Path, suffix: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"r.{suffix}"
    code, stdout, _ = _run(capsys, "--db", filled, "export", "2", "-o", str(out))
    assert code == 0 and f"wrote {out} ({suffix}" in stdout
    text = out.read_text()
    if suffix == "json":
        assert text == H200.read_text()  # the stored report, byte for byte
    elif suffix == "html":
        assert text.startswith("<!DOCTYPE html>")
    else:
        assert "<details><summary>" in text
    other = tmp_path / "r.txt"
    assert _run(capsys, "--db", filled, "export", "2", "-o", str(other), "--format", "md")[0] == 0
    assert other.read_text().startswith("### rocmate")


def test_compare_two_runs_and_references(filled: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--db", filled, "compare", "1", "2")
    assert code == 0 and "B/A" in out and "46.1×  better" in out
    code, out, _ = _run(capsys, "--db", filled, "compare", "2", str(H200))
    assert code == 0 and "1×  about the same" in out
    code, out, _ = _run(capsys, "--db", filled, "compare", "2", "--references")
    assert code == 0 and "cards like NVIDIA H200 (sm_90)" in out and "source:" in out
    html = tmp_path / "c.html"
    code, out, _ = _run(capsys, "--db", filled, "compare", "1", "2", "--references", "-o",
                        str(html))
    assert code == 0 and 'id="comparison"' in html.read_text()
    code, out, _ = _run(capsys, "--db", filled, "compare", "1", "2", "--format", "md")
    assert "**Compared with** run 1 (resnet50-train" in out and "#1" not in out


def test_import_delete_and_reimport(filled: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--db", filled, "import", str(H200))
    assert code == 0 and "already in the history as #2" in out
    code, out, _ = _run(capsys, "--db", filled, "delete", "2", "#3")
    assert code == 0 and out.splitlines() == ["deleted #2", "deleted #3"]
    code, _, err = _run(capsys, "--db", filled, "delete", "2")
    assert code == 2 and err == "rocmate report: no run #2 in the history\n"
    code, out, _ = _run(capsys, "--db", filled, "import", str(H200))
    assert code == 0 and "imported" in out and "#4" in out


def test_render(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("html", "md"):
        out = tmp_path / f"x.{fmt}"
        code, stdout, _ = _run(capsys, "render", str(GEMM), "--format", fmt, "-o", str(out))
        assert code == 0 and out.exists() and "GEMM (matrix multiply) on" in stdout
    code, stdout, _ = _run(capsys, "render", str(GEMM), "--format", "md")
    assert code == 0 and stdout.startswith("### rocmate: GEMM")
    code, stdout, _ = _run(capsys, "render", str(GEMM), "-o", str(tmp_path / "y.html"))
    assert code == 0 and (tmp_path / "y.html").read_text().startswith("<!DOCTYPE html>")


def test_errors_are_one_line(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"schema": "ai.onnx/3"}')
    newer = tmp_path / "newer.json"
    newer.write_text('{"schema": "rocmate.report/7", "runs": []}')
    notjson = tmp_path / "notes.json"
    notjson.write_text("hello")
    cases = [
        (["show", "5"], "no run #5: the history is empty"),
        (["render", str(foreign), "--format", "html"], "foreign.json: foreign schema 'ai.onnx/3'"),
        (["import", str(newer)], "newer.json: the report was written by a newer rocmate"),
        (["render", str(notjson)], "notes.json: not a rocmate report: not JSON"),
        (["render", str(tmp_path / "gone.json")], "gone.json: no such file"),
        (["export", str(CPU), "-o", str(tmp_path / "x.pdf")], "cannot tell the format"),
        (["compare", "1"], "compare needs two runs"),
        (["delete", "abc"], "'abc' is not a run id"),
    ]
    for args, message in cases:
        code, _, err = _run(capsys, "--db", db, *args)
        assert code == 2, args
        assert err.count("\n") == 1 and err.startswith("rocmate report: ") and message in err, err
    code, _, _ = _run(capsys, "--db", db, "import", str(CPU))
    code, _, err = _run(capsys, "--db", db, "show", "9")
    assert code == 2  # the user's input: exit 2, as a usage error
    assert err == "rocmate report: no run #9 in the history (see rocmate report list)\n"


def test_a_damaged_database_is_reported_in_one_line(db: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    Path(db).parent.mkdir(parents=True)
    damaged = b"SQLite format 3\x00" + os.urandom(5000)
    Path(db).write_bytes(damaged)
    for command in (["list"], ["show", "1"], ["compare", "1", "2"], ["export", "1", "-o", "x.md"]):
        code, out, err = _run(capsys, "--db", db, *command)  # reading: says so, changes nothing
        assert code == 1 and out == "", command
        assert err.count("\n") == 1 and "is damaged or is not a rocmate history" in err
        assert "left as it is" in err
        assert Path(db).read_bytes() == damaged and sorted(Path(db).parent.iterdir()) == [Path(db)]
    code, out, err = _run(capsys, "--db", db, "import", str(CPU))  # a write sets it aside
    assert code == 1 and "imported" in out  # 1: the notice
    assert err.count("\n") == 1 and "was damaged" in err and "corrupt-" in err
    code, out, err = _run(capsys, "--db", db, "list")  # set aside once; the new file is fine
    assert code == 0 and err == "" and "resnet50-train" in out


def test_a_file_that_is_no_history_is_left_alone(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: milk, eggs\n" * 20)
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    other = tmp_path / "places.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    con.commit()
    con.close()
    before = {p: p.read_bytes() for p in (notes, empty, other)}
    for path in (notes, empty, other):
        for command in (["list"], ["list", "--json"], ["show", "1"]):
            code, out, err = _run(capsys, "--db", str(path), *command)
            if path is empty:  # no tables yet: an empty history, read as such
                expected = {"list": (0, "no runs in the history yet"), "--json": (0, "[]"),
                            "show": (2, "")}[command[-1] if command[-1] != "1" else "show"]
                assert (code, out.strip()) == expected, (command, err)
                assert code == 0 or "no run #1 in the history" in err
            else:
                assert code == 1 and out == "" and err.count("\n") == 1, err
                assert "left as it is" in err
    code, _, err = _run(capsys, "--db", str(other), "import", str(CPU))  # not even a write
    assert code == 1 and "SQLite database of another program (tables moz_places)" in err
    assert {p: p.read_bytes() for p in (notes, empty, other)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite", "notes.txt",
                                                         "places.sqlite"]


def test_a_newer_database_is_reported_in_one_line(db: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    Path(db).parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    con.close()
    code, _, err = _run(capsys, "--db", db, "list")
    assert code == 1 and err.count("\n") == 1 and "newer rocmate" in err


def test_a_locked_database_is_reported_in_one_line(filled: str,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import core.operations.reports as cli
    from core.report.history import History

    monkeypatch.setattr(cli, "History", lambda path, on_notice, **kw: History(
        path, on_notice=on_notice, timeout=0.2, **kw))
    blocker = sqlite3.connect(filled, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        code, _, err = _run(capsys, "--db", filled, "delete", "1")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert code == 1 and err.count("\n") == 1 and "is locked by another program" in err


def test_no_traceback_from_a_real_process(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "rocmate.report/1", "tool_version": 3}')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    for args in (["show", "12"], ["import", str(bad)], ["compare", str(bad), "1"]):
        proc = subprocess.run([sys.executable, "-m", "core.cli", "report", *args], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, proc  # the input cannot be used
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stdout == ""
    assert not (tmp_path / "xdg" / "rocmate" / "history.sqlite").exists()  # reading made nothing


def test_a_named_file_that_is_not_a_history_is_refused_and_left_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.json"
    mine.write_text('{"my": "notes"}\n')
    for args in (["import", str(CPU)], ["list"], ["delete", "1"]):
        code, out, err = _run(capsys, "--db", str(mine), *args)
        assert code == 1 and out == "" and err.count("\n") == 1, (args, err)
        assert "is not a rocmate history (not an SQLite database)" in err
    assert mine.read_text() == '{"my": "notes"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json"]


def test_cold_start_is_the_first_step_against_the_median_measured_step() -> None:
    from core.operations.reports import cold_start
    from tests.report.support import load

    h200 = load(H200).runs[0]
    start = cold_start(h200)
    assert h200.result is not None and start is not None
    assert start.first_step_s == h200.result.warmup.first_step_s == h200.steps[0].seconds
    assert (start.warmup_steps, start.warmup_s) == (7, h200.result.warmup.seconds)
    # the median measured step is the suite's own step_time figure
    assert start.steady_step_s == h200.result.figures["step_time"].median
    assert start.ratio is not None and round(start.ratio) == 203
    gemm = load(GEMM).runs[0]  # three parts: the first part's steps only
    start = cold_start(gemm)
    assert start is not None and gemm.result is not None
    first = next(s for s in gemm.steps if s.phase == "measure").part
    assert len({s.part for s in gemm.steps}) == 3
    assert start.steady_step_s == statistics.median(
        s.seconds for s in gemm.steps if s.phase == "measure" and s.part == first)
    assert cold_start(load(FAILED).runs[0]) is None
    h200.steps = []
    start = cold_start(h200)
    assert start is not None and start.steady_step_s is None and start.ratio is None


def test_a_report_without_runs_is_refused_in_one_line(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30/6: ``"runs": []`` or no ``runs`` at all was an IndexError traceback."""
    data = json.loads(CPU.read_text())
    empty, missing = tmp_path / "empty.json", tmp_path / "missing.json"
    empty.write_text(json.dumps({**data, "runs": []}))
    missing.write_text(json.dumps({k: v for k, v in data.items() if k != "runs"}))
    for path in (empty, missing):
        code, out, err = _run(capsys, "--db", db, "import", str(path))
        assert code == 2 and out == "", err
        assert err == f"rocmate report: {path.name}: the report holds no benchmark runs, so " \
                      "there is nothing to import\n"
    code, out, _ = _run(capsys, "--db", db, "list")
    assert code == 0 and "no runs in the history yet" in out  # nothing was stored


def test_a_run_id_beyond_any_row_is_no_such_run(filled: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30/11: ``report delete 99999999999999999999`` was an OverflowError."""
    huge = "99999999999999999999"
    for command in (["delete", huge], ["show", huge], ["delete", f"#{huge}"]):
        code, _, err = _run(capsys, "--db", filled, *command)
        assert code == 2 and err.startswith(f"rocmate report: no run #{huge} in the history")
        assert "Overflow" not in err
