"""The history of benchmark runs and the reports they produced: list, load, show, render,
export, compare, import and delete.

A run is named by its history id (``12`` or ``#12``) or by a report file. Every failure (no such
run, a file that is not a report, a newer schema, a database that is damaged or locked) raises
one of the report errors (:data:`REPORT_ERRORS`) whose ``str()`` is one line for the user, or a
file's OSError; :func:`said_for_the_user` turns each into the one error an operation raises
(core.operations.errors.OperationError, with its exit status), for the command line and the app
alike. Notices from the history (a damaged database set aside) go to ``on_notice``.
"""

from __future__ import annotations

import contextlib
import os
import re
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from core.bench.advice import reworded
from core.i18n import t
from core.operations.errors import OperationError
from core.report import formatting as fmt
from core.report.compare import compare
from core.report.history import History, HistoryEntry, HistoryError, default_path
from core.report.model import Report, ReportError, SuiteRun
from core.report.privacy import Identity, learned, scrub_text
from core.report.references import ReferencesError, cards_like_mine
from core.report.text import comparison_text, history_text, references_text, report_text
from core.report.writers import (
    ExportError,
    UnwritableError,
    format_for,
    load_scrubbed_report,
    read_scrubbed_report,
    render,
    write_text,
)


class ReportRefError(OperationError, ValueError):
    """A run reference or a request that cannot be served (the message says why): the user's
    input, so a command exits 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=2)


REPORT_ERRORS = (ReportRefError, ReportError, ReferencesError, HistoryError, ExportError)
INPUT_ERRORS = (ReportRefError, ReportError, ExportError)


def input_error(exc: Exception) -> bool:
    """Whether a report error is the user's input (no such run, a file that is no report, a
    format that cannot be told): commands exit 2 for those, as for a usage error, and 1 for the
    others (a history that is locked or damaged, a file that cannot be written, broken
    references)."""
    return isinstance(exc, INPUT_ERRORS) and not isinstance(exc, UnwritableError)


def as_operation_error(exc: BaseException) -> OperationError:
    """A report error or a file's OSError as the one error an operation raises for the user:
    its line, and the exit status (:func:`input_error`: 2, else 1)."""
    if isinstance(exc, OperationError):
        return exc
    if isinstance(exc, OSError) and not isinstance(exc, REPORT_ERRORS):
        where = f": {exc.filename}" if exc.filename else ""
        return OperationError(f"{exc.strerror or exc}{where}", status=1)
    return OperationError(str(exc), status=2 if isinstance(exc, Exception) and
                          input_error(exc) else 1)


@contextlib.contextmanager
def said_for_the_user() -> Iterator[None]:
    """Report errors and a file's OSError, raised within, come out as OperationError
    (:func:`as_operation_error`), without a traceback behind them."""
    try:
        yield
    except OperationError:
        raise
    except (*REPORT_ERRORS, OSError) as exc:
        raise as_operation_error(exc) from None

_RUN_ID = re.compile(r"#?(\d+)")


class HistoryAccess:
    """The history database, opened on first use and closed by :meth:`close` (or ``with``).

    Opened to read, a damaged or foreign file is an error and is left as it is; only an
    operation that writes sets a damaged one aside (and says so through ``on_notice``)."""

    def __init__(self, path: str | Path | None = None,
                 on_notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path) if path else default_path(os.environ)
        self.own_file = not path  # a file the user named is never set aside
        self.notices: list[str] = []
        self._on_notice = on_notice
        self._history: History | None = None
        self._writable = False

    def __enter__(self) -> HistoryAccess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def history(self, create: bool = False, write: bool | None = None) -> History | None:
        """The history; None when there is none and ``create`` is false."""
        writes = create if write is None else write
        if self._history is not None and writes and not self._writable:
            self._history.close()
            self._history = None
        if self._history is None:
            if not create and not self.path.exists():
                return None
            self._history = History(self.path, on_notice=self._notice, repair=writes,
                                    own_file=self.own_file)
            self._writable = writes
        return self._history

    def _notice(self, message: str) -> None:
        self.notices.append(message)
        if self._on_notice is not None:
            self._on_notice(message)

    def close(self) -> None:
        if self._history is not None:
            self._history.close()
            self._history = None


@dataclass(frozen=True)
class RunList:
    entries: list[HistoryEntry]
    total: int
    """Runs in the whole history, whatever the filters."""
    filtered: str
    """The filters that were asked for, in words ("" for none)."""

    def text(self) -> str:
        """The table; when it is empty, whether the history is empty or nothing matched."""
        if self.entries:
            return history_text(self.entries)
        if not self.total:
            return t("report.text.history.empty", "no runs in the history yet")
        if self.total == 1:
            return t("ops.reports.no-match.one", "no runs match {filters} (the history has 1 run)",
                     filters=self.filtered)
        return t("ops.reports.no-match.many", "no runs match {filters} (the history has {count} "
                 "runs)", filters=self.filtered, count=self.total)


def list_runs(access: HistoryAccess, *, suite: str | None = None, status: str | None = None,
              limit: int = 50) -> RunList:
    """The newest ``limit`` runs in the history (none when there is no history yet)."""
    if limit < 1:
        raise ReportRefError(t("ops.reports.limit-too-small", "{option} must be at least 1 (not "
                               "{limit})", option="--limit", limit=limit))
    asked = t("ops.reports.filter-and", " and ").join(
        f"{flag} {value}" for flag, value in (("--suite", suite), ("--status", status)) if value)
    history = access.history()
    if history is None:
        return RunList([], 0, asked)
    return RunList(history.list(suite=suite, status=status, limit=limit), history.count(),
                   asked)


@dataclass(frozen=True)
class LoadedReport:
    report: Report
    label: str
    """How the run is named in a comparison: ``run 12 (gemm on ..., when)`` or a file name."""


def load_report(ref: str, access: HistoryAccess) -> LoadedReport:
    """A run from the history (``12`` or ``#12``) or a report file (scrubbed of the names it
    gives away, its label too)."""
    m = _RUN_ID.fullmatch(ref.strip())
    if m and not Path(ref).exists():
        entry_id = int(m.group(1))
        history = access.history()
        if history is None:
            raise ReportRefError(t("ops.reports.history-empty", "no run #{id}: the history is "
                                   "empty ({path})", id=entry_id, path=access.path))
        try:
            if entry_id > _LARGEST_ID:  # no SQLite row id is that large
                raise KeyError(entry_id)
            entry = history.entry(entry_id)
            report = history.run_report(entry_id)
        except KeyError:
            raise ReportRefError(t("ops.reports.no-such-run.see-list", "no run #{id} in the "
                                   "history (see {command})", id=entry_id,
                                   command="rocmate report list")) from None
        device = entry.device or fmt.unknown_device()
        when = fmt.when(entry.created)
        if entry.imported:
            label = t("ops.reports.label.imported", "run {id} ({suite} on {device}, {when}, "
                      "imported)", id=entry_id, suite=entry.suite, device=device, when=when)
        else:
            label = t("ops.reports.label", "run {id} ({suite} on {device}, {when})", id=entry_id,
                      suite=entry.suite, device=device, when=when)
        return LoadedReport(report, label)
    report = load_scrubbed_report(ref)
    # the label must not say what the report gave away either
    return LoadedReport(report, scrub_text(Path(ref).name, learned(report)))


def show_text(report: Report, *, references: bool = False, all_cards: bool = False) -> str:
    """The terminal view of a report, with the results of cards like it when asked."""
    parts = [report_text(reworded(report))]
    if references:
        parts += ["\n" + references_text(cards_like_mine(report, i, all_cards=all_cards))
                  for i in range(len(report.runs))]
    return "\n".join(parts)


def render_report(report: Report, kind: str, *, references: bool = False,
                  all_cards: bool = False) -> str:
    """The report as ``kind`` (json, md or html)."""
    return render(_for(report, kind), kind, references=references, all_cards=all_cards)


def _for(report: Report, kind: str) -> Report:
    """What a rendering of ``kind`` shows: for people, failed runs' words in their language;
    JSON, for programs, as it is."""
    return report if kind == "json" else reworded(report)


@dataclass(frozen=True)
class Written:
    path: Path
    kind: str
    what: str
    """One line on what the file holds: each run's suite, device and headline figure."""


def export_report(report: Report, out: str | Path, kind: str | None = None, *,
                  references: bool = False, all_cards: bool = False) -> Written:
    """Write the report to ``out`` (its kind from ``kind`` or the file's suffix)."""
    chosen = format_for(out, kind)
    text = render(_for(report, chosen), chosen, references=references, all_cards=all_cards)
    return Written(write_text(text, out), chosen, summary(report))


def compare_reports(a: LoadedReport, b: LoadedReport | None, kind: str = "text", *,
                    references: bool = False, all_cards: bool = False) -> str:
    """Two runs side by side (B against the baseline A: ratios, settings, software), and/or
    one run beside the results of cards like it (``references``), as text, md or html."""
    if b is None and not references:
        raise ReportRefError(compare_needs_two())
    if kind == "json":
        raise ReportRefError(t("ops.reports.compare-formats", "a comparison is written as "
                               "{formats} or {last}", formats="text, md", last="html"))
    other = b or a
    if kind == "text":
        parts: list[str] = []
        if b is not None:
            parts.append(comparison_text(compare(a.report, b.report, a.label, b.label)))
        if references:
            parts += [references_text(cards_like_mine(other.report, i, all_cards=all_cards))
                      for i in range(len(other.report.runs))]
        return "\n\n".join(parts) + "\n"
    return render(other.report, kind, baseline=a.report if b is not None else None,
                  baseline_label=a.label, label=other.label, references=references,
                  all_cards=all_cards)


def compare_needs_two() -> str:
    """Why ``compare`` with one run and no ``--references`` cannot be served."""
    return t("ops.reports.compare-needs-two", "compare needs two runs (ID or FILE each), or one "
             "with {option}", option="--references")


@dataclass(frozen=True)
class Imported:
    file: str
    name: str
    """The file's name as stored (scrubbed)."""
    ids: tuple[int, ...]
    new: bool
    """False when the same report was in the history already."""
    what: str


def import_report(file: str | Path, access: HistoryAccess) -> Imported:
    """Add someone else's report file to the history, for comparison."""
    report, source = read_scrubbed_report(file, Identity.current())
    if not report.runs:  # nothing to compare: say so rather than store an empty entry
        raise ReportError(t("ops.reports.import-no-runs", "{name}: the report holds no "
                            "benchmark runs, so there is nothing to import",
                            name=Path(file).name))
    history = access.history(create=True)
    assert history is not None
    ids, new = history.import_report(report, origin=Path(file).name, source=source)
    name = history.entry(ids[0]).origin or Path(file).name  # as stored: scrubbed
    return Imported(str(file), name, tuple(ids), new, summary(report))


def delete_run(ref: str, access: HistoryAccess) -> int:
    """Remove one run (``12`` or ``#12``) from the history; its id."""
    m = _RUN_ID.fullmatch(ref.strip())
    if not m:
        raise ReportRefError(t("ops.reports.not-a-run-id", "{ref} is not a run id (see "
                               "{command})", ref=repr(ref), command="rocmate report list"))
    entry_id = int(m.group(1))
    if entry_id > _LARGEST_ID:  # no SQLite row id is that large
        raise ReportRefError(t("ops.reports.no-such-run", "no run #{id} in the history",
                               id=entry_id))
    history = access.history(write=True)
    try:
        if history is None:
            raise KeyError(ref)
        history.delete(entry_id)
    except KeyError:
        raise ReportRefError(t("ops.reports.no-such-run", "no run #{id} in the history",
                               id=entry_id)) from None
    return entry_id


_LARGEST_ID = 2**63 - 1  # SQLite's largest INTEGER


def summary(report: Report) -> str:
    """Each run's suite, device and headline figure, on one line."""
    return t("doctor.list-separator", "; ").join(
        t("ops.reports.summary", "{suite} on {device}, {headline}",
          suite=fmt.suite_title(r.suite),
          device=r.device.name if r.device else fmt.unknown_device(), headline=fmt.headline(r))
        for r in report.runs)


@dataclass(frozen=True)
class ColdStart:
    """A run's first step against its steady steps: what a cold start (kernels compiled and
    tuned, memory allocated, clocks coming up) costs before the figures settle."""

    first_step_s: float
    """The first warm-up step, as the report holds it (``result.warmup.first_step_s``)."""
    warmup_steps: int
    warmup_s: float
    steady_step_s: float | None
    """The median time of the measured steps (of the headline's part, for a suite of several
    parts); None when the report holds no measured steps."""

    @property
    def ratio(self) -> float | None:
        """How many steady steps the first step took."""
        return self.first_step_s / self.steady_step_s if self.steady_step_s else None


def cold_start(run: SuiteRun) -> ColdStart | None:
    """The first step against the steady ones; None for a run without a result or without a
    recorded first step."""
    r = run.result
    if r is None or r.warmup.first_step_s is None:
        return None
    measured = [s for s in run.steps if s.phase == "measure"]
    # the part whose warm-up the result's is (llm-infer's is its decode part, the second: its
    # first step against the prompt's steps said 374x on the H200, not 2.6x), else the first
    first = next((s for s in run.steps if s.phase == "warmup" and s.index == 0
                  and s.seconds == r.warmup.first_step_s), None)
    part = first.part if first is not None else measured[0].part if measured else None
    times = [s.seconds for s in measured if s.part == part]
    return ColdStart(r.warmup.first_step_s, r.warmup.steps, r.warmup.seconds,
                     statistics.median(times) if times else None)
