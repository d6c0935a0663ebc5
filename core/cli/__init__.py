"""Command line: ``rocmate doctor | snapshot | explain | bench | install | env | report``.

Thin commands over core.operations: each module here defines a command's options and prints
what its operation returns. Without a sub-command rocmate runs the doctor in the terminal.
"""

from __future__ import annotations

import argparse
import sys

from core import __version__
from core.cli import bench, doctor, install, report
from core.knowledge.rows import KnowledgeError

COMMANDS = ("doctor", "snapshot", "explain", "bench", "install", "env", "report")


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not any(w in COMMANDS for w in words) and not {"-h", "--help", "--version"} & set(words):
        words = ["doctor", *words]  # plain `rocmate` checks the machine
    args = build_parser().parse_args(words)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rocmate",
        description="Gets PyTorch running on your AMD GPU with ROCm, then benchmarks it.",
    )
    parser.add_argument("--version", action="version", version=f"rocmate {__version__}")
    sub = parser.add_subparsers(dest="command")
    doctor.add_parsers(sub)
    bench.add_parser(sub)
    install.add_parsers(sub)
    report.add_parser(sub)
    return parser
