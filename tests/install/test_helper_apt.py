"""The privileged helper for real: as root, in a throwaway Debian root (mmdebstrap), against a
local apt repository this test builds, signs with its own throwaway key and serves on 127.0.0.1.

* the whole plan (keyring, source line, pin, apt-get update, apt-get install, usermod) works;
* the same plan again changes nothing;
* a wrong or untrusted key fingerprint is refused and nothing is written;
* a tampered repository makes apt-get update fail, and the key, source and pin that run wrote
  are removed again;
* an install that would need another package removed stops and removes nothing (--no-remove);
* while another package manager holds apt's lock, apt-get install waits for it
  (DPkg::Lock::Timeout) and the helper runs apt-get update again until the lists are free; a lock
  that is not let go ends in a message naming the process that holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import itertools
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.install.helper import main as helper
from core.install.helper.exec import ChildResult
from tests.install.support import (
    CHROOT_ENV,
    STAND_IN,
    SUITE,
    TESTER,
    HelperRun,
    add_accounts_in_chroot,
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
    run_helper,
    snapshot,
    source_line,
    source_step,
    step_statuses,
)

pytestmark = [pytest.mark.root, pytest.mark.slow]

PACKAGE = "rocm-hip-runtime"  # a name plans install (the helper's allow-list holds only those)
VERSION = "6.2.0.60200-66~22.04"
BREAKER = "rocminfo"  # on the install allow-list, and (here) conflicts with an installed package
BREAKER_CONFLICTS = "ca-certificates"
VERSION_FILE = "opt/rocm-6.2.0/.info/version"
KEYRING = "etc/apt/keyrings/rocm.gpg"
SOURCES = "etc/apt/sources.list.d/rocm.list"
PIN = "etc/apt/preferences.d/rocm-pin-600"
REPOS = ("good", "tampered-packages", "tampered-release")


# --------------------------------------------------------------------------------------------
# the signed test repository


@dataclass(frozen=True)
class SignedRepo:
    """The served repository: base URL, the signing key and an unrelated second key."""

    base: str
    fingerprint: str
    armored: str
    binary: bytes
    other_fingerprint: str
    other_armored: str

    def uri(self, name: str) -> str:
        return f"{self.base}{name}"


def _run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, check=True, capture_output=True, timeout=120, **kwargs)


def _gen_key(home: Path, name: str) -> str:
    """A throwaway Ed25519 signing key in GNUPGHOME ``home``; its fingerprint."""
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    _run(["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", "",
          "--quick-gen-key", f"{name} <{name}@example.invalid>", "ed25519", "sign", "never"],
         env=env)
    out = _run(["gpg", "--batch", "--with-colons", "--list-keys", f"{name}@example.invalid"],
               env=env).stdout.decode()
    return next(line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:"))


def _build_deb(work: Path, name: str = PACKAGE, version: str = VERSION,
               extra: str = "") -> Path:
    """A tiny stand-in for one of AMD's packages (rocm-hip-runtime): one file under
    /opt/rocm-6.2.0 (``extra``: more control fields)."""
    pkg = work / f"pkg-{name}"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "DEBIAN/control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: amd64\n"
        f"Maintainer: rocmate tests <tests@example.invalid>\n{extra}"
        f"Description: test stand-in for AMD's {name}\n"
    )
    info = pkg / VERSION_FILE
    info.parent.mkdir(parents=True)
    info.write_text("6.2.0-66\n")
    deb = work / f"{name}_{version}_amd64.deb"
    _run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(pkg), str(deb)])
    return deb


def _build_repo(repo: Path, debs: list[Path], home: Path, fpr: str) -> None:
    """pool/ + dists/SUITE/{Release,InRelease,Release.gpg} signed with ``fpr``."""
    pool = repo / "pool/main"
    pool.mkdir(parents=True)
    for deb in debs:
        shutil.copy(deb, pool)
    binary = repo / f"dists/{SUITE}/main/binary-amd64"
    binary.mkdir(parents=True)
    packages = _run(["apt-ftparchive", "packages", "pool"], cwd=repo).stdout
    (binary / "Packages").write_bytes(packages)
    release = _run(
        ["apt-ftparchive", "-o", "APT::FTPArchive::Release::Origin=repo.radeon.com",
         "-o", f"APT::FTPArchive::Release::Suite={SUITE}",
         "-o", f"APT::FTPArchive::Release::Codename={SUITE}",
         "-o", "APT::FTPArchive::Release::Architectures=amd64",
         "-o", "APT::FTPArchive::Release::Components=main", "release", f"dists/{SUITE}"],
        cwd=repo,
    ).stdout
    dists = repo / "dists" / SUITE
    (dists / "Release").write_bytes(release)
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    sign = ["gpg", "--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", "",
            "--local-user", fpr, "--digest-algo", "SHA512"]
    _run([*sign, "--clearsign", "-o", str(dists / "InRelease"), str(dists / "Release")], env=env)
    _run([*sign, "--armor", "--detach-sign", "-o", str(dists / "Release.gpg"),
          str(dists / "Release")], env=env)


def _tamper_packages(repo: Path) -> None:
    """Change the package index after signing: its hash no longer matches the Release file."""
    index = repo / f"dists/{SUITE}/main/binary-amd64/Packages"
    index.write_bytes(index.read_bytes().replace(b"test stand-in", b"evil stand-in"))


def _tamper_release(repo: Path) -> None:
    """Change the signed Release text itself: the signature no longer verifies."""
    for name in ("InRelease", "Release"):
        path = repo / f"dists/{SUITE}" / name
        path.write_bytes(path.read_bytes().replace(b"Codename: jammy", b"Codename: jammz"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def test_repo(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SignedRepo]:
    """Build, sign and serve the repositories (good and two tampered copies) on 127.0.0.1."""
    work = tmp_path_factory.mktemp("apt-repo")
    home = work / "gnupg"
    home.mkdir(mode=0o700)
    fpr = _gen_key(home, "rocmate-test-repo")
    other = _gen_key(home, "rocmate-other")
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    armored = _run(["gpg", "--batch", "--armor", "--export", fpr], env=env).stdout.decode()
    binary = _run(["gpg", "--batch", "--export", fpr], env=env).stdout
    other_armored = _run(["gpg", "--batch", "--armor", "--export", other], env=env).stdout
    debs = [
        _build_deb(work),
        _build_deb(work, BREAKER, "1.0", f"Conflicts: {BREAKER_CONFLICTS}\n"),
    ]
    served = work / "www"
    _build_repo(served / "good", debs, home, fpr)
    shutil.copytree(served / "good", served / "tampered-packages")
    _tamper_packages(served / "tampered-packages")
    shutil.copytree(served / "good", served / "tampered-release")
    _tamper_release(served / "tampered-release")
    handler = functools.partial(_QuietHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield SignedRepo(
            base=f"http://127.0.0.1:{server.server_address[1]}/",
            fingerprint=fpr, armored=armored, binary=binary,
            other_fingerprint=other, other_armored=other_armored.decode(),
        )
    finally:
        server.shutdown()
        server.server_close()


def _prepare(root: Path, repo: SignedRepo) -> None:
    """rocmate in /opt/rocmate trusting the test key and URI; the user tester and groups."""
    install_rocmate(root, fingerprints=[repo.fingerprint], uri_prefixes=[repo.base])
    add_accounts_in_chroot(root)


def _full_plan(repo: SignedRepo, name: str = "good", fpr: str | None = None,
               key: str | None = None) -> bytes:
    return plan(
        keyring_step(key if key is not None else repo.armored, fpr or repo.fingerprint),
        source_step(source_line(repo.uri(name))),
        pin_step(),
        command_step("apt-update", "apt-get", "update"),
        command_step("apt-install", "apt-get", "install", "-y", "--no-install-recommends",
                     PACKAGE),
        command_step("groups", "usermod", "-aG", "render,video", TESTER, after="relogin"),
    )


def _group_members(root: Path, group: str) -> list[str]:
    for line in (root / "etc/group").read_text().splitlines():
        parts = line.split(":")
        if parts[0] == group:
            return [m for m in parts[3].split(",") if m]
    return []


def _done(run: HelperRun) -> dict[str, Any]:
    assert run.events, run.stderr
    last = run.events[-1]
    assert last["event"] == "done", run.stdout
    return last


# --------------------------------------------------------------------------------------------
# success, then the same plan again


@pytest.fixture(scope="module")
def installed_root(
    debian_root: Path, test_repo: SignedRepo, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, HelperRun]]:
    """One root on which the full plan ran once (module-scoped: the second run reuses it)."""
    with copy_root(debian_root, tmp_path_factory.mktemp("installed") / "copy") as root:
        _prepare(root, test_repo)
        run = run_helper(root, _full_plan(test_repo))
        yield root, run


def test_full_plan_installs_from_the_signed_repository(
    installed_root: tuple[Path, HelperRun], test_repo: SignedRepo
) -> None:
    root, run = installed_root
    done = _done(run)
    assert run.code == 0 and done["ok"] is True, run.stdout + run.stderr
    assert step_statuses(run.events) == {
        "apt-keyring": "done", "apt-source": "done", "apt-pin": "done",
        "apt-update": "done", "apt-install": "done", "groups": "done",
    }
    keyring = root / KEYRING
    assert keyring.read_bytes() == test_repo.binary  # dearmored, exactly gpg's export
    assert keyring.stat().st_mode & 0o777 == 0o644 and keyring.stat().st_uid == 0
    assert (root / SOURCES).read_text() == source_line(test_repo.uri("good"))
    assert (root / PIN).read_text() == pin_content()
    assert (root / VERSION_FILE).read_text() == "6.2.0-66\n"
    query = chroot(root, "dpkg-query", "-W", "-f", "${Package} ${Version} ${Status}", PACKAGE)
    assert query.stdout == f"{PACKAGE} {VERSION} install ok installed"
    assert TESTER in _group_members(root, "render")
    assert TESTER in _group_members(root, "video")
    kinds = {e["event"] for e in run.events}
    assert {"plan", "step", "output", "progress", "done"} <= kinds
    progress = [e for e in run.events if e["event"] == "progress"]
    assert all(0 <= e["percent"] <= 100 and e["id"] for e in progress)
    assert any(e["id"] == "apt-install" and e["phase"] == "install" for e in progress)
    repeated = [(a, b) for a, b in itertools.pairwise(progress) if a == b]
    assert not repeated, "apt's repeated status lines are passed on once"


def test_same_plan_again_changes_nothing(
    installed_root: tuple[Path, HelperRun], test_repo: SignedRepo
) -> None:
    root, first = installed_root
    assert first.code == 0
    watched = ("etc/apt/keyrings", "etc/apt/sources.list.d", "etc/apt/preferences.d")
    before = snapshot(root, watched)
    group_before = (root / "etc/group").read_bytes()
    run = run_helper(root, _full_plan(test_repo))
    done = _done(run)
    assert run.code == 0 and done["ok"] is True, run.stdout + run.stderr
    statuses = step_statuses(run.events)
    assert statuses == {
        "apt-keyring": "unchanged", "apt-source": "unchanged", "apt-pin": "unchanged",
        "apt-update": "done", "apt-install": "unchanged", "groups": "unchanged",
    }
    assert snapshot(root, watched) == before
    assert (root / "etc/group").read_bytes() == group_before


# --------------------------------------------------------------------------------------------
# refused keys: nothing written


@pytest.mark.parametrize("case", ["fingerprint-mismatch", "untrusted-key"])
def test_wrong_fingerprint_is_refused_and_nothing_written(
    case: str, root_copy: Path, test_repo: SignedRepo
) -> None:
    _prepare(root_copy, test_repo)
    if case == "fingerprint-mismatch":
        # The step claims AMD's (trusted) fingerprint, but the key is another one.
        payload = _full_plan(test_repo, fpr="CA8BB4727A47B4D09B4EE8969386B48A1A693C5C")
        reason = "is not the step's key_fingerprint"
    else:
        # A well-formed key with its own fingerprint, which rocm.toml does not trust.
        payload = _full_plan(test_repo, fpr=test_repo.other_fingerprint,
                             key=test_repo.other_armored)
        reason = "is not trusted"
    watched = ("etc/apt", "etc/group", "var/lib/dpkg")
    before = snapshot(root_copy, watched)
    check = run_helper(root_copy, payload, "--check")
    assert check.code == 2, check.stdout + check.stderr
    assert reason in check.stdout
    run = run_helper(root_copy, payload)
    assert run.code == 2
    assert run.events[0]["event"] == "refused" and reason in run.events[0]["refused"][0]["reason"]
    assert _done(run)["ok"] is False
    assert not any(e["event"] == "step" for e in run.events)
    assert not (root_copy / KEYRING).exists() and not (root_copy / SOURCES).exists()
    assert not (root_copy / PIN).exists()
    assert snapshot(root_copy, watched) == before


# --------------------------------------------------------------------------------------------
# a tampered repository: apt-get update fails, the run's files are removed again


@pytest.mark.parametrize("name", ["tampered-packages", "tampered-release"])
def test_tampered_repository_rolls_back(name: str, root_copy: Path, test_repo: SignedRepo) -> None:
    _prepare(root_copy, test_repo)
    assert run_helper(root_copy, _full_plan(test_repo, name), "--check").code == 0
    run = run_helper(root_copy, _full_plan(test_repo, name))
    done = _done(run)
    assert run.code == 1 and done["ok"] is False, run.stdout
    statuses = step_statuses(run.events)
    assert statuses["apt-keyring"] == statuses["apt-source"] == statuses["apt-pin"] == "done"
    assert statuses["apt-update"] == "failed"
    assert "apt-install" not in statuses and "groups" not in statuses
    assert done["failed_step"] == "apt-update"
    assert "apt-get update failed" in done["error"]
    cause = "BADSIG" if name == "tampered-release" else "Hash Sum mismatch"
    assert cause in done["error"]
    expected = {f"removed /{KEYRING}", f"removed /{SOURCES}", f"removed /{PIN}"}
    assert set(done["rolled_back"]) == expected
    assert all(item in done["error"] for item in expected)
    rollback = [e for e in run.events if e["event"] == "rollback"]
    assert len(rollback) == 1 and set(rollback[0]["undone"]) == expected
    for path in (KEYRING, SOURCES, PIN):
        assert not (root_copy / path).exists(), path
    assert (root_copy / "etc/apt/keyrings").is_dir()  # it was there before the run
    assert not (root_copy / VERSION_FILE).exists()
    assert TESTER not in _group_members(root_copy, "render")


# --------------------------------------------------------------------------------------------
# an install never removes a package


def _installed(root: Path, package: str) -> bool:
    query = chroot(root, "dpkg-query", "-W", "-f", "${Status}", package, check=False)
    return query.returncode == 0 and query.stdout == "install ok installed"


def test_install_never_removes_a_package(root_copy: Path, test_repo: SignedRepo) -> None:
    """A package that conflicts with an installed one: plain apt-get -y would remove that one
    (the control); the helper's install stops instead, and nothing is removed or installed."""
    _prepare(root_copy, test_repo)
    setup = plan(
        keyring_step(test_repo.armored, test_repo.fingerprint),
        source_step(source_line(test_repo.uri("good"))),
        pin_step(),
        command_step("apt-update", "apt-get", "update"),
    )
    first = run_helper(root_copy, setup)
    assert first.code == 0 and _done(first)["ok"] is True, first.stdout + first.stderr
    assert _installed(root_copy, BREAKER_CONFLICTS)
    control = chroot(root_copy, "apt-get", "install", "-s", "-y", BREAKER, check=False)
    assert control.returncode == 0, control.stdout + control.stderr
    assert f"Remv {BREAKER_CONFLICTS} " in control.stdout  # without --no-remove it would go

    before = snapshot(root_copy, ("var/lib/dpkg", "etc/ssl"))
    payload = plan(command_step("apt-install", "apt-get", "install", "-y", BREAKER))
    run = run_helper(root_copy, payload)
    done = _done(run)
    assert run.code == 1 and done["ok"] is False, run.stdout + run.stderr
    assert step_statuses(run.events) == {"apt-install": "failed"}
    assert "E: Packages need to be removed but remove is disabled." in done["error"]
    assert _installed(root_copy, BREAKER_CONFLICTS)
    assert not _installed(root_copy, BREAKER)
    assert snapshot(root_copy, ("var/lib/dpkg", "etc/ssl")) == before


# --------------------------------------------------------------------------------------------
# another package manager holds apt's lock: the helper waits, then carries on


@contextlib.contextmanager
def _apt_lock_held(root: Path, lock_file: str) -> Iterator[int]:
    """Hold one of apt's locks of ``root`` from this process: an fcntl lock, as apt and dpkg
    take them (flock would not conflict). Yields the fd; closing it lets go."""
    fd = os.open(root / lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield fd
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _run_while_locked(
    root: Path, payload: bytes, lock_file: str, waiting: str, stderr_path: Path
) -> tuple[HelperRun, dict[str, Any]]:
    """Run the helper while this process holds ``lock_file``; let go as soon as an output event
    with ``waiting`` in its line shows the helper waiting. The whole run, and that event."""
    seen: list[bytes] = []
    found: dict[str, Any] | None = None
    with _apt_lock_held(root, lock_file) as fd, stderr_path.open("wb") as stderr:
        proc = subprocess.Popen(
            ["chroot", str(root), "/usr/bin/python3", "-I", "-m", "core.install.helper"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=CHROOT_ENV,
            cwd=root / "opt/rocmate",
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
            for raw in proc.stdout:  # apt flushes each "Waiting for cache lock" line
                seen.append(raw)
                event = json.loads(raw)
                if event["event"] == "output" and waiting in event["line"]:
                    found = event
                    break
            os.close(fd)  # let go: the waiting helper carries on
            seen.append(proc.stdout.read())
            code = proc.wait(timeout=120)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    stdout = b"".join(seen).decode()
    assert found is not None, stdout
    return HelperRun(code, stdout, stderr_path.read_text(), events(stdout)), found


def test_install_waits_for_the_dpkg_lock(root_copy: Path, tmp_path: Path) -> None:
    install_rocmate(root_copy)
    install_stand_in(root_copy)
    payload = plan(command_step("apt-install", "apt-get", "install", "-y", STAND_IN))
    run, waiting = _run_while_locked(root_copy, payload, "var/lib/dpkg/lock-frontend",
                                     "Waiting for cache lock", tmp_path / "stderr")
    assert waiting["id"] == "apt-install"
    assert (f"Could not get lock /var/lib/dpkg/lock-frontend. It is held by process "
            f"{os.getpid()}") in waiting["line"]
    done = _done(run)
    assert run.code == 0 and done["ok"] is True, run.stdout + run.stderr
    assert step_statuses(run.events) == {"apt-install": "unchanged"}


def test_update_tries_again_while_the_lists_are_locked(root_copy: Path, tmp_path: Path) -> None:
    install_rocmate(root_copy)
    payload = plan(command_step("apt-update", "apt-get", "update"))
    run, waiting = _run_while_locked(root_copy, payload, "var/lib/apt/lists/lock",
                                     "Waiting for apt's lock", tmp_path / "stderr")
    assert waiting == {
        "event": "output", "id": "apt-update",
        "line": f"Waiting for apt's lock: process {os.getpid()} holds /var/lib/apt/lists/lock; "
                "trying again in 3 s",
    }
    done = _done(run)
    assert run.code == 0 and done["ok"] is True, run.stdout + run.stderr
    assert step_statuses(run.events) == {"apt-update": "done"}
    lines = [e["line"] for e in run.events if e["event"] == "output"]
    assert "E: Unable to lock directory /var/lib/apt/lists/" in lines  # the first try met it


def test_a_lock_that_is_not_let_go_is_named(root_copy: Path) -> None:
    """apt's own words after its wait runs out (1 s here) become the helper's message."""
    with _apt_lock_held(root_copy, "var/lib/dpkg/lock-frontend"):
        out = chroot(root_copy, "apt-get", "-o", "DPkg::Lock::Timeout=1", "install", "-y",
                     "ca-certificates", check=False)
    assert out.returncode == 100, out.stdout + out.stderr
    result = ChildResult(out.returncode, all_lines=(out.stdout + out.stderr).splitlines())
    lock = helper.apt_lock(result)
    assert lock == helper.AptLock("/var/lib/dpkg/lock-frontend", os.getpid())
    assert lock.message(helper.APT_LOCK_WAIT_S) == (
        f"another package manager is running (process {os.getpid()} holds "
        "/var/lib/dpkg/lock-frontend) and did not finish within 120 s; wait for it to finish, "
        "then try again"
    )
