"""`rocminfo` output -> HSA agents (CPU / GPU / DSP) and the failure line when it failed.

Handles the current layout and the ROCm 1.x-3.x ones (no hex suffixes, other key names),
pastes with ANSI colours, tmux scroll markers, backslash-escaped markdown, backticks,
truncated output and `rocminfo | grep Name` excerpts (agents without 'Agent N' headers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.probe.parse._text import (
    clean_lines,
    leading_int,
    non_empty,
    normalise_gfx,
    unwrap_quoted_printable,
)


@dataclass(frozen=True)
class RocmAgent:
    """One HSA agent as rocminfo lists it."""

    index: int
    name: str
    marketing_name: str | None = None
    vendor_name: str | None = None
    device_type: str | None = None  # "CPU" | "GPU" | "DSP"
    uuid: str | None = None
    node: int | None = None
    compute_units: int | None = None
    isa: tuple[str, ...] = ()  # e.g. "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
    gfx: str | None = None  # "gfx1100", from Name or the ISA, feature suffix stripped
    chip_id: str | None = None  # PCI device id as lowercase hex, "73df"
    bdfid: int | None = None  # (bus << 8) | (device << 3) | function
    vram_bytes: int | None = None  # size of the first GLOBAL coarse-grained pool


@dataclass(frozen=True)
class RocminfoReport:
    """Everything read from one rocminfo run."""

    agents: tuple[RocmAgent, ...]
    runtime_version: str | None
    error: str | None
    problems: tuple[str, ...]
    rock_loaded: bool | None = None  # "ROCk module is loaded" / "is NOT loaded"
    rock_version: str | None = None  # "ROCk module version 6.10.5 is loaded"
    hsa_status: str | None = None  # "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    kfd_open_error: str | None = None  # "Permission denied" from "Unable to open /dev/kfd"

    @property
    def gpus(self) -> tuple[RocmAgent, ...]:
        """The agents whose Device Type is GPU."""
        return tuple(agent for agent in self.agents if agent.device_type == "GPU")


# Failure lines, most telling first: `error` is the first kind found.
_FAILURES: tuple[re.Pattern[str], ...] = (
    re.compile(r"^Unable to open /dev/kfd", re.IGNORECASE),
    re.compile(r"^ROCk module is NOT loaded", re.IGNORECASE),
    re.compile(r"HSA_STATUS_ERROR"),
    re.compile(r"^hsa api call failure", re.IGNORECASE),
    re.compile(r"^hsa_init Failed", re.IGNORECASE),
    re.compile(r"rocminfo\S*: .*(?:not found|No such file)", re.IGNORECASE),
    re.compile(r"^(?:killed|segmentation fault|aborted)\b", re.IGNORECASE),
)
_WARNINGS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^Failed to get user name"),
    re.compile(r"HSA_OVERRIDE_GFX_VERSION may be needed"),
)
_AGENT_HEADER = re.compile(r"^\s*Agent\s+([0-9]{1,9})\s*$")
_ROCK = re.compile(r"ROCk module (?:version (\S+) )?is (NOT )?loaded")
_HSA_STATUS = re.compile(r"HSA_STATUS_\w+")
_LINE_JUNK = re.compile(r"^\\(?=[=*])")


@dataclass
class _Draft:
    """An agent while its lines are being read."""

    index: int
    fields: dict[str, str] = field(default_factory=dict)
    isa: list[str] = field(default_factory=list)
    vram_kb: int | None = None
    in_vram_pool: bool = False


@dataclass
class _State:
    drafts: list[_Draft] = field(default_factory=list)
    runtime_version: str | None = None
    failures: list[tuple[int, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rock: tuple[bool, str | None] | None = None
    done: bool = False
    headerless: bool = False


_AGENT_INDENT = 4  # agent keys sit at 2 spaces, ISA and pool keys at 6
_AGENT_KEYS = {
    "Name",
    "Marketing Name",
    "Vendor Name",
    "Device Type",
    "Uuid",
    "Node",
    "Compute Unit",
    "Chip ID",
    "BDFID",
    "Segment",
    "Size",
}


def parse_rocminfo(text: str) -> RocminfoReport:
    """Parse rocminfo output; never raises. See RocminfoReport for what is read."""
    state = _State()
    for line in _rocminfo_lines(text):
        _read_line(state, line)
    return _report(state)


def _rocminfo_lines(text: str) -> list[str]:
    lines = []
    for line in clean_lines(unwrap_quoted_printable(text)):
        line = _LINE_JUNK.sub("", line.replace("`", ""))
        lines.append(line)
    return lines


def _read_line(state: _State, line: str) -> None:
    stripped = line.strip()
    if not stripped:
        return
    if _read_status_line(state, stripped):
        return
    header = _AGENT_HEADER.match(line)
    if header:
        state.drafts.append(_Draft(index=int(header.group(1))))
        return
    key, colon, value = line.partition(":")
    key = key.strip()
    if colon and key[:1].isascii() and key[:1].isalpha():
        indent = len(line) - len(line.lstrip())
        _read_pair(state, key, value.strip(), indent)


def _read_status_line(state: _State, line: str) -> bool:
    """Status, failure and end lines; True when the line was one of them."""
    if line.startswith("*** Done ***"):
        state.done = True
        return True
    rock = _ROCK.search(line)
    if rock:
        state.rock = (rock.group(2) is None, rock.group(1))
    for rank, pattern in enumerate(_FAILURES):
        if pattern.search(line):
            state.failures.append((rank, line))
            return True
    if any(pattern.search(line) for pattern in _WARNINGS):
        state.problems.append(line)
        return True
    return rock is not None


def _read_pair(state: _State, key: str, value: str, indent: int) -> None:
    if key == "Runtime Version" and not state.drafts:
        state.runtime_version = non_empty(value)
        return
    if key not in _AGENT_KEYS:
        return
    is_isa = key == "Name" and (value.startswith("amdgcn") or indent > _AGENT_INDENT)
    draft = _current_draft(state, key == "Name" and not is_isa)
    if is_isa:
        draft.isa.append(value)
    elif key == "Segment":
        draft.in_vram_pool = "GLOBAL" in value and "COARSE" in value
    elif key == "Size":
        _read_pool_size(draft, value)
    else:
        draft.fields.setdefault(key, value)


def _current_draft(state: _State, is_agent_name: bool) -> _Draft:
    """The agent a key belongs to; starts one when the output has no 'Agent N' header."""
    repeated_name = is_agent_name and bool(state.drafts) and "Name" in state.drafts[-1].fields
    if not state.drafts or repeated_name:
        last = state.drafts[-1].index if state.drafts else 0
        state.drafts.append(_Draft(index=last + 1))
        state.headerless = True
    return state.drafts[-1]


def _read_pool_size(draft: _Draft, value: str) -> None:
    if not draft.in_vram_pool or draft.vram_kb is not None:
        return
    amount = leading_int(value)
    if amount is None or amount < 0:
        return
    draft.vram_kb = amount * 1024 if "MB" in value.upper() else amount


def _report(state: _State) -> RocminfoReport:
    agents = tuple(_agent(draft) for draft in state.drafts)
    failures = sorted(state.failures, key=lambda item: item[0])
    error = failures[0][1] if failures else None
    problems = [line for _, line in state.failures] + state.problems
    problems += _shape_problems(state, agents, error)
    rock_loaded, rock_version = state.rock if state.rock else (None, None)
    return RocminfoReport(
        agents=agents,
        runtime_version=state.runtime_version,
        error=error,
        problems=tuple(problems),
        rock_loaded=rock_loaded,
        rock_version=rock_version,
        hsa_status=_first_match(_HSA_STATUS, [line for _, line in state.failures]),
        kfd_open_error=_kfd_reason(state.failures),
    )


def _shape_problems(state: _State, agents: tuple[RocmAgent, ...], error: str | None) -> list[str]:
    problems = []
    if state.headerless:
        problems.append("agent data without an 'Agent N' header (excerpt or cut output)")
    if agents and not state.done and not state.headerless:
        problems.append("output ends before '*** Done ***' (truncated?)")
    if not agents and error is None:
        problems.append("no HSA agents found")
    return problems


def _first_match(pattern: re.Pattern[str], lines: list[str]) -> str | None:
    for line in lines:
        match = pattern.search(line)
        if match:
            return match.group(0)
    return None


def _kfd_reason(failures: list[tuple[int, str]]) -> str | None:
    for _, line in failures:
        if line.lower().startswith("unable to open /dev/kfd"):
            _, _, reason = line.partition(":")
            return non_empty(reason)
    return None


def _agent(draft: _Draft) -> RocmAgent:
    fields = draft.fields
    name = fields.get("Name", "").strip()
    device_type = _device_type(fields.get("Device Type"))
    vram_kb = draft.vram_kb if device_type == "GPU" else None
    return RocmAgent(
        index=draft.index,
        name=name,
        marketing_name=non_empty(fields.get("Marketing Name")),
        vendor_name=non_empty(fields.get("Vendor Name")),
        device_type=device_type,
        uuid=non_empty(fields.get("Uuid")),
        node=_int(fields.get("Node")),
        compute_units=_int(fields.get("Compute Unit")),
        isa=tuple(draft.isa),
        gfx=_agent_gfx(name, draft.isa),
        chip_id=_chip_id(fields.get("Chip ID")),
        bdfid=_int(fields.get("BDFID")),
        vram_bytes=vram_kb * 1024 if vram_kb is not None else None,
    )


def _device_type(value: str | None) -> str | None:
    value = non_empty(value)
    return value.upper() if value else None


def _int(value: str | None) -> int | None:
    return leading_int(value) if value else None


def _chip_id(value: str | None) -> str | None:
    number = _int(value)
    if number is None or number <= 0 or number > 0xFFFF:
        return None
    return f"{number:04x}"


def _agent_gfx(name: str, isa: list[str]) -> str | None:
    if name.lower().startswith("gfx"):
        return normalise_gfx(name)
    for entry in isa:
        gfx = normalise_gfx(entry)
        if gfx and not gfx.endswith("generic"):
            return gfx
    return None
