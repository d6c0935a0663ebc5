"""KFD topology: node `properties` files, the gfx_target_version code, the override value.

The kernel writes `/sys/class/kfd/kfd/topology/nodes/<N>/properties` as "key value" lines
with decimal integers. `gfx_target_version` is major*10000 + minor*100 + stepping, and the
LLVM target name writes minor and stepping as one hex digit each (90010 -> gfx90a).
`HSA_OVERRIDE_GFX_VERSION` is "major.minor.stepping" in decimal (ROCR libhsakmt rules).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from core.probe.parse._text import strip_ansi

_PROPERTY = re.compile(r"^\s*([a-z][a-z0-9_]*)\s+(-?[0-9]{1,40})\s*$")
# sscanf("%u.%u.%u%c") == 3: the first %u skips C whitespace, and nothing may follow the
# stepping (%c would take it: a CR, a newline, a space); hence fullmatch, not `$`.
_OVERRIDE = re.compile(r"[ \t\n\v\f\r]*([0-9]{1,9})\.([0-9]{1,9})\.([0-9]{1,9})")
_OVERRIDE_LIMITS = (63, 255, 255)


def _load_bootstrap() -> Callable[[int], Any] | None:
    """AMD's own target table (rocm-bootstrap); the arithmetic covers what it lacks."""
    try:
        from rocm_bootstrap import targets
    except ImportError:  # pragma: no cover - rocm-bootstrap is a declared dependency
        return None
    parse: Callable[[int], Any] | None = getattr(targets, "parse_gfx_target_version", None)
    return parse


_BOOTSTRAP_PARSE = _load_bootstrap()


def parse_properties(text: str) -> dict[str, int]:
    """Parse one KFD node `properties` file into {key: value}.

    Malformed lines (no integer value, placeholders, prompts, path headers) are skipped.
    When a key repeats, a second node has started (`cat nodes/*/properties` output):
    only the first node is returned; see `parse_properties_nodes` for all of them.
    """
    nodes = parse_properties_nodes(text)
    return dict(nodes[0]) if nodes else {}


def parse_properties_nodes(text: str) -> tuple[dict[str, int], ...]:
    """Split concatenated `properties` files into one dict per node.

    A node boundary is where a key that the current node already has appears again.
    """
    nodes: list[dict[str, int]] = []
    current: dict[str, int] = {}
    for key, value in _property_pairs(text):
        if key in current:
            nodes.append(current)
            current = {}
        current[key] = value
    if current:
        nodes.append(current)
    return tuple(nodes)


def _property_pairs(text: str) -> list[tuple[str, int]]:
    pairs = []
    for line in strip_ansi(text).splitlines():
        match = _PROPERTY.match(line)
        if match:
            pairs.append((match.group(1), int(match.group(2))))
    return pairs


def decode_gfx_target_version(value: int) -> str | None:
    """90010 -> 'gfx90a', 100300 -> 'gfx1030'; None for 0, negative or not representable."""
    if value <= 0:
        return None
    known = _bootstrap_name(value)
    if known is not None:
        return known
    major, minor, step = (value // 10000) % 100, (value // 100) % 100, value % 100
    return _gfx_name(major, minor, step)


def _bootstrap_name(value: int) -> str | None:
    if _BOOTSTRAP_PARSE is None:
        return None
    try:
        return str(_BOOTSTRAP_PARSE(value).name)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _gfx_name(major: int, minor: int, step: int) -> str | None:
    if major <= 0 or minor > 15 or step > 15:
        return None
    return f"gfx{major}{minor:x}{step:x}"


def parse_gfx_override(value: str) -> tuple[int, int, int] | None:
    """'10.3.0' -> (10, 3, 0); None unless exactly three decimal fields within ROCR's limits.

    Limits as in libhsakmt: major <= 63, minor <= 255, stepping <= 255. Leading whitespace
    is accepted, as the runtime's ``sscanf("%u.%u.%u%c")`` skips it; anything after the
    stepping is not, trailing whitespace included: the runtime reads it as a fourth field and
    refuses to start ("10.3.0\\r" from a shell file with CRLF line ends, "10.3.0 ").
    """
    match = _OVERRIDE.fullmatch(value)
    if match is None:
        return None
    fields = tuple(int(group) for group in match.groups())
    if any(field > limit for field, limit in zip(fields, _OVERRIDE_LIMITS, strict=True)):
        return None
    return fields[0], fields[1], fields[2]


def override_to_gfx(value: str) -> str | None:
    """'10.3.0' -> 'gfx1030', '9.0.10' -> 'gfx90a'; None if invalid or not a gfx name."""
    fields = parse_gfx_override(value)
    if fields is None:
        return None
    return _gfx_name(*fields)


def pci_location(location_id: int, domain: int) -> str:
    """KFD location_id ((bus << 8) | (device << 3) | function) and domain -> '0000:03:00.0'."""
    bus = (location_id >> 8) & 0xFF
    device = (location_id >> 3) & 0x1F
    function = location_id & 0x7
    return f"{domain & 0xFFFFFFFF:04x}:{bus:02x}:{device:02x}.{function:x}"
