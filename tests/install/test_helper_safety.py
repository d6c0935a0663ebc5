"""The helper's safety limits, on a fake system with the real helper code (no chroot needed):

* it writes only rocmate's own apt files, and purges only ROCm's own packages: exactly what the
  planner's plans name (the refusals themselves are cases of test_helper_hostile.py);
* a rollback never loses the file it puts back: old content goes back through a temporary file
  and a rename, so a failed restore (a full disk) leaves the run's content, not nothing;
* a write that is cut short (an error or a cancellation) leaves no ``.rocmate-*.tmp`` behind, and
  a rollback removes one that an interrupted clean-up left;
* the first cancel signal shields the rest of the run: a second one cannot skip the rollback.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.diagnose.doctor import run_doctor
from core.install import planner
from core.install.helper import files as _helper_files
from core.install.helper import main as helper
from core.install.helper.exec import Cancelled, run_capture, run_child
from core.install.helper.files import Transaction
from core.install.helper.policy import PURGEABLE, ROCMATE_FILES
from core.install.helper.target import Policy, Target
from core.install.helper.validate import (
    AptPackages,
    CheckedPlan,
    WriteFile,
    check_input,
)
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem
from tests.install.support import (
    TRUSTED_FPR,
    TRUSTED_KEY,
    command_step,
    keyring_step,
    pin_step,
    plan,
    source_line,
    source_step,
    step_statuses,
)

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
AMD_URI = "https://repo.radeon.com/rocm/apt/6.2"
PIN = "/etc/apt/preferences.d/rocm-pin-600"


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".rocmate-"))


# --------------------------------------------------------------------------------------------
# rocmate's own files and packages: what the planner writes and removes, nothing else


def test_the_planner_writes_only_rocmate_files() -> None:
    assert ROCMATE_FILES[planner.KEYRING] == "keyring"
    assert ROCMATE_FILES[planner.SOURCES] == "apt-source"
    assert ROCMATE_FILES[planner.PIN] == "apt-pin"


def _privileged_input(name: str, **choices: Any) -> tuple[bytes, list[str]]:
    """The helper's input for a machine's plan, as the runner sends it (the keyring fetched:
    here the synthetic test key), without the usermod step (its user is the machine's); and the
    ids of the steps in it."""
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    made = planner.make_plan(facts, load_knowledge(), planner.Choices(**choices))
    steps = []
    for step in made.steps:
        data = step.to_json()
        if not step.privileged or (step.argv and step.argv[0] == "usermod"):
            continue
        if step.file is not None and step.file.source_url:
            data["file"]["content_b64"] = base64.b64encode(TRUSTED_KEY).decode()
            data["key_fingerprint"] = TRUSTED_FPR
        steps.append(data)
    return plan(*steps), [s["id"] for s in steps]


@pytest.mark.parametrize(
    ("machine", "choices", "files", "purges"),
    [
        ("rx7900xtx-ubuntu2404-ready", {"strategy": "rocm-apt"},
         [planner.KEYRING, planner.SOURCES, planner.PIN], False),
        # WSL 2 in the librocdxg era (issue 33/3): 10.x from AMD's Core SDK repository, the
        # installed 6.1.3 removed with consent; 7.2 from repo.radeon.com
        ("wsl2-ubuntu2204-rx7900xtx-ready", {"remove_old": True},
         [planner.CORE_SDK_KEYRING, planner.CORE_SDK_SOURCES], True),
        ("wsl2-ubuntu2204-rx7900xtx-ready", {"remove_old": True, "rocm": "7.2"},
         [planner.KEYRING, planner.SOURCES, planner.PIN], True),
        ("rocm-multiple-2x-rx7900xtx", {"remove_old": True}, [], True),
    ],
    ids=["rocm-apt", "wsl-10", "wsl-7.2", "remove-old"],
)
def test_the_helper_accepts_the_planners_plans(
    machine: str, choices: dict[str, Any], files: list[str], purges: bool, fake: Target,
    policy: Policy,
) -> None:
    payload, step_ids = _privileged_input(machine, **choices)
    result = check_input(payload, fake, policy)
    assert result.ok, [r.reason for r in result.refused]
    assert [a.step_id for a in result.actions] == step_ids
    written = [a for a in result.actions if isinstance(a, WriteFile)]
    assert [a.path for a in written] == files
    assert all(ROCMATE_FILES[a.path] == a.kind for a in written)
    purged = [a for a in result.actions if isinstance(a, AptPackages) and a.purge]
    assert bool(purged) == purges
    assert all(PURGEABLE.fullmatch(p) for a in purged for p in a.packages)


def test_the_planner_purges_what_the_helper_accepts() -> None:
    """One pattern for both (the planner imports the helper's, or has the very same text)."""
    assert planner.PURGEABLE.pattern == PURGEABLE.pattern


@pytest.mark.parametrize(
    "name",
    ["rocm-core", "rocm-core5.7.1", "rocm-hip-runtime6.2.0", "rocm6.2.0", "rocm", "rocminfo",
     "rocminfo5.7.1", "amd-smi-lib", "hsa-rocr", "hsa-rocr-dev6.2.0", "hip-runtime-amd5.7.1"],
)
def test_rocm_packages_may_be_purged(name: str, fake: Target, policy: Policy) -> None:
    result = check_input(plan(command_step("p", "apt-get", "purge", "-y", name, consent=True)),
                         fake, policy)
    assert result.ok, [r.reason for r in result.refused]


def test_install_argv_never_removes() -> None:
    install = helper.apt_packages_argv(AptPackages("i", "t", packages=("ca-certificates",)))
    purge = helper.apt_packages_argv(AptPackages("p", "t", packages=("rocm-core",), purge=True))
    assert install[install.index("install"):] == [
        "install", "-y", "--no-remove", "--", "ca-certificates"]
    assert "--no-remove" not in purge


# --------------------------------------------------------------------------------------------
# a rollback never loses the file it puts back


class _Faulty:
    """The ``os`` module as _helper_files sees it, with some functions replaced."""

    def __init__(self, **faults: Callable[..., Any]) -> None:
        self._faults = faults

    def __getattr__(self, name: str) -> Any:
        return self._faults.get(name) or getattr(os, name)


def _no_space(*args: Any, **kwargs: Any) -> int:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_restore_keeps_the_runs_file(
    fake: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writing the old content back fails (os.write made to fail with ENOSPC in _helper_files
    for the rollback only): the file keeps this run's content instead of vanishing."""
    root = Path(fake.root)
    pin = root / PIN.lstrip("/")
    pin.write_text("old\n")
    tx = Transaction(fake)
    assert tx.write(PIN, b"new\n") == "done"
    monkeypatch.setattr(_helper_files, "os", _Faulty(write=_no_space))
    undone = tx.rollback()
    monkeypatch.undo()
    assert undone == [f"could not restore {PIN} (No space left on device); it keeps this run's "
                      "content"]
    assert pin.read_text() == "new\n"
    assert _temps(pin.parent) == []


@contextlib.contextmanager
def _tiny_tmpfs(folder: Path) -> Iterator[None]:
    """A 64 KiB tmpfs on ``folder`` (root only; skips where mounting is not permitted)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs",
                              str(folder)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.root
def test_a_restore_on_a_full_disk_keeps_the_runs_file(fake: Target) -> None:
    """For real: preferences.d is a full 64 KiB tmpfs when the rollback wants 32 KiB back."""
    root = Path(fake.root)
    folder = root / "etc/apt/preferences.d"
    with _tiny_tmpfs(folder):
        old = b"#" * (32 << 10)
        (folder / "rocm-pin-600").write_bytes(old)
        tx = Transaction(fake)
        assert tx.write(PIN, b"new\n") == "done"
        filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            with contextlib.suppress(OSError):
                while os.write(filler, b"\0" * 4096):
                    pass
        finally:
            os.close(filler)
        undone = tx.rollback()
        assert undone == [f"could not restore {PIN} (No space left on device); it keeps this "
                          "run's content"]
        assert (folder / "rocm-pin-600").read_bytes() == b"new\n"
        assert _temps(folder) == []
        (folder / "filler").unlink()  # with room again, a rollback does put it back
        tx = Transaction(fake)
        (folder / "rocm-pin-600").write_bytes(old)
        assert tx.write(PIN, b"new\n") == "done"
        assert tx.rollback() == [f"restored {PIN}"]
        assert (folder / "rocm-pin-600").read_bytes() == old


# --------------------------------------------------------------------------------------------
# no temporary file left behind


def _cancel_now(*args: Any, **kwargs: Any) -> None:
    raise Cancelled("SIGTERM")


def test_a_cancelled_write_leaves_no_temporary_file(
    fake: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled (a BaseException) between creating the temporary file and the rename."""
    folder = Path(fake.root) / "etc/apt/sources.list.d"
    (folder / "rocm.list").write_text("old\n")
    monkeypatch.setattr(_helper_files, "os", _Faulty(fchmod=_cancel_now))
    tx = Transaction(fake)
    with pytest.raises(Cancelled):
        tx.write("/etc/apt/sources.list.d/rocm.list", b"new\n")
    monkeypatch.undo()
    assert _temps(folder) == []
    assert (folder / "rocm.list").read_text() == "old\n"
    assert tx.rollback() == ["restored /etc/apt/sources.list.d/rocm.list"]
    assert (folder / "rocm.list").read_text() == "old\n" and _temps(folder) == []


def test_a_rollback_removes_a_temporary_file_an_interruption_left(
    fake: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write fails, and a cancellation then cuts its own clean-up short: the temporary file
    is still there until the rollback removes it."""
    folder = Path(fake.root) / "etc/apt/sources.list.d"

    def unlink(path: str, *args: Any, **kwargs: Any) -> None:
        if path.startswith(".rocmate-"):
            raise Cancelled("SIGTERM")
        os.unlink(path, *args, **kwargs)

    monkeypatch.setattr(_helper_files, "os", _Faulty(write=_no_space, unlink=unlink))
    tx = Transaction(fake)
    with pytest.raises(Cancelled):
        tx.write("/etc/apt/sources.list.d/rocm.list", b"new\n")
    monkeypatch.undo()
    [left] = _temps(folder)
    assert tx.rollback() == [f"removed leftover /etc/apt/sources.list.d/{left}"]
    assert list(folder.iterdir()) == []


# --------------------------------------------------------------------------------------------
# cancel signals


@contextlib.contextmanager
def _cancel_handlers() -> Iterator[None]:
    """The helper's handlers for SIGTERM, SIGINT and SIGHUP, as main() installs them; the old
    ones back afterwards."""
    assert threading.current_thread() is threading.main_thread()
    old = {sig: signal.getsignal(sig) for sig in helper.CANCEL_SIGNALS}
    for sig in helper.CANCEL_SIGNALS:
        signal.signal(sig, helper._cancel)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def test_the_first_cancel_signal_shields_the_rest() -> None:
    with _cancel_handlers():
        with pytest.raises(Cancelled, match="SIGTERM"):
            os.kill(os.getpid(), signal.SIGTERM)
        assert {signal.getsignal(s) for s in helper.CANCEL_SIGNALS} == {signal.SIG_IGN}
        os.kill(os.getpid(), signal.SIGINT)  # ignored now: no second Cancelled


@pytest.mark.parametrize(("run", "when"), [
    ("run_child", "in-popen"), ("run_child", "closing-status-pipe"), ("run_capture", "in-popen")])
def test_a_cancel_while_a_child_starts_still_stops_that_child(
        monkeypatch: pytest.MonkeyPatch, run: str, when: str) -> None:
    """SIGTERM after the fork but before ``Popen`` returned (the real Popen, then the signal),
    or while the parent closes its copy of apt's status pipe just after: the child must not be
    left running while the run is rolled back around it."""
    started: list[subprocess.Popen[bytes]] = []
    passed_fds: list[int] = []
    real_popen, real_close = subprocess.Popen, os.close

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        passed_fds.extend(kwargs.get("pass_fds") or ())
        if when == "in-popen":
            os.kill(os.getpid(), signal.SIGTERM)  # handled before this call returns
        return proc

    def close(fd: int) -> None:
        real_close(fd)
        if fd in passed_fds:
            passed_fds.remove(fd)
            os.kill(os.getpid(), signal.SIGTERM)  # handled right after os.close returns

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(os, "close", close)
    with _cancel_handlers(), pytest.raises(Cancelled, match="SIGTERM"):
        if run == "run_child":
            run_child(["/bin/sleep", "30", "{status_fd}"], "s", lambda _e: None, timeout=60,
                      status_fd=when == "closing-status-pipe")
        else:
            run_capture(["/bin/sleep", "30"], b"", timeout=60)
    assert len(started) == 1
    try:
        assert started[0].wait(timeout=15) is not None  # stopped, not running on
    finally:
        if started[0].poll() is None:
            started[0].kill()


@pytest.mark.timeout(30)
def test_a_timed_out_capture_stops_what_its_program_started(tmp_path: Path) -> None:
    """gpg that hangs, with a child of its own holding the output pipe: the call still returns
    (no unbounded wait for the pipe's end) and nothing of it is left."""
    pid_file = tmp_path / "grandchild"
    script = f"sleep 60 & echo $! > {pid_file}; sleep 60"
    t0 = time.monotonic()
    code, out = run_capture(["/bin/sh", "-c", script], b"", timeout=1.0)
    assert code == 127 and "timed out" in out
    assert time.monotonic() - t0 < 10
    stat_file = Path(f"/proc/{pid_file.read_text().strip()}/stat")
    deadline = time.monotonic() + 5  # killed; its reaping (by init) may take a moment
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if stat_file.read_text().split(") ")[1][0] != "Z":
                time.sleep(0.05)
                continue
        break
    else:
        pytest.fail("the program's own child was left running")


def _two_signals_at_once() -> None:
    """SIGINT and SIGTERM pending together (blocked, sent, unblocked): Python runs the first
    handler at once and the second at its next chance, i.e. while the first is being handled."""
    both = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, both)
    try:
        for sig in both:
            signal.pthread_kill(threading.main_thread().ident or 0, sig)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, both)


def _checked(fake: Target, policy: Policy) -> CheckedPlan:
    checked = check_input(plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR), pin_step(),
                               source_step(source_line(AMD_URI))), fake, policy)
    assert checked.ok
    return checked


def _assert_rolled_back(fake: Target, out: list[dict[str, Any]], failed: str) -> None:
    done = out[-1]
    assert done["event"] == "done" and done["ok"] is False and done["failed_step"] == failed
    assert done["error"].startswith(f"step {failed} failed: cancelled; undone: ")
    assert "removed /etc/apt/keyrings/rocm.gpg" in done["rolled_back"]
    for folder in ("keyrings", "preferences.d", "sources.list.d"):
        assert list((Path(fake.root) / "etc/apt" / folder).iterdir()) == []


def test_a_second_signal_cannot_skip_the_rollback(
    fake: Target, policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _checked(fake, policy)
    real = helper._carry_out

    def carry_out(action: Any, plan: CheckedPlan, tx: Transaction, emit: Any) -> str:
        status = real(action, plan, tx, emit)
        if action.step_id == "apt-pin":
            _two_signals_at_once()
        return status

    monkeypatch.setattr(helper, "_carry_out", carry_out)
    ignored: list[Any] = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = ignored.append  # CPython's note about the ignored second signal
    try:
        out: list[dict[str, Any]] = []
        with _cancel_handlers():
            assert helper.run_plan(checked, out.append, fake) == 1
    finally:
        sys.unraisablehook = old_hook
    assert step_statuses(out) == {"apt-keyring": "done", "apt-pin": "failed"}
    assert out[-1]["rolled_back"] == ["removed /etc/apt/preferences.d/rocm-pin-600",
                                      "removed /etc/apt/keyrings/rocm.gpg"]
    _assert_rolled_back(fake, out, "apt-pin")


def test_a_signal_while_a_failure_is_taken_in_still_rolls_back(
    fake: Target, policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The source step fails (its folder swapped for a link after the checks) and a signal
    lands before the shield is up: the run is rolled back as cancelled."""
    checked = _checked(fake, policy)
    root = Path(fake.root)
    (root / "etc/apt/sources.list.d").rmdir()
    (root / "etc/apt/sources.list.d").symlink_to(root / "tmp")
    real = helper._shield
    calls: list[int] = []

    def shield() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise Cancelled("SIGTERM")  # as the signal handler would, just then
        real()

    monkeypatch.setattr(helper, "_shield", shield)
    out: list[dict[str, Any]] = []
    assert helper.run_plan(checked, out.append, fake) == 1
    assert step_statuses(out) == {"apt-keyring": "done", "apt-pin": "done",
                                  "apt-source": "failed"}
    assert out[-1]["rolled_back"] == ["removed /etc/apt/preferences.d/rocm-pin-600",
                                      "removed /etc/apt/keyrings/rocm.gpg"]
    (root / "etc/apt/sources.list.d").unlink()
    (root / "etc/apt/sources.list.d").mkdir()
    _assert_rolled_back(fake, out, "apt-source")
    assert list((root / "tmp").iterdir()) == []
