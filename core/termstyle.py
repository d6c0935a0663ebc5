"""Terminal output: colour (ANSI codes when the stream is a terminal and NO_COLOR is unset) and
the columns a text takes (a Chinese character takes two)."""

from __future__ import annotations

import os
import unicodedata
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


def char_width(char: str) -> int:
    """The terminal columns one character takes: 2 for East Asian wide and full-width ones,
    else 1."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes."""
    return sum(char_width(c) for c in text)


def pad_left(text: str, columns: int) -> str:
    """``f"{text:<columns}"`` by terminal columns."""
    return text + " " * max(0, columns - display_width(text))


def pad_right(text: str, columns: int) -> str:
    """``f"{text:>columns}"`` by terminal columns."""
    return " " * max(0, columns - display_width(text)) + text
