"""Options several commands share, defined once."""

from __future__ import annotations

import argparse

from core.probe.torch import DEFAULT_TIMEOUT


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

