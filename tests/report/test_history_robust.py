"""The history survives: migrations, a damaged file, a locked file, a writer killed mid-insert,
two writers at once. Real SQLite files and real processes, nothing mocked."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.report.history import SCHEMA_VERSION, History, HistoryError
from core.report.model import ErrorInfo, Report, to_json
from core.report.privacy import Identity
from core.report.writers import read_scrubbed_report
from tests.report.support import CPU, H200, ROOT, load

NO_ONE = Identity()


def _history(path: Path, notices: list[str] | None = None, timeout: float = 10.0) -> History:
    sink = notices.append if notices is not None else (lambda m: None)
    return History(path, on_notice=sink, identity=NO_ONE, timeout=timeout)


def _failed() -> Report:
    report = load(CPU)
    run = report.runs[0]
    run.status, run.result = "error", None
    run.error = ErrorInfo(kind="oom", message="out of memory", advice="smaller batch")
    return report


# --- the API ------------------------------------------------------------------------------------


def test_migrates_a_version_1_database(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,
            suite TEXT NOT NULL, status TEXT NOT NULL, device TEXT, headline TEXT, value REAL,
            unit TEXT, error_kind TEXT, run_index INTEGER NOT NULL, report_json TEXT NOT NULL);
        CREATE INDEX runs_suite_created ON runs (suite, created);
        PRAGMA user_version = 1;""")
    db.execute("INSERT INTO runs (created, suite, status, device, headline, value, unit, "
               "error_kind, run_index, report_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
               ("2026-01-01T00:00:00+00:00", "resnet50-train", "ok", "AMD EPYC", "throughput",
                100.0, "images/s", None, 0, to_json(load(CPU), indent=None)))
    db.commit()
    db.close()
    with _history(path) as h:
        (entry,) = h.list()
        assert entry.id == 1 and not entry.imported and entry.origin is None
        assert h.report(1) == load(CPU)
        assert h.import_report(load(CPU))[1] is False  # the old row got its digest
        h.insert(load(H200))
        assert h.count() == 2
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    db.close()


def test_migrates_a_version_2_database_to_content_digests(tmp_path: Path) -> None:
    """Schema 2 kept the sha256 of the stored JSON text; schema 3 the report's content, so a
    report imported before the update is still known when it comes again."""
    path = tmp_path / "h.sqlite"
    with _history(path) as h:
        h.insert(load(CPU))
        h.import_report(load(H200), origin="theirs.json")
    db = sqlite3.connect(path)
    for text, in db.execute("SELECT report_json FROM runs").fetchall():
        db.execute("UPDATE runs SET digest = ? WHERE report_json = ?",
                   (hashlib.sha256(text.encode()).hexdigest(), text))
    db.execute("INSERT INTO runs (created, suite, status, run_index, report_json, digest) "
               "VALUES ('2026-01-01', 'gemm', 'ok', 0, 'not a report', 'x')")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with _history(path) as h:
        assert h.import_report(load(H200))[1] is False
        assert h.insert_new(load(CPU))[1] is False
        assert h.count() == 3
    db = sqlite3.connect(path)
    digests = [d for d, in db.execute("SELECT digest FROM runs ORDER BY id").fetchall()]
    assert digests[2] is None and len({*digests[:2]}) == 2 and all(
        len(d) == 64 for d in digests[:2])
    db.close()


def test_an_imported_file_keeps_its_text_when_nothing_was_scrubbed(tmp_path: Path) -> None:
    """The text stored is the file's own when the report is that data unchanged (no need to
    write 20 MB of JSON anew); a report that had to be scrubbed is stored as written anew. The
    same report indented or not is one report."""
    clean = to_json(load(H200))
    indented = json.dumps(json.loads(clean), indent=4)
    with _history(tmp_path / "h.sqlite") as h:
        report, source = read_scrubbed_report(_write(tmp_path / "a.json", indented), NO_ONE)
        (first,), new = h.import_report(report, origin="a.json", source=source)
        assert new and _stored(h, first) == indented
        report, source = read_scrubbed_report(_write(tmp_path / "b.json", clean), NO_ONE)
        assert h.import_report(report, source=source) == ([first], False)
        assert h.report(first) == load(H200)

        named = json.loads(clean)
        named["machine"]["platform"]["kernel"] = "built in /home/adalovelace/src/linux"
        text = json.dumps(named)
        report, source = read_scrubbed_report(_write(tmp_path / "c.json", text), NO_ONE)
        (second,), new = h.import_report(report, source=source)
        assert new and "adalovelace" not in _stored(h, second)
        assert _stored(h, second) == to_json(h.report(second), indent=None)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _stored(h: History, row: int) -> str:
    return str(h._db.execute("SELECT report_json FROM runs WHERE id = ?", (row,)).fetchone()[0])


def test_entry_run_report_delete(tmp_path: Path) -> None:
    both = load(H200)
    both.runs += _failed().runs
    with _history(tmp_path / "h.sqlite") as h:
        ok_id, failed_id = h.insert(both)
        assert h.entry(failed_id).run_index == 1 and h.entry(failed_id).error_kind == "oom"
        assert len(h.report(failed_id).runs) == 2  # the whole report it came from
        single = h.run_report(failed_id)
        assert [r.status for r in single.runs] == ["error"]
        h.delete(ok_id)
        with pytest.raises(KeyError):
            h.entry(ok_id)
        with pytest.raises(KeyError):
            h.delete(ok_id)
        assert [e.id for e in h.list()] == [failed_id]
        assert h.entry(failed_id).added  # when it was stored


def test_import_marks_and_does_not_duplicate(tmp_path: Path) -> None:
    with _history(tmp_path / "h.sqlite") as h:
        ids, new = h.import_report(load(H200), origin="theirs.json")
        assert new and h.entry(ids[0]).imported and h.entry(ids[0]).origin == "theirs.json"
        again, new = h.import_report(load(H200), origin="copy.json")
        assert again == ids and not new
        own = h.insert(load(CPU))
        assert not h.entry(own[0]).imported
        assert h.import_report(load(CPU))[1] is False  # already there as one's own run


def test_list_filters(tmp_path: Path) -> None:
    with _history(tmp_path / "h.sqlite") as h:
        h.insert(load(CPU))
        h.insert(_failed())
        h.insert(load(H200))
        assert [e.status for e in h.list(status="error")] == ["error"]
        assert {e.device for e in h.list(suite="resnet50-train")} == {"AMD EPYC", "NVIDIA H200"}
        assert len(h.list(limit=2)) == 2 and h.list(suite="gemm") == []


# --- a damaged database ---------------------------------------------------------------------------


def _asides(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


def test_garbage_is_set_aside_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    notices: list[str] = []
    with _history(path, notices) as h:
        assert h.count() == 0
        h.insert(load(CPU))
    (notice,) = notices
    assert "was damaged" in notice and "moved to history.sqlite.corrupt-" in notice
    assert "a new one started (0 runs recovered from it)" in notice
    (aside,) = [p for p in _asides(path) if not p.name.endswith("-wal")]
    assert aside.read_bytes() == garbage  # kept exactly as it was
    with _history(path, notices) as h:
        assert h.count() == 1 and len(notices) == 1  # the new one is healthy


def _fill(path: Path, n: int) -> list[int]:
    big = load(H200)
    big.runs[0].steps = big.runs[0].steps * 8  # ~100 KB per row: many pages
    ids = []
    with _history(path) as h:
        for i in range(n):
            big.created = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00"
            ids += h.insert(big)
    return ids


def test_a_truncated_database_is_set_aside_and_what_can_be_read_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    ids = _fill(path, 30)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(int(size * 0.6))
    notices: list[str] = []
    with _history(path, notices) as h:
        kept = h.count()
        assert 0 < kept < len(ids)
        for e in h.list(limit=100):
            assert e.id in ids and h.report(e.id).runs  # every recovered row is whole
    (notice,) = notices
    assert f"({kept} runs recovered from it)" in notice
    assert _asides(path)


def test_a_file_cut_inside_its_header_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    _fill(path, 2)
    with open(path, "r+b") as f:
        f.truncate(60)
    notices: list[str] = []
    with _history(path, notices) as h:
        assert h.count() == 0
    assert len(notices) == 1 and _asides(path)


def test_damage_found_later_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    _fill(path, 3)
    with _history(path) as h:
        size = path.stat().st_size
        with open(path, "r+b") as f:  # someone overwrites the file while it is open
            f.seek(size // 2)
            f.write(os.urandom(size // 2))
        try:  # pages already cached may still read; whatever fails, fails as HistoryError
            for e in h.list(limit=100):
                h.report(e.id)
        except HistoryError as exc:
            assert "cannot be read" in str(exc) or "is damaged" in str(exc)
    notices: list[str] = []
    with _history(path, notices):  # the next open sets it aside
        pass
    assert len(notices) == 1 and "was damaged" in notices[0]


def test_a_locked_database_says_so_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with _history(path) as h:
        h.insert(load(CPU))
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with _history(path, timeout=0.3) as h:
            assert h.count() == 1  # WAL: reading still works
            started = time.monotonic()
            with pytest.raises(HistoryError, match="locked by another program"):
                h.insert(load(CPU))
            assert time.monotonic() - started < 5
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert not _asides(path)
    with _history(path) as h:
        assert h.count() == 1


def test_a_newer_database_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(HistoryError, match="newer rocmate"):
        _history(path)
    assert not _asides(path)


# --- real processes -------------------------------------------------------------------------------

WRITER = """
import sys, time
from core.report.history import History
from core.report.model import from_json
from core.report.privacy import Identity
db, report_file, tag, count, go = sys.argv[1:6]
report = from_json(open(report_file).read())
if len(sys.argv) > 6:
    report.runs[0].steps = report.runs[0].steps * int(sys.argv[6])
while go != "-" and not __import__("os").path.exists(go):
    time.sleep(0.002)
with History(db, identity=Identity()) as h:
    for i in range(int(count)):
        print(h.insert(report, origin=f"{tag} {i}")[0], flush=True)
"""


def _writer(db: Path, report: Path, tag: str, count: int, go: str = "-",
            scale: int = 1) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(report), tag, str(count), go, str(scale)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("after", [1, 7, 23])
def test_a_writer_killed_mid_insert_loses_nothing_it_finished(tmp_path: Path, after: int) -> None:
    db = tmp_path / "history.sqlite"
    proc = _writer(db, H200, "killed", 100000, scale=10)  # ~330 KB per insert: long writes
    assert proc.stdout is not None
    done = [int(proc.stdout.readline()) for _ in range(after)]
    time.sleep(0.004 * after)  # land somewhere inside a later insert
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    done += [int(x) for x in rest.split()]
    assert proc.returncode == -signal.SIGKILL
    notices: list[str] = []
    with _history(db, notices) as h:
        stored = {e.id for e in h.list(limit=10**6)}
        assert set(done) <= stored  # every insert that returned is there ...
        assert len(stored) - len(done) <= 1  # ... plus at most the one committed while killed
        for i in done:
            assert h.report(i).runs[0].steps
    assert notices == []  # and the file is healthy: nothing set aside


KILL_AT_COMMIT = """
import os, signal, sys
from core.report.history import History
from core.report.model import from_json
from core.report.privacy import Identity
db, report_file, commits = sys.argv[1], sys.argv[2], int(sys.argv[3])
report = from_json(open(report_file).read())
report.runs[0].steps = report.runs[0].steps * 20
with History(db, identity=Identity()) as h:
    h._db.execute("PRAGMA cache_size = 20")  # a tiny page cache: pages spill into the WAL early
    seen = 0
    def trace(sql):
        global seen
        if sql == "COMMIT":
            seen += 1
            if seen > commits:  # inside the transaction, its pages written, not yet committed
                os.kill(os.getpid(), signal.SIGKILL)
    h._db.set_trace_callback(trace)
    for i in range(commits + 1):
        print(h.insert(report)[0], flush=True)
"""


def test_a_writer_killed_inside_its_transaction_leaves_a_healthy_file(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", KILL_AT_COMMIT, str(db), str(H200), "5"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    done = [int(x) for x in proc.stdout.split()]
    assert len(done) == 5
    assert Path(f"{db}-wal").exists()  # killed with a write-ahead log still to recover
    notices: list[str] = []
    with _history(db, notices) as h:
        assert sorted(e.id for e in h.list()) == done  # the unfinished one is rolled back
        assert all(h.report(i).runs for i in done)
        h.insert(load(CPU))  # and the file takes new runs
    assert notices == []


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "history.sqlite"  # both also race to create and migrate it
    go = tmp_path / "go"
    procs = [_writer(db, CPU, tag, 50, str(go)) for tag in ("p1", "p2")]
    time.sleep(0.5)  # both started and waiting
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
    ids = [int(x) for out, _ in outs for x in out.split()]
    assert len(ids) == 100 and len(set(ids)) == 100
    with _history(db) as h:
        entries = h.list(limit=1000)
        assert len(entries) == 100
        tags = {e.origin for e in entries}
        assert tags == {f"{t} {i}" for t in ("p1", "p2") for i in range(50)}


IMPORTER = """
import sys, time, os
from core.report.history import History
from core.report.model import from_json
from core.report.privacy import Identity
db, report_file, count, go = sys.argv[1:5]
base = open(report_file).read()
reports = [from_json(base) for _ in range(int(count))]
for i, r in enumerate(reports):
    r.created = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00"  # each its own report
while not os.path.exists(go):
    time.sleep(0.001)
with History(db, identity=Identity()) as h:
    for r in reports:
        ids, new = h.import_report(r, origin="theirs.json")
        print(ids[0], int(new), flush=True)
"""


def test_two_processes_importing_the_same_reports_store_each_once(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite"
    with _history(db):  # created and migrated: the race is over the imports alone
        pass
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", IMPORTER, str(db), str(CPU), "40", str(go)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    time.sleep(0.5)  # both started and waiting
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
    lines = [line.split() for out, _ in outs for line in out.splitlines()]
    assert len(lines) == 80
    assert sum(int(new) for _, new in lines) == 40  # each report new to exactly one of them
    assert len({entry_id for entry_id, _ in lines}) == 40  # both name the same row
    with _history(db) as h:
        assert h.count() == 40


def test_copy_of_report_is_not_changed_by_insert(tmp_path: Path) -> None:
    report = load(H200)
    before = copy.deepcopy(report)
    with _history(tmp_path / "h.sqlite") as h:
        h.insert(report)
    assert report == before


def test_the_content_digest_depends_on_values_alone() -> None:
    """Objects shared by reference (a parser's memoised keys, one dict in two places) write
    the same bytes as equal copies; a float's last bit and an int for a float do not."""
    from core.report.history import _digest

    shared = {"gpu": 35.0}
    one = {"a": [shared, shared], "b": 0.30000000000000004}
    two = {"a": [{"gpu": 35.0}, {"gpu": float("35")}], "b": 0.1 + 0.2}
    assert _digest(one) == _digest(two)
    assert _digest({**two, "b": 0.3}) != _digest(two)
    assert _digest({"a": 1}) != _digest({"a": 1.0}) != _digest({"a": True})
