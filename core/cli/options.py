"""Options several commands share, defined once."""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Callable

from core.i18n import t
from core.operations.errors import OperationError
from core.probe.torch import DEFAULT_TIMEOUT

Command = Callable[[argparse.Namespace], int]


def says_errors(command: Command) -> Command:
    """An operation's error becomes one line on stderr (``rocmate: ...``) and its exit status."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except OperationError as exc:
            print(f"rocmate: {exc}", file=sys.stderr)
            return exc.status

    return run


def machine_options(parser: argparse.ArgumentParser) -> None:
    """``--root``, ``--python``, ``--no-torch``, ``--torch-timeout``: which machine and which
    PyTorch the doctor looks at."""
    parser.add_argument("--root", metavar="DIR",
                        help=t("cli.help.common.root", "replay a machine snapshot instead"))
    parser.add_argument(
        "--python",
        metavar="PATH",
        help=t("cli.help.common.python", "the Python whose PyTorch to check (default: rocmate's "
               "environment, else python3)"),
    )
    parser.add_argument("--no-torch", action="store_true",
                        help=t("cli.help.common.no-torch", "skip the PyTorch probe"))
    parser.add_argument(
        "--torch-timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S",
        help=t("cli.help.common.torch-timeout", "PyTorch probe time limit (seconds, up to a "
               "day)")
    )


def seconds(text: str) -> float:
    """A time limit: a finite positive number of seconds, at most a day (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(t("cli.options.not-seconds", "{value} is not a number "
                                           "of seconds", value=repr(text))) from None
    if not math.isfinite(value) or value <= 0 or value > 86400:
        raise argparse.ArgumentTypeError(t(
            "cli.options.not-a-time-limit", "{value} is not a time limit: give seconds above 0 "
            "and at most 86400 (a day)", value=text))
    return value

