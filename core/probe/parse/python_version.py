"""``python3 --version``: the system Python's version (``Python 3.6.9``; Python 3.4 and newer
print it on stdout, older ones on stderr, which the probe reads together).

The planner checks it against the Python versions of the wheel it pins (issue 33).
"""

from __future__ import annotations

import re

from core.probe.parse._text import strip_ansi

_VERSION = re.compile(r"^Python (\d+\.\d+(?:\.\d+)?)", re.MULTILINE)


def parse_python_version(output: str, returncode: int | None) -> str | None:
    """``3.6.9`` from ``Python 3.6.9``; None for any other answer (no python3, a failure)."""
    if returncode not in (0, None):
        return None
    found = _VERSION.search(strip_ansi(output or ""))
    return found.group(1) if found else None
