"""The system the privileged helper acts on: its users, groups and paths, and what it trusts.

:class:`Target` reads the target's ``/etc/passwd``, ``/etc/group`` and ``/etc/login.defs`` as
files (so a test can point it at a throwaway tree; the helper itself always uses ``/``).
:class:`Policy` is what the shipped knowledge base allows: trusted key fingerprints, apt URI
prefixes, pin origins and suites.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass, field
from pathlib import Path

from core.knowledge.apu_memory import ApuMemoryTable, load_apu_memory
from core.knowledge.loader import Knowledge, load_knowledge

__all__ = ["Group", "Policy", "Target", "User", "load_policy"]

NOBODY_UID = 65534
MEMINFO = "/proc/meminfo"
MAX_MEMINFO = 64 * 1024


@dataclass(frozen=True)
class User:
    """One line of passwd."""

    name: str
    uid: int
    gid: int
    home: str


@dataclass(frozen=True)
class Group:
    """One line of group: its name, id and explicit members."""

    name: str
    gid: int
    members: tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """What the knowledge base lets the helper write (rocm.toml [repository], distros.toml)."""

    trusted_fingerprints: frozenset[str]
    uri_prefixes: tuple[str, ...]
    pin_origins: frozenset[str]
    suites: frozenset[str]
    key_urls: frozenset[str] = frozenset()
    """Where the knowledge base says each trusted key comes from: a keyring step that names a
    source names one of these (the helper fetches nothing, but the log and the plan show it)."""
    floor_min_bytes: int | None = None
    floor_fraction: float | None = None
    """What stays for the system when the GPU is given more memory: the larger of the two
    (resources/data/apu_memory.toml [floor], as the advice computes it). None: the ttm-limit
    verb refuses every value."""

    def ttm_safe_bytes(self, ram_bytes: int) -> int | None:
        """The most the GPU may be given on a machine with ``ram_bytes`` of RAM: RAM less the
        floor (the advice's ``safe_bytes``); None without a floor."""
        if self.floor_min_bytes is None or self.floor_fraction is None:
            return None
        floor = int(max(self.floor_min_bytes, self.floor_fraction * ram_bytes))
        return max(0, ram_bytes - floor)

    @classmethod
    def from_knowledge(cls, kb: Knowledge, apu: ApuMemoryTable | None = None) -> Policy:
        """The policy of a loaded knowledge base (and APU memory table: the shipped one by
        default)."""
        apu = apu or load_apu_memory()
        repo = kb.repository
        suites = {u.codename for u in kb.ubuntu}
        suites.update(r.apt_suite for r in kb.releases if r.apt_suite)
        return cls(
            trusted_fingerprints=repo.trusted,
            uri_prefixes=tuple(repo.apt_uri_prefixes),
            pin_origins=frozenset(repo.pin_origins),
            suites=frozenset(suites),
            key_urls=frozenset({repo.key_url, *(r.key_url for r in kb.releases if r.key_url)}),
            floor_min_bytes=int(apu.floor_min_gib * (1 << 30)),
            floor_fraction=apu.floor_fraction,
        )


def load_policy(data_dir: Path | None = None) -> Policy:
    """The policy of the shipped knowledge base (or of ``data_dir``)."""
    return Policy.from_knowledge(load_knowledge(data_dir), load_apu_memory(data_dir))


@dataclass(frozen=True)
class Target:
    """The root file system the helper checks and writes (``/`` outside tests)."""

    root: str = "/"
    _cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @property
    def real_root(self) -> str:
        """The root with symbolic links resolved (where path walks start)."""
        return os.path.realpath(self.root)

    def host(self, path: str) -> str:
        """Where the target's absolute ``path`` lies on this machine."""
        if self.root == "/":
            return path
        return os.path.join(self.real_root, path.lstrip("/"))

    def _read_lines(self, path: str) -> list[str]:
        """The lines of a target file (none when it cannot be read; at most 4 MiB)."""
        try:
            with open(self.host(path), encoding="utf-8", errors="replace") as handle:
                return handle.read(4 << 20).splitlines()
        except OSError:
            return []

    def users(self) -> dict[str, User]:
        """The users of the target's /etc/passwd by name."""
        cached = self._cache.get("users")
        if isinstance(cached, dict):
            return cached
        users: dict[str, User] = {}
        for line in self._read_lines("/etc/passwd"):
            parts = line.split(":")
            if len(parts) < 7 or not parts[2].isdigit() or not parts[3].isdigit():
                continue
            users.setdefault(parts[0], User(parts[0], int(parts[2]), int(parts[3]), parts[5]))
        self._cache["users"] = users
        return users

    def user(self, name: str) -> User | None:
        """A user of the target, from passwd (and the name service where the target is ``/``)."""
        found = self.users().get(name)
        if found is not None or self.root != "/":
            return found
        try:
            entry = pwd.getpwnam(name)
        except (KeyError, OSError):
            return None
        return User(entry.pw_name, entry.pw_uid, entry.pw_gid, entry.pw_dir)

    def groups(self) -> dict[str, Group]:
        """The groups of the target's /etc/group by name (re-read on every call)."""
        groups: dict[str, Group] = {}
        for line in self._read_lines("/etc/group"):
            parts = line.split(":")
            if len(parts) < 4 or not parts[2].isdigit():
                continue
            members = tuple(m for m in parts[3].split(",") if m)
            groups.setdefault(parts[0], Group(parts[0], int(parts[2]), members))
        return groups

    def uid_min(self) -> int:
        """UID_MIN of the target's login.defs (1000 when absent)."""
        for line in self._read_lines("/etc/login.defs"):
            words = line.split()
            if len(words) == 2 and words[0] == "UID_MIN" and words[1].isdigit():
                return max(1, int(words[1]))
        return 1000

    def ram_bytes(self) -> int | None:
        """MemTotal of the target's /proc/meminfo in bytes (None when it cannot be read or
        says no plain number of kB)."""
        for line in self._read_lines(MEMINFO)[:200]:
            words = line.split()
            if len(words) == 3 and words[0] == "MemTotal:" and words[2] == "kB":
                if words[1].isascii() and words[1].isdigit() and len(words[1]) <= 12:
                    return int(words[1]) * 1024
                return None
        return None

    def is_person(self, user: User) -> bool:
        """A regular login account: not root, not a system account, not nobody."""
        return user.uid >= self.uid_min() and user.uid != NOBODY_UID
