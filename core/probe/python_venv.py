"""Whether the system's python3 can make rocmate's virtual environment with pip in it
(``python3 -m venv`` needs ``ensurepip``, which Debian and Ubuntu ship in python3-venv)."""

from __future__ import annotations

from core.probe.parse.ensurepip import parse_ensurepip
from core.probe.parse.python_version import parse_python_version
from core.system import System

ENSUREPIP = ("python3", "-I", "-m", "ensurepip", "--version")
"""Asks ensurepip for its bundled pip's version: installs nothing, reads no user site."""
PYTHON_VERSION = ("python3", "--version")
"""The system python3's version, which the wheels a plan pins must be built for."""


def probe_ensurepip(system: System) -> bool | None:
    """True: ensurepip is there; False: python3 has no ensurepip (python3-venv missing);
    None: not known (no python3, no answer, or a replayed machine that did not record it)."""
    result = system.run(ENSUREPIP, timeout=20.0)
    if not result.found or result.timed_out:
        return None
    return parse_ensurepip(result.output, result.returncode)


def probe_python_version(system: System) -> str | None:
    """The system python3's version (``3.6.9``); None when not known (no python3, no answer,
    or a replayed machine that did not record it)."""
    result = system.run(PYTHON_VERSION, timeout=20.0)
    if not result.found or result.timed_out:
        return None
    return parse_python_version(result.output, result.returncode)
