"""Command line: ``rocmate doctor | snapshot | explain | bench``.

Without a sub-command rocmate runs the doctor in the terminal (the GUI comes later).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from core import __version__
from core.knowledge.loader import KnowledgeError

if TYPE_CHECKING:
    from core.diagnose.doctor import DoctorReport


COMMANDS = ("doctor", "snapshot", "explain", "bench", "install", "env", "report")


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not any(w in COMMANDS for w in words) and not {"-h", "--help", "--version"} & set(words):
        words = ["doctor", *words]  # plain `rocmate` checks the machine
    args = build_parser().parse_args(words)
    try:
        return int(args.func(args))
    except KnowledgeError as exc:
        print(f"rocmate: its knowledge base is broken: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("rocmate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rocmate",
        description="Gets PyTorch running on your AMD GPU with ROCm, then benchmarks it.",
    )
    parser.add_argument("--version", action="version", version=f"rocmate {__version__}")
    sub = parser.add_subparsers(dest="command")
    _add_doctor(sub)
    _add_snapshot(sub)
    _add_explain(sub)
    _add_bench(sub)
    from core.install.cli import add_parsers as add_install

    add_install(sub)
    from core.report.cli import add_parser as add_report

    add_report(sub)
    return parser


def _machine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR", help="replay a machine snapshot instead")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the Python whose PyTorch to check (default: rocmate's environment, else python3)",
    )
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch probe")
    parser.add_argument(
        "--torch-timeout", type=float, default=90.0, metavar="S", help="PyTorch probe time limit"
    )


def _add_doctor(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser("doctor", help="check this machine for ROCm and PyTorch")
    _machine_options(doctor)
    doctor.add_argument("--json", action="store_true", help="print rocmate.doctor/1 JSON")
    doctor.add_argument("-v", "--verbose", action="store_true", help="show every check")
    doctor.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    doctor.set_defaults(func=_doctor)


def _add_snapshot(sub: argparse._SubParsersAction) -> None:
    snap = sub.add_parser("snapshot", help="record this machine (anonymised) into a folder")
    snap.add_argument("out", metavar="DIR")
    snap.add_argument("--python", metavar="PATH")
    snap.add_argument("--no-torch", action="store_true")
    snap.set_defaults(func=_snapshot)


def _add_explain(sub: argparse._SubParsersAction) -> None:
    exp = sub.add_parser("explain", help="explain an error message for this machine")
    exp.add_argument("text", nargs="?", default="-", help="the error text, or - to read stdin")
    _machine_options(exp)
    exp.add_argument("--json", action="store_true")
    exp.set_defaults(func=_explain)


def _add_bench(sub: argparse._SubParsersAction) -> None:
    try:
        from core.bench import cli as bench_cli
    except ImportError:  # the benchmark engine is optional in a trimmed install
        return
    bench_cli.add_parser(sub)


def _run_doctor(args: argparse.Namespace) -> DoctorReport:
    from core.diagnose.doctor import run_doctor
    from core.system import open_system

    if args.root and not Path(args.root).is_dir():
        raise SystemExit(f"rocmate: no snapshot folder at {args.root}")
    return run_doctor(
        open_system(args.root),
        python=args.python,
        probe_torch=not args.no_torch,
        torch_timeout=args.torch_timeout,
    )


def _doctor(args: argparse.Namespace) -> int:
    from core.diagnose.doctor_text import render_text
    from core.termstyle import Style, wants_colour

    report = _run_doctor(args)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        style = Style(wants_colour(sys.stdout, args.color))
        sys.stdout.write(render_text(report, style, verbose=args.verbose))
    return 0


def _snapshot(args: argparse.Namespace) -> int:
    from core.snapshot import write_snapshot

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"rocmate: {out} is a file; choose a new folder", file=sys.stderr)
        return 2
    if out.exists() and any(out.iterdir()):
        print(f"rocmate: {out} is not empty; choose a new folder", file=sys.stderr)
        return 2
    start = time.perf_counter()
    write_snapshot(out, python=args.python, probe_torch=not args.no_torch)
    print(f"Snapshot written to {out} in {time.perf_counter() - start:.1f} s.")
    python = f" --python {shlex.quote(args.python)}" if args.python else ""
    print(f"Replay it with: rocmate doctor --root {shlex.quote(str(out))}{python}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    from core.diagnose.explain import explain, render_explanations
    from core.knowledge.loader import load_knowledge

    text = sys.stdin.read() if args.text == "-" else args.text
    report = _run_doctor(args)
    explanations = explain(text, load_knowledge(), report)
    if args.json:
        print(
            json.dumps(
                {"schema": "rocmate.explain/1", "matches": [e.to_json() for e in explanations]},
                indent=2,
            )
        )
    else:
        sys.stdout.write(render_explanations(text, explanations, report))
    return 0 if explanations else 1


if __name__ == "__main__":
    raise SystemExit(main())
