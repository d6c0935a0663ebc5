"""Cancelling the helper through its stdin (``--cancel-on-eof``), for real.

A user's runner may not signal the root helper that sudo or pkexec started, so with
``--cancel-on-eof`` the plan is the first line of stdin, stdin stays open, and its end means
"stop and roll back". Here the real helper runs as root in a throwaway Debian root (chroot):

* stdin closed in the middle of a long step (apt-get install waiting for dpkg's lock, which
  this test holds; apt-get is seen running first): the step's apt-get is killed, the file the
  run wrote is removed again, the last event is ``done`` ok=false "cancelled", exit 1, within
  seconds;
* stdin already closed when the helper starts: cancelled just the same, nothing left behind;
* stdin closed only after the run ended: nothing changes (ok=true, exit 0);
* the plain form (no option, the plan up to the end of stdin) still works, and the command
  line stays strict.

Without root (or mmdebstrap) the chroot tests skip; the command-line ones run anywhere.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from core.install.helper import main as helper
from core.install.privilege import CANCEL_ON_EOF
from tests.install.support import (
    CHROOT_ENV,
    STAND_IN,
    command_step,
    events,
    helper_root,
    install_stand_in,
    pin_content,
    pin_step,
    plan,
    processes_in,
    run_helper,
    step_statuses,
)

PIN = "etc/apt/preferences.d/rocm-pin-600"
DPKG_LOCK = "var/lib/dpkg/lock-frontend"
QUICK_S = 5.0
"""How soon after the end of stdin the helper must have rolled back and ended."""


# --------------------------------------------------------------------------------------------
# the command line (no root needed)


def test_the_option_is_the_runners() -> None:
    assert helper.CANCEL_ON_EOF == CANCEL_ON_EOF == "--cancel-on-eof"


@pytest.mark.parametrize(
    "argv",
    [
        ["--cancel-on-eof", "--check"],
        ["--check", "--cancel-on-eof"],
        ["--cancel-on-eof", "--cancel-on-eof"],
        ["--cancel-on-eof=1"],
        ["--cancel"],
        ["--cancel-on-eof", "plan.json"],
    ],
)
def test_the_command_line_stays_strict(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert helper.main(argv, stdin=io.BytesIO(b"[]\n"), stdout=out) == helper.EXIT_USAGE
    assert out.getvalue() == ""
    assert capsys.readouterr().err == helper.USAGE + "\n"


def test_only_the_first_line_is_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the option the plan ends at its newline (what follows is not read as the plan);
    without it, the whole input is the plan. (Not root: the run stops before any step.)"""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    line = plan(pin_step())
    for argv, data, expected in (
        ([CANCEL_ON_EOF], line + b"\nnot json", helper.EXIT_USAGE),  # accepted, then "not root"
        ([CANCEL_ON_EOF], line, helper.EXIT_USAGE),  # no newline: all of the input
        ([], line + b"\nnot json", helper.EXIT_REFUSED),
        ([CANCEL_ON_EOF], json.dumps(json.loads(line), indent=1).encode(), helper.EXIT_REFUSED),
    ):
        out = io.StringIO()
        assert helper.main(argv, stdin=io.BytesIO(data), stdout=out) == expected, data
        if expected == helper.EXIT_USAGE:
            assert events(out.getvalue())[-1]["error"] == "the helper must run as root"


def test_the_line_has_the_same_size_limit() -> None:
    """The limit counts the plan, not its newline; a longer line is refused, not cut."""
    limit = helper.MAX_INPUT_BYTES
    assert helper._read_line(io.BytesIO(b"x" * limit + b"\nmore")) == b"x" * limit
    assert helper._read_line(io.BytesIO(b"x" * (limit + 5) + b"\n")) == b"x" * (limit + 1)
    assert helper._read_line(io.BytesIO(b"[]")) == b"[]"
    assert helper._read_line(io.BytesIO(b"")) == b""
    stream = io.BytesIO(b"[]\nrest")
    helper._read_line(stream)
    assert stream.read() == b"rest"  # left for the watcher


# --------------------------------------------------------------------------------------------
# for real, as root, in a throwaway Debian root


@pytest.fixture(scope="module")
def cancel_root(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with helper_root(debian_root, tmp_path_factory.mktemp("cancel") / "copy") as root:
        install_stand_in(root)
        yield root


@pytest.fixture
def clean_root(cancel_root: Path) -> Iterator[Path]:
    """The module's root, without the pin before and after each test."""
    (cancel_root / PIN).unlink(missing_ok=True)
    yield cancel_root
    (cancel_root / PIN).unlink(missing_ok=True)


@contextlib.contextmanager
def _dpkg_lock_held(root: Path) -> Iterator[None]:
    """Hold dpkg's frontend lock of ``root`` (an fcntl lock, as apt takes it): apt-get install
    waits for it (DPkg::Lock::Timeout, 120 s), a step that takes as long as this test likes."""
    fd = os.open(root / DPKG_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def _slow_plan() -> bytes:
    """A file (to be rolled back), then an install that waits for dpkg's lock."""
    return plan(pin_step(),
                command_step("apt-install", "apt-get", "install", "-y", STAND_IN))


def _start(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["chroot", str(root), "/usr/bin/python3", "-I", "-m", "core.install.helper", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=CHROOT_ENV,
        cwd=root / "opt/rocmate",
    )


def _read_until(stdout: IO[bytes], seen: list[dict[str, Any]], wanted: str) -> dict[str, Any]:
    """Events up to (and with) the first one whose JSON text holds ``wanted``."""
    for raw in stdout:
        seen.append(json.loads(raw))
        if wanted in raw.decode():
            return seen[-1]
    raise AssertionError(f"no event with {wanted!r}: {seen}")


def _finish(proc: subprocess.Popen[bytes], seen: list[dict[str, Any]]) -> tuple[int, str]:
    """The rest of the events, the exit code and stderr."""
    assert proc.stdout is not None and proc.stderr is not None
    seen.extend(events(proc.stdout.read()))
    code = proc.wait(timeout=60)
    return code, proc.stderr.read().decode()




def _wait_for_apt_get(root: Path) -> None:
    """Until apt-get runs in ``root`` (waiting for dpkg's lock), and a moment longer."""
    deadline = time.monotonic() + 30
    while "apt-get" not in processes_in(root).values():
        assert time.monotonic() < deadline, "apt-get did not start"
        time.sleep(0.05)
    time.sleep(0.5)


def _assert_cancelled_and_rolled_back(seen: list[dict[str, Any]], root: Path) -> None:
    done = seen[-1]
    assert done == {
        "event": "done", "ok": False,
        "error": "step apt-install failed: cancelled; undone: removed /" + PIN,
        "failed_step": "apt-install", "rolled_back": ["removed /" + PIN],
    }
    assert step_statuses(seen) == {"apt-pin": "done", "apt-install": "failed"}
    failed = [e for e in seen if e["event"] == "step" and e["status"] == "failed"]
    assert failed[0]["error"] == "cancelled"
    assert [e for e in seen if e["event"] == "rollback"] == [
        {"event": "rollback", "id": "apt-install", "undone": ["removed /" + PIN]}
    ]
    assert not (root / PIN).exists()
    assert processes_in(root) == {}  # apt-get was killed, not left waiting for the lock


@pytest.mark.root
def test_closing_stdin_cancels_a_running_step(clean_root: Path) -> None:
    root = clean_root
    seen: list[dict[str, Any]] = []
    with _dpkg_lock_held(root):
        proc = _start(root, CANCEL_ON_EOF)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(_slow_plan() + b"\n")
            proc.stdin.flush()  # and left open: the run goes on
            _read_until(proc.stdout, seen, '"id": "apt-install"')  # its start event
            _wait_for_apt_get(root)
            assert (root / PIN).read_text() == pin_content()  # the first step is done
            closed = time.monotonic()
            proc.stdin.close()
            code, stderr = _finish(proc, seen)
            took = time.monotonic() - closed
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert code == helper.EXIT_FAILED and stderr == ""
    assert took < QUICK_S
    _assert_cancelled_and_rolled_back(seen, root)


@pytest.mark.root
def test_stdin_closed_from_the_start_cancels(clean_root: Path) -> None:
    """The plan's line and at once the end of stdin: the run is cancelled wherever it has got
    to (before the lock, or in the waiting install), and nothing is left behind."""
    root = clean_root
    with _dpkg_lock_held(root):
        start = time.monotonic()
        run = run_helper(root, _slow_plan() + b"\n", CANCEL_ON_EOF, timeout=60)
        took = time.monotonic() - start
    assert run.code == helper.EXIT_FAILED and run.stderr == "", run.stdout + run.stderr
    assert took < 30  # not the 120 s apt would wait for the lock
    done = run.events[-1]
    assert done["event"] == "done" and done["ok"] is False
    # Before the first event, while the plan event is written, or in either step.
    assert re.fullmatch(r"(step apt-(pin|install) failed: )?cancelled(; .+)?", done["error"]), done
    assert [e for e in run.events if e["event"] == "done"] == [done]
    assert not (root / PIN).exists()
    assert processes_in(root) == {}


@pytest.mark.root
@pytest.mark.parametrize("delay", [0.0, 0.3])
def test_stdin_closed_after_the_run_changes_nothing(clean_root: Path, delay: float) -> None:
    root = clean_root
    seen: list[dict[str, Any]] = []
    proc = _start(root, CANCEL_ON_EOF)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(plan(pin_step()) + b"\n")
        proc.stdin.flush()
        _read_until(proc.stdout, seen, '"event": "done"')
        time.sleep(delay)
        proc.stdin.close()  # the end of stdin after the done event: not a cancel
        code, stderr = _finish(proc, seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == helper.EXIT_OK and stderr == "", seen
    assert seen[-1] == {"event": "done", "ok": True, "error": None}
    assert step_statuses(seen) == {"apt-pin": "done"}
    assert not [e for e in seen if e["event"] == "rollback"]
    assert (root / PIN).read_text() == pin_content()


@pytest.mark.root
def test_the_plain_form_still_reads_the_plan_to_its_end(clean_root: Path) -> None:
    """No option: the plan is all of stdin (newlines and all) and its end is no cancel."""
    root = clean_root
    pretty = json.dumps(json.loads(plan(pin_step())), indent=2).encode()
    run = run_helper(root, pretty)
    assert run.code == helper.EXIT_OK and run.stderr == "", run.stdout + run.stderr
    assert run.events[-1] == {"event": "done", "ok": True, "error": None}
    assert (root / PIN).read_text() == pin_content()
    # The same text with the option: only its first line ("{") is the plan, which is refused.
    (root / PIN).unlink()
    refused = run_helper(root, pretty, CANCEL_ON_EOF)
    assert refused.code == helper.EXIT_REFUSED and refused.events[0]["event"] == "refused"
    assert not (root / PIN).exists()
