"""Command line: ``rocmate doctor | snapshot | explain | bench | install | env | report``.

Thin commands over core.operations: each module here defines a command's options and prints
what its operation returns. Without a sub-command rocmate runs the doctor in the terminal.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from core import __version__

# The module under core.cli that defines each command. Only the one a command line names is
# imported (``rocmate explain`` answers in well under half a second); ``--help`` loads them all.
MODULES = {"doctor": "doctor", "snapshot": "doctor", "explain": "doctor", "bench": "bench",
           "install": "install", "env": "install", "report": "report"}
COMMANDS = tuple(MODULES)


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not any(w in COMMANDS for w in words) and not {"-h", "--help", "--version"} & set(words):
        words = ["doctor", *words]  # plain `rocmate` checks the machine
    try:
        from core.knowledge.rows import KnowledgeError

        command = next((w for w in words if w in COMMANDS), None)
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
