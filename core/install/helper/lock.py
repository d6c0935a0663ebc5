"""The privileged helper's single-run lock: one run at a time carries out steps on a machine.

Two runs at once (the GUI and a terminal both running ``rocmate install``) could interleave their
file writes and their rollbacks. Before the first step, :func:`take_lock` takes an exclusive,
non-blocking ``flock`` on ``/run/rocmate-helper.lock`` of the target and writes the holder's pid
into it (only for the message a second run shows). The kernel drops the lock when the holder's
process ends, however it ends, so there is never a stale lock to clean up.

Why ``/run`` and not ``/run/lock``: ``/run/lock`` is world-writable (mode 1777) on Debian and
Ubuntu, so any local user could create the file first and hold a ``flock`` on it for ever (no
one could then install), or plant a symbolic link there. ``/run`` is root's alone (0755, a tmpfs
emptied at every boot). The file is opened from the target's root one folder at a time without
following links (``O_NOFOLLOW``), close-on-exec (no child, and no daemon a maintainer script
starts, inherits the lock), and must be a plain, singly linked file of the helper's own user;
anything else refuses the run instead of being followed or replaced.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from dataclasses import dataclass

from core.install.helper.files import FileFailed, open_folder
from core.install.helper.target import Target

__all__ = ["LOCK_PATH", "LockBusy", "LockFailed", "RunLock", "take_lock"]

LOCK_FOLDER = "/run"
LOCK_NAME = "rocmate-helper.lock"
LOCK_PATH = f"{LOCK_FOLDER}/{LOCK_NAME}"
LOCK_MODE = 0o644
OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
MAX_PID_TEXT = 32
HOLDER_WAIT_S = 0.2  # how long a refused run waits for a just-started holder to write its pid
HOLDER_POLL_S = 0.01


class LockFailed(RuntimeError):
    """The lock file cannot be opened safely (the message says why); nothing ran."""


class LockBusy(RuntimeError):
    """Another run holds the lock; ``pid`` is its process id when the file says so."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        holder = f" (pid {pid})" if pid is not None else ""
        super().__init__(
            f"another rocmate set-up is running{holder}; wait for it to finish, then try again"
        )


@dataclass
class RunLock:
    """The held lock: an open, ``flock``-ed file; :meth:`release` or the process's end drops it."""

    fd: int
    path: str

    def release(self) -> None:
        """Empty the pid and close the file, which drops the lock (idempotent)."""
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, 0)  # before the unlock, so no later holder's pid is erased
        os.close(self.fd)
        self.fd = -1


def _open(target: Target) -> int:
    """The lock file of ``target``, created if missing, never through a link; a checked fd."""
    try:
        folder, _ = open_folder(target, LOCK_FOLDER)
    except FileFailed as exc:
        raise LockFailed(str(exc)) from exc
    try:
        fd = os.open(LOCK_NAME, OPEN_FLAGS, LOCK_MODE, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LockFailed(f"{LOCK_PATH} is a symbolic link; refusing to follow it") from exc
        raise LockFailed(f"cannot open {LOCK_PATH}: {exc.strerror or exc}") from exc
    finally:
        os.close(folder)
    try:
        _check(os.fstat(fd))
    except LockFailed:
        os.close(fd)
        raise
    return fd


def _check(info: os.stat_result) -> None:
    """The opened lock must be a plain file of ours with no second name (no hard link)."""
    if not stat.S_ISREG(info.st_mode):
        raise LockFailed(f"{LOCK_PATH} exists and is not a plain file")
    if info.st_uid != os.geteuid():
        raise LockFailed(f"{LOCK_PATH} belongs to uid {info.st_uid}, not to root")
    if info.st_nlink != 1:
        raise LockFailed(f"{LOCK_PATH} has {info.st_nlink} names (a hard link); refusing it")


def _holder(fd: int) -> int | None:
    """The pid the current holder wrote into the file (None when absent or unreadable)."""
    try:
        text = os.pread(fd, MAX_PID_TEXT, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and 0 < len(text) <= 10 else None


def _holder_soon(fd: int) -> int | None:
    """The holder's pid, waiting up to :data:`HOLDER_WAIT_S` for one that has only just taken the
    lock: it writes its pid right after the ``flock``, so a run refused in between would
    otherwise read an empty file and name no pid."""
    deadline = time.monotonic() + HOLDER_WAIT_S
    while (pid := _holder(fd)) is None and time.monotonic() < deadline:
        time.sleep(HOLDER_POLL_S)
    return pid


def _write_pid(fd: int) -> None:
    """Put this process's pid into the held lock file (best effort: it only feeds a message).

    Written first, then cut to length, so a reader never sees the file empty in between."""
    text = f"{os.getpid()}\n".encode("ascii")
    with contextlib.suppress(OSError):
        os.pwrite(fd, text, 0)
        os.ftruncate(fd, len(text))


def take_lock(target: Target) -> RunLock:
    """Take the single-run lock of ``target`` without waiting.

    :class:`LockBusy` when another run holds it, :class:`LockFailed` when the file is not safe
    to use; in both cases nothing was written but (at most) an empty lock file."""
    fd = _open(target)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        pid = _holder_soon(fd) if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN) else None
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise LockBusy(pid) from exc
        raise LockFailed(f"cannot lock {LOCK_PATH}: {exc.strerror or exc}") from exc
    _write_pid(fd)
    return RunLock(fd, target.host(LOCK_PATH))
