"""The image in clean Debian roots (mmdebstrap), as a user with only a desktop's libraries starts
it: bookworm without FUSE 2 (the runtime names the package, extract-and-run works), trixie
with libfuse2t64 (the image mounts and runs from the mount) and trixie without a usable
/dev/fuse (missing as in Docker, or not openable: the runtime names the way without FUSE); in
both, the window's start-up check names the missing xcb packages instead of letting Qt dump
core.

Each root is built once (the two concurrently) and kept in $ROCMATE_TEST_ROOT_CACHE like the
helper's root (tests/install/support.py): rebuilt weekly, "off" for a fresh one each session.
Every run is ``unshare --mount --pid`` and ``chroot``: the root itself is mounted read-only,
/opt holds a copy of the image and /tmp is the test's own folder, and all of it (the FUSE mount
too) is gone when the run ends.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.install.support import COMPLETE, root_cache
from tests.packaging.conftest import MACHINES, REPO, user_env

pytestmark = [pytest.mark.slow, pytest.mark.root]

MACHINE = "rx6600-ubuntu2404-fresh"
CPU_REPORT = REPO / "tests" / "fixtures" / "reports" / "cpu-tiny-resnet50-train.json"
IMAGE_IN_ROOT = "/opt/rocmate-x86_64.AppImage"
SUITES = ("bookworm", "trixie")
# What a desktop has and the AppImage leaves to the host (packaging/host-libraries.txt), but no
# X11/xcb client libraries. libgpg-error0 is on that list too and the image needs it (its
# libdbus-1 -> libsystemd -> libgcrypt, all bundled, end in the host's libgpg-error.so.0):
# bookworm's apt brings it, a minimal trixie does not.
DESKTOP = ("libgl1", "libegl1", "libfontconfig1", "libxkbcommon0", "libglib2.0-0",
           "fonts-dejavu-core", "libgpg-error0")
# bookworm: no libfuse2. trixie: libfuse2t64 alone; as root the runtime's libfuse mounts with
# mount(2) itself, no fusermount (package fuse3) needed.
PACKAGES = {"bookworm": DESKTOP, "trixie": (*DESKTOP, "libfuse2t64")}
TOOLS = ("mmdebstrap", "chroot", "unshare", "mount")
MMDEBSTRAP_TIMEOUT = 300
RUN_TIMEOUT = 120
# $1 the root, $2 the folder for /opt, $3 the folder for /tmp, then the command in the root.
# sh stays the namespace's first process (the command is not process 1, whose signals differ)
# and waits up to 5 s for what the command leaves running: the runtime's FUSE process unmounts
# and removes its mount point after the app ends. When sh ends, the kernel ends the rest and
# drops every mount made here.
ENTER = """set -e
root=$1 opt=$2 tmp=$3
shift 3
mount --bind -o ro "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --bind -o ro "$opt" "$root/opt"
mount --bind "$tmp" "$root/tmp"
#PREPARE
set +e
chroot "$root" "$@"
status=$?
i=0
while [ $i -lt 50 ]; do
  set -- "$root"/proc/[0-9]*
  [ $# -le 1 ] && break
  sleep 0.1
  i=$((i + 1))
done
exit $status
"""


def mmdebstrap_args(suite: str) -> tuple[str, ...]:
    return ("--quiet", "--variant=apt", "--include=" + ",".join(PACKAGES[suite]),
            *(f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "locale",
                                                                   "info")),
            suite)


def cache_key(suite: str) -> str:
    """The suite's mmdebstrap arguments and the ISO week: a cached root is rebuilt weekly."""
    year, week, _ = datetime.date.today().isocalendar()
    text = json.dumps([mmdebstrap_args(suite), year, week])
    return f"appimage-{suite}-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (mmdebstrap, mount namespaces and chroot)"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return (f"{', '.join(missing)} not installed: run scripts/install-test-system-deps.sh "
                "(as root)")
    if platform.machine() not in ("x86_64", "AMD64"):
        return "the image is x86_64 only"
    return None


def build_root(dest: Path, suite: str) -> str | None:
    """mmdebstrap ``suite`` into ``dest``; an error text when that is impossible."""
    argv = ["mmdebstrap", *mmdebstrap_args(suite), str(dest)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=MMDEBSTRAP_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        return f"mmdebstrap {suite} took longer than {MMDEBSTRAP_TIMEOUT} s"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return f"mmdebstrap could not build a Debian {suite} root: " + " | ".join(tail)
    return None


def cached_root(cache: Path, suite: str) -> tuple[Path | None, str | None]:
    """The cached root (built now if missing, this suite's older ones pruned)."""
    final = cache / cache_key(suite)
    if (final / COMPLETE).is_file():
        return final, None
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    building = cache / f".building-appimage-{suite}-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    problem = build_root(building, suite)
    if problem:
        shutil.rmtree(building, ignore_errors=True)
        return None, problem
    (building / COMPLETE).write_text(" ".join(mmdebstrap_args(suite)) + "\n")
    try:
        building.rename(final)
    except OSError:  # another run finished first
        shutil.rmtree(building, ignore_errors=True)
    for old in cache.glob(f"appimage-{suite}-*"):
        if old.name != final.name:
            shutil.rmtree(old, ignore_errors=True)
    for stale in cache.glob(f".building-appimage-{suite}-*"):  # of runs that were killed
        if not Path("/proc", stale.name.rsplit("-", 1)[-1]).exists():
            shutil.rmtree(stale, ignore_errors=True)
    return final, None


def enter(root: Path, opt: Path, tmp: Path, *argv: str, env: dict[str, str],
          stdin: str | None = None, timeout: float = RUN_TIMEOUT, prepare: str = "",
          ) -> subprocess.CompletedProcess[str]:
    """``argv`` in ``root`` (read-only) with ``opt`` at /opt and ``tmp`` at /tmp, in a private
    mount and process namespace (killed with it on a timeout: --kill-child). ``prepare``: shell
    lines run in that namespace, outside the root, before it is entered ($root is the root)."""
    unshare = shutil.which("unshare") or "unshare"
    script = ENTER.replace("#PREPARE\n", prepare + "\n")
    return subprocess.run(
        [unshare, "--mount", "--pid", "--fork", "--kill-child", "sh", "-c", script, "sh",
         str(root), str(opt), str(tmp), *argv],
        capture_output=True, text=True, env=env, input=stdin, timeout=timeout, check=False)


def root_env(**extra: str) -> dict[str, str]:
    """A user's environment inside a root: home and XDG folders under /tmp, offscreen Qt."""
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp/home",
           "TMPDIR": "/tmp", "QT_QPA_PLATFORM": "offscreen"}
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[name] = "/tmp/" + name.lower()
    env.update(extra)
    return env


class Roots:
    """The Debian roots this session needs, each built at most once, concurrently."""

    def __init__(self, cache: Path | None, scratch: Path, opt: Path) -> None:
        self.cache, self.scratch, self.opt = cache, scratch, opt
        self._threads: dict[str, threading.Thread] = {}
        self._ready: dict[str, tuple[Path | None, str | None]] = {}
        self._lock = threading.Lock()

    def start(self, suite: str) -> None:
        with self._lock:
            if suite not in self._threads:
                thread = threading.Thread(target=self._make, args=(suite,), daemon=True)
                self._threads[suite] = thread
                thread.start()

    def _make(self, suite: str) -> None:
        try:
            self._ready[suite] = self._build(suite)
        except Exception as exc:  # reported by get(), in the test's thread
            self._ready[suite] = (None, f"building the {suite} root failed: {exc!r}")

    def _build(self, suite: str) -> tuple[Path | None, str | None]:
        root: Path | None = None
        if self.cache is not None:
            try:
                root, problem = cached_root(self.cache, suite)
            except OSError:  # the cache folder is not writable: build a private root instead
                root, problem = None, None
            if problem:
                return None, problem
        if root is None:
            root = self.scratch / suite
            problem = build_root(root, suite)
            if problem:
                return None, problem
        empty = self.scratch / f"probe-{suite}"
        empty.mkdir(exist_ok=True)
        probe = enter(root, self.opt, empty, "/bin/true", env=root_env(), timeout=60)
        if probe.returncode != 0:
            return None, ("a mount namespace with a chroot is not permitted here: "
                          + probe.stderr.strip()[-500:])
        return root, None

    def get(self, suite: str) -> Path:
        self.start(suite)
        self._threads[suite].join(timeout=MMDEBSTRAP_TIMEOUT + 120)
        root, problem = self._ready.get(suite, (None, f"the {suite} root is not ready"))
        if root is None:
            if os.environ.get("CI"):
                pytest.fail(problem or f"no {suite} root")
            pytest.skip(problem or f"no {suite} root")
        return root

    def join(self) -> None:
        for thread in self._threads.values():
            thread.join(timeout=MMDEBSTRAP_TIMEOUT)


def wanted_suites(items: list[pytest.Item]) -> set[str]:
    """The suites the selected tests use (to build only those, and all at once)."""
    wanted = set()
    for item in items:
        names = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        wanted.update(s for s in SUITES if f"{s}_root" in names)
        if callspec is not None and callspec.params.get("suite") in SUITES:
            wanted.add(callspec.params["suite"])
    return wanted


@pytest.fixture(scope="session")
def roots(request: pytest.FixtureRequest, image: Path,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roots]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    scratch = tmp_path_factory.mktemp("debian-roots")
    opt = scratch / "opt"
    opt.mkdir()
    shutil.copy2(image, opt / Path(IMAGE_IN_ROOT).name)
    builds = Roots(root_cache(), scratch, opt)
    for suite in sorted(wanted_suites(request.session.items)):
        builds.start(suite)
    yield builds
    builds.join()  # a build no test waited for (all skipped) must not outlive its folder
    shutil.rmtree(scratch, ignore_errors=True)


@dataclass
class Root:
    """A Debian root ready for one test: ``run`` starts a command in it."""

    path: Path
    opt: Path
    tmp: Path  # the root's /tmp: the replayed machine, the app's home, what it writes

    def run(self, *argv: str, stdin: str | None = None, prepare: str = "",
            **env: str) -> subprocess.CompletedProcess[str]:
        return enter(self.path, self.opt, self.tmp, *argv, env=root_env(**env), stdin=stdin,
                     prepare=prepare)

    def image(self, *args: str, stdin: str | None = None,
              **env: str) -> subprocess.CompletedProcess[str]:
        return self.run(IMAGE_IN_ROOT, *args, stdin=stdin, **env)


def prepared(roots: Roots, suite: str, tmp_path: Path) -> Root:
    tmp = tmp_path / "root-tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)
    shutil.copytree(MACHINES / MACHINE, tmp / MACHINE, symlinks=True)  # driver links
    (tmp / "home").mkdir()
    return Root(roots.get(suite), roots.opt, tmp)


@pytest.fixture
def bookworm_root(roots: Roots, tmp_path: Path) -> Root:
    return prepared(roots, "bookworm", tmp_path)


@pytest.fixture
def trixie_root(roots: Roots, tmp_path: Path) -> Root:
    return prepared(roots, "trixie", tmp_path)


def without_timings(text: str) -> dict:
    data = json.loads(text)
    data.pop("timings", None)
    return data


@pytest.fixture(scope="session")
def source_doctor(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict]:
    """The source tree's ``doctor --json`` of the machine: (exit status, report)."""
    home = tmp_path_factory.mktemp("source-doctor")
    done = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--json", "--root",
                           str(MACHINES / MACHINE)], capture_output=True, text=True,
                          env=user_env(home), cwd=REPO, timeout=300, check=False)
    return done.returncode, without_timings(done.stdout)


DOCTOR = ("doctor", "--json", "--root", f"/tmp/{MACHINE}")


def assert_doctor_answers_as_the_source_tree(done: subprocess.CompletedProcess[str],
                                             source: tuple[int, dict]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, without_timings(done.stdout)) == source, done.stderr[-2000:]


def left_behind(root: Root) -> list[str]:
    """What the runtime left in /tmp: its mount point or its extracted copy."""
    return sorted(p.name for p in root.tmp.iterdir()
                  if p.name.startswith((".mount_", "appimage_extracted_")))


def assert_mounted(root: Root, done: subprocess.CompletedProcess[str]) -> None:
    """Started plainly, from the FUSE mount: no word of FUSE or of the fallback, and the mount
    point is gone afterwards."""
    for words in ("FUSE", "--appimage-extract"):
        assert words not in done.stderr, done.stderr[-2000:]
    assert left_behind(root) == []


# --------------------------------------------------------------------------------------------
# bookworm without libfuse2


def test_without_fuse_the_runtime_names_the_package(bookworm_root: Root) -> None:
    done = bookworm_root.image(*DOCTOR)
    assert done.returncode != 0
    assert done.stdout == ""
    for words in ("rocmate needs FUSE 2 to start", "sudo apt install libfuse2t64", "libfuse2)",
                  "sudo dnf install fuse-libs", "sudo pacman -S fuse2",
                  "--appimage-extract-and-run"):
        assert words in done.stderr, done.stderr


def test_without_fuse_extract_and_run_answers_as_the_source_tree(
        bookworm_root: Root, source_doctor: tuple[int, dict]) -> None:
    done = bookworm_root.image("--appimage-extract-and-run", *DOCTOR)
    assert_doctor_answers_as_the_source_tree(done, source_doctor)
    assert left_behind(bookworm_root) == []  # the runtime removes its extracted copy


def test_without_fuse_extract_and_run_from_the_environment(
        bookworm_root: Root, source_doctor: tuple[int, dict]) -> None:
    done = bookworm_root.image(*DOCTOR, APPIMAGE_EXTRACT_AND_RUN="1")
    assert_doctor_answers_as_the_source_tree(done, source_doctor)
    assert left_behind(bookworm_root) == []


# --------------------------------------------------------------------------------------------
# trixie with libfuse2t64: mounted


def test_mounted_doctor_answers_as_the_source_tree(trixie_root: Root,
                                                   source_doctor: tuple[int, dict]) -> None:
    done = trixie_root.image(*DOCTOR)
    assert_doctor_answers_as_the_source_tree(done, source_doctor)
    assert_mounted(trixie_root, done)


def test_mounted_the_window_draws_its_pages_offscreen(trixie_root: Root) -> None:
    shutil.copy2(CPU_REPORT, trixie_root.tmp / CPU_REPORT.name)
    done = trixie_root.image("gui", "--root", f"/tmp/{MACHINE}", "--screenshot-dir",
                             "/tmp/shots", "--screenshot-report", f"/tmp/{CPU_REPORT.name}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    shots = trixie_root.tmp / "shots"
    pages = sorted(p.name for p in shots.glob("*.png"))
    for page in ("01-welcome.png", "02-system-check.png", "08-benchmark-graphs.png",
                 "09-results.png", "10-history.png"):
        assert page in pages, pages
    assert all((shots / p).stat().st_size > 5_000 for p in pages), pages
    assert_mounted(trixie_root, done)


def test_mounted_the_helper_answers_check_as_the_source_tree(trixie_root: Root,
                                                             tmp_path: Path) -> None:
    planned = subprocess.run(
        [sys.executable, "-m", "core.cli", "install", "--dry-run", "--json", "--strategy",
         "rocm-apt", "--root", str(MACHINES / MACHINE)], capture_output=True, text=True,
        env=user_env(tmp_path), cwd=REPO, timeout=300, check=True)
    plan = json.loads(planned.stdout)
    apt = {"schema": plan["schema"], "steps": [s for s in plan["steps"]
                                                if s["id"] in ("apt-update", "apt-install")]}
    done = trixie_root.image("helper", "--check", stdin=json.dumps(apt))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {"ok": True}
    whole = trixie_root.image("helper", "--check", stdin=json.dumps(plan))
    oracle = subprocess.run([sys.executable, "-I", "-m", "core.install.helper", "--check"],
                            input=json.dumps(plan), capture_output=True, text=True, cwd=REPO,
                            timeout=60, check=False)
    assert (whole.returncode, json.loads(whole.stdout)) == \
        (oracle.returncode, json.loads(oracle.stdout))
    assert whole.returncode == 2
    assert_mounted(trixie_root, whole)


# --------------------------------------------------------------------------------------------
# trixie with libfuse2t64, but FUSE cannot mount: no /dev/fuse (Docker's and LXC's default), or
# one this user cannot open (run as nobody). What the namespace does before entering the root
# (which has no mount(8)), and how the program is started in it.

NO_FUSE = {
    "missing": ("""mount -t tmpfs -o mode=0755 container-dev "$root/dev"
mknod -m 666 "$root/dev/null" c 1 3
mknod -m 666 "$root/dev/zero" c 1 5
mknod -m 666 "$root/dev/urandom" c 1 9""", ()),
    "unopenable": ("""mount -t tmpfs -o mode=0755 nodes "$root/mnt"
mknod -m 600 "$root/mnt/fuse" c 10 229
mount --bind "$root/mnt/fuse" "$root/dev/fuse"
""",
                   ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")),
}


@pytest.mark.parametrize("dev_fuse", sorted(NO_FUSE))
def test_without_a_usable_dev_fuse_the_runtime_names_the_way_without_fuse(
        trixie_root: Root, dev_fuse: str, source_doctor: tuple[int, dict]) -> None:
    """libfuse's own line stays (it is the host's), then rocmate's words; exit 1 as without
    libfuse.so.2, not 127 after "open dir error". The way named works there."""
    prepare, user = NO_FUSE[dev_fuse]
    done = trixie_root.run(*user, IMAGE_IN_ROOT, *DOCTOR, prepare=prepare)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "fuse: " in done.stderr  # libfuse says why (device not found / permission denied)
    for words in ("rocmate cannot mount itself", "--appimage-extract-and-run",
                  "APPIMAGE_EXTRACT_AND_RUN=1", "Docker or LXC"):
        assert words in done.stderr, done.stderr
    assert "open dir error" not in done.stderr
    assert left_behind(trixie_root) == []
    extracted = trixie_root.run(*user, IMAGE_IN_ROOT, "--appimage-extract-and-run", *DOCTOR,
                                prepare=prepare)
    assert_doctor_answers_as_the_source_tree(extracted, source_doctor)
    assert left_behind(trixie_root) == []


# --------------------------------------------------------------------------------------------
# both: a desktop without Qt's xcb libraries


@pytest.mark.parametrize("suite", SUITES)
def test_the_window_names_the_missing_xcb_packages(roots: Roots, suite: str,
                                                   tmp_path: Path) -> None:
    """No X server needed: the check runs before Qt does."""
    root = prepared(roots, suite, tmp_path)
    start = ("--appimage-extract-and-run",) if suite == "bookworm" else ()
    done = root.image(*start, "gui", "--root", f"/tmp/{MACHINE}", QT_QPA_PLATFORM="xcb",
                      DISPLAY=":99")
    assert done.returncode == 2, done.stderr[-3000:]
    assert "libxcb-cursor0" in done.stderr, done.stderr
    assert "sudo apt install" in done.stderr
    for crash in ("Traceback", "core dumped", "Aborted", "could not be initialized"):
        assert crash not in done.stderr, done.stderr
    assert not list(root.tmp.glob("core*"))
    assert left_behind(root) == []
