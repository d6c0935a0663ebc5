"""One child process under supervision: the part the set-up and benchmark runners share.

The install runner (core/install/runner.py) and the benchmark runner (core/bench/runner.py)
each start a program and watch it; what its lines mean, when to stop it and what to tell the
user stays theirs. What they share lives here:

* starting it (``asyncio``), in a new session (its own process group, so that the whole group
  can be killed) or in the caller's, with the environment and folder the caller chose, stdin
  fed while its output is read (so neither blocks), and its stdout and stderr either apart or
  in one pipe of its own (``merged``: a daemon the child started may keep that pipe open after
  the child ended; the caller decides how long to read on);
* reading its output a line at a time with a limit on the silence (:meth:`Child.line`), and a
  bounded tail of its stderr read beside it (:meth:`Child.keep_stderr`);
* signals: one to the child or to its group (:meth:`Child.signal`, False where it may not be
  signalled: a root child of pkexec/sudo refuses a user's signal), a timed escalation such as
  SIGINT, SIGTERM, then SIGKILL to the group (:meth:`Child.escalate`);
* reaping: wait a while, then kill and wait (:meth:`Child.reap`), or end it and whatever it
  left in its group (:meth:`Child.finish`);
* an exit status by signal in words (:func:`signal_name`).

The root helper (core/install/helper/) runs as root with only the standard library and keeps
its own supervisor.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Callable, Sequence
from typing import IO

Escalation = Sequence[tuple[float, int, bool]]
"""(seconds after now, signal, to the whole group) for each signal of a stop."""


def signal_name(number: int) -> str:
    """``SIGKILL`` for 9; ``signal 34`` for one without a name (a real-time signal)."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Child:
    """A started child process; make one with :meth:`start`."""

    def __init__(self, proc: asyncio.subprocess.Process, lines: asyncio.StreamReader,
                 transport: asyncio.BaseTransport | None = None) -> None:
        self.proc = proc
        self.lines = lines
        """Its stdout (with its stderr, when started ``merged``)."""
        self._transport = transport  # the merged pipe's, which this object closes
        self._feeder: asyncio.Future[None] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        """Its exit status once reaped (negative: the signal that ended it); else None."""
        return self.proc.returncode

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        env: dict[str, str],
        stdin: bytes | None = None,
        keep_stdin: bool = False,
        merged: bool = False,
        cwd: str | None = None,
        new_session: bool = False,
        preexec: Callable[[], None] | None = None,
        line_limit: int = 1 << 16,
    ) -> Child:
        """Start ``argv``; OSError when it cannot be started.

        ``stdin``: written whole while the output is read, then closed unless ``keep_stdin``
        (a child that takes the end of its input as "stop"); None: no input at all.
        ``merged``: stdout and stderr into one pipe of this object's own, else two pipes
        (stderr for :meth:`keep_stderr`). ``new_session``: the child leads its own process
        group (the group signals need it). ``line_limit``: the longest line :meth:`line`
        reads."""
        std_in = asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL
        if not merged:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=std_in, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env,
                start_new_session=new_session, preexec_fn=preexec, limit=line_limit)
            assert proc.stdout is not None
            child = cls(proc, proc.stdout)
        else:
            child = await cls._start_merged(argv, std_in, env, cwd, new_session, preexec,
                                            line_limit)
        child._feed(stdin, keep_stdin)
        return child

    @classmethod
    async def _start_merged(cls, argv: Sequence[str], std_in: int, env: dict[str, str],
                            cwd: str | None, new_session: bool,
                            preexec: Callable[[], None] | None, line_limit: int) -> Child:
        loop = asyncio.get_running_loop()
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=std_in, stdout=write_fd, stderr=write_fd, cwd=cwd, env=env,
                start_new_session=new_session, preexec_fn=preexec)
        except OSError:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        reader = asyncio.StreamReader(limit=line_limit, loop=loop)
        pipe: IO[bytes] = os.fdopen(read_fd, "rb", 0)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
        return cls(proc, reader, transport)

    # -- input and output ------------------------------------------------------------------------

    def _feed(self, data: bytes | None, keep_open: bool) -> None:
        if data is None:
            return
        if keep_open:
            data = data.rstrip(b"\n") + b"\n"  # one line; the input stays open
        self._feeder = asyncio.ensure_future(self._write(data, close=not keep_open))

    async def _write(self, data: bytes, close: bool) -> None:
        """Write the child's whole input; a child that left early is not an error."""
        stdin = self.proc.stdin
        if stdin is None:
            return
        with contextlib.suppress(ConnectionError, BrokenPipeError):
            stdin.write(data)
            await stdin.drain()
            if close:
                stdin.close()

    def close_stdin(self) -> None:
        """The end of the child's input (for a child that watches for it: "stop")."""
        if self._feeder is not None and not self._feeder.done():
            self._feeder.cancel()
        stdin = self.proc.stdin
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(OSError, RuntimeError):
                stdin.close()

    async def line(self, timeout: float | None) -> bytes | None:
        """Its next line: b"" at the end of its output, None when nothing came within
        ``timeout`` seconds. ValueError for a line over the limit (the reader dropped it)."""
        try:
            return await asyncio.wait_for(self.lines.readline(), timeout=timeout)
        except TimeoutError:
            return None

    def keep_stderr(self, tail: bytearray, keep: int) -> asyncio.Task[None]:
        """Read its stderr into ``tail`` until it ends, keeping at least the last ``keep``
        bytes (the caller may add its own lines to ``tail`` meanwhile)."""
        stream = self.proc.stderr
        assert stream is not None, "started merged: there is no stderr of its own"

        async def read() -> None:
            while True:
                chunk = await stream.read(65536)
                if not chunk:
                    return
                tail.extend(chunk)
                if len(tail) > 4 * keep:
                    del tail[: -keep]

        return asyncio.create_task(read())

    async def close(self) -> None:
        """Stop reading (a child still writing gets EPIPE) and writing to it."""
        if self._transport is not None:
            self._transport.close()
        feeder = self._feeder
        if feeder is not None:
            if not feeder.done():
                feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await feeder
        self._feeder = None
        self.close_stdin()

    # -- signals and the end ---------------------------------------------------------------------

    def signal(self, sig: int, *, group: bool = False) -> bool:
        """Send ``sig`` to the child (``group``: to its whole process group, which needs
        ``new_session``); False when it has ended or may not be signalled (a root child)."""
        return self._send(sig, group) == "sent"

    def _send(self, sig: int, group: bool) -> str:
        """"sent", "gone" or "refused" (a root child refuses a user's signal)."""
        if self.proc.returncode is not None:
            return "gone"
        try:
            # os.kill, not Popen.send_signal: that one may reap the child itself, before
            # asyncio's child watcher, which then reports 255 instead of its real status
            (os.killpg if group else os.kill)(self.proc.pid, sig)
        except ProcessLookupError:
            return "gone"
        except PermissionError:
            return "refused"
        return "sent"

    def escalate(self, steps: Escalation) -> None:
        """Send each step's signal after its delay, each only while the child still runs:
        e.g. ``[(0, SIGINT, False), (3, SIGTERM, False), (10, SIGKILL, True)]``."""
        loop = asyncio.get_running_loop()
        for delay, sig, group in steps:
            if delay <= 0:
                self.signal(sig, group=group)
            else:
                loop.call_later(delay, self._signal_later, sig, group)

    def _signal_later(self, sig: int, group: bool) -> None:
        self.signal(sig, group=group)

    async def reap(self, timeout: float, *, group: bool = False) -> int | None:
        """Its exit status: waited for ``timeout`` seconds, then SIGKILL (to its group with
        ``group``) and waited for again. None when it outlived that and could not be killed (a
        root child that closed its output but does not end)."""
        code = await self._exit_status(timeout)
        if code is not None:
            return code
        if self._send(signals.SIGKILL, group) == "refused":
            return None
        return await self._exit_status(None)

    async def _exit_status(self, timeout: float | None) -> int | None:
        """The exit status once it has ended, within ``timeout`` seconds (None: however long it
        takes), else None. Python 3.11's ``Process.wait()`` returns only after the child's
        pipes have closed as well, so a grandchild holding them would keep a child that has
        ended "running" for the whole timeout; the status itself is known as soon as the
        child is reaped, so it is looked at every 20 ms beside the wait."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        waiting = asyncio.ensure_future(self.proc.wait())
        try:
            while self.proc.returncode is None and not waiting.done():
                left = 0.02 if deadline is None else min(0.02, deadline - loop.time())
                if left <= 0:
                    return None
                await asyncio.wait({waiting}, timeout=left)
        finally:
            waiting.cancel()
        return self.proc.returncode

    async def finish(self, *, group: bool = False) -> int:
        """End it now (SIGKILL while it runs) and reap it; with ``group`` whatever it started in
        its process group (compile workers, ranks) is killed too, even after it ended."""
        if self.proc.returncode is None:
            self.signal(signals.SIGKILL, group=group)
            await self._exit_status(None)
        if group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signals.SIGKILL)
        code = self.proc.returncode
        assert code is not None
        return code
