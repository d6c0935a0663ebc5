"""Colour for terminal output: ANSI codes when the stream is a terminal and NO_COLOR is unset."""

from __future__ import annotations

import os
from typing import TextIO

CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
}


def wants_colour(stream: TextIO, choice: str = "auto") -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *names: str) -> str:
        if not self.enabled or not names:
            return text
        codes = ";".join(CODES[n] for n in names)
        return f"\033[{codes}m{text}\033[0m"
