"""rocmate's privileged helper: the only code that runs as root.

Started as ``pkexec <python> -I -m core.install.helper`` from an installed copy (polkit action
org.rocmate.helper, resources/polkit/), as ``pkexec "$APPIMAGE" helper`` from the AppImage, with
``sudo`` or directly (when already root) from the CLI. Its command line is
``[--check | --cancel-on-eof]``. It reads the privileged steps of a plan as JSON on stdin
(``{"schema": "rocmate.plan/1", "steps": [...]}`` or a bare list of steps; only steps with
``"privileged": true`` are taken), checks every one against a closed table of verbs with strict
argument schemas (core/install/helper/validate.py) for the user who called it (``PKEXEC_UID``
from pkexec, ``SUDO_UID`` from sudo, or root's own call: core/install/helper/caller.py; a
``usermod`` for any other account is refused, and so is every plan when the caller cannot be
told), and then:

* ``--check``: prints ``{"ok": true}`` and exits 0 when every step would be accepted, else
  ``{"ok": false, "refused": [{"index", "id", "reason"}, ...]}`` and exits 2. Nothing is run and
  nothing is written.
* without ``--check`` (as root): carries the steps out in order, printing JSON lines on stdout:

  - ``{"event": "plan", "steps": [{"id", "verb"}, ...]}``
  - ``{"event": "step", "id", "verb", "status": "start"}``
  - ``{"event": "output", "id", "line"[, "percent"]}`` for each line a child prints
  - ``{"event": "progress", "id", "phase": "download"|"install", "percent", "message"}`` (apt)
  - ``{"event": "step", "id", "verb", "status": "done"|"unchanged"|"failed"[, "error"]}``
  - ``{"event": "rollback", "id", "undone": ["removed /etc/apt/...", ...]}`` after a failure
  - ``{"event": "refused", "refused": [...]}`` when the input is refused (nothing ran)
  - ``{"event": "done", "ok": bool, "error": str|null[, "failed_step", "rolled_back"]}``, last

  It stops at the first failure; every file the run wrote is then removed again (or its old
  content put back). A second run of the same plan changes nothing ("unchanged" steps).

  Cancelling: SIGTERM, SIGINT or SIGHUP stops the current step (its program and everything it
  started are killed) and the run is rolled back as after a failure, the step ``"failed"`` with
  the error ``"cancelled"``. A cancel that comes before the first step began (nothing ran) ends
  with a ``done`` event whose error starts with ``"cancelled"``, without ``failed_step``; one
  that comes once the run has ended (its ``done`` event written) changes nothing. The first
  cancel shields the rest of the run: a second one cannot cut the rollback short.

* ``--cancel-on-eof`` (as root): the same run, for a caller that may not signal a root process
  (a user's runner behind pkexec or sudo). The plan is the first line of stdin (up to its first
  newline, or all of the input when it has none; the same size limit) and stdin stays open
  while the run goes on: its end (the caller closed it, or went away) is a cancel, taken the
  same way as a SIGTERM. Whatever follows the plan's line is read and ignored. The end of stdin
  after the run has ended changes nothing. ``--check`` reads the whole input, as does the
  helper without an option.

  One run at a time: before the first step the helper takes an exclusive, non-blocking lock on
  ``/run/rocmate-helper.lock`` (core/install/helper/lock.py). While another run holds it, the
  only event is ``{"event": "done", "ok": false, "error": "another rocmate set-up is running
  (pid N); wait for it to finish, then try again"}`` and nothing runs.

  ``apt-get install`` runs with ``--no-remove``: where the new packages would need another one
  removed, apt stops before changing anything and the step fails.

  apt's own lock: ``apt-get install``/``purge`` wait up to ``APT_LOCK_WAIT_S`` seconds for dpkg's
  lock (``-o DPkg::Lock::Timeout``) while another package manager (unattended-upgrades, apt in
  a terminal) holds it; apt prints "Waiting for cache lock" lines meanwhile. ``apt-get update``
  does not honour that option (its lock on /var/lib/apt/lists is taken without waiting), so the
  helper runs it again every few seconds, within the same bound, while that lock is held. When
  the wait runs out, the error names the lock and the process holding it, as apt reported it.

Exit codes: 0 done, 1 a step failed (rolled back), the run was cancelled (by a signal or, with
``--cancel-on-eof``, by the end of stdin; rolled back), or another run holds the single-run lock
(or it cannot be taken safely; nothing ran), 2 refused, 3 not root or bad command line. Never
126/127, which pkexec uses for "dismissed" and "not authorised". Children run from argv lists
with a fixed PATH, ``LC_ALL=C.UTF-8``, ``DEBIAN_FRONTEND=noninteractive``, stdin closed and a
timeout; never through a shell.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import IO, Any

from core.install.helper.caller import UnknownCaller, resolve_caller
from core.install.helper.exec import (
    Cancelled,
    ChildResult,
    ProgramMissing,
    cancel,
    find_program,
    run_capture,
    run_child,
)
from core.install.helper.files import FileFailed, Transaction
from core.install.helper.lock import LockBusy, LockFailed, RunLock, take_lock
from core.install.helper.target import Policy, Target, load_policy
from core.install.helper.ttm import restore as ttm_restore
from core.install.helper.ttm import set_limit as ttm_set_limit
from core.install.helper.validate import (
    MAX_INPUT_BYTES,
    Action,
    AptPackages,
    AptUpdate,
    CheckedPlan,
    Refusal,
    TtmLimit,
    TtmRestore,
    UserGroups,
    WriteFile,
    check_input,
)

__all__ = [
    "APT_LOCK_WAIT_S",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "AptLock",
    "apt_lock",
    "apt_packages_argv",
    "apt_update_argv",
    "check",
    "main",
    "run_plan",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 2
EXIT_USAGE = 3
CHECK = "--check"
CANCEL_ON_EOF = "--cancel-on-eof"
"""The end of stdin means "stop and roll back" (privilege.CANCEL_ON_EOF names it for the runner;
the helper imports nothing from the unprivileged side)."""
USAGE = "usage: python -I -m core.install.helper [--check | --cancel-on-eof] < plan.json"

TIMEOUTS = {
    "apt-update": 900.0,
    "apt-install": 4 * 3600.0,
    "apt-purge": 3600.0,
    "usermod": 60.0,
    "gpg": 60.0,
}
APT_LOCK_WAIT_S = 120
"""How long apt waits for another package manager's lock: apt-daily's update and a short
unattended-upgrades run finish well within it, while a user watching the progress is not left
in front of a silent prompt for long; a longer run ends in a message naming the holder."""
APT_LOCK_RETRY_S = 3.0
APT_OPTIONS = [
    "-o", "APT::Status-Fd={status_fd}",
    "-o", "APT::Color=0",
    "-o", "Dpkg::Progress-Fancy=0",
    "-o", "Dpkg::Use-Pty=0",
    "-o", f"DPkg::Lock::Timeout={APT_LOCK_WAIT_S}",
]
DPKG_OPTIONS = [
    "-o", "Dpkg::Options::=--force-confdef",
    "-o", "Dpkg::Options::=--force-confold",
]
NOTHING_TO_DO = "0 upgraded, 0 newly installed, 0 to remove"
APT_BAD = ("GPG error", "Failed to fetch", "is not signed", "NO_PUBKEY", "EXPKEYSIG", "BADSIG",
           "does not have a Release file", "Hash Sum mismatch")
APT_LOCK_FAILED = (
    "E: Could not get lock ",
    "E: Unable to acquire the dpkg frontend lock",
    "E: Unable to lock the administration directory",
    "E: Unable to lock directory ",
)
APT_LOCK_HOLDER_RE = re.compile(
    r"Could not get lock (?P<path>/\S+?)\.? It is held by process (?P<pid>\d+)"
    r"(?: \((?P<name>[^)\n]{1,32})\))?"
)
APT_LOCK_PATH_RE = re.compile(r"/[^\s(),?]+")
CANCEL_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

Emit = Callable[[dict[str, Any]], None]


class StepFailed(RuntimeError):
    """A step did not work; the message is shown to the user."""


# --------------------------------------------------------------------------------------------
# output


class Emitter:
    """Writes one JSON object per line to the output and flushes it."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.broken = False
        self.outcome: bool | None = None
        """The ``ok`` of the ``done`` event, once one was emitted (None: not yet)."""

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") == "done" and self.outcome is None:
            self.outcome = bool(event.get("ok"))  # before writing: a cancel may cut a write short
        if self.broken:
            return
        try:
            self.stream.write(json.dumps(event, ensure_ascii=True) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.broken = True  # the reader went away; carry on (and roll back) regardless


# --------------------------------------------------------------------------------------------
# checking


def check(
    raw: bytes,
    target: Target | None = None,
    policy: Policy | None = None,
    environ: Mapping[str, str] | None = None,
    real_uid: int | None = None,
) -> CheckedPlan:
    """Check the helper's input against the shipped knowledge base, for the caller that
    ``environ`` and ``real_uid`` (default: this process's) name. Runs and writes nothing."""
    target = target or Target()
    try:
        caller = resolve_caller(os.environ if environ is None else environ,
                                os.getuid() if real_uid is None else real_uid)
    except UnknownCaller as exc:
        return CheckedPlan(refused=(Refusal(str(exc)),))
    if policy is None:
        try:
            policy = load_policy()
        except (OSError, ValueError) as exc:
            return CheckedPlan(refused=(Refusal(f"the knowledge base cannot be read: {exc}"),))
    return check_input(raw, target, policy, caller)


def _check_answer(plan: CheckedPlan) -> dict[str, Any]:
    """The one JSON object ``--check`` prints."""
    if plan.ok:
        return {"ok": True}
    return {"ok": False, "refused": [r.to_json() for r in plan.refused]}


# --------------------------------------------------------------------------------------------
# running


def _apt_failure(result: ChildResult, uris: tuple[str, ...]) -> str | None:
    """Why apt-get update failed: its exit code, or a complaint about a repository of the plan."""
    wanted = [u.rstrip("/") for u in uris]
    ours = [line for line in result.all_lines if any(u in line for u in wanted)]
    complaints = [
        line for line in ours
        if line.startswith("E:") or (line.startswith("W:") and any(w in line for w in APT_BAD))
    ]  # other warnings (weak-signature notices, ...) leave a working repository
    complaints.sort(key=lambda line: not line.startswith("W: GPG error"))  # the cause first
    if not complaints:
        complaints = [line for line in ours if line.startswith("Err:")]
    if complaints:
        return " / ".join(complaints[:2])
    if result.code != 0:
        return _last_words(result)
    return None


@dataclass(frozen=True)
class AptLock:
    """apt stopped because another program held one of its locks, as apt reported it."""

    path: str | None
    pid: int | None = None
    name: str | None = None

    def describe(self) -> str:
        """Who holds which lock: "process 1234 (unattended-upgr) holds /var/lib/dpkg/lock"."""
        what = self.path or "apt's lock"
        if self.pid is None:
            return f"{what} is held"
        return f"process {self.pid}" + (f" ({self.name})" if self.name else "") + f" holds {what}"

    def message(self, waited_s: int | None) -> str:
        """The failure in words; ``waited_s`` is how long apt waited (None: it did not)."""
        waited = f" and did not finish within {waited_s} s" if waited_s else ""
        return (f"another package manager is running ({self.describe()}){waited}; "
                "wait for it to finish, then try again")


def apt_lock(result: ChildResult) -> AptLock | None:
    """The lock apt could not get, when that is why it failed (None: it failed otherwise)."""
    if result.code == 0 or result.timed_out:
        return None
    failed = [line for line in result.all_lines if line.startswith(APT_LOCK_FAILED)]
    if not failed:
        return None
    held = [m for line in result.all_lines if (m := APT_LOCK_HOLDER_RE.search(line))]
    if held:  # "E: Could not get lock ..." or, after a wait, apt's "Waiting for cache lock: ..."
        name = held[-1]["name"]
        shown = "".join(c if c.isprintable() else "?" for c in name) if name else None
        return AptLock(held[-1]["path"], int(held[-1]["pid"]), shown)
    path = APT_LOCK_PATH_RE.search(failed[0])
    return AptLock(path.group(0).rstrip(".") if path else None)


def _last_words(result: ChildResult) -> str:
    """A short reason for a failed child: its exit code and its most telling line."""
    if result.timed_out:
        return "timed out"
    errors = [line for line in result.lines if line.startswith(("E:", "dpkg:", "error"))]
    tail = errors[-1] if errors else (result.lines[-1] if result.lines else "")
    return f"exit code {result.code}" + (f": {tail}" if tail else "")


def _run(argv: list[str], action: Action, emit: Emit, status_fd: bool = False) -> ChildResult:
    """Run a verb's program (found in the fixed PATH) with the verb's timeout."""
    try:
        program = find_program(argv[0])
    except ProgramMissing as exc:
        raise StepFailed(str(exc)) from exc
    timeout = TIMEOUTS.get(action.verb, 3600.0)
    return run_child([program, *argv[1:]], action.step_id, emit, timeout, status_fd=status_fd)


def apt_update_argv() -> list[str]:
    """The argv of the apt-update verb (its program found in the fixed PATH later)."""
    return ["apt-get", *APT_OPTIONS, "update"]


def apt_packages_argv(action: AptPackages) -> list[str]:
    """The argv of the apt-install and apt-purge verbs. An install runs with ``--no-remove``:
    apt stops, changing nothing, rather than remove a package to make room for the new ones."""
    command = "purge" if action.purge else "install"
    flags = ["-y"] if action.purge else ["-y", "--no-remove"]
    flags += ["--no-install-recommends"] if action.no_recommends else []
    return ["apt-get", *APT_OPTIONS, *DPKG_OPTIONS, command, *flags, "--", *action.packages]


def _apt_update(action: AptUpdate, plan: CheckedPlan, emit: Emit) -> str:
    """apt-get update, again every few seconds while another program holds apt's lock on the
    lists (up to APT_LOCK_WAIT_S); a complaint about one of the plan's repositories fails it."""
    deadline = time.monotonic() + APT_LOCK_WAIT_S
    result = _run(apt_update_argv(), action, emit, status_fd=True)
    while (lock := apt_lock(result)) and time.monotonic() + APT_LOCK_RETRY_S < deadline:
        emit({"event": "output", "id": action.step_id,
              "line": f"Waiting for apt's lock: {lock.describe()}; "
                      f"trying again in {APT_LOCK_RETRY_S:g} s"})
        time.sleep(APT_LOCK_RETRY_S)  # a lock failure happens before apt changes anything
        result = _run(apt_update_argv(), action, emit, status_fd=True)
    if lock is not None:
        raise StepFailed(f"apt-get update failed: {lock.message(APT_LOCK_WAIT_S)}")
    problem = _apt_failure(result, plan.source_uris)
    if problem:
        raise StepFailed(f"apt-get update failed: {problem}")
    return "done"


def _apt_packages(action: AptPackages, emit: Emit) -> str:
    """apt-get install/purge; "unchanged" when apt had nothing to do."""
    command = "purge" if action.purge else "install"
    result = _run(apt_packages_argv(action), action, emit, status_fd=True)
    if result.code != 0:
        lock = apt_lock(result)
        reason = lock.message(APT_LOCK_WAIT_S) if lock else _last_words(result)
        raise StepFailed(f"apt-get {command} failed: {reason}")
    if any(line.startswith(NOTHING_TO_DO) for line in result.all_lines):
        return "unchanged"
    return "done"


def _usermod(action: UserGroups, target: Target, emit: Emit) -> str:
    """usermod -a -G; "unchanged" when the user is in every group already."""
    groups = target.groups()
    absent = [g for g in action.groups if g not in groups]
    if absent:
        raise StepFailed(f"group(s) {', '.join(absent)} do not exist")
    if all(action.user in groups[g].members for g in action.groups):
        return "unchanged"
    result = _run(["usermod", "-a", "-G", ",".join(action.groups), "--", action.user], action,
                  emit)
    if result.code != 0:
        raise StepFailed(f"usermod failed: {_last_words(result)}")
    return "done"


def _gpg_agrees(action: WriteFile) -> None:
    """Where gpg is installed, it must see the same single key (no keyring is touched)."""
    try:
        gpg = find_program("gpg")
    except ProgramMissing:
        return
    home = tempfile.mkdtemp(prefix="rocmate-helper-gpg-")
    try:
        argv = [gpg, "--batch", "--no-options", "--no-autostart", "--homedir", home,
                "--with-colons", "--fixed-list-mode", "--show-keys"]
        code, out = run_capture(argv, action.data, TIMEOUTS["gpg"])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    records = [line.split(":") for line in out.splitlines()]
    primaries = [i for i, r in enumerate(records) if r[0] == "pub"]
    fingerprint = None
    if len(primaries) == 1:
        after = records[primaries[0] + 1:]
        fingerprint = next((r[9] for r in after if r[0] == "fpr" and len(r) > 9), None)
    if code != 0 or fingerprint != action.fingerprint:
        raise StepFailed(
            f"gpg does not read the key as the single key {action.fingerprint} "
            f"(gpg: exit {code}, {len(primaries)} primary key(s), fingerprint {fingerprint})"
        )


def _write(action: WriteFile, tx: Transaction) -> str:
    """Write a file step (a keyring only after gpg agrees about it)."""
    if action.kind == "keyring":
        _gpg_agrees(action)
    try:
        return tx.write(action.path, action.data, action.mode)
    except FileFailed as exc:
        raise StepFailed(str(exc)) from exc


def _carry_out(action: Action, plan: CheckedPlan, tx: Transaction, emit: Emit) -> str:
    """Run one checked action; its status ("done" or "unchanged") or :class:`StepFailed`."""
    if isinstance(action, AptUpdate):
        return _apt_update(action, plan, emit)
    if isinstance(action, AptPackages):
        return _apt_packages(action, emit)
    if isinstance(action, UserGroups):
        return _usermod(action, tx.target, emit)
    if isinstance(action, WriteFile):
        return _write(action, tx)
    if isinstance(action, TtmLimit | TtmRestore):
        try:
            return ttm_set_limit(action, tx) if isinstance(action, TtmLimit) \
                else ttm_restore(action, tx)
        except FileFailed as exc:
            raise StepFailed(str(exc)) from exc
    raise StepFailed(f"no way to carry out {action.verb}")


def _fail(action: Action | None, error: str, tx: Transaction, emit: Emit) -> int:
    """Report a failed step, undo the run's file changes, and say so in the final event."""
    _shield()
    step_id = action.step_id if action is not None else None
    if action is not None:
        emit({"event": "step", "id": step_id, "verb": action.verb, "status": "failed",
              "error": error})
    undone = tx.rollback()
    if undone:
        emit({"event": "rollback", "id": step_id, "undone": undone})
    message = f"step {step_id} failed: {error}" if step_id else error
    if undone:
        message += "; undone: " + "; ".join(undone)
    else:
        message += "; no file of this run needed undoing"
    emit({"event": "done", "ok": False, "error": message, "failed_step": step_id,
          "rolled_back": undone})
    return EXIT_FAILED


def _lock(target: Target, emit: Emit) -> RunLock | None:
    """Take the single-run lock; None, after the final event, when another run holds it or it
    cannot be taken safely (nothing has run then)."""
    try:
        return take_lock(target)
    except LockBusy as exc:
        error = str(exc)
    except LockFailed as exc:
        error = f"cannot take the single-run lock: {exc}"
    except Cancelled:
        error = "cancelled"
    emit({"event": "done", "ok": False, "error": error})
    return None


def run_plan(plan: CheckedPlan, emit: Emit, target: Target | None = None) -> int:
    """Carry out a checked plan in order, one run at a time (the single-run lock of ``target``);
    stop and roll back at the first failure."""
    target = target or Target()
    commands = [a for a in plan.actions if not isinstance(a, WriteFile | TtmLimit | TtmRestore)]
    if target.root != "/" and commands:
        raise ValueError("commands run only against the real root")
    lock = _lock(target, emit)
    if lock is None:
        return EXIT_FAILED
    try:
        return _run_steps(plan, emit, Transaction(target))
    finally:
        lock.release()


def _run_steps(plan: CheckedPlan, emit: Emit, tx: Transaction) -> int:
    """The steps of a locked run, with the events; a failure rolls back ``tx``.

    Once a step has failed or the run was cancelled, the cancel signals are ignored before
    anything else happens (:func:`_cancel` ignores them itself as it raises), so a second
    Ctrl-C or SIGTERM cannot cut the rollback short. A signal that arrives while a failure is
    being taken in, before the shield is up, turns that failure into a cancellation, which is
    rolled back all the same."""
    current: Action | None = None
    try:
        try:
            emit({"event": "plan",
                  "steps": [{"id": a.step_id, "verb": a.verb} for a in plan.actions]})
            for action in plan.actions:
                current = action
                emit({"event": "step", "id": action.step_id, "verb": action.verb,
                      "status": "start", "title": action.title})
                status = _carry_out(action, plan, tx, emit)
                emit({"event": "step", "id": action.step_id, "verb": action.verb,
                      "status": status})
        except BaseException:
            _shield()
            raise
    except StepFailed as exc:
        return _fail(current, str(exc), tx, emit)
    except Cancelled:
        return _fail(current, "cancelled", tx, emit)
    except Exception as exc:  # a bug must still undo the run's files
        return _fail(current, f"internal error: {type(exc).__name__}: {exc}", tx, emit)
    emit({"event": "done", "ok": True, "error": None})
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# entry point


def _cancel(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGINT/SIGHUP: stop the current step; the run is rolled back. The first signal
    shields the rest of the run, so only one :class:`Cancelled` is ever raised: a second one
    cannot land in the middle of the rollback (or of a temporary file's clean-up)."""
    _shield()
    cancel(signal.Signals(signum).name)


def _shield() -> None:
    """Once a run is being rolled back, a second Ctrl-C or SIGTERM must not cut it short."""
    for sig in CANCEL_SIGNALS:
        if signal.getsignal(sig) is _cancel:
            signal.signal(sig, signal.SIG_IGN)


def _read_input(stream: IO[bytes]) -> bytes:
    """At most one byte more than the limit (enough to know it is too large)."""
    return stream.read(MAX_INPUT_BYTES + 1)


def _read_line(stream: IO[bytes]) -> bytes:
    """``--cancel-on-eof``: the plan is the first line (all of the input when it has no newline),
    at most one byte more than the limit; its newline does not count. Only the line is taken from
    ``stream`` (the binary stdin): the rest, and its end, are the watcher's."""
    line = stream.readline(MAX_INPUT_BYTES + 1)
    return line[:-1] if line.endswith(b"\n") else line


def _chunks(stream: IO[bytes]) -> Callable[[], bytes]:
    """How the watcher reads on: the file descriptor itself where there is one (a daemon thread
    blocked in a buffered read would hold the buffer's lock while Python shuts down); what the
    buffer read ahead beyond the plan's line is never needed, only the end."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream in memory (io.UnsupportedOperation)
        return lambda: stream.read(65536)
    return lambda: os.read(fd, 65536)


def _cancel_at_eof(read: Callable[[], bytes]) -> None:
    """The watcher thread: read stdin to its end, then cancel the run by sending SIGTERM to the
    main thread, which takes it as any cancel (:func:`_cancel`: the child is killed, the run
    rolled back). Once the run has ended, or a cancel or failure raised the shield, SIGTERM is
    ignored, so a late end of stdin changes nothing."""
    try:
        while read():
            pass
    except (OSError, ValueError):
        pass  # stdin cannot be read any more: its writer cannot be heard either, so stop
    main_thread = threading.main_thread().ident
    if main_thread is not None:
        signal.pthread_kill(main_thread, signal.SIGTERM)


def _watch_stdin(stream: IO[bytes]) -> threading.Thread:
    """Start the watcher (a daemon thread). It blocks the cancel signals for itself: a signal
    sent to the process is then always handed to the main thread, which it must interrupt."""
    thread = threading.Thread(target=_cancel_at_eof, args=(_chunks(stream),),
                              name="rocmate-helper-eof", daemon=True)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, CANCEL_SIGNALS)  # the thread inherits it
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    return thread


def _run_cancellable(plan: CheckedPlan, emit: Emitter, stdin: IO[bytes] | None) -> int:
    """Run the plan with the cancel handlers in place (and, for ``stdin``, the watcher of its
    end). A cancel that lands outside the steps (before the first one, or after the ``done``
    event) still ends in one ``done`` event and the exit code that matches it; once the run
    has ended, the shield is raised, so a later signal or end of stdin changes nothing."""
    try:
        if stdin is not None:
            _watch_stdin(stdin)
        os.chdir("/")
        code = run_plan(plan, emit)
        _shield()
    except Cancelled:
        _shield()
        if emit.outcome is None:  # before the lock was taken or the first event was written
            emit({"event": "done", "ok": False, "error": "cancelled"})
            return EXIT_FAILED
        return EXIT_OK if emit.outcome else EXIT_FAILED
    return code


def main(
    argv: list[str] | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """The helper's command line: ``[--check | --cancel-on-eof]``, the plan on stdin, events on
    stdout."""
    args = sys.argv[1:] if argv is None else list(argv)
    out = stdout or sys.stdout
    if args not in ([], [CHECK], [CANCEL_ON_EOF]):
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    os.umask(0o022)
    stream = stdin or sys.stdin.buffer
    watch = args == [CANCEL_ON_EOF]
    raw = _read_line(stream) if watch else _read_input(stream)
    plan = check(raw)
    if args == [CHECK]:
        out.write(json.dumps(_check_answer(plan)) + "\n")
        out.flush()
        return EXIT_OK if plan.ok else EXIT_REFUSED
    emit = Emitter(out)
    if not plan.ok:
        emit({"event": "refused", "refused": [r.to_json() for r in plan.refused]})
        emit({"event": "done", "ok": False,
              "error": "refused: " + "; ".join(r.reason for r in plan.refused)})
        return EXIT_REFUSED
    if os.geteuid() != 0:
        emit({"event": "done", "ok": False, "error": "the helper must run as root"})
        return EXIT_USAGE
    for sig in CANCEL_SIGNALS:
        signal.signal(sig, _cancel)
    return _run_cancellable(plan, emit, stream if watch else None)

