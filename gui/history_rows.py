"""The history window's work off the GUI thread: the runs read, opened, deleted and imported
through ``core.operations.reports`` (each call opens and closes the history in the bridge's
worker thread), and each run's row worked out once there, with what sorting and filtering need:
its texts in the current language and a sort key per column. ``demo_history`` fills a history
for the screenshots."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from core.operations.benchmark import recover_interrupted
from core.operations.errors import OperationError
from core.operations.reports import (
    HistoryAccess,
    Imported,
    LoadedReport,
    delete_run,
    import_report,
    list_runs,
    load_report,
)
from core.report import formatting as fmt
from core.report.history import HistoryEntry
from core.report.interruption import interrupted_words
from gui.widgets.results_view import status_word

MAX_ROWS = 10_000
"""The newest runs the window lists (a history holds far fewer in practice)."""
COLUMNS = ("run", "suite", "status", "device", "result", "when", "origin")
RUN, SUITE, STATUS, DEVICE, RESULT, WHEN, ORIGIN = range(len(COLUMNS))


@dataclass(frozen=True)
class HistoryRow:
    """One run as the table shows it: the entry, and what sorting and filtering need, worked out
    once (off the GUI thread)."""

    entry: HistoryEntry
    when: str
    when_key: float
    result: str
    search: str
    texts: tuple[str, ...] = ()
    """Each column's text."""
    keys: tuple[float | str, ...] = ()
    """Each column's sort key: one type per column, so that Qt compares them itself."""


@dataclass(frozen=True)
class HistoryRows:
    rows: list[HistoryRow]
    total: int
    notices: list[str] = field(default_factory=list)
    recovered: int = 0
    """Runs added just now from the run files of runs that did not end."""


def timestamp(iso: str) -> float:
    """Seconds since 1970 for sorting (a time without a zone is taken as UTC, as rocmate writes
    them); a time that does not parse sorts first."""
    try:
        t = _dt.datetime.fromisoformat(iso)
    except (ValueError, TypeError):
        return float("-inf")
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    try:
        return t.timestamp()
    except (OverflowError, ValueError, OSError):
        return float("-inf")


def history_row(entry: HistoryEntry) -> HistoryRow:
    result = f"{fmt.num(entry.value)} {entry.unit or ''}".rstrip() if entry.value is not None \
        else "-"
    words = (f"#{entry.id}", entry.suite, fmt.suite_title(entry.suite), entry.status,
             entry.error_kind or "", entry.device or "", result, entry.origin or "",
             entry.headline or "")
    when = fmt.when(entry.created)
    texts = cell_texts(entry, when, result)
    stamp = timestamp(entry.created)
    keys: tuple[float | str, ...] = (
        float(entry.id), texts[SUITE].casefold(), texts[STATUS].casefold(),
        texts[DEVICE].casefold(),
        entry.value if entry.value is not None else float("inf"),  # no figure: after them all
        stamp, texts[ORIGIN].casefold())
    return HistoryRow(entry, when, stamp, result, " ".join(words).casefold(), texts, keys)


def cell_texts(entry: HistoryEntry, when: str, result: str) -> tuple[str, ...]:
    """The table's texts of one run, in the current language (worked out off the GUI thread:
    translate is thread-safe)."""
    # an imported run: the file's name (its words in the tooltip)
    if entry.imported:
        origin = entry.origin or QCoreApplication.translate("HistoryModel", "imported")
    else:
        origin = QCoreApplication.translate("HistoryModel", "this computer")
    device = entry.device or QCoreApplication.translate("HistoryModel", "device unknown")
    # a result made of the steps of a run cut short: "interrupted after N of M steps" (core's
    # words, as the terminal's list says it)
    status = (interrupted_words(*entry.interrupted) if entry.interrupted is not None
              else status_word(entry.status))
    return tuple(fmt.safe(t) for t in (
        f"#{entry.id}", fmt.suite_title(entry.suite), status, device, result,
        fmt.when_local(entry.created),  # this computer's clock; UTC in the tooltip
        origin))


def load_rows(path: Path | None, limit: int = MAX_ROWS) -> HistoryRows:
    """The newest ``limit`` runs of the history at ``path`` (None: the default one), after the
    runs that rocmate stopped before their end (a crash, a killed window) were added."""
    notices: list[str] = []
    try:
        recovered = recover_interrupted(path)
    except OperationError as exc:  # the history cannot be written: said, and read as it is
        notices.append(str(exc))
        recovered = []
    with HistoryAccess(path) as access:
        runs = list_runs(access, limit=limit)
        return HistoryRows([history_row(e) for e in runs.entries], runs.total,
                           [*notices, *access.notices], len(recovered))


def open_run(path: Path | None, entry_id: int) -> LoadedReport:
    with HistoryAccess(path) as access:
        return load_report(f"#{entry_id}", access)  # "#": never a file of that name


def open_pair(path: Path | None, a: int, b: int) -> tuple[LoadedReport, LoadedReport]:
    with HistoryAccess(path) as access:
        return load_report(f"#{a}", access), load_report(f"#{b}", access)


def open_runs(path: Path | None, ids: list[int]) -> dict[int, LoadedReport]:
    """Runs read again by id (their labels in the language now set)."""
    with HistoryAccess(path) as access:
        return {i: load_report(f"#{i}", access) for i in ids}


def delete_runs(path: Path | None, ids: list[int]) -> tuple[list[int], list[str]]:
    with HistoryAccess(path) as access:
        return [delete_run(str(i), access) for i in ids], list(access.notices)


def import_file(path: Path | None, file: str) -> tuple[Imported, list[str]]:
    with HistoryAccess(path) as access:
        return import_report(file, access), list(access.notices)


def demo_history(history_path: Path, reports: list[Path]) -> None:
    """Import ``reports`` into the history at ``history_path`` (for the screenshots)."""
    with HistoryAccess(history_path) as access:
        for report in reports:
            import_report(report, access)
