"""The ``rocmate`` command: the desktop app (``rocmate gui``, or plain ``rocmate`` on a desktop)
or the command line (everything else, in core.cli).

Nothing here imports Qt until the app is really opened, so the command line works without
PySide6 and starts as quickly as before.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from core.cli import end
from core.cli import main as cli_main


def gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rocmate gui", description="Open rocmate's desktop app (the set-up wizard).")
    parser.add_argument("--root", metavar="DIR", help="replay a machine snapshot instead")
    parser.add_argument("--python", metavar="PATH",
                        help="the Python whose PyTorch to check (default: rocmate's "
                             "environment, else python3)")
    parser.add_argument("--lang", choices=["en", "zh_CN"],
                        help="the app's language (default: the one chosen in the app last "
                             "time, else the system's locale)")
    parser.add_argument("--screenshot-dir", metavar="OUT",
                        help="render every page to OUT/<nn>-<page>.png and exit")
    parser.add_argument("--screenshot-report", metavar="FILE.json", action="append",
                        default=[], help="with --screenshot-dir: the benchmark, results, history "
                                         "and compare views show these reports (the first on "
                                         "the benchmark page; repeat the option for more)")
    return parser


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["gui"]:
        return run_gui(gui_parser().parse_args(words[1:]))
    if not words and _desktop():
        opened = run_gui(gui_parser().parse_args([]), quiet_fallback=True)
        if opened >= 0:
            return opened
    status = cli_main(words)
    if not words and not _desktop():
        print("rocmate: on a desktop, `rocmate` (or `rocmate gui`) opens the set-up app",
              file=sys.stderr)
    return status


def entry() -> NoReturn:
    """The ``rocmate`` command."""
    end(main())


def _desktop() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(args: argparse.Namespace, quiet_fallback: bool = False) -> int:
    """The app's exit status; -1 (with ``quiet_fallback``) when it cannot open here."""
    from pathlib import Path

    if args.root and not Path(args.root).is_dir():
        print(f"rocmate: no snapshot folder at {args.root}", file=sys.stderr)
        return 2
    try:
        from gui.app import run
        from gui.session import Session
    except ImportError as exc:  # a command-line-only install
        if quiet_fallback:
            return -1
        print(f"rocmate: the desktop app is not installed here ({exc}); pip install "
              "'rocmate[gui]'", file=sys.stderr)
        return 2
    if not args.screenshot_dir and not _desktop() and \
            os.environ.get("QT_QPA_PLATFORM") not in ("offscreen", "minimal"):
        print("rocmate: no desktop here (no DISPLAY or WAYLAND_DISPLAY) to open the app on; "
              "run `rocmate doctor` in the terminal", file=sys.stderr)
        return 2
    if args.screenshot_dir:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return run(Session(root=args.root, python=args.python), args.screenshot_dir,
               [Path(f) for f in args.screenshot_report], language=args.lang)
