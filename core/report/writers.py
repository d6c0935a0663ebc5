"""The one door for writing reports out: JSON, HTML or Markdown, always scrubbed of names first
(core.report.privacy), and reading a report file with a clear error for anything else."""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

from core.i18n import t
from core.report.compare import compare
from core.report.html import render_html
from core.report.markdown import render_markdown
from core.report.model import (
    Report,
    ReportError,
    Source,
    from_dict,
    parse_json,
    reading,
    to_json,
)
from core.report.privacy import (
    Identity,
    learned,
    scrub_report,
    scrub_text,
    scrubbed_from_data,
)
from core.report.references import ReferenceRow, cards_like_mine

FORMATS = ("json", "html", "md")
SUFFIXES = {".json": "json", ".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}
# A report of a default run is 30-100 KB; the longest the harness writes in one timed phase
# (100,000 steps of about 210 bytes each) is about 21 MB. A file is read up to this and no
# further, whatever it is (/dev/zero, a FIFO, a process substitution report no size).
MAX_BYTES = 32 * 2**20


class ExportError(ValueError):
    """The output format cannot be told, or the file cannot be written."""


class UnwritableError(ExportError):
    """The file cannot be written (a full disk, a read-only folder): not the user's input."""


def format_for(path: str | Path | None, explicit: str | None = None) -> str:
    """``explicit`` when given, else from the file's suffix."""
    if explicit:
        if explicit not in FORMATS:
            raise ExportError(_unknown_format(explicit))
        return explicit
    suffix = Path(path).suffix.lower() if path else ""
    if suffix not in SUFFIXES:
        raise ExportError(t("report.format.file.no-suffix",
                            "cannot tell the format from {path}: name it .json, .html or .md, "
                            "or pass {option}", path=repr(str(path)), option="--format"))
    return SUFFIXES[suffix]


def _unknown_format(name: str) -> str:
    return t("report.format.file.unknown-format", "unknown format {format}: use one of "
             "{formats}", format=repr(name), formats=", ".join(FORMATS))


def load_report_file(path: str | Path) -> Report:
    """Read and validate a report file; ReportError says what is wrong, naming the file."""
    with reading():
        source = _read(path)
        try:
            return from_dict(source.data)
        except ReportError as exc:
            raise ReportError(f"{Path(path).name}: {exc}") from None


def load_scrubbed_report(path: str | Path, identity: Identity | None = None) -> Report:
    """A report file read, validated and scrubbed of ``identity`` and the names it gives away
    about its author, in one pass (the way to read a report from someone else)."""
    return read_scrubbed_report(path, identity)[0]


def read_scrubbed_report(path: str | Path,
                         identity: Identity | None = None) -> tuple[Report, Source]:
    """:func:`load_scrubbed_report`, and the file as it was read."""
    with reading():
        source = _read(path)
        try:
            return scrubbed_from_data(source.data, identity)[0], source
        except ReportError as exc:
            raise ReportError(f"{Path(path).name}: {exc}") from None


def _read(path: str | Path) -> Source:
    """A report file's text and JSON data, parsed strictly; ReportError names the file."""
    p = Path(path)
    name = p.name
    try:
        # O_NONBLOCK for the open alone: a FIFO nobody writes to reads as empty, not a hang
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_BYTES + 1)  # never more, whatever stat() says of it
    except FileNotFoundError:
        raise ReportError(t("report.format.file.missing", "{path}: no such file",
                            path=path)) from None
    except IsADirectoryError:
        raise ReportError(t("report.format.file.folder", "{path}: is a folder, not a report "
                            "file", path=path)) from None
    except OSError as exc:
        raise ReportError(t("report.format.file.unreadable", "{path}: cannot be read ({error})",
                            path=path, error=exc.strerror or exc)) from None
    if len(data) > MAX_BYTES:
        raise ReportError(t("report.format.file.too-large",
                            "{name}: more than {size} MiB, far too large for a rocmate report",
                            name=name, size=MAX_BYTES // 2**20))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ReportError(t("report.format.file.not-text",
                            "{name}: not a rocmate report (not UTF-8 text)", name=name)) from None
    try:
        return Source(text, parse_json(text))
    except ReportError as exc:
        raise ReportError(f"{name}: {exc}") from None


def render(report: Report, fmt: str, *, baseline: Report | None = None,
           baseline_label: str = "A", label: str = "B", references: bool = False,
           all_cards: bool = False, reference_rows: list[ReferenceRow] | None = None,
           identity: Identity | None = None) -> str:
    """``report`` as ``fmt`` (json | html | md), scrubbed. HTML and Markdown can add a
    comparison against ``baseline`` and the reference results for the report's cards; JSON is
    the report alone."""
    if fmt not in FORMATS:
        raise ExportError(_unknown_format(fmt))
    # what either report gives away about its author is removed from both, and from the labels
    identity = (identity or Identity()).merged(learned(report))
    if baseline is not None:
        identity = identity.merged(learned(baseline))
    report = scrub_report(report, identity)
    if fmt == "json":
        return to_json(report) + "\n"
    comparison = None
    if baseline is not None:
        comparison = compare(scrub_report(baseline, identity), report,
                             scrub_text(baseline_label, identity), scrub_text(label, identity))
    refs = []
    if references:
        refs = [cards_like_mine(report, i, rows=reference_rows, all_cards=all_cards)
                for i in range(len(report.runs))]
    if fmt == "html":
        return render_html(report, comparison=comparison, references=refs)
    return render_markdown(report, comparison=comparison, references=refs)


def write_text(text: str, path: str | Path) -> Path:
    """Write atomically (a reader never sees half a file) into a folder that exists (a typo in
    a folder name is said, not made into new folders); ExportError on failure."""
    p = Path(path)
    if not p.parent.is_dir():
        raise ExportError(t("report.format.file.no-folder",
                            "cannot write {path}: the folder {folder} does not exist", path=path,
                            folder=p.parent))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
        os.fchmod(fd, 0o644)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise UnwritableError(t("report.format.file.unwritable", "cannot write {path}: {error}",
                            path=path, error=exc.strerror or exc)) from None
    return p
