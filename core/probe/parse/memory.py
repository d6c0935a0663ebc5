"""Memory files of an APU machine: /proc/meminfo, sysfs numbers, module options as modprobe.d
files and the kernel command line write them, and WSL's ``.wslconfig`` memory limit.

Everything here is pure and never raises on any string (issue 35).
"""

from __future__ import annotations

import re

KIB = 1024
MAX_BYTES = 1 << 62
"""Larger numbers are damage, not memory: they are read as unknown."""

_MEMINFO_LINE = re.compile(r"^\s*([A-Za-z0-9_()]+):\s*([0-9]{1,20})\s*(kB|KB|kb)?\s*$", re.M)
_INTEGER = re.compile(r"^\s*(-?[0-9]{1,20})\s*$")
# "options ttm pages_limit=... page_pool_size=..." (modprobe.d(5)); continuation lines joined.
_OPTIONS = re.compile(r"^\s*options\s+(\S+)\s+(.*)$")
_PAIR = re.compile(r"([A-Za-z0-9_-]+)=(\"[^\"]*\"|\S*)")
_CMDLINE_PAIR = re.compile(r"(?<!\S)([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)=(\"[^\"]*\"|\S*)")
_SECTION = re.compile(r"^\s*\[([^\]]*)\]\s*$")
_WSL_MEMORY = re.compile(r"^\s*memory\s*=\s*\"?\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*\"?\s*$",
                         re.I)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

WATCHED_MODULES = ("ttm", "amdttm", "amdgpu")
"""The modules whose options decide an APU's GPU memory: ttm's ``pages_limit`` and
``page_pool_size`` (amdttm is the same module in AMD's DKMS driver), amdgpu's ``gttsize``."""
WATCHED_OPTIONS = ("pages_limit", "page_pool_size", "gttsize", "gtt_size")


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo -> {"MemTotal": bytes, "MemAvailable": bytes, ...}; kB fields in bytes,
    fields without a unit (HugePages_Total) as written; lines that are not a field are skipped."""
    found: dict[str, int] = {}
    for name, number, unit in _MEMINFO_LINE.findall(text or ""):
        value = int(number) * (KIB if unit else 1)
        if value <= MAX_BYTES and name not in found:
            found[name] = value
    return found


def parse_integer(text: str | None) -> int | None:
    """A sysfs number ("4294967296\\n", "-1"), or None for anything else."""
    found = _INTEGER.match(text or "")
    if not found:
        return None
    value = int(found.group(1))
    return value if -MAX_BYTES <= value <= MAX_BYTES else None


def parse_modprobe_options(text: str) -> list[tuple[str, str, str]]:
    """A modprobe.d file -> [(module, option, value)] for the watched modules and options, in
    file order (the last one wins where modprobe reads them). Comments and other lines are
    skipped; a backslash at the end of a line continues it (modprobe.d(5))."""
    joined = re.sub(r"\\\r?\n", " ", text or "")
    found: list[tuple[str, str, str]] = []
    for line in joined.splitlines():
        line = line.split("#", 1)[0]
        match = _OPTIONS.match(line)
        if not match:
            continue
        module = match.group(1).replace("-", "_")
        if module not in WATCHED_MODULES:
            continue
        for option, value in _PAIR.findall(match.group(2)):
            option = option.replace("-", "_")
            if option in WATCHED_OPTIONS:
                found.append((module, option, value.strip('"')))
    return found


def parse_cmdline_options(text: str) -> list[tuple[str, str, str]]:
    """/proc/cmdline -> [(module, option, value)] for ``ttm.pages_limit=``, ``amdgpu.gttsize=``
    and the like, in order."""
    found: list[tuple[str, str, str]] = []
    for module, option, value in _CMDLINE_PAIR.findall(text or ""):
        module = module.replace("-", "_")
        option = option.replace("-", "_")
        if module in WATCHED_MODULES and option in WATCHED_OPTIONS:
            found.append((module, option, value.strip('"')))
    return found


def option_integer(value: str) -> int | None:
    """An option's value as a number ("25165824", "-1"), None when it is none."""
    return parse_integer(value)


def parse_wslconfig_memory(text: str) -> int | None:
    """``memory=`` of a ``.wslconfig``'s ``[wsl2]`` section in bytes ("8GB", "16 GB", "512MB");
    None when it sets none (WSL then gives the VM half of Windows' memory)."""
    section = ""
    value: int | None = None
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0]
        header = _SECTION.match(line)
        if header:
            section = header.group(1).strip().lower()
            continue
        if section != "wsl2":
            continue
        match = _WSL_MEMORY.match(line)
        if match:
            number = float(match.group(1)) * _UNITS[match.group(2).upper()]
            value = int(number) if 0 < number <= MAX_BYTES else None
    return value
