"""A Python environment's own files, read without running Python: a distribution's
``*.dist-info/METADATA`` (Name, Version), ``INSTALLER``, ``pyvenv.cfg`` and the lines of a
``requirements*.txt``; and what a wheel's local version tag says about its build.

METADATA is an email-style header block (core metadata, https://packaging.python.org/en/
latest/specifications/core-metadata/): ``Name:`` and ``Version:`` come before the first blank
line. pyvenv.cfg is ``key = value`` lines (PEP 405, https://peps.python.org/pep-0405/).
A local version label (PEP 440, "Local version identifiers") is what PyTorch's indexes use to
tell builds apart: ``2.5.1+cpu``, ``2.5.1+cu124``, ``2.5.1+rocm6.2``, ``2.13.0+rocm10.0.0``
(https://download.pytorch.org/whl/torch/ lists them). Everything here is pure and never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME_NORMALISE = re.compile(r"[-_.]+")
_HEADER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$")
_RELEASE = re.compile(r"^v?([0-9]+(?:\.[0-9]+)*)")
_ROCM = re.compile(r"^rocm([0-9]+(?:\.[0-9]+){1,2})$")
_CUDA = re.compile(r"^cu([0-9]{2,3})$")
_REQUIREMENT = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;#@]*?)\s*(?:;.*)?$"
)
MAX_FIELD = 300
"""Longest name or version kept (a damaged file can hold anything)."""


def canonical_name(name: str) -> str:
    """A distribution name as pip compares it (PEP 503): ``Pytorch_Triton.ROCm`` ->
    ``pytorch-triton-rocm``."""
    return _NAME_NORMALISE.sub("-", name.strip()).lower()


def parse_metadata(text: str) -> tuple[str, str] | None:
    """(Name, Version) of a METADATA (or PKG-INFO) text; None when either is missing or does
    not look like one."""
    fields: dict[str, str] = {}
    for raw in (text or "").replace("\r\n", "\n").split("\n"):
        if not raw.strip():
            break  # the body (the long description) follows the first blank line
        if raw[:1] in (" ", "\t"):
            continue  # a folded continuation line
        match = _HEADER.match(raw)
        if match:
            fields.setdefault(match.group(1).lower(), match.group(2).strip())
    name = fields.get("name", "")
    version = fields.get("version", "")
    if not name or not version or len(name) > MAX_FIELD or len(version) > MAX_FIELD:
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*", version):
        return None
    return name, version


def parse_pyvenv_cfg(text: str) -> dict[str, str]:
    """pyvenv.cfg -> {key (lower case): value}; lines that are not ``key = value`` are left
    out."""
    found: dict[str, str] = {}
    for line in (text or "").splitlines():
        if "=" not in line or line.lstrip().startswith("#"):
            continue
        key, _, value = line.partition("=")
        key = key.strip().lower()
        if key and len(key) <= MAX_FIELD:
            found.setdefault(key, value.strip()[:4096])
    return found


def cfg_flag(value: str | None) -> bool | None:
    """pyvenv.cfg's ``true``/``false`` as a bool; None when absent or neither."""
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    return None


@dataclass(frozen=True)
class Build:
    """What a wheel's local version tag says it was built for."""

    kind: str
    """``cpu``, ``cuda``, ``rocm``, ``none`` (no tag: PyPI's own build) or ``other``."""
    tag: str | None = None
    """The tag as written after ``+`` (``cu124``, ``rocm6.2``), None without one."""
    series: str | None = None
    """``6.2`` for rocm6.2, ``12.4`` for cu124; None for the others."""

    def to_json(self) -> dict[str, str | None]:
        return {"kind": self.kind, "tag": self.tag, "series": self.series}


def split_version(version: str) -> tuple[str, str | None]:
    """``2.5.1+rocm6.2`` -> (``2.5.1``, ``rocm6.2``); a version without ``+`` -> (it, None)."""
    public, plus, local = (version or "").strip().partition("+")
    return public, (local or None) if plus else None


def build_of(version: str) -> Build:
    """The build a version's local tag names (``+cpu``, ``+cu124``, ``+rocm6.2[.4]``, none)."""
    _, local = split_version(version)
    if local is None:
        return Build("none")
    tag = local.lower()
    if tag == "cpu" or tag.startswith("cpu."):
        return Build("cpu", local)
    cuda = _CUDA.match(tag)
    if cuda:
        digits = cuda.group(1)
        return Build("cuda", local, f"{digits[:-1]}.{digits[-1]}")
    rocm = _ROCM.match(tag)
    if rocm:
        return Build("rocm", local, rocm.group(1))
    return Build("other", local)


def release(version: str) -> tuple[int, ...]:
    """The release numbers of a version (``2.5.1+cpu`` -> (2, 5, 1)); () when it has none."""
    digits = _RELEASE.match(split_version(version)[0])
    if not digits:
        return ()
    return tuple(int(p[:9]) for p in digits.group(1).split("."))[:8]


def minor(version: str) -> str | None:
    """``2.5.1+cpu`` -> ``2.5``; None when the version has fewer than two numbers."""
    numbers = release(version)
    return f"{numbers[0]}.{numbers[1]}" if len(numbers) >= 2 else None


@dataclass(frozen=True)
class Requirement:
    """One requirement line of a requirements file (what an app pins)."""

    name: str
    """As written; compare with :func:`canonical_name`."""
    spec: str
    """The version specifier as written (``==2.5.1``, ``>=2.1,<2.6``, or empty)."""
    line: int

    @property
    def pinned(self) -> str | None:
        """The version of an exact ``==`` pin (no wildcard), else None."""
        match = re.fullmatch(r"===?\s*([0-9][A-Za-z0-9.+!_-]*)", self.spec.strip())
        return match.group(1) if match else None


def parse_requirements(text: str) -> list[Requirement]:
    """The requirement lines of a requirements file; options (``-r``, ``--index-url``), URLs,
    paths and anything else are left out."""
    found: list[Requirement] = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", ".", "/")) or "://" in line:
            continue
        match = _REQUIREMENT.match(line[:MAX_FIELD])
        if match:
            found.append(Requirement(match.group(1), match.group(3).strip(), number))
    return found
