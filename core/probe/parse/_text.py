"""Shared text clean-up for the parsers: ANSI codes, paste artefacts, ids and gfx names.

Everything here is pure and never raises on any string.
"""

from __future__ import annotations

import json
import quopri
import re
from typing import Any

_ANSI_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_ANSI_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_ANSI_OTHER = re.compile(r"\x1b[@-Z\\-_]?")
# "[37m" / "[0m" left over when a paste lost the ESC byte.
_ANSI_ORPHAN = re.compile(r"\[[0-9]{1,3}(?:;[0-9]{1,3})*m")
# tmux copy-mode scroll position, right-aligned after a run of spaces: "   [391/1815]".
_TMUX_MARKER = re.compile(r"\[[0-9]+/[0-9]+\]")
_BBCODE = re.compile(
    r"\[/?(?:color|b|i|u|s|size|font|code|icode|quote|plain|spoiler|highlight|url|img|attach)"
    r"(?:=[^\]\n]*)?\]",
    re.IGNORECASE,
)
_SOFT_BREAK = re.compile(r"(?<=[^=\n])=\r?\n")
_QP_TOKEN = re.compile(r"=(?:[0-9A-F]{2}|\r?\n)")
_PCI_SLOT = re.compile(r"^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$")
_GFX = re.compile(r"gfx[0-9][0-9a-z]*(?:-[0-9a-z]+)*", re.IGNORECASE)
_GFX_DECIMAL = re.compile(r"^gfx(9|1[0-9])([0-9])([0-9]{2})$")
_HEX_ID = re.compile(r"^(?:0x)?([0-9a-fA-F]{1,4})$")
_INT_PREFIX = re.compile(r"^\s*([+-]?[0-9]{1,40})(?![0-9])")


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (CSI, OSC, lone ESC) and orphaned colour codes."""
    text = _ANSI_OSC.sub("", text)
    text = _ANSI_CSI.sub("", text)
    text = _ANSI_OTHER.sub("", text)
    return _ANSI_ORPHAN.sub("", text)


def strip_tmux_marker(line: str) -> str:
    """Drop a tmux copy-mode position marker such as '[391/1815]' from the end of a line.

    The marker must follow at least two blanks, as tmux right-aligns it.
    """
    stripped = line.rstrip()
    start = stripped.rfind("[")
    if start < 0 or not _TMUX_MARKER.fullmatch(stripped, start):
        return line
    before = stripped[:start]
    if len(before) - len(before.rstrip()) < 2:
        return line
    return before.rstrip()


def strip_bbcode(line: str) -> str:
    """Drop forum markup tags ([COLOR=#f00], [/b], ...) and markdown bold/code marks."""
    line = _BBCODE.sub("", line)
    return line.replace("**", "").replace("`", "")


def clean_lines(text: str) -> list[str]:
    """ANSI-free lines with tmux markers and trailing whitespace removed."""
    lines = strip_ansi(text).replace("\x00", "").splitlines()
    return [strip_tmux_marker(line).rstrip() for line in lines]


def unwrap_quoted_printable(text: str) -> str:
    """Undo a quoted-printable mail body, or just its soft line breaks.

    Text is decoded in full when it has '=3D' (an encoded '='), or soft breaks and no '='
    that is not a quoted-printable escape. Otherwise only soft breaks are joined: an '='
    at a line end after another character (a banner line of '=' is left alone).
    """
    if _looks_quoted_printable(text):
        raw = text.encode("utf-8", errors="surrogatepass")
        return quopri.decodestring(raw).decode("utf-8", errors="replace")
    return _SOFT_BREAK.sub("", text)


def _looks_quoted_printable(text: str) -> bool:
    if "=3D" in text:
        return True
    if not _SOFT_BREAK.search(text):
        return False
    return len(_QP_TOKEN.findall(text)) == text.count("=")


def normalise_pci_slot(value: str) -> str | None:
    """'03:00.0' / '0000:C4:00.0' -> '0000:03:00.0' / '0000:c4:00.0'; None if not a slot."""
    match = _PCI_SLOT.match(value.strip())
    if match is None:
        return None
    domain, bus, dev, fn = match.groups()
    return f"{int(domain or '0', 16):04x}:{int(bus, 16):02x}:{int(dev, 16):02x}.{fn}"


def normalise_hex_id(value: str) -> str | None:
    """'0x744C' / '744c' / '0x834' -> '744c' / '0834'; None if not a 16-bit hex id."""
    match = _HEX_ID.match(value.strip())
    if match is None:
        return None
    return f"{int(match.group(1), 16):04x}"


def normalise_gfx(value: str) -> str | None:
    """The gfx target in a name, lower case, feature suffix stripped.

    'amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-' -> 'gfx90a'. rocm-smi 6.0 prints the
    stepping in decimal ('gfx9010' for gfx90a); that form is turned back into hex.
    """
    match = _GFX.search(value)
    if match is None:
        return None
    name = match.group(0).lower()
    decimal = _GFX_DECIMAL.match(name)
    if decimal is not None:
        major, minor, step = decimal.groups()
        return f"gfx{major}{minor}{int(step):x}"
    return name


def leading_int(value: str) -> int | None:
    """The integer a value starts with ('29663(0x73df)' -> 29663); None if there is none."""
    match = _INT_PREFIX.match(value)
    return int(match.group(1)) if match else None


def non_empty(value: str | None) -> str | None:
    """None for empty, whitespace-only or 'N/A'-like values, else the stripped value."""
    if value is None:
        return None
    value = value.strip()
    if value.upper() in {"", "N/A", "NA", "NONE", "UNKNOWN", "NULL"}:
        return None
    return value


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last line of ``text`` that is one JSON object (a probe script's answer after
    whatever a library printed before it), or None."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            try:
                answer = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply
                return None
            return answer if isinstance(answer, dict) else None
    return None
