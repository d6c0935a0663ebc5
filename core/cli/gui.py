"""``rocmate gui``'s options. The app is in gui/ (gui.launcher opens it); its options live here
so that their words are core's, in the catalogue the command line reads."""

from __future__ import annotations

import argparse

from core.cli.argwords import Parser
from core.i18n import t


def gui_parser() -> argparse.ArgumentParser:
    """``rocmate gui``'s parser, in the current language (set it first)."""
    parser = Parser(
        prog="rocmate gui",
        description=t("cli.help.gui.description", "Open rocmate's desktop app (the set-up "
                      "wizard)."))
    parser.add_argument("--root", metavar="DIR",
                        help=t("cli.help.common.root", "replay a machine snapshot instead"))
    parser.add_argument("--python", metavar="PATH",
                        help=t("cli.help.common.python", "the Python whose PyTorch to check "
                               "(default: rocmate's environment, else python3)"))
    parser.add_argument("--lang", choices=["en", "zh_CN"],
                        help=t("cli.help.gui.lang", "the app's language (default: the one "
                               "chosen in the app last time, else the system's locale)"))
    parser.add_argument("--screenshot-dir", metavar="OUT",
                        help=t("cli.help.gui.screenshot-dir", "render every page to "
                               "OUT/<nn>-<page>.png and exit"))
    parser.add_argument("--screenshot-report", metavar="FILE.json", action="append",
                        default=[], help=t("cli.help.gui.screenshot-report", "with "
                                           "--screenshot-dir: the benchmark, results, history "
                                           "and compare views show these reports (the first on "
                                           "the benchmark page; repeat the option for more)"))
    return parser


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
