"""The history of benchmark runs: a small SQLite database, one row per suite run, each row
holding the full report it came from; or one row for the runs of one choice (the health check's
gemm and bandwidth, :meth:`History.merge`), whose ``suite`` names them all (``gemm+bandwidth``)
and whose ``run_index`` is -1 (the whole report).

Location: ``$XDG_DATA_HOME/rocmate/history.sqlite`` (default ``~/.local/share``).

What keeps it safe:

* The schema is versioned with ``PRAGMA user_version`` and migrated step by step inside one
  ``BEGIN IMMEDIATE`` transaction, so two rocmate processes opening a new or old database at
  the same moment cannot both migrate it.
* WAL mode (a reader, the GUI's history view, never blocks a writer, a finishing run),
  ``synchronous=FULL`` and a busy timeout; every write is one ``BEGIN IMMEDIATE`` transaction,
  so a process killed in the middle of an insert leaves every earlier insert intact.
* A database SQLite calls corrupt (garbage bytes, a truncated file) is never silently lost: it
  is moved aside to ``history.sqlite.corrupt-<UTC time>`` (with its WAL file), whatever rows
  can still be read are copied into a fresh database, and the user is told in one line.
* A database locked by another program past the timeout raises :class:`HistoryError` with a
  clear message; nothing is moved.
* Opened only to read (``repair=False``: ``rocmate report list``, ``show``, ...), a damaged file
  or one that is not a rocmate history (``--db notes.txt``) is an error and is left exactly as
  it was; only a command that writes sets a damaged file aside. An SQLite database of another
  program (tables that are not rocmate's) is never touched, not even by a write.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import hashlib
import logging
import marshal
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from core.i18n import t
from core.report.model import (
    Report,
    ReportError,
    Source,
    SuiteRun,
    data_to_json,
    from_json,
    to_dict,
    validate,
)
from core.report.pause import collector_paused
from core.report.privacy import Identity, learned, scrub_report, scrub_text

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4


def _redigest(db: sqlite3.Connection) -> None:
    """Schema 3: a row's digest is its report's content (:func:`_digest`), no longer the sha256
    of the JSON text stored (a report imported from a file keeps that file's text)."""
    texts: dict[str, list[int]] = {}
    for row_id, text in db.execute("SELECT id, report_json FROM runs").fetchall():
        texts.setdefault(text, []).append(row_id)
    for text, ids in texts.items():
        digest = _text_digest(text)
        db.executemany("UPDATE runs SET digest = ? WHERE id = ?", [(digest, i) for i in ids])


def _interruption_columns(db: sqlite3.Connection) -> None:
    """Schema 4: a result made of the measured steps of a run cut short says how many of how
    many (core.report.model.Interruption) in ``measured_steps`` and ``planned_steps``; NULL
    for a run that ended. A column already there (a file set back to an older version) is
    kept."""
    have = {row[1] for row in db.execute("PRAGMA table_info(runs)").fetchall()}
    for column in ("measured_steps", "planned_steps"):
        if column not in have:
            db.execute(f"ALTER TABLE runs ADD COLUMN {column} INTEGER")


_MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
    1: (
        """CREATE TABLE runs (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            created       TEXT NOT NULL,     -- the report's time, ISO 8601 UTC
            suite         TEXT NOT NULL,
            status        TEXT NOT NULL,     -- ok | error | cancelled
            device        TEXT,
            headline      TEXT,              -- figure name, e.g. throughput
            value         REAL,              -- its median
            unit          TEXT,
            error_kind    TEXT,
            run_index     INTEGER NOT NULL,  -- which of the report's runs this row is
            report_json   TEXT NOT NULL
        )""",
        "CREATE INDEX runs_suite_created ON runs (suite, created)",
    ),
    2: (
        # someone else's report, imported for comparison; origin = the file name it came from
        "ALTER TABLE runs ADD COLUMN imported INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE runs ADD COLUMN origin TEXT",
        "ALTER TABLE runs ADD COLUMN added TEXT",  # when the row was stored, ISO 8601 UTC
        "ALTER TABLE runs ADD COLUMN digest TEXT",  # sha256 of report_json (finds re-imports)
        "CREATE INDEX runs_digest ON runs (digest)",
    ),
    3: (_redigest,),
    4: (_interruption_columns,),
}

_COLUMNS = ("id, created, suite, status, device, headline, value, unit, error_kind, imported, "
            "origin, run_index, added, measured_steps, planned_steps")

_Rows = list[tuple[Any, ...]]  # (a History method is called list)

# SQLite primary result codes (the low byte of sqlite_errorcode)
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 6, 11, 26
_SQLITE_READONLY, _SQLITE_CANTOPEN = 8, 14


class HistoryError(RuntimeError):
    """The database cannot be used (written by a newer rocmate, locked, unwritable)."""


@dataclass(frozen=True)
class HistoryEntry:
    id: int
    created: str
    suite: str
    status: str
    device: str | None
    headline: str | None
    value: float | None
    unit: str | None
    error_kind: str | None
    imported: bool = False
    origin: str | None = None
    run_index: int = 0
    added: str | None = None
    interrupted: tuple[int, int | None] | None = None
    """A result made of the steps of a run cut short: (measured steps, planned steps or
    None); None for a run that ended."""


def default_path(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/rocmate/history.sqlite``, ``~/.local/share`` when unset or relative."""
    base = env.get("XDG_DATA_HOME", "")
    if not base or not Path(base).is_absolute():
        home = env.get("HOME") or str(Path.home())
        base = str(Path(home) / ".local" / "share")
    return Path(base) / "rocmate" / "history.sqlite"


class _Corrupt(Exception):
    """SQLite says the file is not a (healthy) database."""


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def _is_corrupt(exc: sqlite3.Error) -> bool:
    code = _code(exc)
    if code is not None:
        return code in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(exc)
    return "malformed" in text or "not a database" in text


def _is_read_only(exc: sqlite3.Error) -> bool:
    """SQLITE_READONLY (the file or its folder cannot be written: WAL's -shm cannot be made) or
    SQLITE_CANTOPEN for the same reason."""
    code = _code(exc)
    if code is not None:
        return code in (_SQLITE_READONLY, _SQLITE_CANTOPEN)
    return "readonly" in str(exc) or "unable to open" in str(exc)


def _is_locked(exc: sqlite3.Error) -> bool:
    code = _code(exc)
    if code is not None:
        return code in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


_SQLITE_HEADER = b"SQLite format 3\x00"


class History:
    """Insert, list, read, delete runs. Use as a context manager or call :meth:`close`.

    ``on_notice`` receives one-line messages the user must see (a damaged database set aside);
    they are also kept in :attr:`notices`. By default they are logged as warnings.
    ``identity`` names what :func:`core.report.privacy.scrub_report` removes from every report
    stored (default: the current user and host).
    """

    def __init__(self, path: Path | str, *, timeout: float = 10.0,
                 on_notice: Callable[[str], None] | None = None,
                 identity: Identity | None = None, repair: bool = True,
                 own_file: bool = True) -> None:
        """``own_file``: the file is rocmate's own (its default place). A file the user named
        (``--db``) is never set aside: when it is not an SQLite database it is refused."""
        self.path = Path(path)
        self.timeout = timeout
        self.notices: list[str] = []
        self._on_notice = on_notice or log.warning
        self._identity = identity
        self._repair = repair
        self._empty = False  # opened to read a file with no tables yet: an empty history
        if not own_file:
            self._refuse_a_stranger()
        if repair:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except _Corrupt as exc:
            if not repair:
                raise HistoryError(t(
                    "report.history.damaged-read-only",
                    "{path} is damaged or is not a rocmate history database ({error}); it was "
                    "left as it is (a command that stores runs would set it aside and start a "
                    "new one)", path=self.path, error=exc)) from None
            self._db = self._recover(str(exc))

    # --- opening --------------------------------------------------------------------------------

    def _refuse_a_stranger(self) -> None:
        """A named file that exists, holds something and does not begin as an SQLite database
        does: not a rocmate history, and not rocmate's to set aside."""
        try:
            with open(self.path, "rb") as handle:
                head = handle.read(len(_SQLITE_HEADER))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(t("report.history.unreadable", "{path} cannot be read: {error}",
                                 path=self.path, error=exc.strerror or exc)) from None
        if head and head != _SQLITE_HEADER:
            raise HistoryError(t(
                "report.history.not-sqlite",
                "{path} is not a rocmate history (not an SQLite database); it was left as it "
                "is: name a new file or a history with {option}", path=self.path,
                option="--db"))

    def _open(self) -> sqlite3.Connection:
        """Connect, switch to WAL, check, migrate. Some of these steps get SQLITE_BUSY at once,
        without waiting, while another process creates or migrates the same file: they are
        retried until the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return self._connect()
            except sqlite3.Error as exc:
                if _is_corrupt(exc):
                    raise _Corrupt(str(exc)) from None
                if not _is_locked(exc) or time.monotonic() >= deadline:
                    raise self._error(exc, t("report.history.doing.open", "open")) from None
            time.sleep(0.02)

    def _connect(self) -> sqlite3.Connection:
        try:
            return self._connect_to(str(self.path), uri=False)
        except sqlite3.Error as exc:
            if self._repair or not _is_read_only(exc):
                raise
        # opened to read, from a file or folder this user cannot write: read it as it is,
        # without the switch to WAL or the -shm file that reading a WAL database makes
        try:
            return self._connect_to(f"file:{quote(str(self.path))}?mode=ro", uri=True)
        except sqlite3.Error as exc:
            if not _is_read_only(exc):
                raise
        return self._connect_to(f"file:{quote(str(self.path))}?mode=ro&immutable=1", uri=True)

    def _connect_to(self, target: str, *, uri: bool) -> sqlite3.Connection:
        db = sqlite3.connect(target, timeout=self.timeout, isolation_level=None, uri=uri)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            if self._foreign_or_empty(db):  # before anything that could write to the file
                return db
            if uri:  # read-only: nothing is switched or migrated
                self._check_read_only(db)
                return db
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            check = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            if check != ["ok"]:
                raise _Corrupt(f"integrity check failed: {check[0]}")
            self._migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    def _check_read_only(self, db: sqlite3.Connection) -> None:
        """A history read without write access: whole, and of this version's schema (an older
        one cannot be upgraded without writing)."""
        check = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        if check != ["ok"]:
            raise _Corrupt(f"integrity check failed: {check[0]}")
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:
            raise HistoryError(t(
                "report.history.read-only-old", "{path} is from another rocmate version "
                "(history schema {version}, this one reads {known}) and cannot be upgraded "
                "without write access to it and its folder", path=self.path, version=version,
                known=SCHEMA_VERSION))

    def _foreign_or_empty(self, db: sqlite3.Connection) -> bool:
        """Refuse an SQLite database of another program; True for a file with no tables yet
        opened only to read (an empty history, left as it is). The first read of a file that
        is not a database raises SQLITE_NOTADB here."""
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
        other = sorted(tables - {"runs", "sqlite_sequence"})
        if "runs" not in tables and other:
            shown = ", ".join(other[:5]) + (", ..." if len(other) > 5 else "")
            raise HistoryError(t(
                "report.history.foreign",
                "{path} is an SQLite database of another program (tables {tables}), not a "
                "rocmate history; it was left as it is", path=self.path, tables=shown))
        if not tables and not self._repair and db.execute("PRAGMA user_version").fetchone()[0] == 0:
            self._empty = True
            return True
        return False

    def _migrate(self, db: sqlite3.Connection) -> None:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise HistoryError(t(
                "report.history.newer",
                "{path} was made by a newer rocmate (history schema {version}, this version "
                "knows {known}); update rocmate or move the file away", path=self.path,
                version=version, known=SCHEMA_VERSION))
        db.execute("BEGIN IMMEDIATE")
        try:
            (version,) = db.execute("PRAGMA user_version").fetchone()  # another may have won
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[v]:
                    if callable(statement):
                        statement(db)
                    else:
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {v}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _error(self, exc: sqlite3.Error, doing: str) -> HistoryError:
        """``doing``: what could not be done, in words (one of the ``report.history.doing.*``
        texts)."""
        if _is_locked(exc):
            return HistoryError(t(
                "report.history.locked",
                "the history database {path} is locked by another program (another rocmate "
                "still writing?); could not {doing} within {timeout} s, try again",
                path=self.path, doing=doing, timeout=f"{self.timeout:g}"))
        if _is_corrupt(exc):
            return HistoryError(t(
                "report.history.damaged",
                "the history database {path} is damaged ({error}); run rocmate again to set it "
                "aside and start a new one", path=self.path, error=exc))
        return HistoryError(t("report.history.unusable",
                              "the history database {path} cannot be used: {error}",
                              path=self.path, error=exc))

    # --- a damaged database -----------------------------------------------------------------------

    def _recover(self, reason: str) -> sqlite3.Connection:
        """Move the damaged file aside, start afresh, copy over every row still readable."""
        with self._recovery_lock():
            try:  # another process may have recovered it while we waited for the lock
                return self._open()
            except _Corrupt:
                pass
            rows = _salvage(self.path)
            aside = self._set_aside()
            db = self._open()
            restored = self._restore(db, rows)
        if restored == 1:
            kept = t("report.history.recovered.one", "1 run recovered from it")
        else:
            kept = t("report.history.recovered", "{count} runs recovered from it",
                     count=restored)
        self._notice(t("report.history.set-aside",
                       "the history database {path} was damaged ({reason}); it was moved to "
                       "{aside} and a new one started ({kept})", path=self.path, reason=reason,
                       aside=aside.name, kept=kept))
        return db

    @contextlib.contextmanager
    def _recovery_lock(self) -> Iterator[None]:
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _set_aside(self) -> Path:
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, aside)
        for suffix in ("-wal", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{self.path}-shm")
        return aside

    def _restore(self, db: sqlite3.Connection, rows: list[dict[str, Any]]) -> int:
        if not rows:
            return 0
        db.execute("BEGIN IMMEDIATE")
        try:
            for row in rows:
                db.execute(
                    "INSERT INTO runs (id, created, suite, status, device, headline, value, unit, "
                    "error_kind, run_index, report_json, imported, origin, added, digest, "
                    "measured_steps, planned_steps) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (row["id"], row["created"], row["suite"], row["status"], row.get("device"),
                     row.get("headline"), row.get("value"), row.get("unit"),
                     row.get("error_kind"), row.get("run_index", 0), row["report_json"],
                     int(row.get("imported") or 0), row.get("origin"), row.get("added"),
                     _text_digest(row["report_json"]), row.get("measured_steps"),
                     row.get("planned_steps")))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return len(rows)

    def _notice(self, message: str) -> None:
        self.notices.append(message)
        self._on_notice(message)

    # --- the API ----------------------------------------------------------------------------------

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    @property
    def identity(self) -> Identity:
        if self._identity is None:
            self._identity = Identity.current()
        return self._identity

    def _prepare(self, report: Report, origin: str | None,
                 source: Source | None = None) -> _Prepared:
        """The report as stored: scrubbed of the current user's and its own author's names.
        The text stored is the file's own (``source``) when the report is its data unchanged
        (nothing scrubbed, nothing left out), else the report written anew."""
        report = scrub_report(report, self.identity)
        identity = learned(report)  # what it was scrubbed of
        validate(report)
        with collector_paused():  # plain trees: no cycles to look for
            data = to_dict(report)
            if source is not None and source.data == data:
                text = source.text
            else:
                text = data_to_json(data, indent=None)
            digest = _digest(data)
        return _Prepared(report, text, digest,
                         scrub_text(origin, identity) if origin else None)

    def insert(self, report: Report, *, imported: bool = False,
               origin: str | None = None) -> list[int]:
        """Store every run of a report (scrubbed of names first); returns the new row ids."""
        prepared = self._prepare(report, origin)
        with self._write(t("report.history.doing.store", "store the run")):
            return self._insert_rows(prepared, imported)

    def insert_new(self, report: Report) -> tuple[list[int], bool]:
        """Store a report of this machine's unless the very same report is stored already (a
        run recovered from its run file, stored once before the file could be marked); the
        check and the insert are one transaction. Returns the row ids and whether they are
        new."""
        prepared = self._prepare(report, None)
        with self._write(t("report.history.doing.store", "store the run")):
            existing = self._db.execute(
                "SELECT id FROM runs WHERE digest = ? AND imported = 0 ORDER BY run_index",
                (prepared.digest,)).fetchall()
            if existing:
                return [int(r[0]) for r in existing], False
            return self._insert_rows(prepared, False), True

    def import_report(self, report: Report, origin: str | None = None,
                      source: Source | None = None) -> tuple[list[int], bool]:
        """Store someone else's report for comparison (``imported``); a report already in the
        history is not stored twice, also when two processes import it at once (the check and
        the insert are one transaction). ``source``: the file it was read from, whose text is
        kept when the report is that file's data unchanged. Returns the row ids and whether
        they are new."""
        prepared = self._prepare(report, origin, source)
        with self._write(t("report.history.doing.import", "import the report")):
            existing = self._db.execute(
                "SELECT id FROM runs WHERE digest = ? ORDER BY run_index",
                (prepared.digest,)).fetchall()
            if existing:
                return [int(r[0]) for r in existing], False
            return self._insert_rows(prepared, True), True

    def _insert_rows(self, prepared: _Prepared, imported: bool) -> list[int]:
        """Inside a write transaction: one row per run of a prepared report."""
        report = prepared.report
        added = _now()
        ids: list[int] = []
        for i, run in enumerate(report.runs):
            cur = self._db.execute(
                "INSERT INTO runs (created, suite, status, device, headline, value, unit, "
                "error_kind, run_index, report_json, imported, origin, added, digest, "
                "measured_steps, planned_steps) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (report.created, run.suite, run.status, *_summary(run), i, prepared.text,
                 int(imported), prepared.origin, added, prepared.digest, *_interruption(run)),
            )
            ids.append(int(cur.lastrowid or 0))
        return ids

    def merge(self, entry_ids: list[int], report: Report) -> int:
        """Make the rows ``entry_ids`` (this machine's, stored one by one as each run of one
        choice ended, so that none is lost) one row of ``report``, the report of them all: the
        first row takes it, the others go, in one transaction. Returns the row's id; KeyError
        when a row is missing or imported (nothing is changed then)."""
        if not entry_ids:
            raise KeyError("no rows to merge")
        prepared = self._prepare(report, None)
        runs = prepared.report.runs
        values = (prepared.report.created, together_suite([r.suite for r in runs]),
                  together_status([r.status for r in runs]), *_summary(_lead(runs)),
                  -1 if len(runs) > 1 else 0, prepared.text, prepared.digest,
                  *_interruption(next((r for r in runs if _interruption(r)[0] is not None),
                                      runs[0])))
        with self._write(t("report.history.doing.store", "store the run")):
            marks = ",".join("?" * len(entry_ids))
            found = self._db.execute(
                f"SELECT id FROM runs WHERE imported = 0 AND id IN ({marks})",
                tuple(entry_ids)).fetchall()
            if len(found) != len(set(entry_ids)):
                raise KeyError(entry_ids)
            first, *rest = entry_ids
            self._db.execute(
                "UPDATE runs SET created = ?, suite = ?, status = ?, device = ?, headline = ?, "
                "value = ?, unit = ?, error_kind = ?, run_index = ?, report_json = ?, "
                "digest = ?, measured_steps = ?, planned_steps = ? WHERE id = ?",
                (*values, first))
            self._db.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in rest])
        return first

    def list(self, *, suite: str | None = None, limit: int = 100,
             status: str | None = None) -> list[HistoryEntry]:
        """The newest runs first (``suite``: also the rows of several runs that hold it)."""
        where: list[str] = []
        args: list[object] = []
        if suite:
            where.append("(suite = ? OR instr('+' || suite || '+', ?) > 0)")
            args += [suite, f"+{suite}+"]
        if status:
            where.append("status = ?")
            args.append(status)
        sql = f"SELECT {_COLUMNS} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created DESC, id DESC LIMIT ?"
        return [_entry(row) for row in self._query(sql, (*args, limit))]

    def entry(self, entry_id: int) -> HistoryEntry:
        """One row's summary; KeyError when there is no such run."""
        rows = self._query(f"SELECT {_COLUMNS} FROM runs WHERE id = ?", (entry_id,))
        if not rows:
            raise KeyError(entry_id)
        return _entry(rows[0])

    def report(self, entry_id: int) -> Report:
        """The report a row came from (all its runs)."""
        rows = self._query("SELECT report_json FROM runs WHERE id = ?", (entry_id,))
        if not rows:
            raise KeyError(entry_id)
        try:  # what this machine measured: no limit on its steps and samples
            return from_json(rows[0][0], series_limits=False)
        except (ReportError, TypeError) as exc:
            raise HistoryError(t("report.history.run-unreadable",
                                 "run #{id} in {path} cannot be read: {error}", id=entry_id,
                                 path=self.path, error=exc)) from None

    def run_report(self, entry_id: int) -> Report:
        """The report of this one run: its report with the other runs left out."""
        entry = self.entry(entry_id)
        report = self.report(entry_id)
        if 0 <= entry.run_index < len(report.runs):
            report.runs = [report.runs[entry.run_index]]
        return report

    def delete(self, entry_id: int) -> None:
        """Remove one run; KeyError when there is no such run."""
        with self._write(t("report.history.doing.delete", "delete the run")):
            cur = self._db.execute("DELETE FROM runs WHERE id = ?", (entry_id,))
            if cur.rowcount == 0:
                raise KeyError(entry_id)

    def count(self) -> int:
        rows = self._query("SELECT count(*) FROM runs", ())
        return int(rows[0][0]) if rows else 0

    # --- plumbing ---------------------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[object, ...]) -> _Rows:
        if self._empty:
            return []
        try:
            return list(self._db.execute(sql, args).fetchall())
        except sqlite3.Error as exc:
            raise self._error(exc, t("report.history.doing.read", "read it")) from None

    @contextlib.contextmanager
    def _write(self, doing: str) -> Iterator[None]:
        """One write transaction; ``doing``: what it does, in words (for its errors)."""
        if self._empty:
            raise HistoryError(t("report.history.read-only", "{path} was opened only to read; "
                                 "cannot {doing}", path=self.path, doing=doing))
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc, doing) from None
        try:
            yield
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise self._error(exc, doing) from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise


def _salvage(path: Path) -> list[dict[str, Any]]:
    """Rows of a damaged database that can still be read and parsed (possibly none)."""
    for uri in (f"file:{path}?mode=ro", f"file:{path}?mode=ro&immutable=1"):
        try:
            db = sqlite3.connect(uri, uri=True, timeout=1.0)
        except sqlite3.Error:
            continue
        try:
            # read a file shorter than its header says, instead of refusing it (read-only here)
            db.execute("PRAGMA writable_schema=ON")
            db.row_factory = sqlite3.Row
            rows = [r for r in (_salvage_row(db, i) for i in _readable_ids(db)) if r]
        except sqlite3.Error:
            rows = []
        finally:
            db.close()
        if rows:
            return rows
    return []


def _readable_ids(db: sqlite3.Connection) -> list[int]:
    ids: list[int] = []
    cur = db.execute("SELECT id FROM runs ORDER BY id")
    while True:
        try:
            row = cur.fetchone()
        except sqlite3.Error:
            return ids
        if row is None:
            return ids
        ids.append(int(row[0]))


def _salvage_row(db: sqlite3.Connection, entry_id: int) -> dict[str, Any] | None:
    try:
        row = db.execute("SELECT * FROM runs WHERE id = ?", (entry_id,)).fetchone()
        item = dict(row) if row is not None else None
        if item is not None:
            from_json(item["report_json"], series_limits=False)
        return item
    except (sqlite3.Error, ReportError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class _Prepared:
    """A report ready to be stored: scrubbed, its JSON text and content digest."""

    report: Report
    text: str
    digest: str
    origin: str | None


def _digest(data: dict[str, Any]) -> str:
    """What tells two reports apart, however their files were written (indented or not, the
    report's fields in any order): the sha256 of the report's data (:func:`to_dict`) in marshal's
    format 2, which writes each float's exact bits, keeps the order of every dict and, unlike
    later formats, shares nothing by reference, so its bytes depend on the values alone. A
    tenth of the time of writing the data as JSON (no float is turned into decimal digits)."""
    return hashlib.sha256(marshal.dumps(data, 2)).hexdigest()


def _text_digest(text: str) -> str | None:
    """:func:`_digest` of a stored report's JSON text; None for a text that is no report."""
    try:
        report = from_json(text, series_limits=False)
    except ReportError:
        return None
    with collector_paused():
        return _digest(to_dict(report))


def _entry(row: tuple[Any, ...]) -> HistoryEntry:
    """A row as typed values, whatever the file holds (SQLite keeps any type in any column)."""
    (id_, created, suite, status, device, headline, value, unit, error_kind, imported, origin,
     run_index, added, measured, planned) = row

    def text(v: Any) -> str | None:
        return None if v is None else str(v)

    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return HistoryEntry(int(id_), str(created), str(suite), str(status), text(device),
                        text(headline), None if number is None else float(number), text(unit),
                        text(error_kind), bool(imported), text(origin),
                        run_index if isinstance(run_index, int) else 0, text(added),
                        (measured, planned if isinstance(planned, int) else None)
                        if isinstance(measured, int) else None)


def together_suite(suites: list[str]) -> str:
    """The ``suite`` of a row of several runs: their suites, each once, joined by ``+``."""
    return "+".join(dict.fromkeys(suites))


def row_suites(suite: str) -> list[str]:
    """The suites a row's ``suite`` names (one, or those of a row of several runs)."""
    return suite.split("+")


def together_status(statuses: list[str]) -> str:
    """The status of a row of several runs: ok when each ended so, else the first other."""
    return next((s for s in statuses if s != "ok"), "ok")


def _lead(runs: list[SuiteRun]) -> SuiteRun:
    """The run whose figure a row of several runs shows: the first with a result."""
    return next((r for r in runs if r.result is not None), runs[0])


def _interruption(run: SuiteRun) -> tuple[int | None, int | None]:
    """The measured and planned steps of a result made of a run cut short; (None, None) for
    any other run."""
    cut = run.result.interrupted if run.result is not None else None
    return (cut.measured_steps, cut.planned_steps) if cut is not None else (None, None)


def _summary(run: SuiteRun) -> tuple[str | None, str | None, float | None, str | None,
                                      str | None]:
    device = run.device.name if run.device else None
    kind = run.error.kind if run.error else None  # a run cut short has a result and its error
    if run.result is not None:
        fig = run.result.headline_figure
        return device, run.result.headline, fig.median, fig.unit, kind
    return device, None, None, None, kind
