"""The history of benchmark runs: a small SQLite database, one row per suite run, each row
holding the full report it came from.

Location: ``$XDG_DATA_HOME/rocmate/history.sqlite`` (default ``~/.local/share``). The schema is
versioned with ``PRAGMA user_version``; the database runs in WAL mode so a reader (the GUI's
history view) never blocks a writer (a finishing run).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.report.model import Report, SuiteRun, from_json, to_json

SCHEMA_VERSION = 1

_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE runs (
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
    );
    CREATE INDEX runs_suite_created ON runs (suite, created);
    """,
}


class HistoryError(RuntimeError):
    """The database cannot be used (e.g. written by a newer rocmate)."""


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


def default_path(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/rocmate/history.sqlite``, ``~/.local/share`` when unset or relative."""
    base = env.get("XDG_DATA_HOME", "")
    if not base or not Path(base).is_absolute():
        home = env.get("HOME") or str(Path.home())
        base = str(Path(home) / ".local" / "share")
    return Path(base) / "rocmate" / "history.sqlite"


class History:
    """Insert reports, list runs. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=10.0)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"{self.path} was made by a newer rocmate (history schema {version}, this "
                f"version knows {SCHEMA_VERSION}); update rocmate or move the file away")
        for v in range(version + 1, SCHEMA_VERSION + 1):
            with self._db:
                self._db.executescript(_MIGRATIONS[v])
                self._db.execute(f"PRAGMA user_version = {v}")

    def insert(self, report: Report) -> list[int]:
        """Store every run of a report; returns the new row ids."""
        text = to_json(report, indent=None)
        ids: list[int] = []
        with self._db:
            for i, run in enumerate(report.runs):
                cur = self._db.execute(
                    "INSERT INTO runs (created, suite, status, device, headline, value, unit, "
                    "error_kind, run_index, report_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (report.created, run.suite, run.status, *_summary(run), i, text),
                )
                ids.append(int(cur.lastrowid or 0))
        return ids

    def list(self, *, suite: str | None = None, limit: int = 100) -> list[HistoryEntry]:
        """The newest runs first."""
        sql = ("SELECT id, created, suite, status, device, headline, value, unit, error_kind "
               "FROM runs")
        args: tuple[object, ...] = ()
        if suite:
            sql += " WHERE suite = ?"
            args = (suite,)
        sql += " ORDER BY created DESC, id DESC LIMIT ?"
        rows = self._db.execute(sql, (*args, limit)).fetchall()
        return [HistoryEntry(*row) for row in rows]

    def report(self, entry_id: int) -> Report:
        """The report a row came from."""
        row = self._db.execute("SELECT report_json FROM runs WHERE id = ?", (entry_id,)).fetchone()
        if row is None:
            raise KeyError(entry_id)
        return from_json(row[0])


def _summary(run: SuiteRun) -> tuple[str | None, str | None, float | None, str | None,
                                      str | None]:
    device = run.device.name if run.device else None
    if run.result is not None:
        fig = run.result.headline_figure
        return device, run.result.headline, fig.median, fig.unit, None
    return device, None, None, None, run.error.kind if run.error else None
