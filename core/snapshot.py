"""``rocmate snapshot DIR``: record what the doctor reads from this machine, anonymised.

A :class:`RecordingSystem` sits between the probes and the live machine and keeps a copy of every
answer; :func:`write_snapshot` then runs the doctor through it. The folder follows the contracts'
"Machine snapshot v1" and can be replayed anywhere with ``--root DIR``. Serial numbers and unique
ids are masked, shell start-up files keep only the lines that set GPU variables, and dpkg's status
keeps only GPU-related packages, so the folder can be attached to a bug report.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.probe.driver import KERNEL_LOG_COMMANDS
from core.probe.environment import WATCHED, first_word, scan_file, shell_lines, written_value
from core.probe.parse.kernel_log import kernel_log_record
from core.probe.parse.memory import WATCHED_MODULES
from core.system import (
    DEFAULT_TIMEOUT,
    MAX_READ,
    CommandResult,
    Damage,
    DeviceAccess,
    LiveSystem,
    System,
    UserInfo,
    command_name,
)

ENV_KEPT = (*WATCHED, "HOME", "XDG_DATA_HOME", "WSL_DISTRO_NAME", "VIRTUAL_ENV", "CONDA_PREFIX")
_SERIALS = [
    (re.compile(r"^(unique_id\s+)\d+", re.M), r"\g<1>0"),
    (re.compile(r"(Uuid:\s+GPU-)[0-9A-Za-z]+"), r"\g<1>XX"),
    (re.compile(r"(?i)(serial(?:[ _]number)?\s*[:=]\s*)\S+"), r"\g<1>REDACTED"),
    (
        re.compile(r"(?i)(\"?(?:serial|unique_id|uuid|asic_serial)\"?\s*[:=]\s*\"?)[0-9A-Za-z-]+"),
        r"\g<1>REDACTED",
    ),
    (re.compile(r"(?i)(Unique ID\s*:\s*)\S+"), r"\g<1>REDACTED"),
]
_DPKG_KEEP = re.compile(
    r"^(rocm|hip|amdgpu|libamdhip|libhsa|rocminfo|hsa-|miopen|rocblas|linux-headers)"
)
_SHELL_FILES = re.compile(
    r"(/\.(bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile|pam_environment)$"
    r"|/\.config/fish/|/\.config/environment\.d/|^/etc/(environment|profile|bash\.bashrc)"
    r"|^/etc/profile\.d/|^/etc/environment\.d/|^/etc/zsh/|/bin/rocmate-env\.sh$)"
)


class RecordingSystem:
    """A live system that remembers what was read, for :func:`write_snapshot`."""

    def __init__(self, out: Path, live: LiveSystem | None = None) -> None:
        self.live = live or LiveSystem()
        self.out = Path(out)
        self.files = self.out / "files"
        self.files.mkdir(parents=True, exist_ok=True)
        (self.out / "commands").mkdir(exist_ok=True)
        self.devices: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.user_info: UserInfo | None = None
        self.disk: dict[str, int] = {}
        self.user_name = self.live.user().name

    # -- recording helpers ---------------------------------------------------------------------
    def _mirror(self, path: str, hops: int = 0) -> Path:
        """Recreate the symbolic links on the way to ``path``; the snapshot-side path."""
        if hops > 40:
            raise OSError(f"too many levels of symbolic links: {path}")
        parts = [p for p in os.path.normpath("/" + path).split("/") if p]
        done: list[str] = []
        for index, part in enumerate(parts):
            machine_path = "/" + "/".join([*done, part])
            target = self.live.readlink(machine_path)
            if target is None:
                done.append(part)
                continue
            link = self.files.joinpath(*done, part)
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.is_symlink():
                os.symlink(target, link)
            resolved = os.path.normpath(os.path.join("/" + "/".join(done), target))
            rest = "/".join(parts[index + 1 :])
            return self._mirror(resolved + ("/" + rest if rest else ""), hops + 1)
        return self.files.joinpath(*done)

    def _store(self, path: str, data: bytes) -> None:
        host = self._mirror(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(anonymise_file(path, data, self.user_name))

    def _record(self, action: Callable[[], object]) -> None:
        """Record something; a link loop or an odd file is left out of the snapshot."""
        with contextlib.suppress(OSError):
            action()

    def _make_dir(self, path: str) -> None:
        self._mirror(path).mkdir(parents=True, exist_ok=True)

    def _touch(self, path: str) -> None:
        host = self._mirror(path)
        if self.live.is_dir(path):
            host.mkdir(parents=True, exist_ok=True)
        elif not host.exists() and not host.is_symlink():
            host.parent.mkdir(parents=True, exist_ok=True)
            host.write_bytes(b"")

    def _link(self, path: str, target: str) -> None:
        link = self._mirror(os.path.dirname(path)) / os.path.basename(path)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            os.symlink(target, link)

    # -- System --------------------------------------------------------------------------------
    def read_bytes(self, path: str, limit: int = MAX_READ) -> bytes | None:
        data = self.live.read_bytes(path, limit)
        if data is not None:
            self._record(lambda: self._store(path, data))
        return data

    def read_text(self, path: str, limit: int = MAX_READ) -> str | None:
        data = self.read_bytes(path, limit)
        return None if data is None else data.decode("utf-8", errors="replace")

    def list_dir(self, path: str) -> list[str] | None:
        names = self.live.list_dir(path)
        if names is not None:
            self._record(lambda: self._make_dir(path))
        return names

    def exists(self, path: str) -> bool:
        found = self.live.exists(path)
        if found:
            self._record(lambda: self._touch(path))
        return found

    def is_dir(self, path: str) -> bool:
        found = self.live.is_dir(path)
        if found:
            self._record(lambda: self._make_dir(path))
        return found

    def readlink(self, path: str) -> str | None:
        target = self.live.readlink(path)
        if target is not None:
            self._record(lambda: self._link(path, target))
        return target

    def resolve(self, path: str) -> str:
        self._record(lambda: self._mirror(path))
        return self.live.resolve(path)

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            extra_env: Mapping[str, str | None] | None = None) -> CommandResult:
        result = self.live.run(argv, timeout, extra_env)
        stem = self.out / "commands" / command_name(argv)
        if result.found:
            output = result.output
            if tuple(argv) in KERNEL_LOG_COMMANDS:
                # Only amdgpu's and KFD's lines of the kernel log, never the whole log (issue 32)
                output = kernel_log_record(output)
            stem.with_name(stem.name + ".txt").write_text(
                anonymise_text(output), encoding="utf-8"
            )
            if result.timed_out:
                stem.with_name(stem.name + ".rc").write_text("timeout\n")
            elif result.returncode:
                stem.with_name(stem.name + ".rc").write_text(f"{result.returncode}\n")
        return result

    def env(self) -> Mapping[str, str]:
        return self.live.env()

    def user(self) -> UserInfo:
        self.user_info = self.live.user()
        return self.user_info

    def device(self, path: str) -> DeviceAccess:
        access = self.live.device(path)
        if access.exists:
            self.devices[path] = access.to_json()
        return access

    def device_nodes(self, folder: str) -> list[str]:
        return self.live.device_nodes(folder)

    def damaged(self) -> list[Damage]:
        return self.live.damaged()

    def disk_free(self, path: str) -> int | None:
        free = self.live.disk_free(path)
        if free is not None:
            self.disk[path] = free
        return free

    def answer(self, name: str, ask: Callable[[System], dict[str, Any]]) -> dict[str, Any] | None:
        """Asked of the live machine (what it runs is not recorded command by command); the
        answer is kept as ``<name>.json``."""
        self.answers[name] = ask(self.live)
        return self.answers[name]

    # -- the end -------------------------------------------------------------------------------
    def finish(self) -> None:
        env = self.live.env()
        kept = {
            k: v
            for k, v in env.items()
            if k in ENV_KEPT or k.startswith("HSA_OVERRIDE_GFX_VERSION")
        }
        _write_json(self.out / "env.json", kept)
        user = self.user_info or self.live.user()
        _write_json(
            self.out / "user.json",
            {
                "name": user.name,
                "uid": user.uid,
                "home": user.home,
                "groups": list(user.groups),
                "configured_groups": list(user.configured_groups or ()),
            },
        )
        _write_json(self.out / "devices.json", self.devices)
        if self.disk:
            _write_json(self.out / "disk.json", self.disk)
        for name, answer in self.answers.items():
            _write_json(self.out / f"{name}.json", answer)
        publish_user(self.out, user.name, user.home)


NEUTRAL_USER = "user"
NEUTRAL_HOME = "/home/user"


def publish_user(out: Path, name: str, home: str) -> None:
    """Replace the user's login name and home folder in a written snapshot with a neutral user
    (``user``, ``/home/user``), the same way everywhere, so the folder names nobody and still
    replays: user.json, env.json, disk.json, the probes' answers, command outputs, the contents
    of recorded files, and the folder that holds the user's own files."""
    home = os.path.normpath(home) if home else ""
    if not home or home == "/":
        return
    at_home = re.compile(rf"{re.escape(home)}(?=/|$|[\s'\":;,)\]}}])")

    login = _login_in_paths(name)

    def public(text: str) -> str:
        return login(at_home.sub(NEUTRAL_HOME, text))

    files = out / "files"
    mine = files / home.lstrip("/")
    if mine.is_dir() and not mine.is_symlink() and home != NEUTRAL_HOME:
        target = files / NEUTRAL_HOME.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            mine.rename(target)
            _prune_empty(mine.parent, files)  # the chain of folders that held the real home
    _rename_paths(files, login)
    for path in sorted(out.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if path == out / "user.json":
            data = json.loads(text)
            data["name"] = NEUTRAL_USER
            data["home"] = NEUTRAL_HOME
            for key in ("groups", "configured_groups"):
                data[key] = [NEUTRAL_USER if g == name else g for g in data.get(key) or []]
            _write_json(path, data)
            continue
        changed = public(text)
        if changed != text:
            path.write_text(changed, encoding="utf-8")


# Words that name parts of the system, not a person: a login that is one of them is left in
# paths (replacing it would break the replay of /opt/rocm for a user called rocm, and it gives
# nobody away).
_SYSTEM_WORDS = frozenset({
    "root", "user", "rocm", "amd", "amdgpu", "opt", "usr", "lib", "bin", "etc", "home", "share",
    "local", "var", "sys", "proc", "dev", "run", "tmp", "python", "python3", "torch", "pytorch",
    "venv", "conda", "docker", "ubuntu", "debian", "fedora", "arch", "admin", "test", "data",
})


def _login_in_paths(name: str) -> Callable[[str], str]:
    """What replaces the login ``name`` where it stands as a word inside a path
    (``/opt/alice-stuff`` -> ``/opt/user-stuff``); nothing for a short or a system word."""
    if len(name) < 3 or name.lower() in _SYSTEM_WORDS:
        return lambda text: text
    word = re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])")
    path = re.compile(r"/[^\s'\"]*")

    def scrub(text: str) -> str:
        return path.sub(lambda found: word.sub(NEUTRAL_USER, found.group(0)), text)

    return scrub


def _prune_empty(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents up to ``top`` while they are empty."""
    while folder != top and top in folder.parents and folder.is_dir() and \
            not folder.is_symlink() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _rename_paths(files: Path, public: Callable[[str], str]) -> None:
    """Files and folders of the snapshot whose machine path names the login: renamed as their
    text is (deepest first, so a folder's entries move with it)."""
    for path in sorted(files.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        machine = "/" + str(path.relative_to(files))
        renamed = public(machine)
        if renamed != machine and os.path.basename(renamed) != path.name:
            target = path.with_name(os.path.basename(renamed))
            if not target.exists() and not target.is_symlink():
                path.rename(target)


def write_snapshot(
    out: Path,
    run: Callable[..., Any],
    *,
    python: str | None = None,
    probe_torch: bool = True,
) -> RecordingSystem:
    """Run ``run`` (the doctor: ``run(system, python=, probe_torch=)``) against a recording of
    this machine and write the snapshot to ``out``."""
    recorder = RecordingSystem(out)
    run(recorder, python=python, probe_torch=probe_torch)
    recorder.finish()
    return recorder


def anonymise_text(text: str) -> str:
    for pattern, replacement in _SERIALS:
        text = pattern.sub(replacement, text)
    return text


def anonymise_file(path: str, data: bytes, user: str | None = None) -> bytes:
    if path.startswith("/sys/firmware/efi/"):
        return data
    text = data.decode("utf-8", errors="replace")
    if _SHELL_FILES.search(path):
        # Only what the probe found, rebuilt as NAME=value on its own line number: the rest of a
        # line (another command, a token, a password) never reaches the snapshot.
        found = {s.line: s for s in scan_file(path, text)}
        lines = shell_lines(text.removesuffix("\n"))
        text = (
            "\n".join(
                f"export {found[i].name}={_value_as_written(lines[i - 1], found[i].value)}"
                if i in found else ""
                for i in range(1, len(lines) + 1)
            )
            + "\n"
        )
    elif path == "/var/lib/dpkg/status":
        stanzas = text.split("\n\n")
        text = "\n\n".join(s for s in stanzas if _DPKG_KEEP.match(_package_name(s))) + "\n"
    elif path == "/proc/cmdline":
        # Only the module options the memory probe reads (ttm., amdttm., amdgpu.): root=,
        # cryptdevice=, resume= and the rest of the line never reach the snapshot (issue 35).
        text = " ".join(word for word in text.split()
                        if word.split(".", 1)[0] in WATCHED_MODULES and "." in word) + "\n"
    elif path.endswith("/.wslconfig"):
        # Only the [wsl2] section's memory= line: paths in it name the Windows user's folders.
        text = "".join(f"{line}\n" for line in text.splitlines()
                       if line.strip().lower().startswith(("[wsl2]", "memory")))
    elif path.endswith("/modules.dep"):  # a megabyte; the probe reads only amdgpu's line
        text = "".join(f"{line}\n" for line in text.splitlines() if "/amdgpu.ko" in
                       line.split(":", 1)[0] or line.startswith("amdgpu.ko"))
    if user:
        # Home folders of other people on the machine are not the user's to share.
        other = re.compile(rf"/home/(?!{re.escape(user)}(?:/|\b))[^/\s'\"]+")
        text = other.sub("/home/someone", text)
    return anonymise_text(text).encode("utf-8")


def _value_as_written(line: str, value: str) -> str:
    """The value of a recorded assignment as the line wrote it (``"$HOME/rocm"`` stays a
    reference a replay can follow), where that reads back as the same value and runs nothing;
    else the value quoted as a literal."""
    written = written_value(line)
    if written and "$" in written and "`" not in written and "$(" not in written \
            and first_word(written) == value:
        return written
    return shlex.quote(value)


def _package_name(stanza: str) -> str:
    for line in stanza.splitlines():
        if line.startswith("Package:"):
            return line.split(":", 1)[1].strip()
    return ""


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
