"""``rocmate report list | show | export | compare | import | delete | render``.

Every error (no such run, a file that is not a report, a newer schema, a database set aside or
locked) is one line on stderr starting with ``rocmate report:`` and a non-zero exit status;
never a traceback. ``list`` first adds the runs rocmate stopped before they ended (a crash, a
closed window) to the default history, as ``interrupted`` (core.operations.benchmark).

    rocmate report list [--suite S] [--status S] [--limit N] [--json]
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
import sys
from collections.abc import Callable

from core.cli.argwords import Parser
from core.i18n import t
from core.operations import reports as ops
from core.operations.errors import OperationError
from core.report import formatting as fmt
from core.report.model import STATUSES, ReportError
from core.report.pause import collector_paused
from core.report.writers import format_for, load_scrubbed_report, write_text

PROG = "rocmate report"


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``report`` and its commands; sets ``func=run``."""
    p = subparsers.add_parser(
        "report", help=t("cli.help.report.summary", "list, show, export, compare and import "
                         "benchmark reports"),
        description=t("cli.help.report.description", "The history of benchmark runs and the "
                      "reports they produced."),
        epilog=t("cli.help.report.epilog", "Exit status: 0 done; 1 the history cannot be used "
                 "(locked, damaged, set aside) or a file cannot be written; 2 a usage or input "
                 "error (no such run, a file that is not a rocmate report or is from a newer "
                 "rocmate); 130 interrupted."))
    db_help = t("cli.help.report.db", "history database (default: "
                "$XDG_DATA_HOME/rocmate/history.sqlite)")
    p.add_argument("--db", metavar="FILE", help=db_help)
    p.set_defaults(func=run, report_command=None)
    common = Parser(add_help=False)
    common.add_argument("--db", metavar="FILE", default=argparse.SUPPRESS, help=db_help)
    sub = p.add_subparsers(dest="report_command", metavar="COMMAND")

    ls = sub.add_parser("list", parents=[common],
                        help=t("cli.help.report.list.summary", "list the runs in the history"))
    ls.add_argument("--suite", help=t("cli.help.report.list.suite", "only this suite"))
    ls.add_argument("--status", choices=list(STATUSES),
                    help=t("cli.help.report.list.status", "only runs that ended so "
                           "(interrupted: rocmate stopped before the end)"))
    ls.add_argument("--limit", type=int, default=50, metavar="N",
                    help=t("cli.help.report.list.limit", "newest N (default 50)"))
    ls.add_argument("--json", action="store_true",
                    help=t("cli.help.report.list.json", "print the list as JSON"))

    show = sub.add_parser("show", parents=[common],
                          help=t("cli.help.report.show.summary", "show one run (ID from the "
                                 "history, or a report file)"))
    show.add_argument("ref", metavar="ID|FILE")
    show.add_argument("--format", choices=["text", "json", "md", "html"], default="text")
    show.add_argument("--json", action="store_const", const="json", dest="format",
                      help=t("cli.help.report.show.json", "the same as --format json"))
    _reference_options(show)

    export = sub.add_parser("export", parents=[common],
                            help=t("cli.help.report.export.summary", "write a run's report to "
                                   "a file"))
    export.add_argument("ref", metavar="ID|FILE")
    export.add_argument("-o", "--out", required=True, metavar="OUT",
                        help=t("cli.help.report.export.out", "OUT.json, OUT.html or OUT.md"))
    export.add_argument("--format", choices=["json", "html", "md"],
                        help=t("cli.help.report.format.from-suffix", "default: from OUT's "
                               "suffix"))
    _reference_options(export)

    cmp = sub.add_parser("compare", parents=[common],
                         help=t("cli.help.report.compare.summary", "compare two runs, or one "
                                "run with reference results"))
    cmp.add_argument("a", metavar="ID|FILE",
                     help=t("cli.help.report.compare.a", "the baseline (A)"))
    cmp.add_argument("b", metavar="ID|FILE", nargs="?",
                     help=t("cli.help.report.compare.b", "the run set against it (B)"))
    cmp.add_argument("--format", choices=["text", "md", "html"],
                     help=t("cli.help.report.compare.format", "default: text, or from OUT's "
                            "suffix"))
    cmp.add_argument("-o", "--out", metavar="OUT",
                     help=t("cli.help.report.compare.out", "write to a file instead of stdout"))
    _reference_options(cmp)

    imp = sub.add_parser("import", parents=[common],
                         help=t("cli.help.report.import.summary", "add someone else's report "
                                "JSON to the history, for comparison"))
    imp.add_argument("files", nargs="+", metavar="FILE")

    delete = sub.add_parser("delete", parents=[common],
                            help=t("cli.help.report.delete.summary", "remove runs from the "
                                   "history"))
    delete.add_argument("ids", nargs="+", metavar="ID")

    rnd = sub.add_parser("render", parents=[common],
                         help=t("cli.help.report.render.summary", "render a report file as "
                                "HTML or Markdown"))
    rnd.add_argument("file", metavar="FILE.json")
    rnd.add_argument("--format", choices=["html", "md", "json"],
                     help=t("cli.help.report.format.from-suffix", "default: from OUT's suffix"))
    rnd.add_argument("-o", "--out", metavar="OUT",
                     help=t("cli.help.report.render.out", "default: stdout"))
    _reference_options(rnd)


def _reference_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--references", action="store_true",
                   help=t("cli.help.report.references", "add reference results for cards like "
                          "this one (published figures and blog claims, with sources and "
                          "conditions)"))
    p.add_argument("--all-cards", action="store_true",
                   help=t("cli.help.report.all-cards", "with --references: every card's "
                          "results for the suite, not only this card's"))


# --- running ------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "report_command", None)
    if not command:
        _say(t("cli.report.choose-command", "choose a command: {commands} or {last} ({help})",
               commands="list, show, export, compare, import, delete", last="render",
               help="rocmate report --help"))
        return 2
    if getattr(args, "all_cards", False) and not getattr(args, "references", False):
        _say(t("cli.report.all-cards-needs-references",
               "{all_cards} goes with {references} (every card's results beside this run's)",
               all_cards="--all-cards", references="--references"))
        return 2
    access = ops.HistoryAccess(getattr(args, "db", None), on_notice=_say)
    try:
        # a short command over reports, which hold no reference cycles: the cycle collector
        # would only walk the millions of objects of a big report again and again
        with collector_paused(), ops.said_for_the_user():
            status = _COMMANDS[command](args, access)
    except OperationError as exc:
        _say(str(exc))
        status = exc.status
    except (ValueError, OverflowError, RecursionError) as exc:
        # a backstop: a report's content that slipped past validation is still one line
        _say(t("cli.report.unusable", "the report cannot be used: {kind}: {error}",
               kind=type(exc).__name__, error=exc))
        status = 1
    finally:
        access.close()
    return 1 if access.notices and status == 0 else status


def _say(message: str) -> None:
    """One line on stderr; nothing in it (a key name, a file name) can drive the terminal."""
    print(f"{PROG}: {fmt.safe(message)}", file=sys.stderr)


def _out(text: str, end: str = "\n") -> None:
    """Standard output: text, Markdown, HTML or JSON, with control characters and bidi
    overrides shown as escapes (valid JSON escapes too), newlines and tabs kept."""
    sys.stdout.write(fmt.safe(text, keep_newlines=True) + end)


# --- the commands ---------------------------------------------------------------------------------


def _list(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    if getattr(args, "db", None) is None:  # the default history: its runs' files are known
        _recover_interrupted()
    runs = ops.list_runs(access, suite=args.suite, status=args.status, limit=args.limit)
    if args.json:
        _out(json.dumps([dataclasses.asdict(e) for e in runs.entries], indent=2,
                        ensure_ascii=False))
    else:
        _out(runs.text())
    return 0


def _recover_interrupted() -> None:
    """Add the runs rocmate stopped before they ended; a failure is said, the list goes on."""
    from core.operations.benchmark import recover_interrupted  # loads the runner: only here

    try:
        ids = recover_interrupted()
    except OperationError as exc:
        _say(str(exc))
        return
    if ids:
        which = ", ".join(f"#{i}" for i in ids)
        if len(ids) == 1:
            _say(t("cli.report.recovered.one", "added a run that rocmate stopped before the end "
                   "to the history: {ids}", ids=which))
        else:
            _say(t("cli.report.recovered.many", "added {count} runs that rocmate stopped before "
                   "the end to the history: {ids}", count=len(ids), ids=which))


def _show(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    report = ops.load_report(args.ref, access).report
    if args.format == "text":
        _out(ops.show_text(report, references=args.references, all_cards=args.all_cards))
    else:
        _out(ops.render_report(report, args.format, references=args.references,
                               all_cards=args.all_cards), end="")
    return 0


def _export(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    report = ops.load_report(args.ref, access).report
    written = ops.export_report(report, args.out, args.format, references=args.references,
                                all_cards=args.all_cards)
    _out(t("cli.report.wrote-what", "wrote {path} ({kind}: {what})", path=written.path,
           kind=written.kind, what=written.what))
    return 0


def _compare(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    if args.b is None and not args.references:
        raise ops.ReportRefError(ops.compare_needs_two())
    a = ops.load_report(args.a, access)
    b = ops.load_report(args.b, access) if args.b else None
    kind = args.format or (format_for(args.out) if args.out else "text")
    text = ops.compare_reports(a, b, kind, references=args.references,
                               all_cards=args.all_cards)
    if args.out:
        out = write_text(text, args.out)
        _out(t("cli.report.wrote", "wrote {path} ({kind})", path=out, kind=kind))
    else:
        _out(text, end="")
    return 0


def _import(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    failed = 0
    for file in args.files:
        try:
            done = ops.import_report(file, access)
        except ReportError as exc:
            _say(str(exc))
            failed += 1
            continue
        where = ", ".join(f"#{i}" for i in done.ids)
        if done.new:
            _out(t("cli.report.imported", "imported {name} as {ids} ({what})", name=done.name,
                   ids=where, what=done.what))
        else:
            _out(t("cli.report.already-imported", "{name} is already in the history as {ids}",
                   name=done.name, ids=where))
    return 2 if failed else 0  # a file or an id the user gave that cannot be used


def _delete(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    failed = 0
    for ref in args.ids:
        try:
            _out(t("cli.report.deleted", "deleted #{id}", id=ops.delete_run(ref, access)))
        except ops.ReportRefError as exc:
            _say(str(exc))
            failed += 1
    return 2 if failed else 0  # a file or an id the user gave that cannot be used


def _render(args: argparse.Namespace, access: ops.HistoryAccess) -> int:
    report = load_scrubbed_report(args.file)
    kind = format_for(args.out, args.format) if args.out else (args.format or "html")
    if args.out:
        written = ops.export_report(report, args.out, kind, references=args.references,
                                    all_cards=args.all_cards)
        _out(t("cli.report.wrote-what", "wrote {path} ({kind}: {what})", path=written.path,
               kind=written.kind, what=written.what))
    else:
        _out(ops.render_report(report, kind, references=args.references,
                               all_cards=args.all_cards), end="")
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace, ops.HistoryAccess], int]] = {
    "list": _list, "show": _show, "export": _export, "compare": _compare, "import": _import,
    "delete": _delete, "render": _render,
}
