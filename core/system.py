"""The one door to the machine.

Every probe reads files, lists folders, starts commands and asks for the user, the environment and
device-node access through a :class:`System`. Two implementations exist:

* :class:`LiveSystem` reads the machine rocmate runs on;
* :class:`SnapshotSystem` replays a folder in the "machine snapshot v1" layout
  (docs/contracts.md), so any machine that someone recorded can be checked anywhere.

:class:`RecordingSystem` wraps a live system and remembers what the probes read, so that
``rocmate snapshot DIR`` records exactly what the doctor looked at (see :mod:`core.snapshot`).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from core.bundle import restore_user_environment

MAX_READ = 4 << 20
MAX_LINK_HOPS = 40
UNRESOLVABLE = "/\0unresolvable"
"""Largest file a probe reads (sysfs files are tiny; dpkg status can be a few MiB)."""

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class CommandResult:
    """What a command printed and how it ended."""

    argv: tuple[str, ...]
    output: str = ""
    returncode: int | None = None
    """Exit status; None when the command was not found or timed out."""
    found: bool = True
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.found and not self.timed_out and self.returncode == 0


@dataclass(frozen=True)
class UserInfo:
    """The user rocmate runs for."""

    name: str
    uid: int
    home: str
    groups: tuple[str, ...] = ()
    """The groups of this login session (what device access depends on)."""
    configured_groups: tuple[str, ...] | None = None
    """The groups /etc/group gives the user now (a change shows here before the next login)."""
    known: bool = True
    """False when a replayed machine's record of the user is missing or damaged: then nothing
    about the user's groups may be concluded."""


@dataclass(frozen=True)
class DeviceAccess:
    """Whether a device node exists and what this user may do with it."""

    path: str
    exists: bool
    mode: str | None = None
    group: str | None = None
    readable: bool = False
    writable: bool = False
    known: bool = True
    """False when a replayed machine's record of its device nodes is missing or damaged: then
    ``exists`` says nothing (no "/dev/kfd does not exist" from a file that could not be read)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "exists": self.exists,
            "mode": self.mode,
            "group": self.group,
            "readable": self.readable,
            "writable": self.writable,
        }


class System(Protocol):
    """Everything a probe may ask of a machine."""

    def read_bytes(self, path: str, limit: int = MAX_READ) -> bytes | None:
        """The file's first ``limit`` bytes, or None when it cannot be read."""

    def read_text(self, path: str, limit: int = MAX_READ) -> str | None:
        """The file decoded as UTF-8 (bad bytes replaced), or None."""

    def list_dir(self, path: str) -> list[str] | None:
        """Sorted entry names, or None when ``path`` is not a readable folder."""

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def readlink(self, path: str) -> str | None:
        """The target of a symbolic link as written, or None."""

    def resolve(self, path: str) -> str:
        """``path`` with every symbolic link followed, as a path on that machine."""

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            extra_env: Mapping[str, str | None] | None = None) -> CommandResult:
        """Run a command (argv list, never a shell) and collect stdout and stderr together;
        ``extra_env`` adds variables to the clean environment it gets."""

    def env(self) -> Mapping[str, str]: ...

    def user(self) -> UserInfo: ...

    def device(self, path: str) -> DeviceAccess: ...

    def device_nodes(self, folder: str) -> list[str]:
        """Device node paths under ``folder`` (e.g. /dev/dri), sorted."""

    def answer(self, name: str, ask: Callable[[System], dict[str, Any]]) -> dict[str, Any] | None:
        """A probe's answer that is neither a file nor one command's output (the torch probe: a
        script in another Python). The live machine calls ``ask`` with itself; a snapshot
        returns what it recorded as ``DIR/<name>.json`` (None when absent); a recording machine
        asks the live one and keeps the answer."""

    def disk_free(self, path: str) -> int | None:
        """Free bytes on the file system holding ``path`` (or its nearest existing parent)."""

    def damaged(self) -> list[Damage]:
        """The records a replayed machine could not read so far (none on a live machine)."""


@dataclass(frozen=True)
class Damage:
    """A file of a snapshot folder that is there but could not be used."""

    path: str
    """Relative to the snapshot folder: ``user.json``, ``files/etc``."""
    reason: str
    """``unreadable`` (no permission, not a regular file), ``not-json`` or ``not-an-object``."""


def command_name(argv: Sequence[str]) -> str:
    """The snapshot file stem for a command: argv joined by "_" with "/" replaced by "_"."""
    return "_".join(argv).replace("/", "_")


def clean_env(extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment to hand to a subprocess; in ``extra`` a value of None removes the
    variable (a trial without HSA_OVERRIDE_GFX_VERSION where the user's shell exports one).

    When rocmate runs frozen (PyInstaller, AppImage) the bootloader points LD_LIBRARY_PATH at the
    bundle; a child program gets the user's original value back, or none at all, and none of
    the bundle's or the AppImage runtime's own variables (core.bundle.restore_user_environment).
    """
    env = dict(os.environ)
    restore_user_environment(env)
    env.setdefault("LC_ALL", "C.UTF-8")
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


# ROCm's tools live in /opt/rocm/bin, which is often not on PATH.
_EXTRA_TOOL_DIRS = ("/opt/rocm/bin", "/usr/sbin", "/sbin")


class LiveSystem:
    """The machine rocmate runs on."""

    def read_bytes(self, path: str, limit: int = MAX_READ) -> bytes | None:
        try:
            with open(path, "rb") as handle:
                return handle.read(limit)
        except (OSError, ValueError):
            return None

    def read_text(self, path: str, limit: int = MAX_READ) -> str | None:
        data = self.read_bytes(path, limit)
        return None if data is None else data.decode("utf-8", errors="replace")

    def list_dir(self, path: str) -> list[str] | None:
        try:
            return sorted(os.listdir(path))
        except (OSError, ValueError):
            return None

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def readlink(self, path: str) -> str | None:
        try:
            return os.readlink(path)
        except (OSError, ValueError):
            return None

    def resolve(self, path: str) -> str:
        return os.path.realpath(path)

    def which(self, name: str) -> str | None:
        if "/" in name:
            return name if os.access(name, os.X_OK) else None
        found = shutil.which(name)
        if found:
            return found
        path = os.pathsep.join(_EXTRA_TOOL_DIRS)
        return shutil.which(name, path=path)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            extra_env: Mapping[str, str | None] | None = None) -> CommandResult:
        args = tuple(argv)
        exe = self.which(args[0]) if args else None
        if exe is None:
            return CommandResult(args, found=False)
        try:
            proc = subprocess.run(
                [exe, *args[1:]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                env=clean_env(extra_env),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            text = _decode(exc.output)
            return CommandResult(args, output=text, timed_out=True)
        except OSError as exc:
            return CommandResult(args, output=str(exc), found=False)
        return CommandResult(args, output=_decode(proc.stdout), returncode=proc.returncode)

    def env(self) -> Mapping[str, str]:
        return dict(os.environ)

    def user(self) -> UserInfo:
        uid = os.getuid()
        try:
            entry = pwd.getpwuid(uid)
            name, home, primary_gid = entry.pw_name, entry.pw_dir, entry.pw_gid
        except KeyError:
            name, home, primary_gid = str(uid), os.environ.get("HOME", "/"), os.getgid()
        session = sorted(set(os.getgroups()) | {os.getgid()})
        members = {g.gr_name for g in grp.getgrall() if name in g.gr_mem}
        return UserInfo(
            name=name,
            uid=uid,
            home=home,
            groups=tuple(_group_name(gid) for gid in session),
            configured_groups=tuple(sorted(members | {_group_name(primary_gid)})),
        )

    def device(self, path: str) -> DeviceAccess:
        try:
            info = os.stat(path)
        except OSError:
            return DeviceAccess(path, exists=False)
        try:
            group = grp.getgrgid(info.st_gid).gr_name
        except KeyError:
            group = str(info.st_gid)
        return DeviceAccess(
            path,
            exists=True,
            mode=f"{stat.S_IMODE(info.st_mode):04o}",
            group=group,
            readable=os.access(path, os.R_OK),
            writable=os.access(path, os.W_OK),
        )

    def device_nodes(self, folder: str) -> list[str]:
        names = self.list_dir(folder) or []
        return [f"{folder.rstrip('/')}/{name}" for name in names]

    def answer(self, name: str, ask: Callable[[System], dict[str, Any]]) -> dict[str, Any] | None:
        return ask(self)

    def disk_free(self, path: str) -> int | None:
        probe = path
        while probe and not os.path.exists(probe):
            probe = os.path.dirname(probe.rstrip("/")) or "/"
            if probe == "/":
                break
        try:
            return shutil.disk_usage(probe or "/").free
        except OSError:
            return None

    def damaged(self) -> list[Damage]:
        return []


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


@dataclass
class SnapshotSystem:
    """A machine replayed from a snapshot folder (docs/contracts.md, "Machine snapshot v1")."""

    root: Path
    _env: dict[str, str] | None = field(default=None, init=False, repr=False)
    _damage: dict[str, Damage] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.files = self.root / "files"

    # -- paths -------------------------------------------------------------------------------
    def _host(self, path: str) -> Path | None:
        """The folder-side path for a machine path, with links resolved inside the snapshot."""
        resolved = self.resolve(path)
        if resolved == UNRESOLVABLE:
            return None
        return self._open_inside(self.files / resolved.lstrip("/"))

    def resolve(self, path: str) -> str:
        parts = [p for p in _normalise(path).split("/") if p]
        done: list[str] = []
        hops = 0
        while parts:
            part = parts.pop(0)
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = self.files.joinpath(*done, part)
            link = self._is_link(candidate)
            if link is None:
                return UNRESOLVABLE  # behind a folder that cannot be entered: nothing is read
            if link:
                hops += 1
                if hops > MAX_LINK_HOPS:
                    return UNRESOLVABLE  # a loop or a chain too long: nothing is read
                target = os.readlink(candidate)
                if target.startswith("/"):
                    done = []
                parts = [p for p in target.split("/") if p and p != "."] + parts
                continue
            done.append(part)
        return "/" + "/".join(done)

    def _is_link(self, candidate: Path) -> bool | None:
        """Whether ``candidate`` is a symbolic link; None behind a folder that cannot be entered
        (noted as damage)."""
        try:
            return candidate.is_symlink()
        except PermissionError:
            self._note(candidate.parent, "unreadable")
            return None
        except (OSError, ValueError):
            return False

    def _note(self, host: Path, reason: str) -> None:
        """Remember that ``host`` (a path in the folder) is there but could not be used."""
        try:
            where = str(host.relative_to(self.root))
        except ValueError:
            where = str(host)
        self._damage.setdefault(where, Damage(where, reason))

    def _read(self, host: Path, limit: int) -> bytes | None:
        """A regular file of the folder; one that is there but cannot be read is noted."""
        data = _read_regular(host, limit)
        if data is None and _unreadable(host):
            self._note(host, "unreadable")
        return data

    def _record(self, name: str) -> dict[str, Any] | None:
        """The JSON object ``DIR/name`` holds; None when the file is absent, or there but
        damaged (then noted)."""
        host = self.root / name
        if not os.path.lexists(host):
            return None
        text = self._read(host, 1 << 20)
        if text is None:
            self._note(host, "unreadable")
            return None
        try:
            data = json.loads(text.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            self._note(host, "not-json")
            return None
        if not isinstance(data, dict):
            self._note(host, "not-an-object")
            return None
        return data

    def damaged(self) -> list[Damage]:
        return sorted(self._damage.values(), key=lambda each: each.path)

    def _open_inside(self, host: Path) -> Path | None:
        """``host`` if it is a regular file or folder really inside the snapshot, else None."""
        try:
            real = host.resolve(strict=True)
        except (OSError, RuntimeError, ValueError):  # ValueError: a NUL byte in the path
            return None
        root = self.root.resolve()
        if real != root and root not in real.parents:
            return None
        return real

    # -- files -------------------------------------------------------------------------------
    def read_bytes(self, path: str, limit: int = MAX_READ) -> bytes | None:
        host = self._host(path)
        return self._read(host, limit) if host is not None else None

    def read_text(self, path: str, limit: int = MAX_READ) -> str | None:
        data = self.read_bytes(path, limit)
        return None if data is None else data.decode("utf-8", errors="replace")

    def list_dir(self, path: str) -> list[str] | None:
        host = self._host(path)
        if host is None:
            return None
        try:
            return sorted(os.listdir(host))
        except PermissionError:
            self._note(host, "unreadable")
            return None
        except (OSError, ValueError):
            return None

    def exists(self, path: str) -> bool:
        if self.readlink(path) is not None:
            return True
        return self._host(path) is not None

    def is_dir(self, path: str) -> bool:
        host = self._host(path)
        return host is not None and host.is_dir()

    def readlink(self, path: str) -> str | None:
        parent = self.resolve(os.path.dirname(_normalise(path)) or "/")
        if parent == UNRESOLVABLE:
            return None
        folder = self._open_inside(self.files / parent.lstrip("/"))
        if folder is None:
            return None
        try:
            return os.readlink(folder / os.path.basename(_normalise(path)))
        except (OSError, ValueError):
            return None

    # -- commands ----------------------------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            extra_env: Mapping[str, str | None] | None = None) -> CommandResult:
        args = tuple(argv)
        stem = self.root / "commands" / command_name(args)
        text_path = stem.with_name(stem.name + ".txt")
        rc_path = stem.with_name(stem.name + ".rc")
        data = self._read(text_path, MAX_READ)
        if data is None:
            return CommandResult(args, found=False)
        output = data.decode("utf-8", errors="replace")
        rc_text = _read_small(rc_path)
        if rc_text is None:
            return CommandResult(args, output=output, returncode=0)
        rc_text = rc_text.strip().lower()
        if rc_text in {"timeout", "timed out"}:
            return CommandResult(args, output=output, timed_out=True)
        try:
            return CommandResult(args, output=output, returncode=int(rc_text))
        except ValueError:
            return CommandResult(args, output=output, returncode=1)

    # -- the rest ----------------------------------------------------------------------------
    def env(self) -> Mapping[str, str]:
        if self._env is None:
            data = self._record("env.json")
            self._env = (
                {str(k): str(v) for k, v in data.items() if v is not None}
                if data is not None
                else {}
            )
        return self._env

    def user(self) -> UserInfo:
        data = self._record("user.json")
        known = data is not None
        if data is None:
            data = {}
        name = str(data.get("name") or "user")
        uid = data.get("uid")
        home = data.get("home") or self.env().get("HOME") or f"/home/{name}"
        groups = data.get("groups") if isinstance(data.get("groups"), list) else []
        configured = data.get("configured_groups")
        return UserInfo(
            name=name,
            uid=uid if isinstance(uid, int) else 1000,
            home=str(home),
            groups=tuple(str(g) for g in groups or []),
            configured_groups=tuple(str(g) for g in configured)
            if isinstance(configured, list)
            else None,
            known=known,
        )

    def _devices(self) -> dict[str, Any] | None:
        """What devices.json records; None when it is missing or damaged."""
        return self._record("devices.json")

    def device(self, path: str) -> DeviceAccess:
        devices = self._devices()
        if devices is None:
            return DeviceAccess(path, exists=False, known=False)
        entry = devices.get(path)
        if not isinstance(entry, dict) or not entry.get("exists", True):
            return DeviceAccess(path, exists=False)
        mode = entry.get("mode")
        group = entry.get("group")
        return DeviceAccess(
            path,
            exists=True,
            mode=str(mode) if mode is not None else None,
            group=str(group) if group is not None else None,
            readable=bool(entry.get("readable", False)),
            writable=bool(entry.get("writable", False)),
        )

    def device_nodes(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(
            p for p in self._devices() or {}
            if p.startswith(prefix) and "/" not in p[len(prefix) :]
        )

    def answer(self, name: str, ask: Callable[[System], dict[str, Any]]) -> dict[str, Any] | None:
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            return None
        return self._record(f"{name}.json")

    def disk_free(self, path: str) -> int | None:
        """From the optional ``disk.json`` ({"/home/ana": bytes, ...}); None when not recorded."""
        data = self._record("disk.json")
        value = data.get(path) if data is not None else None
        return value if isinstance(value, int) else None


def _normalise(path: str) -> str:
    return os.path.normpath("/" + path.lstrip("/")) if path else "/"


def _read_regular(path: Path, limit: int) -> bytes | None:
    """A regular file's first bytes, never through a link, a FIFO or a device."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _unreadable(path: Path) -> bool:
    """Whether ``path`` is there (not a dangling name) but cannot be opened for reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    os.close(fd)
    return False


def _read_small(path: Path) -> str | None:
    data = _read_regular(path, 1 << 20)
    return None if data is None else data.decode("utf-8", errors="replace")


def open_system(root: str | os.PathLike[str] | None) -> System:
    """The live machine, or the snapshot folder ``root`` when one is given."""
    if root is None:
        return LiveSystem()
    return SnapshotSystem(Path(root))
