"""Faults injected for real into the set-up: the root helper (core/install/helper/), the runner
(core/install/runner.py) and the route to root (core/install/privilege.py). Each test injects its
fault, counts it in the ledger (area "set-up") and checks that the app survives it and loses
nothing:

* "helper killed at a step boundary": the real helper (chroot, as root) runs a four-step plan
  (keyring, source, pin, usermod) with its stdout a one-page pipe filled so far that it blocks
  writing the event of the chosen boundary; it is SIGKILLed there (at every boundary, before its
  first event and before its last one included). The plan run again ends in exactly the state of
  an uninterrupted run (apt's folders, the groups, the single-run lock, /tmp);
* "apt lock held by another process": another process holds dpkg's frontend lock or the lock of
  apt's lists for longer than the helper waits (its wait shortened to 4 s in the root's copy): the
  step ends in words naming the holder, the pin the run wrote is removed, dpkg's and apt's state
  are untouched;
* "full disk in the root": a full tmpfs (no bytes, or no inodes left) over one of apt's folders:
  the write fails in words, an old file there keeps its content, no temporary file is left, the
  run's other files are removed;
* "repository unreachable": apt-get update against a port where nothing listens, through the
  runner: one readable failure, no traceback, the run's files removed, nothing counted as done;
* "tampered Release": a repository served on 127.0.0.1 whose InRelease was changed after signing,
  or is signed by another key than the keyring's: apt refuses it, the runner says so in words;
* "password prompt dismissed": a pkexec stand-in that exits 126 (before or after reading the
  plan): the runner says "dismissed" in words, the helper never ran, no step ran or counts done;
* "two set-ups at once": two helpers (or a helper and the app's runner) on one root at the same
  time (both held while running): one runs, the other is refused by the single-run lock in words;
* "app closed during the root block": the runner's process is SIGKILLed while the helper waits in
  a step (--cancel-on-eof): the helper sees the end of its stdin, stops its apt-get and rolls
  back; the runner's log holds every event up to then, nothing counts as done, and a new run of
  the same plan completes.

Without root (or mmdebstrap) the chroot tests skip; the dismissed-prompt test runs anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import functools
import http.server
import itertools
import json
import os
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.cli import install as cli
from core.install.helper.lock import LOCK_PATH
from core.install.plan import FileSpec, Plan, Step
from core.install.privilege import CANCEL_ON_EOF, dismissed
from core.install.runner import Runner
from tests.faults.ledger import Ledger
from tests.install.support import (
    CHROOT_ENV,
    REPO_ROOT,
    STAND_IN,
    SUITE,
    TESTER,
    TRUSTED_FPR,
    TRUSTED_KEY,
    add_accounts_in_chroot,
    armor,
    chroot,
    command_step,
    copy_root,
    events,
    install_rocmate,
    install_stand_in,
    keyring_step,
    pin_content,
    pin_step,
    plan,
    processes_in,
    run_helper,
    snapshot,
    source_line,
    source_step,
    step_statuses,
)
from tests.install.test_helper_apt import (
    _build_deb,
    _build_repo,
    _gen_key,
    _QuietHandler,
    _tamper_release,
)
from tests.install.test_helper_lock import _busy

AREA = "set-up"
KILLED = "helper killed at a step boundary"
APT_LOCKED = "apt lock held by another process"
DISK_FULL = "full disk in the root"
UNREACHABLE = "repository unreachable"
TAMPERED = "tampered Release"
DISMISSED = "password prompt dismissed"
TWO_AT_ONCE = "two set-ups at once"
APP_CLOSED = "app closed during the root block"

KEYRING = "etc/apt/keyrings/rocm.gpg"
SOURCES = "etc/apt/sources.list.d/rocm.list"
PIN = "etc/apt/preferences.d/rocm-pin-600"
LOCK = LOCK_PATH.lstrip("/")
DPKG_LOCK = "var/lib/dpkg/lock-frontend"
LISTS_LOCK = "var/lib/apt/lists/lock"
NOWHERE = "http://127.0.0.1:9/"
"""The discard port: nothing listens there (checked before it is used)."""
SHORT_WAIT_S = 4
"""The helper's wait for apt's lock in the tests that outlast it (120 s as shipped)."""
HELPER = ("/usr/bin/python3", "-I", "-m", "core.install.helper")
WATCHED = ("etc/apt", "etc/group", "etc/gshadow", "etc/group-", "etc/gshadow-", LOCK, "tmp")
"""What a set-up may change (and /tmp, where nothing may be left behind)."""


# --------------------------------------------------------------------------------------------
# roots and the served repositories


@dataclass(frozen=True)
class Repos:
    """The served repositories (good, tampered-release, other-key) and the keyring's key."""

    base: str
    fingerprint: str
    armored: str

    def uri(self, name: str) -> str:
        return f"{self.base}{name}"


@pytest.fixture(scope="module")
def repos(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repos]:
    """One package, signed with a throwaway key: as built, changed after signing, and signed by
    a second key; served on 127.0.0.1."""
    work = tmp_path_factory.mktemp("fault-repos")
    home = work / "gnupg"
    home.mkdir(mode=0o700)
    fpr = _gen_key(home, "rocmate-fault-repo")
    other = _gen_key(home, "rocmate-fault-other")
    armored = subprocess.run(["gpg", "--batch", "--armor", "--export", fpr], check=True,
                             capture_output=True, env={"GNUPGHOME": str(home),
                                                       "PATH": "/usr/bin:/bin"}).stdout.decode()
    debs = [_build_deb(work)]
    www = work / "www"
    _build_repo(www / "good", debs, home, fpr)
    shutil.copytree(www / "good", www / "tampered-release")
    _tamper_release(www / "tampered-release")
    _build_repo(www / "other-key", debs, home, other)
    handler = functools.partial(_QuietHandler, directory=str(www))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Repos(f"http://127.0.0.1:{server.server_address[1]}/", fpr, armored)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def prepared(debian_root: Path, repos: Repos,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The Debian root with rocmate installed, trusting the synthetic and the repositories' key
    and allowing their URIs and the unreachable one; the user tester. Tests work on copies."""
    with copy_root(debian_root, tmp_path_factory.mktemp("faults") / "prepared") as root:
        install_rocmate(root, fingerprints=[TRUSTED_FPR, repos.fingerprint],
                        uri_prefixes=[NOWHERE, repos.base])
        add_accounts_in_chroot(root)
        install_stand_in(root)
        yield root


@pytest.fixture
def root(prepared: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of the prepared root for one test."""
    with copy_root(prepared, tmp_path / "copy") as copy:
        yield copy


def _state(root: Path) -> dict[str, tuple[int, int, int, bytes | str]]:
    """Mode, owner, group and content (a link's target) of everything under WATCHED."""
    found: dict[str, tuple[int, int, int, bytes | str]] = {}

    def add(path: Path) -> None:
        info = path.lstat()
        if path.is_symlink():
            content: bytes | str = os.readlink(path)
        elif path.is_file():
            content = path.read_bytes()
        else:
            content = ""
        found[str(path.relative_to(root))] = (info.st_mode, info.st_uid, info.st_gid, content)

    for name in WATCHED:
        base = root / name
        if not base.exists() and not base.is_symlink():
            continue
        add(base)
        if base.is_dir() and not base.is_symlink():
            for dirpath, dirnames, filenames in os.walk(base):
                for entry in (*dirnames, *filenames):
                    add(Path(dirpath) / entry)
    return found


def _files(root: Path, folders: tuple[str, ...]) -> dict[str, tuple[int, int, int, str]]:
    """:func:`snapshot` of the files only (apt may create its own empty folders, and a folder's
    time changes when a file of the run comes and goes)."""
    return {p: v for p, v in snapshot(root, folders).items() if not stat.S_ISDIR(v[0])}


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".rocmate-"))


def _assert_readable(text: object) -> None:
    """A message for a person: one line of words, no traceback."""
    assert isinstance(text, str) and text.strip(), text
    assert "\n" not in text and "Traceback" not in text, text


# --------------------------------------------------------------------------------------------
# a helper held at one of its events: its stdout is a one-page pipe, already nearly full


def _unread(fd: int) -> int:
    """Bytes waiting in a pipe."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


@dataclass
class Held:
    """A real helper whose stdout pipe (one page) holds all but ``free`` bytes of blank lines:
    it writes events until they fill it, then blocks in the write of the next one."""

    proc: subprocess.Popen[bytes]
    read_fd: int
    size: int

    @classmethod
    def start(cls, root: Path, payload: bytes, free: int) -> Held:
        read_fd, write_fd = os.pipe()
        try:
            size = fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 4096)
            assert free < size, (free, size)
            os.write(write_fd, b"\n" * (size - free))  # blank lines: events() skips them
            proc = subprocess.Popen(["chroot", str(root), *HELPER], stdin=subprocess.PIPE,
                                    stdout=write_fd, stderr=subprocess.PIPE, env=CHROOT_ENV,
                                    cwd=root / "opt/rocmate")
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        assert proc.stdin is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        return cls(proc, read_fd, size)

    def blocked(self, timeout: float = 60) -> int:
        """Wait until the helper is blocked writing to its full stdout; that write's size."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, f"the helper ended ({self.proc.returncode})"
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{self.proc.pid}/syscall").read_text().split()
                if fields[:2] == ["1", "0x1"] and _unread(self.read_fd) == self.size:
                    return int(fields[3], 16)  # write(1, buf, count): it cannot go on
            assert time.monotonic() < deadline, "the helper never blocked on its output"
            time.sleep(0.01)

    def drain(self) -> tuple[int, bytes, str]:
        """Let it go on: its whole output (blank lines removed), exit code and stderr."""
        chunks = []
        while chunk := os.read(self.read_fd, 65536):
            chunks.append(chunk)
        code = self.proc.wait(timeout=60)
        assert self.proc.stderr is not None
        return code, b"".join(chunks).lstrip(b"\n"), self.proc.stderr.read().decode()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.read_fd)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


# --------------------------------------------------------------------------------------------
# 1. the helper killed at every step boundary


STEP_IDS = ("apt-keyring", "apt-source", "apt-pin", "groups")
BOUNDARIES = ("before-the-plan-event", *(f"before-{s}" for s in STEP_IDS),
              "before-the-done-event")


def _four_steps() -> bytes:
    return plan(
        keyring_step(TRUSTED_KEY, TRUSTED_FPR),
        source_step(source_line(NOWHERE)),
        pin_step(),
        command_step("groups", "usermod", "-aG", "render,video", TESTER, after="relogin"),
    )


@pytest.fixture(scope="module")
def uninterrupted(prepared: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[dict[str, Any], list[bytes]]:
    """The end state of the four steps run once without a fault, and the helper's output lines."""
    with copy_root(prepared, tmp_path_factory.mktemp("uninterrupted") / "copy") as root:
        run = run_helper(root, _four_steps())
        assert run.code == 0 and run.stderr == "", run.stdout + run.stderr
        assert step_statuses(run.events) == dict.fromkeys(STEP_IDS, "done")
        return _state(root), run.stdout.encode().splitlines(keepends=True)


def _boundary(lines: list[bytes], name: str) -> int:
    """The index of the event the helper writes at that boundary (nothing of it is done yet)."""
    for index, raw in enumerate(lines):
        event = json.loads(raw)
        if ((event["event"] == "plan" and name == "before-the-plan-event")
                or (event["event"] == "done" and name == "before-the-done-event")
                or (event.get("status") == "start" and name == f"before-{event['id']}")):
            return index
    raise AssertionError(f"no boundary {name}")


@pytest.mark.root
@pytest.mark.parametrize("boundary", BOUNDARIES)
def test_helper_killed_at_a_step_boundary(
    boundary: str, root: Path, uninterrupted: tuple[dict[str, Any], list[bytes]],
    ledger: Ledger,
) -> None:
    expected, lines = uninterrupted
    at = _boundary(lines, boundary)
    written = b"".join(lines[:at])
    held = Held.start(root, _four_steps(), free=len(written))
    try:
        assert held.blocked() == len(lines[at])  # in the write of exactly that event
        os.kill(held.proc.pid, signal.SIGKILL)
        held.proc.wait(timeout=30)  # dead before its pipe has room: the write never happens
        code, output, stderr = held.drain()
    finally:
        held.close()
    assert code == -signal.SIGKILL
    ledger.inject(KILLED, AREA)
    assert output == written and stderr == ""  # it got exactly that far
    finished = {e["id"] for e in events(written) if e.get("status") == "done"}

    again = run_helper(root, _four_steps())
    assert again.code == 0 and again.stderr == "", again.stdout + again.stderr
    assert again.events[-1] == {"event": "done", "ok": True, "error": None}
    assert step_statuses(again.events) == {
        s: "unchanged" if s in finished else "done" for s in STEP_IDS
    }
    state = _state(root)
    missing = sorted(p for p in expected if state.get(p) != expected[p])
    if missing:
        ledger.lost(KILLED, f"killed {boundary}, then run again: {missing} not as after an "
                            "uninterrupted run")
    assert state == expected  # nor anything more (a temporary file, a stale pid)


# --------------------------------------------------------------------------------------------
# 2. apt's lock held by another process for longer than the helper waits


@contextlib.contextmanager
def _apt_lock_holder(root: Path, lock_file: str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding one of apt's locks of ``root`` (an fcntl lock, as apt takes it)
    until its stdin is closed."""
    script = ("import fcntl, os, sys\n"
              "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o640)\n"
              "fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
              "print('held', flush=True)\n"
              "sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-I", "-c", script, str(root / lock_file)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        yield proc
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)


def _shorten_apt_wait(root: Path, seconds: int) -> None:
    """The root's copy of the helper waits ``seconds`` for apt's lock instead of 120."""
    main = root / "opt/rocmate/core/install/helper/main.py"
    text = main.read_text()
    shorter = text.replace("\nAPT_LOCK_WAIT_S = 120\n", f"\nAPT_LOCK_WAIT_S = {seconds}\n")
    assert shorter != text, "APT_LOCK_WAIT_S is no longer 120 in the helper"
    main.write_text(shorter)
    chroot(root, "python3", "-m", "compileall", "-q", "/opt/rocmate/core/install/helper")


APT_STEPS = {
    "apt-install": ("apt-get", "install", "-y", STAND_IN),
    "apt-update": ("apt-get", "update"),
}


@pytest.mark.root
@pytest.mark.slow
@pytest.mark.parametrize(("step_id", "lock_file"),
                         [("apt-install", DPKG_LOCK), ("apt-update", LISTS_LOCK)])
def test_apt_lock_held_by_another_process(
    step_id: str, lock_file: str, root: Path, ledger: Ledger
) -> None:
    _shorten_apt_wait(root, SHORT_WAIT_S)
    watched = ("etc/apt", "var/lib/dpkg", "var/lib/apt/lists")
    with _apt_lock_holder(root, lock_file) as holder:
        ledger.inject(APT_LOCKED, AREA)
        before = _files(root, watched)
        start = time.monotonic()
        run = run_helper(root, plan(pin_step(), command_step(step_id, *APT_STEPS[step_id])),
                         timeout=90)
        took = time.monotonic() - start
        after = _files(root, watched)
    assert run.code == 1 and run.stderr == "", run.stdout + run.stderr
    assert took < SHORT_WAIT_S + 20
    done = run.events[-1]
    _assert_readable(done["error"])
    verb = APT_STEPS[step_id][1]
    assert re.fullmatch(
        rf"step {step_id} failed: apt-get {verb} failed: another package manager is running "
        rf"\(process {holder.pid}( \([^)]+\))? holds /{lock_file}\) and did not finish within "
        rf"{SHORT_WAIT_S} s; wait for it to finish, then try again; undone: removed /{PIN}",
        done["error"]), done["error"]
    assert step_statuses(run.events) == {"apt-pin": "done", step_id: "failed"}
    lost = sorted(p for p in before if after.get(p) != before[p])
    if lost:
        ledger.lost(APT_LOCKED, f"changed while apt's lock was held: {lost}")
    assert not (root / PIN).exists()
    assert after == before
    assert processes_in(root) == {}


# --------------------------------------------------------------------------------------------
# 3. a full disk under apt's folders


@contextlib.contextmanager
def _full_tmpfs(folder: Path, what: str, old: dict[str, str]) -> Iterator[None]:
    """A small tmpfs over ``folder`` holding the files ``old``, then filled up: no byte
    ("space") or no inode ("inodes") left. Skips where a tmpfs cannot be mounted."""
    options = "size=1m,nr_inodes=64,mode=0755" if what == "inodes" else "size=16k,mode=0755"
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "rocmate-full", str(folder)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here: {mounted.stderr.strip()}")
    try:
        for name, text in old.items():
            (folder / name).write_text(text)
            (folder / name).chmod(0o644)
        _fill(folder, what)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=False, capture_output=True)
        if os.path.ismount(folder):
            subprocess.run(["umount", "--lazy", str(folder)], check=False)


def _fill(folder: Path, what: str) -> None:
    """Fill the file system of ``folder`` until it says ENOSPC (and make sure it does)."""
    try:
        if what == "inodes":
            for number in itertools.count():
                (folder / f"zz-filler-{number}").touch()
        with open(folder / "zz-filler", "ab", buffering=0) as filler:
            for size in (4096, 1):
                with contextlib.suppress(OSError):
                    while True:
                        filler.write(b"\0" * size)
        (folder / "zz-probe").write_bytes(b"x" * 64)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
        return
    raise AssertionError(f"{folder} is not full")


@pytest.mark.root
@pytest.mark.parametrize(
    ("folder", "what", "old"),
    [
        ("etc/apt/preferences.d", "space", True),
        ("etc/apt/preferences.d", "inodes", True),
        ("etc/apt/sources.list.d", "space", False),
    ],
    ids=["no-space-over-an-old-pin", "no-inode-over-an-old-pin", "no-space-new-source"],
)
def test_full_disk_in_the_root(
    folder: str, what: str, old: bool, root: Path, ledger: Ledger
) -> None:
    old_pin = pin_content(priority=500)
    files = {"rocm-pin-600": old_pin} if old else {}
    payload = plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR), source_step(source_line(NOWHERE)),
                   pin_step())
    failing = {"etc/apt/preferences.d": ("apt-pin", PIN), "etc/apt/sources.list.d":
               ("apt-source", SOURCES)}[folder]
    with _full_tmpfs(root / folder, what, files):
        ledger.inject(DISK_FULL, AREA)
        listing = sorted(os.listdir(root / folder))
        run = run_helper(root, payload)
        after_listing = sorted(os.listdir(root / folder))
        kept = (root / PIN).read_text() if old else None
        temps = _temps(root / folder)
    assert run.code == 1 and run.stderr == "", run.stdout + run.stderr
    done = run.events[-1]
    _assert_readable(done["error"])
    step_id, path = failing
    assert done["failed_step"] == step_id
    assert done["error"].startswith(
        f"step {step_id} failed: cannot write /{path}: No space left on device; undone: ")
    rolled = {f"removed /{KEYRING}"} | ({f"removed /{SOURCES}"} if step_id == "apt-pin" else set())
    assert set(done["rolled_back"]) == rolled
    if old and kept != old_pin:
        ledger.lost(DISK_FULL, f"/{PIN} held {kept!r} after the failed write, not its old content")
    assert temps == [] and after_listing == listing  # nothing half-written, nothing left
    assert not (root / KEYRING).exists() and not (root / SOURCES).exists()


# --------------------------------------------------------------------------------------------
# through the runner: the app's side of a failing privileged block


def _file_step(step_id: str, path: str, content: str, fpr: str | None = None) -> Step:
    return Step(step_id, f"Step {step_id}", "Test step.", privileged=True, kind="file",
                file=FileSpec(path, content=content), key_fingerprint=fpr)


def _command(step_id: str, *argv: str) -> Step:
    return Step(step_id, f"Step {step_id}", "Test step.", privileged=True, argv=argv)


def _apt_plan(uri: str, armored: str, fpr: str) -> Plan:
    """Keyring, source, pin, apt-get update: the rocm-apt plan's first steps."""
    return Plan(strategy="rocm-apt", rocm="6.2", torch_index=None, steps=(
        _file_step("apt-keyring", "/" + KEYRING, armored, fpr),
        _file_step("apt-source", "/" + SOURCES, source_line(uri)),
        _file_step("apt-pin", "/" + PIN, pin_content()),
        _command("apt-update", "apt-get", "update"),
    ))


def _helper_argv(root: Path) -> list[str]:
    """How the runner starts the real helper in ``root`` (as the route does: --cancel-on-eof)."""
    return [shutil.which("chroot") or "/usr/sbin/chroot", str(root), *HELPER, CANCEL_ON_EOF]


def _run_app(plan_: Plan, folder: Path,
             helper_argv: list[str]) -> tuple[bool, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    ok = asyncio.run(Runner(plan_, seen.append, helper_argv, folder=folder).run())
    return ok, seen


def _assert_failed_in_words(ok: bool, seen: list[dict[str, Any]], folder: Path) -> str:
    """The runner's run failed, ended in one readable message, and counts nothing as done."""
    assert ok is False
    last = seen[-1]
    assert last["event"] == "done" and last["ok"] is False, last
    _assert_readable(last["error"])
    assert not any("Traceback" in json.dumps(e) for e in seen)
    assert not (folder / "state.json").exists()  # nothing counts as done: a resume redoes all
    logged = [json.loads(line) for line in (folder / "install.log").read_text().splitlines()]
    assert logged == seen
    return str(last["error"])


def _assert_rolled_back(root: Path, error: str) -> None:
    for path in (KEYRING, SOURCES, PIN):
        assert not (root / path).exists(), path
        assert f"removed /{path}" in error


# --------------------------------------------------------------------------------------------
# 4. the repository cannot be reached


@pytest.mark.root
@pytest.mark.slow
def test_repository_unreachable(root: Path, tmp_path: Path, ledger: Ledger) -> None:
    with socket.socket() as probe, contextlib.suppress(ConnectionRefusedError):
        probe.connect(("127.0.0.1", 9))
        pytest.skip("something listens on 127.0.0.1:9 here")
    ledger.inject(UNREACHABLE, AREA)
    folder = tmp_path / "state"
    ok, seen = _run_app(_apt_plan(NOWHERE, armor(TRUSTED_KEY), TRUSTED_FPR), folder,
                        _helper_argv(root))
    error = _assert_failed_in_words(ok, seen, folder)
    assert seen[-1]["exit"] == 1
    assert error.startswith("step apt-update failed: apt-get update failed: ")
    assert "Could not connect to 127.0.0.1:9" in error
    _assert_rolled_back(root, error)


# --------------------------------------------------------------------------------------------
# 5. a Release file whose signature does not match


@pytest.mark.root
@pytest.mark.slow
def test_the_untampered_repository_works(root: Path, repos: Repos, tmp_path: Path) -> None:
    """The control: the same plan against the repository as signed goes through."""
    ok, seen = _run_app(_apt_plan(repos.uri("good"), repos.armored, repos.fingerprint),
                        tmp_path / "state", _helper_argv(root))
    assert ok is True, seen[-3:]
    assert (root / PIN).read_text() == pin_content()


@pytest.mark.root
@pytest.mark.slow
@pytest.mark.parametrize(("name", "cause"),
                         [("tampered-release", "BADSIG"), ("other-key", "NO_PUBKEY")],
                         ids=["changed-after-signing", "signed-by-another-key"])
def test_tampered_release(name: str, cause: str, root: Path, repos: Repos, tmp_path: Path,
                          ledger: Ledger) -> None:
    with urllib.request.urlopen(f"{repos.uri(name)}/dists/{SUITE}/InRelease", timeout=10) as got:
        served = got.read()
    with urllib.request.urlopen(f"{repos.uri('good')}/dists/{SUITE}/InRelease", timeout=10) as got:
        signed = got.read()
    assert served != signed and b"BEGIN PGP SIGNATURE" in served  # the fault is what is served
    ledger.inject(TAMPERED, AREA)
    folder = tmp_path / "state"
    ok, seen = _run_app(_apt_plan(repos.uri(name), repos.armored, repos.fingerprint), folder,
                        _helper_argv(root))
    error = _assert_failed_in_words(ok, seen, folder)
    assert error.startswith("step apt-update failed: apt-get update failed: W: GPG error: ")
    assert cause in error
    _assert_rolled_back(root, error)
    assert not list((root / "var/lib/apt/lists").glob("127.0.0.1*"))  # apt kept none of it


# --------------------------------------------------------------------------------------------
# 6. the password prompt dismissed (pkexec's 126)


@pytest.mark.parametrize("reads_plan", [False, True], ids=["at-once", "after-the-plan"])
def test_password_prompt_dismissed(
    reads_plan: bool, tmp_path: Path, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    pkexec = tmp_path / "bin/pkexec"
    pkexec.parent.mkdir()
    asked, record = tmp_path / "asked", tmp_path / "plan-seen"
    pkexec.write_text("#!/bin/sh\n"
                      f": > '{asked}'\n"
                      + (f"head -n 1 > '{record}'\n" if reads_plan else "")
                      + "exit 126\n")
    pkexec.chmod(0o755)
    user_file = tmp_path / "home/user-step"
    steps = (_file_step("apt-pin", "/" + PIN, pin_content()),
             Step("user-file", "A user step", "x", kind="file",
                  file=FileSpec(str(user_file), content="ran\n")))
    folder = tmp_path / "state"
    ok, seen = _run_app(Plan(strategy="rocm-apt", rocm="6.2", torch_index=None, steps=steps),
                        folder, [str(pkexec), sys.executable, *HELPER[1:], CANCEL_ON_EOF])
    assert asked.exists()  # the stand-in ran, and exited 126
    ledger.inject(DISMISSED, AREA)
    error = _assert_failed_in_words(ok, seen, folder)
    assert error == dismissed()
    assert seen[-1]["exit"] == 126
    if reads_plan:
        assert json.loads(record.read_text())["steps"][0]["id"] == "apt-pin"
    assert not any(e.get("via") == "helper" for e in seen)  # the helper never ran
    assert not user_file.exists()
    assert [e["event"] for e in seen] == ["plan", "privileged", "done"]
    capsys.readouterr()
    cli._print_event(seen[-1])
    assert capsys.readouterr().out == f"Stopped: {dismissed()}\n"


# --------------------------------------------------------------------------------------------
# 7. two set-ups at once


@pytest.mark.root
def test_two_helpers_at_once(root: Path, ledger: Ledger) -> None:
    """Both started together, both held at their first event (the one that took the lock is at
    its plan event, holding it): one runs, the other was refused."""
    payload = plan(pin_step())
    both: list[Held] = []
    try:
        both.extend(Held.start(root, payload, free=0) for _ in range(2))
        for held in both:
            held.blocked()
        ledger.inject(TWO_AT_ONCE, AREA)
        ends = [held.drain() for held in both]
    finally:
        for held in both:
            held.close()
    assert sorted(code for code, _, _ in ends) == [0, 1], ends
    assert all(stderr == "" for _, _, stderr in ends)
    winner = next(i for i, (code, _, _) in enumerate(ends) if code == 0)
    refused = events(ends[1 - winner][1])
    assert refused == [{"event": "done", "ok": False, "error": _busy(both[winner].proc.pid)}]
    ran = events(ends[winner][1])
    assert ran[-1] == {"event": "done", "ok": True, "error": None}
    assert step_statuses(ran) == {"apt-pin": "done"}
    assert (root / PIN).read_text() == pin_content()
    assert (root / LOCK).read_text() == ""


@pytest.mark.root
def test_the_app_while_a_helper_runs(root: Path, tmp_path: Path, ledger: Ledger) -> None:
    """A helper holds the lock (held at its plan event) while the app's runner starts another
    set-up: the app says in words that one is running; the first finishes undisturbed."""
    held = Held.start(root, plan(pin_step()), free=0)
    try:
        held.blocked()
        ledger.inject(TWO_AT_ONCE, AREA)
        folder = tmp_path / "state"
        ok, seen = _run_app(
            Plan(strategy="rocm-apt", rocm="6.2", torch_index=None,
                 steps=(_file_step("apt-keyring", "/" + KEYRING, armor(TRUSTED_KEY), TRUSTED_FPR),
                        _file_step("apt-source", "/" + SOURCES, source_line(NOWHERE)))),
            folder, _helper_argv(root))
        code, output, stderr = held.drain()
    finally:
        held.close()
    error = _assert_failed_in_words(ok, seen, folder)
    assert error == _busy(held.proc.pid) and seen[-1]["exit"] == 1
    assert code == 0 and stderr == ""
    assert step_statuses(events(output)) == {"apt-pin": "done"}
    assert (root / PIN).read_text() == pin_content()
    assert not (root / KEYRING).exists() and not (root / SOURCES).exists()  # refused: nothing


# --------------------------------------------------------------------------------------------
# 8. the app closed while the helper runs a step


DRIVER = """\
import asyncio, json, sys
from pathlib import Path
cfg = json.loads(sys.argv[1])
sys.path.insert(0, cfg["repo"])
from core.install.plan import FileSpec, Plan, Step
from core.install.runner import Runner


def step(data):
    spec, argv = data.pop("file", None), data.pop("argv", None)
    return Step(**data, argv=tuple(argv) if argv else None,
                file=FileSpec(**spec) if spec else None)


plan = Plan(strategy="rocm-apt", rocm="6.2", torch_index=None,
            steps=tuple(step(s) for s in cfg["steps"]))
runner = Runner(plan, lambda e: print(json.dumps(e), flush=True), cfg["helper"],
                folder=Path(cfg["state"]))
sys.exit(0 if asyncio.run(runner.run()) else 1)
"""


def _block_plan(step_id: str) -> Plan:
    return Plan(strategy="rocm-apt", rocm="6.2", torch_index=None, steps=(
        _file_step("apt-pin", "/" + PIN, pin_content()), _command(step_id, *APT_STEPS[step_id])))


@pytest.mark.root
@pytest.mark.slow
@pytest.mark.parametrize(("step_id", "lock_file", "waiting"), [
    ("apt-install", DPKG_LOCK, "Waiting for cache lock"),
    ("apt-update", LISTS_LOCK, "Waiting for apt's lock"),
])
def test_app_closed_during_the_root_block(
    step_id: str, lock_file: str, waiting: str, root: Path, tmp_path: Path, ledger: Ledger
) -> None:
    """The runner's process (the app) is killed while the helper waits in ``step_id`` for apt's
    lock, which another process holds for as long as this test likes."""
    folder = tmp_path / "state"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    the_plan = _block_plan(step_id)
    config = {"repo": str(REPO_ROOT), "helper": _helper_argv(root), "state": str(folder),
              "steps": [s.to_json() for s in the_plan.steps]}
    with _apt_lock_holder(root, lock_file):
        dpkg_before = _files(root, ("var/lib/dpkg", "var/lib/apt/lists"))
        app = subprocess.Popen([sys.executable, str(script), json.dumps(config)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert app.stdout is not None
            for line in app.stdout:
                event = json.loads(line)
                if event["event"] == "output" and waiting in event.get("line", ""):
                    break
            else:
                raise AssertionError(f"the helper never waited: {app.communicate()}")
            assert (root / PIN).read_text() == pin_content()  # the first step is done
            os.kill(app.pid, signal.SIGKILL)
            assert app.wait(timeout=30) == -signal.SIGKILL
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
            app.communicate()
        ledger.inject(APP_CLOSED, AREA)
        deadline = time.monotonic() + 20
        while processes_in(root):  # the helper stops while the lock is still held
            assert time.monotonic() < deadline, processes_in(root)
            time.sleep(0.1)
        dpkg_after = _files(root, ("var/lib/dpkg", "var/lib/apt/lists"))
    assert not (root / PIN).exists()  # rolled back
    assert _temps(root / "etc/apt/preferences.d") == []
    assert (root / LOCK).read_text() == ""  # let go by the helper itself, not by its death
    assert dpkg_after == dpkg_before
    logged = [json.loads(line) for line in (folder / "install.log").read_text().splitlines()]
    relayed = [(e["id"], e["status"]) for e in logged
               if e.get("via") == "helper" and e["event"] == "step"]
    assert relayed == [("apt-pin", "start"), ("apt-pin", "done"), (step_id, "start")]
    assert not (folder / "state.json").exists()  # nothing counts as done
    ok, seen = _run_app(the_plan, folder, _helper_argv(root))  # the user runs it again
    if not ok or (root / PIN).read_text() != pin_content():
        ledger.lost(APP_CLOSED, f"the set-up did not complete afterwards: {seen[-1]}")
    state = json.loads((folder / "state.json").read_text())
    assert sorted(state["done"]) == sorted(["apt-pin", step_id])
