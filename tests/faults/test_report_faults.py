"""Reports and history faults, injected for real (ledger area "reports"): the disk fills up
(a small tmpfs, as root), the data folder is read-only (a read-only bind mount, as root: root
ignores file modes), the history database is damaged, another program holds an exclusive lock
on it, a report or a history comes from a newer rocmate, and a stranger's report is 20 MB.

Each fault goes through the real commands (``rocmate report ...`` in this process, ``rocmate
bench`` as a process of its own, where a traceback would show on stderr) and must end in a
readable message: a line of words, no traceback. The runs stored before the fault must still
be there afterwards, unchanged (a damaged database: the file set aside byte for byte, every row
that can still be read copied into the new one). A test that needs a mount is skipped where
mounting is not possible (not root, no mount namespace rights).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli import main as rocmate
from core.report import model
from core.report.history import SCHEMA_VERSION, History
from core.report.model import Report, to_json
from core.report.writers import MAX_BYTES
from tests.bench.helpers import PYTHON
from tests.faults.kept import check_kept, stored
from tests.faults.ledger import Ledger
from tests.report.support import CPU, GEMM, H200, ROOT, load, seeded
from tests.report.test_history_robust import _asides, _fill

AREA = "reports"


# --- helpers --------------------------------------------------------------------------------------


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private XDG_DATA_HOME (the history and the run files land there)."""
    d = tmp_path / "xdg"
    d.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(d))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return d


def history_of(xdg: Path) -> Path:
    return xdg / "rocmate" / "history.sqlite"


def seed(history: Path) -> dict[int, Report]:
    """Two runs of this machine's, stored before the fault; what the history holds."""
    with History(history) as h:
        h.insert(load(CPU))
        h.insert(load(H200))
    return stored(history)




def report_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``rocmate report ARGS`` in this process (an exception would fail the test)."""
    code = rocmate(["report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def readable(err: str, lines: int = 1) -> None:
    """At most ``lines`` lines on stderr, each ``rocmate...: words``, no traceback."""
    said = err.splitlines()
    assert 1 <= len(said) <= lines, err
    for line in said:
        assert line.startswith("rocmate"), err
    assert "Traceback" not in err, err


def bench_process(xdg: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``rocmate bench gemm`` (tiny, on the CPU) as a process of its own, the user's way."""
    env = {**os.environ, "XDG_DATA_HOME": str(xdg), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "core.cli", "bench", "gemm", "--python", PYTHON, "--device",
         "cpu", "--size", "tiny", "--steps", "2", "--warmup-steps", "1", "--no-telemetry",
         *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr


def _mount(*args: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    return done.returncode == 0


def _umount(path: Path) -> None:
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextlib.contextmanager
def small_disk(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``path``; skips when it cannot be mounted."""
    path.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)):
        pytest.skip("a tmpfs cannot be mounted here (needs root)")
    try:
        yield path
    finally:
        _umount(path)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """``path`` made read-only by a read-only bind mount over it; skips when it cannot be."""
    if not _mount("--bind", str(path), str(path)):
        pytest.skip("a bind mount cannot be made here (needs root)")
    try:
        if not _mount("-o", "remount,bind,ro", str(path)):
            pytest.skip("a bind mount cannot be made read-only here")
        yield path
    finally:
        _umount(path)


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; the filler file."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for chunk in (1 << 16, 4096, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * chunk):
                    pass
    finally:
        os.close(fd)
    return filler


# --- the disk fills up ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_disk_when_saving(ledger: Ledger, xdg: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    kind = "disk full"
    with small_disk(xdg, "2m"):
        history = history_of(xdg)
        before = seed(history)
        theirs = tmp_path / "theirs.json"
        theirs.write_text(GEMM.read_text())
        filler = fill(xdg)
        ledger.inject(kind, AREA)

        code, _, err = report_cli(capsys, "import", str(theirs))
        assert code == 1
        readable(err)
        assert "history database" in err  # "disk I/O error" or "database or disk is full"
        code, _, err = report_cli(capsys, "export", str(theirs), "--out", str(xdg / "r.html"))
        assert code == 1
        readable(err)
        assert "No space left" in err
        code, _, err = report_cli(capsys, "export", "1", "--out", str(tmp_path / "r.html"))
        if code:  # opening the history (WAL) needs a little space: says so in a line
            readable(err)
        run = bench_process(xdg)  # the run file cannot be written: the run ends, in words
        no_traceback(run)
        assert run.returncode == 1
        assert "cannot write the run file" in run.stdout and "No space left" in run.stdout
        os.truncate(filler, filler.stat().st_size - (48 << 10))  # the disk fills mid-run
        run = bench_process(xdg, "--steps", "2000")
        no_traceback(run)
        assert run.returncode == 1
        assert "cannot write the run file" in run.stdout and "No space left" in run.stdout
        assert "[error]" in run.stdout and "measure" in run.stderr  # it had started measuring

        filler.unlink()
        check_kept(ledger, kind, history, before)
        assert len(stored(history)) == len(before)
        code, _, err = report_cli(capsys, "import", str(theirs))  # space again: it works
        assert code == 0, err
        assert len(stored(history)) == len(before) + 1


# --- a read-only data folder ----------------------------------------------------------------------


def test_a_read_only_data_folder(ledger: Ledger, xdg: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    kind = "read-only data folder"
    history = history_of(xdg)
    before = seed(history)
    theirs = tmp_path / "theirs.json"
    theirs.write_text(GEMM.read_text())
    with read_only(xdg):
        ledger.inject(kind, AREA)
        code, out, err = report_cli(capsys, "list")
        if code == 0:  # reading a read-only history works, or says why not
            assert len(out.splitlines()) == 1 + len(before), out
        else:
            readable(err, lines=2)
        code, _, err = report_cli(capsys, "import", str(theirs))
        assert code == 1
        readable(err)
        run = bench_process(xdg)
        no_traceback(run)
        assert run.returncode == 1
        assert "cannot write the run file" in run.stdout and "Read-only" in run.stdout
    check_kept(ledger, kind, history, before)
    assert len(stored(history)) == len(before)


# --- a damaged database ---------------------------------------------------------------------------


def test_a_corrupt_database(ledger: Ledger, xdg: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """A page in the middle of the file overwritten with garbage: a command that only reads
    says so and leaves the file alone; one that writes sets it aside, byte for byte, and keeps
    every row that can still be read."""
    kind = "corrupt database"
    history = history_of(xdg)
    history.parent.mkdir(parents=True)
    ids = _fill(history, 20)
    before = stored(history)
    size = history.stat().st_size
    page = 4096
    with open(history, "r+b") as f:
        f.seek((size // 2) // page * page)
        f.write(os.urandom(page))
    damaged = history.read_bytes()
    ledger.inject(kind, AREA)

    code, _, err = report_cli(capsys, "list", "--db", str(history))
    assert code == 1
    readable(err)
    assert "is damaged" in err and "left as it is" in err
    if history.read_bytes() != damaged:
        ledger.lost(kind, "a command that only reads changed the damaged file")

    theirs = tmp_path / "theirs.json"
    theirs.write_text(GEMM.read_text())
    code, out, err = report_cli(capsys, "import", str(theirs))
    readable(err)
    assert "was damaged" in err and "moved to history.sqlite.corrupt-" in err
    assert "imported theirs.json" in out
    (aside,) = [p for p in _asides(history) if not p.name.endswith(("-wal", "-shm"))]
    if aside.read_bytes() != damaged:
        ledger.lost(kind, "the damaged file was not kept as it was")
    after = stored(history)
    recovered = {i: r for i, r in after.items() if i in before}
    for entry_id, report in recovered.items():
        assert report == before[entry_id]  # whole, as stored
    if len(recovered) < len(ids) - 2:  # one page of garbage: a run or two, not more
        ledger.lost(kind, f"only {len(recovered)} of {len(ids)} runs were recovered")
    assert len(after) == len(recovered) + 1


# --- a locked database ----------------------------------------------------------------------------

_LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


def test_a_locked_database(ledger: Ledger, xdg: Path, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program holds an exclusive lock: reading goes on (WAL), a write says the
    database is locked, once its wait is over, and nothing is moved or lost."""
    kind = "locked database"
    # the wait for a lock, 10 s for the user, made 1 s here (the same code path)
    monkeypatch.setitem(History.__init__.__kwdefaults__, "timeout", 1.0)
    history = history_of(xdg)
    before = seed(history)
    theirs = tmp_path / "theirs.json"
    theirs.write_text(GEMM.read_text())
    locker = subprocess.Popen([sys.executable, "-c", _LOCKER, str(history)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert locker.stdin is not None and locker.stdout is not None
    try:
        assert locker.stdout.readline() == "locked\n"
        ledger.inject(kind, AREA)
        code, out, err = report_cli(capsys, "list")
        assert code == 0 and len(out.splitlines()) == 1 + len(before), (out, err)
        started = time.monotonic()
        code, _, err = report_cli(capsys, "import", str(theirs))
        assert code == 1
        readable(err)
        assert "locked by another program" in err
        assert time.monotonic() - started < 10
        code, _, err = report_cli(capsys, "delete", "1")
        assert code == 1
        readable(err)
        assert "locked by another program" in err
    finally:
        locker.stdin.close()
        locker.wait(timeout=30)
    assert not _asides(history)
    check_kept(ledger, kind, history, before)
    assert len(stored(history)) == len(before)


# --- a newer rocmate ------------------------------------------------------------------------------


def test_a_report_from_a_future_version(ledger: Ledger, xdg: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    kind = "report from a future version"
    history = history_of(xdg)
    before = seed(history)
    data = json.loads(GEMM.read_text())
    data["schema"] = f"{model.SCHEMA_FAMILY}/{model.SCHEMA_VERSION + 1}"
    data["runs"][0]["a_field_of_the_future"] = {"hologram": True}
    future = tmp_path / "future.json"
    future.write_text(json.dumps(data))
    ledger.inject(kind, AREA)
    for command in (["import", str(future)], ["show", str(future)],
                    ["compare", "1", str(future)]):
        code, out, err = report_cli(capsys, *command)
        assert code == 2 and not out, (command, out)  # the file given cannot be used
        readable(err)
        assert "newer rocmate" in err and "update rocmate" in err, err
    check_kept(ledger, kind, history, before)
    assert len(stored(history)) == len(before)


def test_a_history_from_a_future_version(ledger: Ledger, xdg: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    kind = "history from a future version"
    history = history_of(xdg)
    before = seed(history)
    db = sqlite3.connect(history)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    kept = history.read_bytes()
    ledger.inject(kind, AREA)
    for command in (["list"], ["import", str(GEMM)], ["delete", "1"]):
        code, _, err = report_cli(capsys, *command)
        assert code == 1, command
        readable(err)
        assert "newer rocmate" in err
    if history.read_bytes() != kept or _asides(history):
        ledger.lost(kind, "the newer history was changed or moved")
    db = sqlite3.connect(history)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.close()
    check_kept(ledger, kind, history, before)


# --- a big report from a stranger -----------------------------------------------------------------


def _big_stranger(size: int) -> str:
    """A stranger's report (their user, host and serials in it) of at least ``size`` bytes:
    its runs' steps and telemetry repeated."""
    data = json.loads(to_json(seeded(H200), indent=None))
    series = [(run["steps"], run["telemetry"]) for run in data["runs"]]
    factor = -(-size // len(json.dumps(data)))
    while True:
        for run, (steps, samples) in zip(data["runs"], series, strict=True):
            run["steps"], run["telemetry"] = steps * factor, samples * factor
        text = json.dumps(data)
        if len(text.encode()) >= size:
            return text
        factor += max(1, factor // 10)


@pytest.mark.slow
def test_a_20_mb_report_from_a_stranger(ledger: Ledger, xdg: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    kind = "20 MB report from a stranger"
    history = history_of(xdg)
    before = seed(history)
    text = _big_stranger(20 * 2**20)
    assert 20 * 2**20 <= len(text.encode()) < MAX_BYTES
    big = tmp_path / "zebulonq-big.json"
    big.write_text(text)
    ledger.inject(kind, AREA)
    started = time.monotonic()
    code, out, err = report_cli(capsys, "import", str(big))
    took = time.monotonic() - started
    if code == 0:
        assert out.startswith("imported ") and not err, (out, err)
        assert "zebulonq" not in out  # the stranger's name is not shown
        assert len(stored(history)) == len(before) + 2  # the report's two runs
    else:
        readable(err)
        assert len(stored(history)) == len(before)
    assert took < 60
    code, out, err = report_cli(capsys, "import", str(big))  # again: not stored twice
    assert code == 0 and "already in the history" in out, (out, err)
    check_kept(ledger, kind, history, before)
