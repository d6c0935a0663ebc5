"""One privileged run at a time: the helper's single-run lock, for real.

* in-process, on a small fake system: a lock the test holds (``flock`` on the same file) makes
  the run stop with one readable "done" event and write nothing; two runs one after the other
  both work (the lock is let go); a symbolic link, hard link, FIFO or folder planted where the
  lock file goes is refused, never followed;
* the unprivileged side shows the refusal in words (runner relay and the CLI's line);
* as root, in the throwaway Debian root: the same with the real helper process (chroot).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.cli import install as cli
from core.install.helper import main as helper
from core.install.helper.lock import LOCK_PATH, LockBusy, take_lock
from core.install.helper.target import Policy, Target
from core.install.helper.validate import check_input
from core.install.plan import FileSpec, Plan, Step
from core.install.runner import Runner
from core.knowledge.loader import load_knowledge
from tests.install.support import (
    REPO_ROOT,
    add_fixtures,
    helper_root,
    pin_content,
    pin_step,
    plan,
    run_helper,
    snapshot,
    step_statuses,
    write_accounts,
)

PIN = "etc/apt/preferences.d/rocm-pin-600"
LOCK = LOCK_PATH.lstrip("/")


def _busy(pid: int | None) -> str:
    holder = f" (pid {pid})" if pid is not None else ""
    return f"another rocmate set-up is running{holder}; wait for it to finish, then try again"


@contextlib.contextmanager
def held_lock(root: Path, pid: int | None) -> Iterator[None]:
    """Hold the helper's lock of ``root`` from this process, as a running helper would."""
    path = root / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        if pid is not None:
            os.write(fd, f"{pid}\n".encode())
        yield
    finally:
        os.close(fd)


@pytest.fixture
def fake(tmp_path: Path) -> Target:
    write_accounts(tmp_path)
    add_fixtures(tmp_path)
    return Target(str(tmp_path))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return Policy.from_knowledge(load_knowledge())


def _run(fake: Target, policy: Policy) -> tuple[int, list[dict[str, Any]]]:
    """The helper's run of a one-file plan (the pin) on the fake system, in this process."""
    checked = check_input(plan(pin_step()), fake, policy)
    assert checked.ok, checked.refused
    out: list[dict[str, Any]] = []
    return helper.run_plan(checked, out.append, fake), out


# --------------------------------------------------------------------------------------------
# in-process, on a fake system


def test_lock_is_exclusive_names_its_holder_and_is_let_go(fake: Target) -> None:
    root = Path(fake.root)
    lock = take_lock(fake)
    info = (root / LOCK).lstat()
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o644
    assert (root / LOCK).read_text() == f"{os.getpid()}\n"
    with pytest.raises(LockBusy) as busy:
        take_lock(fake)  # a second open file description: flock conflicts even in one process
    assert busy.value.pid == os.getpid() and str(busy.value) == _busy(os.getpid())
    lock.release()
    lock.release()  # twice is harmless
    assert (root / LOCK).read_text() == ""
    take_lock(fake).release()


@pytest.mark.parametrize("pid", [4242, None], ids=["with-pid", "no-pid"])
def test_held_lock_refuses_the_run_and_writes_nothing(
    fake: Target, policy: Policy, pid: int | None
) -> None:
    root = Path(fake.root)
    before = snapshot(root, ["etc", "home"])
    with held_lock(root, pid):
        code, out = _run(fake, policy)
    assert code == helper.EXIT_FAILED == 1
    assert out == [{"event": "done", "ok": False, "error": _busy(pid)}]
    assert not (root / PIN).exists()
    assert snapshot(root, ["etc", "home"]) == before


def test_a_holder_that_has_only_just_taken_the_lock_is_still_named(fake: Target) -> None:
    """The holder writes its pid right after its flock; a run refused in that gap waits for the
    pid instead of naming no one (two set-ups started together, seen on CI)."""
    root = Path(fake.root)
    path = root / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        late = threading.Timer(0.05, os.pwrite, (fd, b"4343\n", 0))
        late.start()
        with pytest.raises(LockBusy) as busy:
            take_lock(fake)
        late.join()
    finally:
        os.close(fd)
    assert busy.value.pid == 4343


def test_two_runs_in_sequence_both_work(fake: Target, policy: Policy) -> None:
    root = Path(fake.root)
    first_code, first = _run(fake, policy)
    second_code, second = _run(fake, policy)
    assert (first_code, second_code) == (0, 0), (first, second)
    assert step_statuses(first) == {"apt-pin": "done"}
    assert step_statuses(second) == {"apt-pin": "unchanged"}
    assert first[-1] == second[-1] == {"event": "done", "ok": True, "error": None}
    assert (root / PIN).read_text() == pin_content()
    assert (root / LOCK).read_text() == ""  # let go, with no stale pid left behind
    take_lock(fake).release()


def _plant(root: Path, kind: str) -> Path:
    """Something other than the helper's own lock file at its path; returns the victim file
    (which exists, except behind the dangling link)."""
    victim = root / "etc/victim"
    path = root / LOCK
    if kind != "dangling-symlink":
        victim.write_text("keep\n")
        victim.chmod(0o600)
    if kind in ("symlink", "dangling-symlink"):
        path.symlink_to(victim)  # following the dangling one with O_CREAT would create it
    elif kind == "hard-link":
        os.link(victim, path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    return victim


def _state(path: Path) -> tuple[str, int] | None:
    """A file's text and mode (None when it does not exist)."""
    return (path.read_text(), stat.S_IMODE(path.stat().st_mode)) if path.exists() else None


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("symlink", "/run/rocmate-helper.lock is a symbolic link; refusing to follow it"),
        ("dangling-symlink", "/run/rocmate-helper.lock is a symbolic link; refusing to follow it"),
        ("hard-link", "/run/rocmate-helper.lock has 2 names (a hard link); refusing it"),
        ("fifo", "/run/rocmate-helper.lock exists and is not a plain file"),
        ("folder", "cannot open /run/rocmate-helper.lock: Is a directory"),
    ],
)
def test_planted_lock_path_is_never_followed(
    fake: Target, policy: Policy, kind: str, reason: str
) -> None:
    root = Path(fake.root)
    victim = _plant(root, kind)
    before = _state(victim)
    code, out = _run(fake, policy)
    assert code == 1
    assert out == [{"event": "done", "ok": False,
                    "error": f"cannot take the single-run lock: {reason}"}]
    assert _state(victim) == before
    assert not (root / PIN).exists()


def test_a_missing_run_folder_refuses_the_run(fake: Target, policy: Policy) -> None:
    root = Path(fake.root)
    (root / "run").rmdir()
    code, out = _run(fake, policy)
    assert code == 1 and len(out) == 1
    assert out[0]["error"] == (
        "cannot take the single-run lock: cannot open /run: No such file or directory"
    )
    assert not (root / PIN).exists() and not (root / "run").exists()


# --------------------------------------------------------------------------------------------
# the unprivileged side: runner and CLI


def test_runner_and_cli_show_the_refusal_in_words(
    fake: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real helper code (run_plan on the fake system, in a child process, as the runner
    starts the helper) behind the real runner; the CLI's line for the final event."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "from core.install.helper import main as helper\n"
        "from core.install.helper.target import Policy, Target\n"
        "from core.install.helper.validate import check_input\n"
        "from core.knowledge.loader import load_knowledge\n"
        f"target = Target({fake.root!r})\n"
        "policy = Policy.from_knowledge(load_knowledge())\n"
        "checked = check_input(sys.stdin.buffer.read(), target, policy)\n"
        "sys.exit(helper.run_plan(checked, helper.Emitter(sys.stdout), target))\n"
    )
    pin = Step("apt-pin", "Pin AMD's repository", "pin", privileged=True, kind="file",
               file=FileSpec("/etc/apt/preferences.d/rocm-pin-600", content=pin_content()))
    run_plan = Plan(strategy="rocm-apt", rocm="6.2", torch_index=None, steps=(pin,))
    events: list[dict[str, Any]] = []
    runner = Runner(run_plan, events.append, [sys.executable, "-I", "-c", script],
                    folder=tmp_path / "state")
    with held_lock(Path(fake.root), 4242):
        ok = asyncio.run(runner.run())
    assert ok is False
    relayed = [e for e in events if e["event"] == "helper-done"]
    assert len(relayed) == 1 and relayed[0]["error"] == _busy(4242)
    last = events[-1]
    assert last["event"] == "done" and last["ok"] is False and last["exit"] == 1
    assert last["error"] == _busy(4242)
    capsys.readouterr()
    cli._print_event(last)
    assert capsys.readouterr().out == f"Stopped: {_busy(4242)}\n"
    assert not (Path(fake.root) / PIN).exists()


# --------------------------------------------------------------------------------------------
# as root, the real helper process in the throwaway Debian root


@pytest.fixture(scope="module")
def lock_root(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with helper_root(debian_root, tmp_path_factory.mktemp("lock") / "copy") as root:
        yield root


@pytest.mark.root
def test_real_helper_refuses_while_locked_then_runs_twice(lock_root: Path) -> None:
    root = lock_root
    (root / PIN).unlink(missing_ok=True)
    assert (root / "run").is_dir() and not (root / "run").is_symlink()
    with held_lock(root, os.getpid()):
        refused = run_helper(root, plan(pin_step()))
        check = run_helper(root, plan(pin_step()), "--check")  # --check takes no lock
    assert refused.code == 1, refused.stdout + refused.stderr
    assert refused.events == [{"event": "done", "ok": False, "error": _busy(os.getpid())}]
    assert refused.stderr == ""  # no traceback
    assert check.code == 0 and check.stdout.strip() == '{"ok": true}'
    assert not (root / PIN).exists()
    first = run_helper(root, plan(pin_step()))
    second = run_helper(root, plan(pin_step()))
    assert (first.code, second.code) == (0, 0), first.stdout + second.stdout
    assert step_statuses(first.events) == {"apt-pin": "done"}
    assert step_statuses(second.events) == {"apt-pin": "unchanged"}
    assert (root / PIN).read_text() == pin_content()
    info = (root / LOCK).lstat()
    assert stat.S_ISREG(info.st_mode) and info.st_uid == 0
    assert stat.S_IMODE(info.st_mode) == 0o644
    (root / PIN).unlink()


@pytest.mark.root
@pytest.mark.parametrize("victim_exists", [True, False], ids=["to-a-file", "dangling"])
def test_real_helper_does_not_follow_a_planted_link(lock_root: Path, victim_exists: bool) -> None:
    root = lock_root
    victim = root / "etc/victim"
    (root / PIN).unlink(missing_ok=True)
    (root / LOCK).unlink(missing_ok=True)
    victim.unlink(missing_ok=True)
    if victim_exists:
        victim.write_text("keep\n")
        victim.chmod(0o600)
    (root / LOCK).symlink_to("/etc/victim")  # absolute: the victim as the chrooted helper sees it
    before = _state(victim)
    try:
        run = run_helper(root, plan(pin_step()))
        assert run.code == 1, run.stdout + run.stderr
        assert run.events == [{
            "event": "done", "ok": False,
            "error": "cannot take the single-run lock: /run/rocmate-helper.lock is a symbolic "
                     "link; refusing to follow it",
        }]
        assert _state(victim) == before
        assert not (root / PIN).exists()
    finally:
        (root / LOCK).unlink()
        victim.unlink(missing_ok=True)
