"""``python3 -m ensurepip --version``: whether the system Python can give a new virtual
environment its pip.

Debian and Ubuntu leave ``ensurepip`` out of python3 until python3-venv (python3.X-venv) is
installed; ``python3 -m venv DIR`` then fails with "ensurepip is not available", and the module
itself answers ``/usr/bin/python3: No module named ensurepip`` (pypa/pipx#474,
pypa/packaging.python.org#399). Where it is there, ``--version`` prints the bundled pip's version
(``pip 24.0``) and installs nothing.
"""

from __future__ import annotations

import re

from core.probe.parse._text import strip_ansi

_PIP = re.compile(r"^pip \d+(?:\.\d+)*", re.MULTILINE)
_MISSING = re.compile(r"No module named '?ensurepip'?", re.IGNORECASE)


def parse_ensurepip(output: str, returncode: int | None) -> bool | None:
    """True when ensurepip answered with a pip version, False when the module is missing;
    None for any other answer (no python3, a timeout, another failure): unknown."""
    text = strip_ansi(output or "")
    if returncode == 0 and _PIP.search(text):
        return True
    if _MISSING.search(text):
        return False
    return None
