"""Options several commands share, defined once."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

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
    parser.add_argument("--root", metavar="DIR", help="replay a machine snapshot instead")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the Python whose PyTorch to check (default: rocmate's environment, else python3)",
    )
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch probe")
    parser.add_argument(
        "--torch-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
        help="PyTorch probe time limit"
    )

