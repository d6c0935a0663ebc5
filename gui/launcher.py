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
from core.cli.gui import words_for  # noqa: E402


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
    gui_words = _gui_words(words)
    if gui_words is not None:
        _speak(gui_words)
        return run_gui(gui_parser().parse_args(gui_words))
    if not words and _desktop():
        _speak([])
        opened = run_gui(gui_parser().parse_args([]), quiet_fallback=True)
        if opened >= 0:
            return opened
    status = cli_main(words)
    if not words and not _desktop():
        print("rocmate: " + words_for("on-a-desktop"),
              file=sys.stderr)
    return status


def _gui_words(words: list[str]) -> list[str] | None:
    """The words of ``rocmate gui``'s own options when the command line names ``gui`` (also
    after ``--lang zh_CN``), else None."""
    from core.cli import command_word, take_lang

    try:
        found = command_word(take_lang(words)[0])
    except ValueError:  # a language rocmate does not speak: the command line says so
        return None
    if found is None or found[1] != "gui":
        return None
    at = _nth_gui(words, found[0])
    return words[:at] + words[at + 1:]


def _nth_gui(words: list[str], index_without_lang: int) -> int:
    """Where in ``words`` the command word stands that is at ``index_without_lang`` once
    ``--lang X`` is taken out."""
    seen, skip = -1, False
    for i, word in enumerate(words):
        if skip or word.startswith("--lang="):
            skip = False
            continue
        if word == "--lang":
            skip = True
            continue
        seen += 1
        if seen == index_without_lang:
            return i
    return words.index("gui")


def entry() -> NoReturn:
    """The ``rocmate`` command."""
    end(main())


def _desktop() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(args: argparse.Namespace, quiet_fallback: bool = False) -> int:
    """The app's exit status; -1 (with ``quiet_fallback``) when it cannot open here."""
    from pathlib import Path

    if args.root and not Path(args.root).is_dir():
        print("rocmate: " + words_for("no-folder", path=args.root), file=sys.stderr)
        return 2
    if args.screenshot_dir:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # no desktop first: without one, which desktop libraries are missing does not matter
    if not args.screenshot_dir and not _desktop() and \
            os.environ.get("QT_QPA_PLATFORM") not in ("offscreen", "minimal"):
        print("rocmate: " + words_for("no-desktop"), file=sys.stderr)
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
        print("rocmate: " + words_for("not-installed", error=exc), file=sys.stderr)
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
