"""Keep people out of reports: no user names, host names, home paths or serial numbers.

A report is shared (forum posts, GitHub issues) and imported from strangers, so every path that
builds, stores, exports or imports one runs it through :func:`scrub_report`:

* free-form mappings (platform, GPU facts, settings, details, environment, packages) lose keys
  that name a person or a machine (``hostname``, ``user``, ``HOME``, ``serial``, ``uuid``, ...),
  also as a word of a longer key (``hostname_fqdn``, ``board_sn``, ``ssh_host``, ``user_id``;
  not ``MIOPEN_USER_DB_PATH``), and keys whose value is a secret (``HF_TOKEN``,
  ``WANDB_API_KEY``, ``DB_PASSWORD``, ``*_AUTH_*``, ``*COOKIE*``);
* home folders become ``~`` (``/home/alice/venv`` -> ``~/venv``, also after ``file://``; also
  ``/Users/...``, ``C:\\Users\\...``, WSL's ``/mnt/c/Users/...`` and
  ``\\\\wsl.localhost\\Ubuntu\\home\\...``, ``~alice/`` and ``/root``);
* serial-like values (GPU UUIDs, ``Serial Number: ...``, MAC addresses, e-mail addresses) and IP
  addresses (v4 and v6, but not loopback, and not in versions or packages) are replaced by a
  placeholder;
* user and host names are replaced wherever they appear as a word, in values and in keys. They
  come from an :class:`Identity` (the current machine's, or one given by a test) *and* from the
  report itself: a ``/home/bob/...`` path or a ``HOSTNAME`` variable in someone else's report
  teaches the scrubber ``bob`` and the host name before they are removed.

Words that are also ordinary vocabulary (``root``, ``ubuntu``, ``user``, ...) are never replaced
as words, and fields that hold vocabulary (distribution ids, gfx targets, units, suite names)
and the report's own keys are left alone, so scrubbing never changes what a report means.

Every pattern is bounded or anchored so that its time is linear in the text (a stranger's
report may hold 100,000 characters chosen to make a regular expression backtrack).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.report import model
from core.report.columns import look
from core.report.model import MAX_DEPTH, MAX_NUMBER, Report, from_dict, to_dict

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
# Words of a key (``board_sn`` -> board, sn; ``hostName`` -> host, name) that name a person or a
# machine wherever they stand ...
_DROP_WORDS = frozenset({
    "hostname", "hostnames", "nodename", "fqdn", "domainname", "username", "logname", "sn",
    "guid", "hwaddr", "macaddr", "email", "userprofile", "homepath", "homedir",
})
# ... or when they end the key or are followed by one of _ID_NEXT (``ssh_host``, ``user_id``,
# ``mac_address``; not ``MIOPEN_USER_DB_PATH`` or ``host_to_device``) ...
_ID_NOUNS = frozenset({"host", "user", "login", "mac", "mail"})
_ID_NEXT = frozenset({"name", "id", "address", "addr", "ip"})
# ... and words of a key whose value is a secret: anywhere (``DB_PASSWORD_FILE``), or, for
# ``token`` and ``key``, at the end (``HF_TOKEN``, ``WANDB_API_KEY``; not ``tokens_per_step``).
_SECRET_WORDS = frozenset({
    "secret", "secrets", "password", "passwords", "passwd", "auth", "authorization", "cookie",
    "cookies", "apikey", "credential", "credentials",
})
_SECRET_LAST = frozenset({"token", "key"})
_KEY_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
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
# The report's own keys (its dataclasses' fields): never renamed, whoever is called "steps".
_STRUCTURAL_KEYS = frozenset(
    f.name for cls in vars(model).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) for f in dataclasses.fields(cls))

_NAME = r"[^/\\\s\"'`:;,()<>|]+"
_END = r"(?=/|$|[\s\"'`:;,)<>|])"
# Not inside a longer name or path (``/srv/home/x``), but after ``/`` (``file:///home/bob``).
_BEFORE = r"(?<![\w.~-])"
_HOME_PATTERNS = (  # group 1 is the user name
    re.compile(_BEFORE + r"/mnt/[a-zA-Z]/Users/(" + _NAME + r")" + _END),
    re.compile(_BEFORE + r"(?:/var)?/home/(" + _NAME + r")" + _END),
    re.compile(_BEFORE + r"/Users/(" + _NAME + r")" + _END),
    re.compile(r"(?<![\w])[A-Za-z]:\\{1,2}Users\\{1,2}(" + _NAME + r")(?=\\|$|[\s\"'`:;,)<>|])"),
    # WSL's files seen from Windows: \\wsl.localhost\Ubuntu\home\bob, \\wsl$\Ubuntu\home\bob
    re.compile(r"\\{1,2}wsl(?:\.localhost|\$)\\{1,2}[^\\/\s]{1,64}\\{1,2}home\\{1,2}(" + _NAME
               + r")(?=\\|$|[\s\"'`:;,)<>|])", re.IGNORECASE),
    re.compile(r"(?<![\w.~-])\\{1,2}home\\{1,2}(" + _NAME + r")(?=\\|$|[\s\"'`:;,)<>|])"),
    # the shell's ~bob/ (bob's home)
    re.compile(_BEFORE + r"~([A-Za-z_][\w.-]{0,31})(?=/)"),
)
_ROOT_HOME = re.compile(_BEFORE + r"/root" + _END)
# A shell prompt, ``alice@rig:~$`` or ``alice@rig:/tmp$``: teaches a user and a host name.
_PROMPT = re.compile(r"(?<![\w.-])([a-z_][\w.-]{0,31})@([A-Za-z0-9][\w.-]{0,62}):[~/]")
# Bounded and anchored, so that no text makes it slow (``"a" * 80000`` took 22 s unbounded).
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}"
                    r"\.[A-Za-z]{2,24}(?![\w-])")
_SERIAL_PATTERNS = (
    (re.compile(r"\bGPU-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"), "GPU-<uuid>"),
    (re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"(?i)\b((?:asic[ _-]?)?serial(?:[ _-]?(?:number|no|num))?\"?[ \t]{0,8}[:=#]"
                r"[ \t]{0,8}\"?)[^\s,;\"']+"), r"\g<1><serial>"),
    (re.compile(r"(?i)\b(unique[ _-]?id\"?[ \t]{0,8}[:=][ \t]{0,8}\"?)[^\s,;\"']+"),
     r"\g<1><serial>"),
    (re.compile(r"(?i)\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b"), "<mac>"),
)
IP = "<ip>"
_IPV4 = re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}"
                   r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\w|\.\d)")
_H4 = r"[0-9A-Fa-f]{1,4}"
_IPV6 = re.compile(r"(?<![\w:.])(?:" + _H4 + r"(?::" + _H4 + r"){7}|(?:" + _H4 + r"(?::" + _H4
                   + r"){0,6})?::(?:" + _H4 + r"(?::" + _H4 + r"){0,6})?)(?:%[\w.-]{1,32})?"
                   r"(?![\w:])")


def _ip(m: re.Match[str]) -> str:
    """An IP address becomes ``<ip>``; loopback and 0.0.0.0 say nothing and stay."""
    text = m.group(0)
    try:
        addr = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text
    return text if addr.is_loopback or addr.is_unspecified else IP


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

    def covers(self, other: Identity) -> bool:
        """Whether every name of ``other`` is one of these."""
        return (other.users <= self.users and other.hosts <= self.hosts
                and other.homes <= self.homes)


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

    def text(self, value: str, *, words: bool = True, ips: bool = True) -> str:
        for home in self.homes:
            value = re.sub(re.escape(home) + _END, "~", value)
        for pattern in _HOME_PATTERNS:
            value = pattern.sub("~", value)
        value = _ROOT_HOME.sub("~", value)
        value = _EMAIL.sub("<email>", value)
        for pattern, repl in _SERIAL_PATTERNS:
            value = pattern.sub(repl, value)
        if ips:
            value = _IPV6.sub(_ip, _IPV4.sub(_ip, value))
        if words:
            for pattern, repl in self.words:
                value = pattern.sub(repl, value)
        return value


def _is_word_worth_hiding(name: str) -> bool:
    return len(name) >= 2 and not name.isdigit() and name.lower() not in _VOCABULARY


def _should_drop(key: str) -> bool:
    """Whether a free-form key's value names a person or a machine, or is a secret."""
    k = key.lower()
    if k in _DROP_KEYS or any(part in k for part in _DROP_PARTS):
        return True
    words = [w.lower() for w in _KEY_WORD.findall(key)]
    for i, w in enumerate(words):
        if w in _DROP_WORDS or w in _SECRET_WORDS:
            return True
        last = i == len(words) - 1
        if w in _ID_NOUNS and (last or words[i + 1] in _ID_NEXT):
            return True
        if last and w in _SECRET_LAST:
            return True
    return False


# --- learning names from a report -----------------------------------------------------------------


def learn(data: Any) -> Identity:
    """User and host names a report (as JSON data) gives away about its author."""
    return _survey(data).identity


@dataclass
class _Survey:
    """One look at JSON data: the names it gives away, its distinct keys, and its distinct
    strings with what decides how each is scrubbed (the field's name, inside ``packages``)."""

    identity: Identity
    keys: set[str]
    texts: set[tuple[str, str, bool]]


def _survey(data: Any) -> _Survey:
    """Each distinct string is scanned once (a report repeats its keys and phase names a
    hundred thousand times): the data is walked a column at a time (core.report.columns)."""
    users: set[str] = set()
    hosts: set[str] = set()
    homes: set[str] = set()
    found = look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)
    scanned = found.names | {text for text, _, _ in found.texts}
    for text in scanned:
        for pattern in _HOME_PATTERNS:
            users.update(m.group(1) for m in pattern.finditer(text))
        for m in _PROMPT.finditer(text):
            users.add(m.group(1))
            hosts.update({m.group(2), m.group(2).split(".")[0]})
    for text, key, _ in found.texts:
        k = key.lower()
        value = text.strip()
        if not value:
            continue
        if k in _USER_KEYS:
            users.add(value)
        elif k in _HOST_KEYS:
            hosts.update({value, value.split(".")[0]})
        elif k == "home":
            homes.add(value)
    return _Survey(Identity(frozenset(users), frozenset(hosts), frozenset(homes)), scanned,
                   found.texts)


# --- scrubbing ------------------------------------------------------------------------------------


def scrub_data(data: Any, identity: Identity | None = None) -> Any:
    """A scrubbed copy of JSON data (a report's dict, or any part of one)."""
    scrubber = _Scrubber((identity or Identity()).merged(learn(data)))
    return _Walk(scrubber).node(data, ())


def _scrubbed(data: Any, identity: Identity) -> tuple[Any, Identity]:
    """``data`` scrubbed of ``identity`` and what it gives away itself; data with nothing to
    remove (a report rocmate wrote is) comes back as it is, without a second walk."""
    survey = _survey(data)
    wanted = identity.merged(survey.identity)
    walk = _Walk(_Scrubber(wanted))
    clean = all(walk.key(k) == k for k in survey.keys) and all(
        walk.text(text, *_flags(key, packages)) == text
        for text, key, packages in survey.texts)
    return (data if clean else walk.node(data, ())), wanted


def _flags(field_name: str, packages: bool) -> tuple[bool, bool]:
    """How a string in ``field_name`` is scrubbed: (names as words?, addresses?)."""
    vocabulary = field_name in _VOCABULARY_FIELDS
    # a version (``cudnn 9.1.0.70``) is not an address
    versions = vocabulary or "version" in field_name.lower() or packages
    return not vocabulary, not versions


class _Walk:
    """One scrubbing pass; each distinct key and string is judged once."""

    def __init__(self, scrubber: _Scrubber) -> None:
        self.s = scrubber
        self.keys: dict[str, str | None] = {}  # key -> the key to write, None: dropped
        self.texts: dict[tuple[str, bool, bool], str] = {}

    def key(self, key: str) -> str | None:
        known = self.keys.get(key, "")
        if known != "":
            return known
        kept = None if _should_drop(key) else (key if key in _STRUCTURAL_KEYS
                                               else self.s.text(key))
        self.keys[key] = kept
        return kept

    def text(self, value: str, words: bool, ips: bool) -> str:
        memo = (value, words, ips)
        done = self.texts.get(memo)
        if done is None:
            done = self.texts[memo] = self.s.text(value, words=words, ips=ips)
        return done

    def node(self, node: Any, path: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for k, v in node.items():
                key = str(k)
                kept = self.key(key)
                if kept is None:
                    continue
                if type(v) in (int, float, bool) or v is None:
                    out[kept] = v
                else:
                    out[kept] = self.node(v, (*path, key))
            return out
        if isinstance(node, list):
            return [v if type(v) in (int, float, bool) or v is None else self.node(v, path)
                    for v in node]
        if isinstance(node, str):
            return self.text(node, *_flags(path[-1] if path else "", "packages" in path))
        return node


def scrub_text(text: str, identity: Identity | None = None) -> str:
    """One string, scrubbed (for messages and file names shown next to a report)."""
    scrubber = _Scrubber((identity or Identity()).merged(learn(text)))
    return scrubber.text(text)


def scrub_report(report: Report, identity: Identity | None = None) -> Report:
    """A scrubbed copy of a report; the original is left as it was. A report this module
    scrubbed already, for these names or more, is returned as it is (scrubbing is idempotent:
    a 20 MB report is not walked again)."""
    done = report.scrubbed_for
    if isinstance(done, Identity) and done.covers(identity or Identity()):
        return report
    with model.reading():  # the survey's look at the data serves the validator too
        data, wanted = _scrubbed(to_dict(report), identity or Identity())
        clean = from_dict(data)
    clean.scrubbed_for = wanted
    return clean


def learned(report: Report) -> Identity:
    """What :func:`learn` finds in a report (remembered on a report scrubbed here)."""
    done = report.scrubbed_for
    return done if isinstance(done, Identity) else learn(to_dict(report))


def scrubbed_from_data(data: Any, identity: Identity | None = None) -> tuple[Report, Identity]:
    """A report from checked JSON data, scrubbed before it is built (one pass, not three), and
    the names it was scrubbed of (``identity`` and what the data itself gives away)."""
    data, wanted = _scrubbed(data, identity or Identity())
    report = from_dict(data)
    report.scrubbed_for = wanted
    return report, wanted


def leaks(text: str, secrets: Iterable[str]) -> list[str]:
    """Which of ``secrets`` occur in ``text`` (case-insensitive); for tests and self-checks."""
    low = text.lower()
    return [s for s in secrets if s and s.lower() in low]
