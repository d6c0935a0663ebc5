"""Command line: ``rocmate doctor | snapshot | explain | bench | install | env | report``.

Thin commands over core.operations: each module here defines a command's options and prints
what its operation returns. Without a sub-command rocmate runs the doctor in the terminal.
"""

from __future__ import annotations

import argparse
import difflib
import gc
import importlib
import sys
from typing import NoReturn

from core import __version__

# The module under core.cli that defines each command. Only the one a command line names is
# imported (``rocmate explain`` answers in well under half a second); ``--help`` loads them all.
MODULES = {"doctor": "doctor", "snapshot": "doctor", "explain": "doctor", "bench": "bench",
           "install": "install", "env": "install", "report": "report"}
COMMANDS = tuple(MODULES)


# Options of the doctor (what plain `rocmate` runs) that take a value: their value is never a
# command (`rocmate --root report` replays the folder "report").
_VALUE_OPTIONS = ("--root", "--python", "--torch-timeout", "--color")


def command_word(words: list[str]) -> tuple[int, str] | None:
    """The first word that is neither an option nor an option's value, and where it is."""
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _VALUE_OPTIONS
        else:
            return i, word
    return None


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    found = command_word(words)
    command = found[1] if found else None
    if command is not None and command not in COMMANDS:
        close = difflib.get_close_matches(command, COMMANDS, n=1, cutoff=0.7)
        hint = f"; did you mean '{close[0]}'?" if close else f" (commands: {', '.join(COMMANDS)})"
        print(f"rocmate: unknown command '{command}'{hint}", file=sys.stderr)
        return 2
    if command is None and not {"-h", "--help", "--version"} & set(words):
        words, command = ["doctor", *words], "doctor"  # plain `rocmate` checks the machine
    elif found and found[0] > 0:  # options written before the command: theirs
        words = [command or "doctor", *words[:found[0]], *words[found[0] + 1:]]
    try:
        from core.knowledge.rows import KnowledgeError

        args = build_parser(command).parse_args(words)
    except KeyboardInterrupt:  # Ctrl-C while the command is still loading
        print("rocmate: interrupted", file=sys.stderr)
        return 130
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


def end(status: int) -> NoReturn:
    """End the rocmate process with ``status``. Everything the command made goes with the
    process, so the cycle collector's last walk over it at exit is skipped (``gc.freeze``):
    after a 20 MB report was read, that walk alone took a third of a second."""
    gc.freeze()
    raise SystemExit(status)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with ``command``'s module alone (a quick start)."""
    parser = argparse.ArgumentParser(
        prog="rocmate",
        description="Gets PyTorch running on your AMD GPU with ROCm, then benchmarks it.",
    )
    parser.add_argument("--version", action="version", version=f"rocmate {__version__}")
    sub = parser.add_subparsers(dest="command")
    names = [MODULES[command]] if command in MODULES else list(dict.fromkeys(MODULES.values()))
    for name in names:
        module = importlib.import_module(f"core.cli.{name}")
        module.add_parsers(sub)
    return parser
