"""What ``make run`` runs: ``.venv/bin/rocmate ARGS``, and make's own answer after it.

``rocmate doctor`` (and plain ``rocmate`` in a terminal, which runs the doctor) exits 1 for
"Ready after these fixes" and 4 for "Not supported", so that scripts can act on the verdict.
For ``make run`` that verdict is the job done: rocmate ran and said what it found, so make
succeeds. Any other failure (a command line rocmate refused, an error, Ctrl-C) still fails it.

    .venv/bin/python -m scripts.make_run [ARGS...]
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from core.cli import command_word

VERDICTS = (1, 4)
"""The doctor's exit statuses that are verdicts, not failures (core.cli.doctor.EXIT_STATUS)."""


def runs_the_doctor(args: list[str]) -> bool:
    """Whether ``rocmate ARGS`` is the doctor: no command word (plain rocmate) or ``doctor``."""
    found = command_word(args)
    return found is None or found[1] == "doctor"


def make_status(args: list[str], status: int) -> int:
    """make's exit status for rocmate's: the doctor's verdict counts as success."""
    if status in VERDICTS and runs_the_doctor(args):
        return 0
    return status


def run(args: list[str]) -> int:
    """rocmate from this Python's venv, with the terminal's stdin and outputs; its status."""
    rocmate = Path(sys.executable).parent / "rocmate"
    process = subprocess.Popen([str(rocmate), *args])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is rocmate's to answer
    status = process.wait()
    return 128 - status if status < 0 else status


def main(argv: list[str] | None = None) -> int:
    """Run rocmate and answer for make."""
    args = list(sys.argv[1:] if argv is None else argv)
    return make_status(args, run(args))


if __name__ == "__main__":
    sys.exit(main())
