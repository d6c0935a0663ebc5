"""The ``rocmate`` command: the desktop app (``rocmate gui``, or plain ``rocmate`` on a desktop)
or the command line (everything else, in core.cli).

Nothing here imports Qt until the app is really opened, so the command line works without
PySide6 and starts as quickly as before.
"""

from __future__ import annotations

import _signal

_signal.signal(_signal.SIGINT, _signal.SIG_DFL)  # Ctrl-C while loading: a quiet end (core.cli)

import argparse  # noqa: E402 (after the line above: the imports are the window it closes)
import os  # noqa: E402
import sys  # noqa: E402
from typing import NoReturn  # noqa: E402

from core.cli import end, quiet_start_over  # noqa: E402
from core.cli import main as cli_main  # noqa: E402


def gui_parser() -> argparse.ArgumentParser:
    """``rocmate gui``'s options (core.cli.gui), in the current language: :func:`main` sets it
    first."""
    from core.cli.gui import gui_parser as parser

    return parser()


def _speak(words: list[str]) -> None:
    """Answer ``rocmate gui``'s help and errors in the language its ``--lang`` names, else the
    environment's (the app itself then opens in the language :func:`gui.i18n.chosen` says)."""
    from core.cli import take_lang
    from core.i18n import set_language

    try:
        lang = take_lang(words)[1]
    except ValueError:  # a language rocmate does not speak: argparse says so, in the default
        lang = None
    set_language(lang)


def main(argv: list[str] | None = None) -> int:
    quiet_start_over()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["gui"]:
        _speak(words[1:])
        return run_gui(gui_parser().parse_args(words[1:]))
    if not words and _desktop():
        _speak([])
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
    if args.screenshot_dir:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # no desktop first: without one, which desktop libraries are missing does not matter
    if not args.screenshot_dir and not _desktop() and \
            os.environ.get("QT_QPA_PLATFORM") not in ("offscreen", "minimal"):
        print("rocmate: no desktop here (no DISPLAY or WAYLAND_DISPLAY) to open the app on; "
              "run `rocmate doctor` in the terminal", file=sys.stderr)
        return 2
    from core.knowledge.desktop import missing_advice
    from gui.host_libraries import missing

    lacking = missing()
    if lacking:  # Qt would abort with "could not load the Qt platform plugin" and a core dump
        if quiet_fallback:
            return -1
        print(missing_advice(lacking), file=sys.stderr)
        return 2
    if not args.screenshot_dir and not _display_answers(quiet_fallback):  # Qt would abort too
        return -1 if quiet_fallback else 2
    try:
        from gui.app import run
        from gui.session import Session
    except ImportError as exc:  # a command-line-only install
        if quiet_fallback:
            return -1
        print(f"rocmate: the desktop app is not installed here ({exc}); pip install "
              "'rocmate[gui]'", file=sys.stderr)
        return 2
    return run(Session(root=args.root, python=args.python), args.screenshot_dir,
               [Path(f) for f in args.screenshot_report], language=args.lang)


def _display_answers(quiet: bool) -> bool:
    """Whether Qt can reach a display here; if not, say so (one line when plain ``rocmate``
    falls back to the check in the terminal) instead of letting Qt abort the process."""
    from core.cli.gui import display_silent
    from gui.display import ask, steer

    answer = ask(os.environ)
    if answer.usable:
        steer(os.environ, answer)
        return True
    silent = answer.silent[0]
    print("rocmate: " + display_silent(silent.name, silent.variable, quiet), file=sys.stderr)
    return False
