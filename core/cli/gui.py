"""``rocmate gui``'s options. The app is in gui/ (gui.launcher opens it); its options live here
so that their words are core's, in the catalogue the command line reads."""

from __future__ import annotations

import argparse

from core.cli.argwords import Parser
from core.i18n import t


def gui_parser() -> argparse.ArgumentParser:
    """``rocmate gui``'s parser, in the current language (set it first)."""
    parser = Parser(prog="rocmate gui", description=_description(), epilog=_epilog())
    _options(parser)
    parser.add_argument("--lang", choices=["en", "zh_CN"],
                        help=t("cli.help.gui.lang", "the app's language (default: the one "
                               "chosen in the app last time, else the system's locale)"))
    return parser


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """``gui`` among the commands of ``rocmate --help`` (gui.launcher opens the app: the
    command line itself never imports it)."""
    gui = sub.add_parser("gui", help=t("cli.help.gui.summary", "open the desktop app (the "
                                       "set-up wizard)"),
                         description=_description(), epilog=_epilog())
    _options(gui)
    gui.set_defaults(func=_not_here)


def _description() -> str:
    return t("cli.help.gui.description", "Open rocmate's desktop app (the set-up wizard).")


def _epilog() -> str:
    return t("cli.help.gui.epilog", "Exit status: 0 the app was closed; 2 a usage error, or "
             "the app cannot open here (no desktop, a display that does not answer, missing "
             "desktop libraries, a snapshot folder that is not there); 130 interrupted.")


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR",
                        help=t("cli.help.common.root", "replay a machine snapshot instead"))
    parser.add_argument("--python", metavar="PATH",
                        help=t("cli.help.common.python", "the Python whose PyTorch to check "
                               "(default: rocmate's environment, else python3)"))
    parser.add_argument("--screenshot-dir", metavar="OUT",
                        help=t("cli.help.gui.screenshot-dir", "render every page to "
                               "OUT/<nn>-<page>.png and exit"))
    parser.add_argument("--screenshot-report", metavar="FILE.json", action="append",
                        default=[], help=t("cli.help.gui.screenshot-report", "with "
                                           "--screenshot-dir: the benchmark, results, history "
                                           "and compare views show these reports (the first on "
                                           "the benchmark page; repeat the option for more)"))


def _not_here(args: argparse.Namespace) -> int:
    """``python -m core.cli gui``: the command line alone has no app to open."""
    import sys

    print("rocmate: " + t("cli.gui.not-here", "the desktop app opens through the {command} "
                          "command (this is the command line alone)", command="rocmate gui"),
          file=sys.stderr)
    return 2

def display_silent(display: str, variable: str, fallback: bool) -> str:
    """What to say when the display ``variable`` names does not answer: one line when plain
    ``rocmate`` falls back to the check in the terminal (``fallback``), else what to do."""
    if fallback:
        return t("cli.gui.display-silent.fallback", "the display {display} that {variable} "
                 "names does not answer, so here is the check in the terminal (`rocmate gui` "
                 "says more)", display=display, variable=variable)
    return t("cli.gui.display-silent", "cannot open the app: the display {display} that "
             "{variable} names does not answer, or does not let this user in. That happens over "
             "ssh once the forwarding has ended, under sudo, in a container and in WSL without "
             "WSLg. Start rocmate from a terminal on the desktop itself (not as root), or use "
             "the command line meanwhile: rocmate doctor", display=display, variable=variable)


def words_for(case: str, path: object = None, error: object = None) -> str:
    """What the launcher says when the app does not open (``case``), in the current language."""
    if case == "on-a-desktop":
        return t("cli.gui.on-a-desktop", "on a desktop, `rocmate` (or `rocmate gui`) opens the "
                 "set-up app")
    if case == "no-folder":
        return t("ops.machine.no-snapshot-folder", "no snapshot folder at {path}", path=path)
    if case == "no-desktop":
        return t("cli.gui.no-desktop", "no desktop here (no {display} or {wayland}) to open the "
                 "app on; run `rocmate doctor` in the terminal", display="DISPLAY",
                 wayland="WAYLAND_DISPLAY")
    return t("cli.gui.not-installed", "the desktop app is not installed here ({error}); "
             "{command}", command="pip install 'rocmate[gui]'", error=error)
