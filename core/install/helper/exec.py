"""Child programs of the privileged helper: argv lists only, a clean environment, stdin closed,
a timeout, and their output streamed as JSON-lines events (with apt's percentages)."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import stat
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CLEAN_ENV", "FIXED_PATH", "Cancelled", "ChildResult", "cancel", "find_program",
           "run_child"]

FIXED_PATH = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
CLEAN_ENV = {
    "PATH": ":".join(FIXED_PATH),
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "DEBIAN_FRONTEND": "noninteractive",
    "HOME": "/root",
}
MAX_LINE = 2000
KEEP_LINES = 40
PROGRESS_RE = re.compile(r"Progress: \[\s*(\d{1,3})%\]")

Emit = Callable[[dict[str, Any]], None]


class Cancelled(BaseException):
    """The helper was asked to stop (SIGTERM, SIGINT or SIGHUP)."""


class _Held:
    """Cancels wait while a child is being started or stopped: raised inside
    ``subprocess.Popen`` after the fork (or before the code that stops the child is in place),
    a cancel would leave that child running (apt, dpkg) with nobody to stop it while the run is
    rolled back around it; raised inside :func:`_stop`'s wait, it would skip the SIGKILL."""

    active = False
    pending: str | None = None


def cancel(name: str) -> None:
    """What the helper's cancel handler calls: raise :class:`Cancelled` now, or, while cancels
    are held, as soon as they no longer are."""
    if _Held.active:
        _Held.pending = name
        return
    raise Cancelled(name)


@contextlib.contextmanager
def _held() -> Iterator[None]:
    """Hold cancels for the block, then raise one that came meanwhile (whatever else the block
    raised: the user asked to stop). Not nested: the helper runs one child at a time."""
    _Held.active = True
    try:
        yield
    finally:
        _Held.active = False
        name, _Held.pending = _Held.pending, None
        if name is not None:
            raise Cancelled(name)


def _popen(argv: list[str], pass_fds: tuple[int, ...] = (), *, stdin: int = subprocess.DEVNULL,
           stderr: int = subprocess.STDOUT) -> subprocess.Popen[bytes]:
    """Never a shell, a clean environment, in ``/``, its own session (so :func:`_stop` reaches
    everything it starts)."""
    return subprocess.Popen(
        argv, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, env=dict(CLEAN_ENV),
        cwd="/", close_fds=True, start_new_session=True, pass_fds=pass_fds,
    )


@dataclass
class ChildResult:
    """How a child ended, and its last lines of output (for the failure message)."""

    code: int
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=KEEP_LINES))
    all_lines: list[str] = field(default_factory=list)
    timed_out: bool = False


class ProgramMissing(RuntimeError):
    """The program is not installed in the fixed PATH, or is not safe to run as root."""


def find_program(name: str) -> str:
    """The absolute path of ``name`` in the fixed PATH; it must be root's and not writable by
    anyone else."""
    for folder in FIXED_PATH:
        path = os.path.join(folder, name)
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or not info.st_mode & 0o111:
            continue
        if info.st_uid != 0 or info.st_mode & 0o022:
            raise ProgramMissing(f"{path} is not owned by root or is writable by others")
        return path
    raise ProgramMissing(f"{name} is not installed (looked in {':'.join(FIXED_PATH)})")


def _status_event(step_id: str, line: str) -> dict[str, Any] | None:
    """An apt status-fd line (dlstatus/pmstatus) as a progress event."""
    kind, _, rest = line.partition(":")
    if kind not in ("dlstatus", "pmstatus"):
        return None
    parts = rest.split(":", 2)
    if len(parts) != 3:
        return None
    try:
        percent = round(float(parts[1]), 1)
    except ValueError:
        return None
    phase = "download" if kind == "dlstatus" else "install"
    return {"event": "progress", "id": step_id, "phase": phase,
            "percent": max(0.0, min(100.0, percent)), "message": parts[2][:MAX_LINE]}


class _Lines:
    """Splits a byte stream into lines and hands each to a callback."""

    def __init__(self, handle: Callable[[str], None]) -> None:
        self.buffer = b""
        self.handle = handle

    def feed(self, data: bytes) -> None:
        """Take more bytes; hand on every complete line (and an overlong partial one)."""
        self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\n")
        for raw in complete:
            self.handle(raw.decode("utf-8", errors="replace").rstrip("\r"))
        if len(self.buffer) > 64 * 1024:
            self.handle(self.buffer.decode("utf-8", errors="replace"))
            self.buffer = b""

    def close(self) -> None:
        """Hand on what is left after the stream closed."""
        if self.buffer:
            self.handle(self.buffer.decode("utf-8", errors="replace"))
            self.buffer = b""


def _stop(proc: subprocess.Popen[bytes], term_wait: float = 10.0) -> None:
    """End the child and everything it started (it leads its own process group); called with
    cancels held, so a cancel cannot cut the wait short before the SIGKILL."""
    for sig, wait in ((signal.SIGTERM, term_wait), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def run_child(
    argv: list[str],
    step_id: str,
    emit: Emit,
    timeout: float,
    status_fd: bool = False,
) -> ChildResult:
    """Run ``argv`` (never through a shell), stream its output, stop it at ``timeout``.

    With ``status_fd`` the placeholder ``{status_fd}`` in ``argv`` becomes the number of a pipe
    apt writes its machine-readable progress to."""
    result = ChildResult(code=-1)

    def on_line(line: str) -> None:
        """One line of the child's output: keep it, emit it (with apt's percent)."""
        line = line[:MAX_LINE]
        result.lines.append(line)
        result.all_lines.append(line)
        event: dict[str, Any] = {"event": "output", "id": step_id, "line": line}
        match = PROGRESS_RE.search(line)
        if match and int(match.group(1)) <= 100:
            event["percent"] = int(match.group(1))
        emit(event)

    last_status: list[dict[str, Any]] = []

    def on_status(line: str) -> None:
        """One line of apt's status pipe: a progress event, unless it repeats the last."""
        event = _status_event(step_id, line)
        if event is not None and event not in last_status:  # apt repeats itself every pulse
            last_status[:] = [event]
            emit(event)

    read_end = write_end = -1
    proc: subprocess.Popen[bytes] | None = None
    failed: OSError | None = None
    try:
        with _held():  # a cancel waits until the finally below knows the child it must stop
            if status_fd:
                read_end, write_end = os.pipe()
                argv = [a.replace("{status_fd}", str(write_end)) for a in argv]
            try:
                proc = _popen(argv, (write_end,) if status_fd else ())
            except OSError as exc:
                failed = exc
            if write_end >= 0:
                os.close(write_end)
                write_end = -1
        if proc is None:
            assert failed is not None
            result.code = 127
            on_line(f"{argv[0]}: {failed.strerror or failed}")
            return result
        _pump(proc, read_end, _Lines(on_line), _Lines(on_status), timeout, result)
    finally:
        with _held():
            if proc is not None:
                _stop(proc)
                if proc.stdout is not None:
                    proc.stdout.close()
            for fd in (read_end, write_end):
                if fd >= 0:
                    os.close(fd)
    result.code = proc.wait() if not result.timed_out else 124
    return result


def _pump(
    proc: subprocess.Popen[bytes],
    status_read: int,
    out: _Lines,
    status: _Lines,
    timeout: float,
    result: ChildResult,
) -> None:
    """Read the child's output and status pipes until both close or the time is up."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    selector = selectors.DefaultSelector()
    streams = {proc.stdout.fileno(): out}
    if status_read >= 0:
        streams[status_read] = status
    for fd in streams:
        selector.register(fd, selectors.EVENT_READ)
    try:
        while streams:
            if proc.poll() is not None:
                # A daemon a maintainer script started may hold the pipe: read what is left,
                # but do not wait for it.
                deadline = min(deadline, time.monotonic() + 2.0)
            left = deadline - time.monotonic()
            if left <= 0 and proc.poll() is not None:
                return
            if left <= 0:
                result.timed_out = True
                out.handle(f"(stopped: no result after {int(timeout)} s)")
                return
            for key, _ in selector.select(timeout=min(left, 1.0)):
                fd = int(key.fd)
                data = os.read(fd, 65536)
                if data:
                    streams[fd].feed(data)
                else:
                    streams.pop(fd).close()
                    selector.unregister(fd)
    finally:
        selector.close()


def run_capture(argv: list[str], data: bytes, timeout: float) -> tuple[int, str]:
    """Run a short program with ``data`` on stdin; (exit code, stdout). Never a shell. A cancel
    or a timeout stops it and what it started."""
    proc: subprocess.Popen[bytes] | None = None
    try:
        with _held():
            try:
                proc = _popen(argv, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError as exc:
                return 127, str(exc)
        out, _ = proc.communicate(data, timeout=timeout)
        return proc.returncode, out.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired as exc:
        return 127, str(exc)
    finally:
        with _held():
            if proc is not None:
                _stop(proc, term_wait=2.0)
                for pipe in (proc.stdin, proc.stdout):
                    if pipe is not None:
                        pipe.close()
