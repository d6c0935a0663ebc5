"""Platform files: os-release, lsb-release, kernel release, WSL, dpkg status, Secure Boot.

os-release is read with a tolerant line reader that copes with prompts, mail quoting,
flattened one-line pastes, hand-edited 'KEY=   value  # comment' lines and unbalanced
quotes, completed by python-distro's shell-style lexer where that one works.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.probe.parse._text import strip_ansi

_ASSIGNMENT = re.compile(
    r"(?<![\w#$])([A-Z][A-Z0-9_]*)=[ \t]*"
    r"(?:\"((?:[^\"\\]|\\.)*)\"?|'([^'\n]*)'?|([^\s#\"']*))"
)
_ESCAPE = re.compile(r"\\(.)")
_LSB_LABELS = {
    "distributor id": "DISTRIB_ID",
    "description": "DISTRIB_DESCRIPTION",
    "release": "DISTRIB_RELEASE",
    "codename": "DISTRIB_CODENAME",
}
_PROC_VERSION = re.compile(r"Linux version (\S+)")
_UNAME_A = re.compile(r"\bLinux\s+\S+\s+([0-9]\S*)\s+#")
_SAR_HEADER = re.compile(r"^Linux\s+([0-9]\S*)\s+\(", re.MULTILINE)
_LABELLED = re.compile(
    r"^[ \t]*(?:Kernel|kernel|uname -r)[ \t]*:[ \t]*([0-9]\S*)[ \t]*$", re.MULTILINE
)
_BARE_RELEASE = re.compile(r"^[ \t]*([0-9]+\.[0-9]+[.-][0-9A-Za-z.+~_-]*)[ \t]*$", re.MULTILINE)
_KERNEL_VERSION = re.compile(r"^\s*([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?")


def parse_os_release(text: str) -> dict[str, str]:
    """os-release text -> {KEY: value} with the keys as written (upper case).

    The tolerant line reader follows os-release(5) (quotes, backslash escapes of
    $ ` " \\, comments) and survives junk; python-distro's shell lexer adds what a line
    reader cannot see: keys it missed and values quoted across several lines.
    """
    text = strip_ansi(text).replace("\x00", "")
    merged = _tolerant_assignments(text)
    for key, value in _distro_assignments(text).items():
        current = merged.get(key)
        if not current or ("\n" in value and value.startswith(current)):
            merged[key] = value
    return merged


def _load_distro_parser() -> Callable[[Any], dict[str, str]] | None:
    try:
        import distro
    except ImportError:  # pragma: no cover - distro is a declared dependency
        return None
    owner = getattr(distro, "LinuxDistribution", None)
    parser: Callable[[Any], dict[str, str]] | None = getattr(
        owner, "_parse_os_release_content", None
    )
    return parser


_DISTRO_PARSE = _load_distro_parser()


def _distro_assignments(text: str) -> dict[str, str]:
    """distro's shlex-based reading, limited to keys that really appear as 'KEY='."""
    if _DISTRO_PARSE is None:
        return {}
    try:
        parsed = _DISTRO_PARSE(io.StringIO(text))
    except (ValueError, TypeError, AttributeError):
        return {}
    written = set(re.findall(r"([A-Z][A-Z0-9_]*)=", text))
    return {key.upper(): str(value) for key, value in parsed.items() if key.upper() in written}


def _tolerant_assignments(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        for match in _ASSIGNMENT.finditer(line):
            values[match.group(1)] = _assignment_value(match)
    return values


def _assignment_value(match: re.Match[str]) -> str:
    double, single, bare = match.group(2), match.group(3), match.group(4)
    if double is not None:
        return _ESCAPE.sub(r"\1", double)
    if single is not None:
        return single
    return bare or ""


def parse_lsb_release(text: str) -> dict[str, str]:
    """/etc/lsb-release (DISTRIB_ID=...) or `lsb_release -a` -> {DISTRIB_*: value}."""
    values = {
        key: value for key, value in parse_os_release(text).items() if key.startswith("DISTRIB_")
    }
    for line in strip_ansi(text).splitlines():
        label, colon, value = line.partition(":")
        key = _LSB_LABELS.get(label.strip().lower())
        if colon and key and value.strip():
            values.setdefault(key, value.strip())
    return values


def parse_kernel_release(text: str) -> str | None:
    """The kernel release in /proc/version, osrelease, `uname -a`/`-r` or a sar header."""
    text = strip_ansi(text)
    for pattern in (_PROC_VERSION, _UNAME_A, _SAR_HEADER, _LABELLED, _BARE_RELEASE):
        match = pattern.search(text)
        if match and match.group(1)[:1].isdigit():
            return match.group(1)
    return None


def kernel_version_tuple(release: str) -> tuple[int, int, int] | None:
    """'6.8.0-45-generic' -> (6, 8, 0); '5.15.153.1-microsoft-standard-WSL2' -> (5, 15, 153)."""
    match = _KERNEL_VERSION.match(release)
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def wsl_version(kernel_release: str | None, proc_version: str | None) -> int | None:
    """2 for a WSL 2 kernel, 1 for WSL 1's fake kernel ('4.4.0-19041-Microsoft'), else None."""
    for source in (kernel_release, proc_version):
        version = _wsl_from(source or "")
        if version is not None:
            return version
    return None


def _wsl_from(text: str) -> int | None:
    lowered = text.lower()
    if "microsoft-standard" in lowered or "wsl2" in lowered:
        return 2
    if "microsoft" in lowered and "standard" not in lowered:
        return 1
    return None


@dataclass(frozen=True)
class DpkgPackage:
    """One stanza of /var/lib/dpkg/status."""

    name: str
    version: str | None
    status: str | None  # "install ok installed"

    @property
    def installed(self) -> bool:
        """True when the status ends with 'installed' (not 'config-files' etc.)."""
        return (self.status or "").split()[-1:] == ["installed"]


def parse_dpkg_status(text: str) -> tuple[DpkgPackage, ...]:
    """/var/lib/dpkg/status -> one DpkgPackage per stanza that names a Package."""
    packages = []
    for stanza in re.split(r"\n[ \t]*\n", strip_ansi(text).replace("\r\n", "\n")):
        fields = _stanza_fields(stanza)
        name = fields.get("package")
        if name:
            packages.append(DpkgPackage(name, fields.get("version"), fields.get("status")))
    return tuple(packages)


def _stanza_fields(stanza: str) -> dict[str, str]:
    """'Key: value' lines of one stanza; continuation lines (leading space) are skipped."""
    fields: dict[str, str] = {}
    for line in stanza.splitlines():
        if not line or line[0] in " \t":
            continue
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields.setdefault(key.strip().lower(), value.strip())
    return fields


def parse_secure_boot_efivar(data: bytes) -> bool | None:
    """efivarfs SecureBoot-8be4df61-...: 4 attribute bytes, then 1 -> on, 0 -> off."""
    if len(data) < 5:
        return None
    return {1: True, 0: False}.get(data[4])


def parse_mokutil_sb_state(text: str) -> bool | None:
    """`mokutil --sb-state`: enabled -> True; disabled or unsupported -> False; else None."""
    lowered = strip_ansi(text).lower()
    if "secureboot enabled" in lowered:
        return True
    unsupported = ("secureboot disabled", "doesn't support secure boot", "not supported")
    if any(phrase in lowered for phrase in unsupported):
        return False
    return None
