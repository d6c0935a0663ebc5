"""The kernel log (``dmesg``, ``journalctl -k``) cut to amdgpu's and KFD's own lines.

Only lines that name amdgpu, kfd or a failed probe are kept, the last :data:`MAX_LINES` of them,
each cut to :data:`MAX_WIDTH` characters: the rest of the log (USB devices, network addresses,
mounts, other people's logins) never reaches the doctor or a snapshot (issue 32).
"""

from __future__ import annotations

import re

from core.probe.parse._text import strip_ansi

MAX_LINES = 80
MAX_WIDTH = 240
_KEEP = re.compile(r"amdgpu|\bkfd\b|amdkfd|probe of [0-9a-f:.]+ failed|probe with driver amdgpu",
                   re.IGNORECASE)
# dmesg's refusal when kernel.dmesg_restrict is set, journalctl's when the user may not read
# the journal: no log at all, not an empty one.
_REFUSED = re.compile(r"read kernel buffer failed|Operation not permitted|No journal files "
                      r"were (?:found|opened)|insufficient permissions", re.IGNORECASE)
_PROBE_FAILED = re.compile(
    r"(?:amdgpu:? probe of (?P<a>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) failed"
    r"|amdgpu (?P<b>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): probe with driver amdgpu "
    r"failed)(?: with error (?P<error>-?[0-9]{1,4}))?", re.IGNORECASE)
_SLOT = re.compile(r"\b([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\b", re.IGNORECASE)


def kernel_log_excerpt(text: str) -> list[str]:
    """amdgpu's and KFD's lines of a kernel log, the last :data:`MAX_LINES`, each at most
    :data:`MAX_WIDTH` characters; [] for anything else (never raises)."""
    if not isinstance(text, str):
        return []
    kept = []
    for raw in text.splitlines():
        line = strip_ansi(raw).replace("\x00", "").strip()
        if line and _KEEP.search(line) and not _REFUSED.search(line):
            kept.append(line[:MAX_WIDTH])
    return kept[-MAX_LINES:]


def kernel_log_record(text: str) -> str:
    """What a snapshot keeps of a kernel log command's output: the excerpt, or the refusal
    line where the command was refused."""
    lines = kernel_log_excerpt(text)
    if not lines and log_refused(text):
        lines = [next(line.strip()[:MAX_WIDTH] for line in text.splitlines()
                      if _REFUSED.search(line))]
    return "".join(f"{line}\n" for line in lines)


def log_refused(text: str) -> bool:
    """Whether the command said it may not read the log (dmesg_restrict, journal rights)."""
    head = text[:2000] if isinstance(text, str) else ""
    return bool(_REFUSED.search(head)) and not kernel_log_excerpt(text)


def failed_probes(lines: list[str]) -> dict[str, str]:
    """{PCI slot: error number ("-12", "" when not given)} of every ``probe ... failed`` line."""
    found: dict[str, str] = {}
    for line in lines:
        m = _PROBE_FAILED.search(line)
        if m:
            found[(m.group("a") or m.group("b")).lower()] = m.group("error") or ""
    return found


def lines_for(lines: list[str], slot: str | None) -> list[str]:
    """The lines about the device at ``slot`` ("0000:83:00.0"), plus the lines that name no
    device at all when ``slot`` is None."""
    if slot is None:
        return [line for line in lines if not _SLOT.search(line)]
    slot = slot.lower()
    return [line for line in lines if slot in line.lower()]
