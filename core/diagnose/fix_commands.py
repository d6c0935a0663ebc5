"""The shell commands inside a finding's fix, to copy: a fix is a sentence for a person
("sudo usermod -aG render,video $USER   then log out and back in"), and a button that copies
it whole would paste the prose into a terminal.

A command starts at a word a command starts with (``sudo``, ``export``, ``rocmate install``,
...) and runs to where the prose takes over again: two spaces, a ``(`` or ``)`` of the sentence
(not a ``$(...)`` of the command), a ``;`` or ``, then`` outside quotes, the first Chinese
character or full-width mark (a translated fix), or the sentence's last full stop. ``rocmate``
counts only with one of its commands, followed by options or nothing ("rocmate install offers
to do it" is prose). Pure: never raises, whatever the text.
"""

from __future__ import annotations

import re

STARTS = ("sudo", "export", "unset", "wsl", "pip", "pip3", "python3", "amdgpu-install",
          "lspci", "dmesg", "modprobe", "rocminfo", "amd-smi", "rocm-smi", "apt", "dnf",
          "pacman", "zypper", "usermod", "newgrp", "amd-ttm", "uv")
"""Words a command starts with (the first word of a command in the fixes rocmate gives)."""

ROCMATE = ("install", "doctor", "env", "bench", "explain", "snapshot", "report", "gui",
           "verify", "uninstall", "tune", "repair")
"""rocmate's own commands: ``rocmate <command>`` followed by options or nothing."""

_START = re.compile(r"(?<![\w/.$-])(?:rocmate\s+(?:" + "|".join(ROCMATE) + r")\b|(?:"
                    + "|".join(re.escape(s) for s in STARTS) + r")(?=\s))")
_PROSE_AFTER = re.compile(r",?\s+then\b|;\s|;$|\s{2,}")
# a sentence in Chinese (or another CJK language) goes on after the command without a space:
# its first ideograph or full-width mark ends the command
_WIDE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def commands(fix: str) -> tuple[str, ...]:
    """The commands in ``fix``, in order, each once; none for a fix of words only."""
    found: list[str] = []
    at = 0
    while at < len(fix):
        start = _START.search(fix, at)
        if start is None:
            break
        end = _command_end(fix, start.start())
        command = fix[start.start():end].strip().rstrip(".,:")
        if fix.startswith("rocmate", start.start()):
            # "rocmate install 会把它写进…": a Chinese sentence about rocmate goes on after a space
            talk = end < len(fix) and "\u3400" <= fix[end] <= "\u9fff" and fix[end - 1] == " "
            command = "" if talk and len(command.split()) == 2 else _rocmate_only(command)
        if command and command not in found:
            found.append(command)
        at = max(end, start.end())
    return tuple(found)


def _command_end(text: str, start: int) -> int:
    """Where the command from ``start`` ends: the first place the prose takes over."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "(" and text[i - 1:i] == "$":
            depth += 1
        elif c == "(":
            return i  # a parenthesis of the sentence: "(or reboot)"
        elif c == ")":
            if depth == 0:
                return i  # the end of the sentence's parenthesis the command sat in
            depth -= 1
        elif depth == 0 and _PROSE_AFTER.match(text, i):
            return i
        elif _WIDE.match(c):
            return i  # quotes and $(...) never hold Chinese in the fixes rocmate gives
        elif c == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            return i  # the sentence's full stop
        i += 1
    return len(text)


def _rocmate_only(command: str) -> str:
    """``rocmate <command>`` and the options after it; "" where words follow the command
    ("rocmate install offers to do it": a sentence about rocmate, not a command)."""
    words = command.split()
    kept = words[:2]
    for word in words[2:]:
        value = len(kept) > 2 and kept[-1].startswith("--") and "=" not in kept[-1]
        suite = kept[1] == "bench" and len(kept) == 2
        if not (word.startswith("-") or value or suite):
            return " ".join(kept) if len(kept) > 2 else ""
        kept.append(word)
    return " ".join(kept)
