"""Shared pieces of the privileged-helper tests: plan builders, synthetic OpenPGP keys, a throwaway
Debian root (mmdebstrap) with a copy of rocmate in it, and running the helper there with chroot."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.install.helper.target import Policy, Target
from core.knowledge.loader import load_knowledge

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITE = "jammy"
TESTER = "tester"
TORCH_LIB = "/home/tester/venv/lib/python3.11/site-packages/torch/lib"
TORCH_LIB_LINKED = "/home/tester/venv-link/lib/python3.11/site-packages/torch/lib"
ROOT_TOOLS = ("mmdebstrap", "chroot", "dpkg-deb", "apt-ftparchive", "gpg")
CHROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8"}
MMDEBSTRAP_TIMEOUT = 300


# --------------------------------------------------------------------------------------------
# synthetic OpenPGP keys (no gpg needed): enough structure for the helper's parser


def _packet(tag: int, body: bytes) -> bytes:
    """A new-format OpenPGP packet."""
    assert len(body) < 8384
    if len(body) < 192:
        return bytes([0xC0 | tag, len(body)]) + body
    length = len(body) - 192
    return bytes([0xC0 | tag, (length >> 8) + 192, length & 0xFF]) + body


def synthetic_key(seed: str, *, version: int = 4, tag: int = 6) -> bytes:
    """A v4 Ed25519 public key packet (random-looking point from ``seed``) and a user id."""
    point = hashlib.sha256(seed.encode()).digest()
    oid = bytes.fromhex("2b06010401da470f01")
    body = (
        bytes([version]) + (1700000000).to_bytes(4, "big") + bytes([22, len(oid)]) + oid
        + (263).to_bytes(2, "big") + b"\x40" + point
    )
    return _packet(tag, body) + _packet(13, f"{seed} <{seed}@example.invalid>".encode())


def fingerprint(binary: bytes) -> str:
    """The v4 fingerprint of the first packet (independent of the helper's own code)."""
    assert binary[0] == 0xC6
    length = binary[1]
    body = binary[2:2 + length]
    return hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest().upper()


def _crc24(data: bytes) -> int:
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc = (crc << 1) ^ (0x1864CFB if crc & 0x800000 else 0)
    return crc & 0xFFFFFF


def armor(binary: bytes) -> str:
    """ASCII armour around a binary key, with its CRC-24."""
    text = base64.b64encode(binary).decode()
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    crc = base64.b64encode(_crc24(binary).to_bytes(3, "big")).decode()
    return "\n".join(
        ["-----BEGIN PGP PUBLIC KEY BLOCK-----", "", *lines, "=" + crc,
         "-----END PGP PUBLIC KEY BLOCK-----", ""]
    )


TRUSTED_KEY = synthetic_key("trusted-test-key")
TRUSTED_FPR = fingerprint(TRUSTED_KEY)
UNTRUSTED_KEY = synthetic_key("untrusted-test-key")
UNTRUSTED_FPR = fingerprint(UNTRUSTED_KEY)


# --------------------------------------------------------------------------------------------
# plans


def step(step_id: str, **fields: Any) -> dict[str, Any]:
    """A privileged plan step with a title and explanation."""
    return {"id": step_id, "privileged": True, "title": f"Step {step_id}",
            "explain": "Test step.", **fields}


def keyring_step(key: bytes | str, fpr: str, *, name: str = "rocm.gpg", b64: bool = False,
                 step_id: str = "apt-keyring") -> dict[str, Any]:
    """Write a keyring (armoured text, or binary as content_b64)."""
    if b64:
        data = key.encode() if isinstance(key, str) else key
        spec: dict[str, Any] = {"content_b64": base64.b64encode(data).decode()}
    else:
        spec = {"content": key if isinstance(key, str) else armor(key)}
    spec.update(path=f"/etc/apt/keyrings/{name}", mode="0644")
    return step(step_id, kind="file", file=spec, key_fingerprint=fpr)


def source_line(uri: str, *, keyring: str = "/etc/apt/keyrings/rocm.gpg",
                suite: str = SUITE, component: str = "main") -> str:
    """One AMD-style source line."""
    return f"deb [arch=amd64 signed-by={keyring}] {uri} {suite} {component}\n"


def source_step(content: str, *, name: str = "rocm.list",
                step_id: str = "apt-source") -> dict[str, Any]:
    """Write an apt source file."""
    return step(step_id, kind="file",
                file={"path": f"/etc/apt/sources.list.d/{name}", "content": content,
                      "mode": "0644"})


def pin_content(origin: str = "repo.radeon.com", priority: int = 600) -> str:
    """The rocm-pin-600 template."""
    return f"Package: *\nPin: release o={origin}\nPin-Priority: {priority}\n"


def pin_step(content: str | None = None, *, name: str = "rocm-pin-600") -> dict[str, Any]:
    """Write an apt pin."""
    return step("apt-pin", kind="file",
                file={"path": f"/etc/apt/preferences.d/{name}",
                      "content": pin_content() if content is None else content, "mode": "0644"})


def command_step(step_id: str, *argv: str, **fields: Any) -> dict[str, Any]:
    """A privileged command step."""
    return step(step_id, kind="command", argv=list(argv), **fields)


def plan(*steps: dict[str, Any]) -> bytes:
    """A whole plan document as the runner sends it."""
    return json.dumps({"schema": "rocmate.plan/1", "steps": list(steps)}).encode()


def events(stdout: bytes | str) -> list[dict[str, Any]]:
    """The helper's JSON-lines output; every line must be one JSON object."""
    text = stdout.decode() if isinstance(stdout, bytes) else stdout
    parsed = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert all(isinstance(e, dict) and "event" in e for e in parsed), text
    return parsed


def step_statuses(evs: Iterable[dict[str, Any]]) -> dict[str, str]:
    """The final status of each step (start is overwritten by done/unchanged/failed)."""
    return {e["id"]: e["status"] for e in evs if e["event"] == "step"}


def trusting_policy() -> Policy:
    """The shipped policy, plus the synthetic test key."""
    shipped = Policy.from_knowledge(load_knowledge())
    trusted = shipped.trusted_fingerprints | {TRUSTED_FPR}
    return dataclasses.replace(shipped, trusted_fingerprints=trusted)


# --------------------------------------------------------------------------------------------
# target trees


def write_accounts(root: Path) -> None:
    """passwd/group/login.defs of a small system with the user ``tester`` (uid 1000)."""
    etc = root / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "passwd").write_text(
        "root:x:0:0:root:/root:/bin/bash\n"
        "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        "tester:x:1000:1000:Tester:/home/tester:/bin/bash\n"
    )
    (etc / "group").write_text(
        "root:x:0:\nsudo:x:27:\nvideo:x:44:\nrender:x:105:\ntester:x:1000:\n"
    )
    (etc / "login.defs").write_text("UID_MIN 1000\n")


def add_fixtures(root: Path) -> None:
    """apt folders, a torch/lib folder, /run (the helper's lock), and the symbolic links hostile
    inputs aim at."""
    for folder in ("etc/apt/keyrings", "etc/apt/sources.list.d", "etc/apt/preferences.d",
                   TORCH_LIB.lstrip("/"), "tmp", "run"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / TORCH_LIB.lstrip("/") / "libhsa-runtime64.so").write_bytes(b"bundled runtime")
    links = {
        "etc/apt/keyrings/evil.gpg": "/etc/shadow",
        "etc/apt/sources.list.d/evil.list": "/etc/passwd",
        "etc/apt/preferences.d/evil": "/etc/sudoers",
        "home/tester/venv-link": "venv",  # relative: resolves inside a fake root too
    }
    for link, target in links.items():
        path = root / link
        if not path.is_symlink():
            path.symlink_to(target)


def plain_target(root: Path) -> Target:
    """A fake system root: accounts and the apt folders, without the planted 'evil' links."""
    write_accounts(root)
    add_fixtures(root)
    for link in ("etc/apt/keyrings/evil.gpg", "etc/apt/sources.list.d/evil.list",
                 "etc/apt/preferences.d/evil"):
        (root / link).unlink()
    return Target(str(root))


# --------------------------------------------------------------------------------------------
# the throwaway Debian root


def root_skip_reason() -> str | None:
    """Why the chroot tests cannot run here (None: they can)."""
    if os.geteuid() != 0:
        return "needs root (chroot, mmdebstrap and apt run as root)"
    missing = [tool for tool in ROOT_TOOLS if shutil.which(tool) is None]
    if missing:
        return (f"{', '.join(missing)} not installed: run scripts/install-test-system-deps.sh "
                "(as root)")
    if platform.machine() not in ("x86_64", "AMD64"):
        return "the test repository is amd64 only"
    return None


MMDEBSTRAP_ARGS = (
    "--quiet", "--variant=apt", "--include=python3,gpg,ca-certificates",
    *(f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "locale", "info")),
    "bookworm",
)
CACHE_ENV = "ROCMATE_TEST_ROOT_CACHE"
DEFAULT_CACHE = "/var/cache/rocmate-tests"
COMPLETE = ".rocmate-complete"


def root_cache() -> Path | None:
    """Where built roots are kept between runs ($ROCMATE_TEST_ROOT_CACHE; "off" for none)."""
    value = os.environ.get(CACHE_ENV, DEFAULT_CACHE)
    return None if value.strip().lower() in ("", "0", "off", "no") else Path(value)


def cache_key() -> str:
    """The mmdebstrap arguments and the ISO week: a cached root is rebuilt weekly."""
    year, week, _ = datetime.date.today().isocalendar()
    text = json.dumps([MMDEBSTRAP_ARGS, year, week, CHROOT_ENV])
    return "bookworm-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def cached_debian_root(cache: Path) -> tuple[Path | None, str | None]:
    """The cached root (built now if missing, older ones pruned); (root, None) or (None, why)."""
    final = cache / cache_key()
    if (final / COMPLETE).is_file():
        return final, None
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    building = cache / f".building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    problem = build_debian_root(building)
    if problem:
        shutil.rmtree(building, ignore_errors=True)
        return None, problem
    (building / COMPLETE).write_text(" ".join(MMDEBSTRAP_ARGS) + "\n")
    try:
        building.rename(final)
    except OSError:  # another run finished first
        shutil.rmtree(building, ignore_errors=True)
    for old in cache.iterdir():
        if old.name != final.name and old.name.startswith(("bookworm-", ".building-")):
            if old.name.startswith(".building-") and old.name != building.name:
                continue  # someone else's build in progress
            shutil.rmtree(old, ignore_errors=True)
    return final, None


def build_debian_root(dest: Path) -> str | None:
    """mmdebstrap a minimal bookworm into ``dest``; an error text when that is impossible."""
    argv = ["mmdebstrap", *MMDEBSTRAP_ARGS, str(dest)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=MMDEBSTRAP_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        return f"mmdebstrap took longer than {MMDEBSTRAP_TIMEOUT} s"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return "mmdebstrap could not build a Debian root: " + " | ".join(tail)
    probe = subprocess.run(["chroot", str(dest), "/bin/true"], capture_output=True, text=True,
                           check=False)
    if probe.returncode != 0:
        return f"chroot is not permitted here: {probe.stderr.strip()}"
    # Only the test repository: apt-get update must not reach out to Debian's mirrors.
    (dest / "etc/apt/sources.list").write_text("")
    return None


def chroot(root: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command inside the throwaway root."""
    return subprocess.run(["chroot", str(root), *argv], capture_output=True, text=True,
                          env=CHROOT_ENV, check=check, timeout=120)


STAND_IN = "rocminfo"
"""A name plans install, and so the root helper's allow-list (core.install.helper.policy
.INSTALLABLE): what the apt lock tests install (:func:`install_stand_in`)."""


def install_stand_in(root: Path, name: str = STAND_IN) -> None:
    """An empty package called ``name``, installed in the throwaway root with dpkg, so that
    ``apt-get install -y NAME`` there has nothing to do (no repository needed): the apt lock
    tests' install step, which the helper's allow-list accepts."""
    if chroot(root, "dpkg-query", "-W", name, check=False).returncode == 0:
        return
    pkg = root / "tmp/stand-in"
    (pkg / "DEBIAN").mkdir(parents=True, exist_ok=True)
    (pkg / "DEBIAN/control").write_text(
        f"Package: {name}\nVersion: 0.0-rocmate-test\nArchitecture: all\n"
        "Maintainer: rocmate tests <tests@example.invalid>\n"
        f"Description: empty test stand-in for AMD's {name}\n"
    )
    chroot(root, "dpkg-deb", "--root-owner-group", "-Zgzip", "--build", "/tmp/stand-in",
           "/tmp/stand-in.deb")
    chroot(root, "dpkg", "-i", "/tmp/stand-in.deb")
    shutil.rmtree(pkg)
    (root / "tmp/stand-in.deb").unlink()


def add_accounts_in_chroot(root: Path) -> None:
    """The user ``tester`` and the groups render and video, made with the system's own tools."""
    if "render:" not in (root / "etc/group").read_text():
        chroot(root, "groupadd", "--system", "render")
    if "tester:" not in (root / "etc/passwd").read_text():
        chroot(root, "useradd", "--create-home", "--uid", "1000", TESTER)


def install_rocmate(root: Path, *, fingerprints: Iterable[str] = (),
                    uri_prefixes: Iterable[str] = ()) -> None:
    """Copy ``core`` and ``resources/data`` to /opt/rocmate in the root, with the test key's
    fingerprint trusted and the test repository's URI allowed, and put it on Python's path."""
    dest = root / "opt/rocmate"
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO_ROOT / "core", dest / "core", ignore=ignore)
    shutil.copytree(REPO_ROOT / "resources/data", dest / "resources/data", ignore=ignore)
    toml = dest / "resources/data/rocm.toml"
    text = toml.read_text()
    extra_fprs = ", ".join(f'"{f}"' for f in fingerprints)
    extra_uris = "".join(f'"{u}", ' for u in uri_prefixes)
    text, n1 = re.subn(r"(?m)^trusted_fingerprints = \[", f"trusted_fingerprints = [{extra_fprs}"
                       + (", " if extra_fprs else ""), text, count=1)
    text, n2 = re.subn(r"(?m)^apt_uri_prefixes = \[", f"apt_uri_prefixes = [{extra_uris}", text,
                       count=1)
    assert n1 == 1 and n2 == 1, "rocm.toml [repository] lost trusted_fingerprints/apt_uri_prefixes"
    text = text.replace(", ]", "]")
    toml.write_text(text)
    site = root / "usr/lib/python3/dist-packages"
    site.mkdir(parents=True, exist_ok=True)
    (site / "rocmate-test.pth").write_text("/opt/rocmate\n")
    # As an installed copy is: byte-compiled, so that running it writes nothing.
    chroot(root, "python3", "-m", "compileall", "-q", "/opt/rocmate/core")


@dataclass
class HelperRun:
    """One run of the helper: exit code, events (or the --check answer), stderr."""

    code: int
    stdout: str
    stderr: str
    events: list[dict[str, Any]] = field(default_factory=list)


def run_helper(root: Path, payload: bytes, *args: str, timeout: float = 180,
               python_args: tuple[str, ...] = ("-I", "-m", "core.install.helper"),
               caller: dict[str, str] | None = None) -> HelperRun:
    """``chroot ROOT python3 -I -m core.install.helper ARGS`` with the plan on stdin; ``caller``
    adds what pkexec or sudo would set (``{"PKEXEC_UID": "1000"}``; none: root's own call)."""
    done = subprocess.run(
        ["chroot", str(root), "/usr/bin/python3", *python_args, *args],
        input=payload, capture_output=True, env={**CHROOT_ENV, **(caller or {})},
        cwd=root / "opt/rocmate",
        timeout=timeout, check=False,
    )
    stdout = done.stdout.decode("utf-8", errors="replace")
    run = HelperRun(done.returncode, stdout, done.stderr.decode("utf-8", errors="replace"))
    if "--check" not in args:
        run.events = events(stdout)
    return run


def snapshot(root: Path, folders: Iterable[str]) -> dict[str, tuple[int, int, int, str]]:
    """(mode, size, mtime_ns, link target) of every entry under the given folders of ``root``."""
    found: dict[str, tuple[int, int, int, str]] = {}
    for folder in folders:
        base = root / folder
        for dirpath, dirnames, filenames in os.walk(base):
            for name in [*dirnames, *filenames]:
                path = Path(dirpath) / name
                info = path.lstat()
                link = os.readlink(path) if path.is_symlink() else ""
                found[str(path.relative_to(root))] = (
                    info.st_mode, info.st_size, info.st_mtime_ns, link
                )
        if base.exists():
            info = base.lstat()
            found[folder] = (info.st_mode, info.st_size, info.st_mtime_ns, "")
    return found


@contextlib.contextmanager
def copy_root(source: Path, where: Path) -> Iterator[Path]:
    """A writable copy of ``source``: an overlay mount (instant) where the kernel allows one,
    else ``cp -a`` (keeps owners, modes, device nodes and links). Removed on exit."""
    upper, work, merged = where / "upper", where / "work", where / "merged"
    for folder in (upper, work, merged):
        folder.mkdir(parents=True)
    options = f"lowerdir={source},upperdir={upper},workdir={work}"
    mounted = subprocess.run(
        ["mount", "-t", "overlay", "overlay", "-o", options, str(merged)],
        capture_output=True, check=False,
    ).returncode == 0
    if not mounted:
        merged.rmdir()
        subprocess.run(["cp", "-a", str(source), str(merged)], check=True)
    try:
        yield merged
    finally:
        if mounted:
            subprocess.run(["umount", str(merged)], check=False)
            if os.path.ismount(merged):
                subprocess.run(["umount", "--lazy", str(merged)], check=False)
        shutil.rmtree(where, ignore_errors=True)


@contextlib.contextmanager
def helper_root(debian_root: Path, where: Path) -> Iterator[Path]:
    """A copy of the throwaway Debian root with rocmate installed root-owned (the helper's own
    checks pass) and the test accounts: where the real helper runs as root."""
    with copy_root(debian_root, where) as root:
        install_rocmate(root)
        add_accounts_in_chroot(root)
        yield root


def processes_in(root: Path) -> dict[int, str]:
    """Processes whose root directory is ``root``: their names by pid."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{entry}/root") == str(root):
                    found[int(entry)] = Path(f"/proc/{entry}/comm").read_text().strip()
    return found
