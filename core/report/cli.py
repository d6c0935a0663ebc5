"""``rocmate report list | show | export | compare | import | delete | render``.

Every error (no such run, a file that is not a report, a newer schema, a database set aside or
locked) is one line on stderr starting with ``rocmate report:`` and a non-zero exit status;
never a traceback.

    rocmate report list [--suite S] [--limit N] [--json]
    rocmate report show ID|FILE [--format text|json|md|html] [--references]
    rocmate report export ID|FILE -o OUT.json|.html|.md [--format F] [--references]
    rocmate report compare ID|FILE [ID|FILE] [--references] [--all-cards] [--format F] [-o OUT]
    rocmate report import FILE [FILE ...]
    rocmate report delete ID [ID ...]
    rocmate report render FILE.json [--format html|md|json] [-o OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from core.report import formatting as fmt
from core.report.history import History, HistoryError, default_path
from core.report.model import Report, ReportError, to_dict
from core.report.privacy import learn, scrub_report, scrub_text
from core.report.references import ReferencesError, cards_like_mine
from core.report.text import comparison_text, history_text, references_text, report_text
from core.report.writers import ExportError, format_for, load_report_file, render, write_text

PROG = "rocmate report"


class CliError(Exception):
    """One line for the user; exit status 1."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add ``report`` and its commands; sets ``func=run``."""
    p = subparsers.add_parser(
        "report", help="list, show, export, compare and import benchmark reports",
        description="The history of benchmark runs and the reports they produced.")
    p.add_argument("--db", metavar="FILE",
                   help="history database (default: $XDG_DATA_HOME/rocmate/history.sqlite)")
    p.set_defaults(func=run, report_command=None)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", metavar="FILE", default=argparse.SUPPRESS,
                        help="history database (default: $XDG_DATA_HOME/rocmate/history.sqlite)")
    sub = p.add_subparsers(dest="report_command", metavar="COMMAND")

    ls = sub.add_parser("list", parents=[common], help="list the runs in the history")
    ls.add_argument("--suite", help="only this suite")
    ls.add_argument("--status", choices=["ok", "error", "cancelled"])
    ls.add_argument("--limit", type=int, default=50, metavar="N", help="newest N (default 50)")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")

    show = sub.add_parser("show", parents=[common], help="show one run (ID from the history, "
                                                        "or a report file)")
    show.add_argument("ref", metavar="ID|FILE")
    show.add_argument("--format", choices=["text", "json", "md", "html"], default="text")
    show.add_argument("--json", action="store_const", const="json", dest="format",
                      help="the same as --format json")
    _reference_options(show)

    export = sub.add_parser("export", parents=[common], help="write a run's report to a file")
    export.add_argument("ref", metavar="ID|FILE")
    export.add_argument("-o", "--out", required=True, metavar="OUT",
                        help="OUT.json, OUT.html or OUT.md")
    export.add_argument("--format", choices=["json", "html", "md"],
                        help="default: from OUT's suffix")
    _reference_options(export)

    cmp = sub.add_parser("compare", parents=[common],
                         help="compare two runs, or one run with reference results")
    cmp.add_argument("a", metavar="ID|FILE", help="the baseline (A)")
    cmp.add_argument("b", metavar="ID|FILE", nargs="?", help="the run set against it (B)")
    cmp.add_argument("--format", choices=["text", "md", "html"],
                     help="default: text, or from OUT's suffix")
    cmp.add_argument("-o", "--out", metavar="OUT", help="write to a file instead of stdout")
    _reference_options(cmp)

    imp = sub.add_parser("import", parents=[common],
                         help="add someone else's report JSON to the history, for comparison")
    imp.add_argument("files", nargs="+", metavar="FILE")

    delete = sub.add_parser("delete", parents=[common], help="remove runs from the history")
    delete.add_argument("ids", nargs="+", metavar="ID")

    rnd = sub.add_parser("render", parents=[common],
                         help="render a report file as HTML or Markdown")
    rnd.add_argument("file", metavar="FILE.json")
    rnd.add_argument("--format", choices=["html", "md", "json"],
                     help="default: from OUT's suffix")
    rnd.add_argument("-o", "--out", metavar="OUT", help="default: stdout")
    _reference_options(rnd)


def _reference_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--references", action="store_true",
                   help="add reference results for cards like this one (published figures and "
                        "blog claims, with sources and conditions)")
    p.add_argument("--all-cards", action="store_true",
                   help="with --references: every card's results for the suite, not only "
                        "this card's")


# --- running ------------------------------------------------------------------------------------


class _Context:
    """The history, opened on first use; notices from it are printed and fail the command."""

    def __init__(self, db: str | None) -> None:
        self.path = Path(db) if db else default_path(os.environ)
        self.notices: list[str] = []
        self._history: History | None = None
        self._writable = False

    def history(self, create: bool = False, write: bool | None = None) -> History | None:
        """The history; None when there is none and ``create`` is false. Opened to read
        (``write`` false, the default unless ``create``), a damaged or foreign file is an error
        and is left as it is; only a command that writes sets a damaged one aside."""
        writes = create if write is None else write
        if self._history is not None and writes and not self._writable:
            self._history.close()
            self._history = None
        if self._history is None:
            if not create and not self.path.exists():
                return None
            self._history = History(self.path, on_notice=self._notice, repair=writes)
            self._writable = writes
        return self._history

    def _notice(self, message: str) -> None:
        self.notices.append(message)
        _say(message)

    def close(self) -> None:
        if self._history is not None:
            self._history.close()


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "report_command", None)
    if not command:
        _say("choose a command: list, show, export, compare, import, delete or render "
             "(rocmate report --help)")
        return 2
    ctx = _Context(getattr(args, "db", None))
    try:
        status = _COMMANDS[command](args, ctx)
    except (CliError, ReportError, ReferencesError, HistoryError, ExportError) as exc:
        _say(str(exc))
        status = 1
    except OSError as exc:
        _say(f"{exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}")
        status = 1
    except (ValueError, OverflowError, RecursionError) as exc:
        # a backstop: a report's content that slipped past validation is still one line
        _say(f"the report cannot be used: {type(exc).__name__}: {exc}")
        status = 1
    finally:
        ctx.close()
    return 1 if ctx.notices and status == 0 else status


def main(argv: list[str] | None = None) -> int:
    """``python -m core.report.cli ...`` (the same as ``rocmate report ...``)."""
    parser = argparse.ArgumentParser(prog="rocmate")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        return 0


def _say(message: str) -> None:
    """One line on stderr; nothing in it (a key name, a file name) can drive the terminal."""
    print(f"{PROG}: {fmt.safe(message)}", file=sys.stderr)


def _out(text: str, end: str = "\n") -> None:
    """Standard output: text, Markdown, HTML or JSON, with control characters and bidi
    overrides shown as escapes (valid JSON escapes too), newlines and tabs kept."""
    sys.stdout.write(fmt.safe(text, keep_newlines=True) + end)


# --- resolving ID|FILE ----------------------------------------------------------------------------


def _load(ref: str, ctx: _Context) -> tuple[Report, str]:
    """A run from the history (``12`` or ``#12``) or a report file; and its label."""
    m = re.fullmatch(r"#?(\d+)", ref.strip())
    if m and not Path(ref).exists():
        entry_id = int(m.group(1))
        history = ctx.history()
        if history is None:
            raise CliError(f"no run #{entry_id}: the history is empty ({ctx.path})")
        try:
            entry = history.entry(entry_id)
            report = history.run_report(entry_id)
        except KeyError:
            raise CliError(f"no run #{entry_id} in the history (see rocmate report list)") from None
        label = (f"run {entry_id} ({entry.suite} on {entry.device or 'no device'}, "
                 f"{fmt.when(entry.created)}{', imported' if entry.imported else ''})")
        return report, label
    raw = load_report_file(ref)
    identity = learn(to_dict(raw))  # the label must not say what the report gave away
    return scrub_report(raw, identity), scrub_text(Path(ref).name, identity)


# --- the commands ---------------------------------------------------------------------------------


def _list(args: argparse.Namespace, ctx: _Context) -> int:
    history = ctx.history()
    entries = [] if history is None else history.list(suite=args.suite, status=args.status,
                                                      limit=args.limit)
    if args.json:
        _out(json.dumps([dataclasses.asdict(e) for e in entries], indent=2, ensure_ascii=False))
    else:
        _out(history_text(entries))
    return 0


def _show(args: argparse.Namespace, ctx: _Context) -> int:
    report, _ = _load(args.ref, ctx)
    if args.format == "text":
        _out(report_text(report))
        if args.references:
            for i in range(len(report.runs)):
                _out("")
                _out(references_text(cards_like_mine(report, i, all_cards=args.all_cards)))
    else:
        _out(render(report, args.format, references=args.references,
                    all_cards=args.all_cards), end="")
    return 0


def _export(args: argparse.Namespace, ctx: _Context) -> int:
    report, _ = _load(args.ref, ctx)
    kind = format_for(args.out, args.format)
    text = render(report, kind, references=args.references, all_cards=args.all_cards)
    out = write_text(text, args.out)
    _out(f"wrote {out} ({kind}: {_what(report)})")
    return 0


def _compare(args: argparse.Namespace, ctx: _Context) -> int:
    if args.b is None and not args.references:
        raise CliError("compare needs two runs (ID or FILE each), or one with --references")
    a, a_label = _load(args.a, ctx)
    b, b_label = _load(args.b, ctx) if args.b else (a, a_label)
    kind = args.format or (format_for(args.out) if args.out else "text")
    if kind == "json":
        raise CliError("a comparison is written as text, md or html")
    if kind == "text":
        parts: list[str] = []
        if args.b is not None:
            from core.report.compare import compare

            parts.append(comparison_text(compare(a, b, a_label, b_label)))
        if args.references:
            parts += [references_text(cards_like_mine(b, i, all_cards=args.all_cards))
                      for i in range(len(b.runs))]
        text = "\n\n".join(parts) + "\n"
    else:
        text = render(b, kind, baseline=a if args.b is not None else None,
                      baseline_label=a_label, label=b_label, references=args.references,
                      all_cards=args.all_cards)
    if args.out:
        out = write_text(text, args.out)
        _out(f"wrote {out} ({kind})")
    else:
        _out(text, end="")
    return 0


def _import(args: argparse.Namespace, ctx: _Context) -> int:
    failed = 0
    for file in args.files:
        try:
            report = load_report_file(file)
        except ReportError as exc:
            _say(str(exc))
            failed += 1
            continue
        history = ctx.history(create=True)
        assert history is not None
        ids, new = history.import_report(report, origin=Path(file).name)
        where = ", ".join(f"#{i}" for i in ids)
        name = history.entry(ids[0]).origin or Path(file).name  # as stored: scrubbed
        if new:
            _out(f"imported {name} as {where} ({_what(scrub_report(report))})")
        else:
            _out(f"{name} is already in the history as {where}")
    return 1 if failed else 0


def _delete(args: argparse.Namespace, ctx: _Context) -> int:
    history = ctx.history(write=True)
    failed = 0
    for ref in args.ids:
        m = re.fullmatch(r"#?(\d+)", ref.strip())
        if not m:
            _say(f"{ref!r} is not a run id (see rocmate report list)")
            failed += 1
            continue
        try:
            if history is None:
                raise KeyError(ref)
            history.delete(int(m.group(1)))
            _out(f"deleted #{m.group(1)}")
        except KeyError:
            _say(f"no run #{m.group(1)} in the history")
            failed += 1
    return 1 if failed else 0


def _render(args: argparse.Namespace, ctx: _Context) -> int:
    report = load_report_file(args.file)
    kind = format_for(args.out, args.format) if args.out else (args.format or "html")
    text = render(report, kind, references=args.references, all_cards=args.all_cards)
    if args.out:
        out = write_text(text, args.out)
        _out(f"wrote {out} ({kind}: {_what(report)})")
    else:
        _out(text, end="")
    return 0


def _what(report: Report) -> str:
    return "; ".join(f"{r.suite} on {r.device.name if r.device else 'no device'}, "
                     f"{fmt.headline(r)}" for r in report.runs)


_COMMANDS: dict[str, Callable[[argparse.Namespace, _Context], int]] = {
    "list": _list, "show": _show, "export": _export, "compare": _compare, "import": _import,
    "delete": _delete, "render": _render,
}


if __name__ == "__main__":
    sys.exit(main())
