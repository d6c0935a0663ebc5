"""Keep people out of reports: no user names, host names, home paths or serial numbers.

A report is shared (forum posts, GitHub issues) and imported from strangers, so every path that
builds, stores, exports or imports one runs it through :func:`scrub_report`:

* free-form mappings (platform, GPU facts, settings, details, environment, packages) lose keys
  that name a person or a machine (``hostname``, ``user``, ``HOME``, ``serial``, ``uuid``, ...);
* home folders become ``~`` (``/home/alice/venv`` -> ``~/venv``; also ``/Users/...``,
  ``C:\\Users\\...``, WSL's ``/mnt/c/Users/...`` and ``/root``);
* serial-like values (GPU UUIDs, ``Serial Number: ...``, MAC addresses, e-mail addresses) are
  replaced by a placeholder;
* user and host names are replaced wherever they appear as a word. They come from an
  :class:`Identity` (the current machine's, or one given by a test) *and* from the report
  itself: a ``/home/bob/...`` path or a ``HOSTNAME`` variable in someone else's report teaches
  the scrubber ``bob`` and the host name before they are removed.

Words that are also ordinary vocabulary (``root``, ``ubuntu``, ``user``, ...) are never replaced
as words, and fields that hold vocabulary (distribution ids, gfx targets, units, suite names)
are left alone, so scrubbing never changes what a report means.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.report.model import Report, from_dict, to_dict

USER = "<user>"
HOST = "<host>"

# Keys (compared in lower case) whose values identify a person or a machine.
_DROP_KEYS = frozenset({
    "hostname", "host", "host_name", "nodename", "fqdn", "domainname",
    "user", "username", "user_name", "login", "logname", "sudo_user", "home", "mail", "email",
    "pwd", "oldpwd", "machine_id", "boot_id", "mac", "mac_address", "hwaddr", "asset_tag",
    "unique_id", "ssh_connection", "ssh_client", "ssh_tty", "xauthority",
})
_DROP_PARTS = ("serial", "uuid")
_USER_KEYS = frozenset({"user", "username", "user_name", "login", "logname", "sudo_user"})
_HOST_KEYS = frozenset({"hostname", "host", "host_name", "nodename", "fqdn"})

# Never replaced as words: generic account names and words that carry meaning in a report.
_VOCABULARY = frozenset({
    "root", "user", "users", "home", "admin", "administrator", "guest", "test", "runner",
    "ubuntu", "debian", "fedora", "arch", "opensuse", "linux", "wsl", "pi", "localhost",
    "rocm", "amd", "nvidia", "gpu", "cpu", "cuda", "hip", "torch", "python", "docker",
    "default", "none", "null", "true", "false", "build", "vm", "host",
})
# Report fields whose values are vocabulary, matched on the last key of their path.
_VOCABULARY_FIELDS = frozenset({
    "schema", "tool", "tool_version", "created", "started", "suite", "status", "unit", "headline",
    "phase", "part", "kind", "method", "item_unit", "backend", "arch", "gfx", "vendor", "pci_id",
    "pci_bus_id", "distro_id", "distro_name", "distro_version", "codename", "ubuntu_codename",
    "id_like", "precision", "size", "python", "torch", "hip", "cuda", "rocm",
})

_NAME = r"[^/\\\s\"'`:;,()<>|]+"
_BEFORE = r"(?<![\w.~/-])"
_HOME_PATTERNS = (
    re.compile(_BEFORE + r"/mnt/[a-zA-Z]/Users/(" + _NAME + r")(?=/|$|[\s\"'`:;,)<>|])"),
    re.compile(_BEFORE + r"(?:/var)?/home/(" + _NAME + r")(?=/|$|[\s\"'`:;,)<>|])"),
    re.compile(_BEFORE + r"/Users/(" + _NAME + r")(?=/|$|[\s\"'`:;,)<>|])"),
    re.compile(r"(?<![\w])[A-Za-z]:\\{1,2}Users\\{1,2}(" + _NAME + r")(?=\\|$|[\s\"'`:;,)<>|])"),
)
_ROOT_HOME = re.compile(_BEFORE + r"/root(?=/|$|[\s\"'`:;,)<>|])")
# A shell prompt, ``alice@rig:~$`` or ``alice@rig:/tmp$``: teaches a user and a host name.
_PROMPT = re.compile(r"(?<![\w.-])([a-z_][\w.-]{0,31})@([A-Za-z0-9][\w.-]{0,62}):[~/]")
_EMAIL = re.compile(r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_SERIAL_PATTERNS = (
    (re.compile(r"\bGPU-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"), "GPU-<uuid>"),
    (re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"(?i)\b((?:asic[ _-]?)?serial(?:[ _-]?(?:number|no|num))?\"?\s*[:=#]\s*\"?)"
                r"[^\s,;\"']+"), r"\g<1><serial>"),
    (re.compile(r"(?i)\b(unique[ _-]?id\"?\s*[:=]\s*\"?)[^\s,;\"']+"), r"\g<1><serial>"),
    (re.compile(r"(?i)\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b"), "<mac>"),
)


@dataclass(frozen=True)
class Identity:
    """Who and where: names that must not appear in a report."""

    users: frozenset[str] = frozenset()
    hosts: frozenset[str] = frozenset()
    homes: frozenset[str] = frozenset()  # home folders, e.g. /home/alice or /srv/users/alice

    @staticmethod
    def current() -> Identity:
        """The user and host rocmate runs on (empty parts where they cannot be read)."""
        users: set[str] = set()
        homes: set[str] = set()
        hosts: set[str] = set()
        try:
            from core.system import LiveSystem

            me = LiveSystem().user()
            users.add(me.name)
            homes.add(me.home)
        except Exception:  # no passwd entry: nothing to learn, nothing to hide
            pass
        try:
            host = socket.gethostname()
        except OSError:
            host = ""
        if host:
            hosts.update({host, host.split(".")[0]})
        return Identity(frozenset(users), frozenset(hosts), frozenset(homes))

    def merged(self, other: Identity) -> Identity:
        return Identity(self.users | other.users, self.hosts | other.hosts,
                        self.homes | other.homes)


@dataclass
class _Scrubber:
    identity: Identity
    words: list[tuple[re.Pattern[str], str]] = field(default_factory=list)
    homes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [(n, USER) for n in self.identity.users] + [(n, HOST) for n in self.identity.hosts]
        for name, repl in sorted(names, key=lambda p: -len(p[0])):
            if _is_word_worth_hiding(name):
                pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])",
                                     re.IGNORECASE)
                self.words.append((pattern, repl))
        self.homes = sorted({h.rstrip("/") for h in self.identity.homes
                             if h and h.rstrip("/") not in ("", "/")}, key=len, reverse=True)

    def text(self, value: str, *, words: bool = True) -> str:
        for home in self.homes:
            value = re.sub(re.escape(home) + r"(?=/|$|[\s\"'`:;,)<>|])", "~", value)
        for pattern in _HOME_PATTERNS:
            value = pattern.sub("~", value)
        value = _ROOT_HOME.sub("~", value)
        value = _EMAIL.sub("<email>", value)
        for pattern, repl in _SERIAL_PATTERNS:
            value = pattern.sub(repl, value)
        if words:
            for pattern, repl in self.words:
                value = pattern.sub(repl, value)
        return value


def _is_word_worth_hiding(name: str) -> bool:
    return len(name) >= 2 and not name.isdigit() and name.lower() not in _VOCABULARY


def _should_drop(key: str) -> bool:
    k = key.lower()
    return k in _DROP_KEYS or any(part in k for part in _DROP_PARTS)


# --- learning names from a report -----------------------------------------------------------------


def learn(data: Any) -> Identity:
    """User and host names a report (as JSON data) gives away about its author."""
    users: set[str] = set()
    hosts: set[str] = set()
    homes: set[str] = set()

    def visit(node: Any, key: str | None) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                visit(k, None)
                visit(v, str(k))
        elif isinstance(node, list):
            for v in node:
                visit(v, key)
        elif isinstance(node, str):
            k = (key or "").lower()
            if k in _USER_KEYS and node.strip():
                users.add(node.strip())
            elif k in _HOST_KEYS and node.strip():
                hosts.update({node.strip(), node.strip().split(".")[0]})
            elif k == "home" and node.strip():
                homes.add(node.strip())
            for pattern in _HOME_PATTERNS:
                users.update(m.group(1) for m in pattern.finditer(node))
            for m in _PROMPT.finditer(node):
                users.add(m.group(1))
                hosts.update({m.group(2), m.group(2).split(".")[0]})

    visit(data, None)
    return Identity(frozenset(users), frozenset(hosts), frozenset(homes))


# --- scrubbing ------------------------------------------------------------------------------------


def scrub_data(data: Any, identity: Identity | None = None) -> Any:
    """A scrubbed copy of JSON data (a report's dict, or any part of one)."""
    scrubber = _Scrubber((identity or Identity()).merged(learn(data)))
    return _scrub(data, scrubber, ())


def _scrub(node: Any, s: _Scrubber, path: tuple[str, ...]) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            key = str(k)
            if _should_drop(key):
                continue
            out[s.text(key, words=False)] = _scrub(v, s, (*path, key))
        return out
    if isinstance(node, list):
        return [_scrub(v, s, path) for v in node]
    if isinstance(node, str):
        field_name = path[-1] if path else ""
        return s.text(node, words=field_name not in _VOCABULARY_FIELDS)
    return node


def scrub_text(text: str, identity: Identity | None = None) -> str:
    """One string, scrubbed (for messages and file names shown next to a report)."""
    scrubber = _Scrubber((identity or Identity()).merged(learn(text)))
    return scrubber.text(text)


def scrub_report(report: Report, identity: Identity | None = None) -> Report:
    """A scrubbed copy of a report; the original is left as it was."""
    return from_dict(scrub_data(to_dict(report), identity))


def leaks(text: str, secrets: Iterable[str]) -> list[str]:
    """Which of ``secrets`` occur in ``text`` (case-insensitive); for tests and self-checks."""
    low = text.lower()
    return [s for s in secrets if s and s.lower() in low]
