"""core.child, the supervisor the two runners share, with real child processes.

Each child is a small Python program; a grandchild is one it starts in its process group. No
mocks: the signals, the pipes and the reaping are the kernel's.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from core.child import Child, signal_name

T = TypeVar("T")
PY = sys.executable


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1"}


def gone(pid: int, within_s: float = 5.0) -> bool:
    """Whether process ``pid`` has ended (a zombie no parent has reaped yet counts)."""
    end = time.monotonic() + within_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


async def lines_until_end(child: Child, timeout: float = 10.0) -> list[str]:
    out = []
    while True:
        raw = await child.line(timeout)
        assert raw is not None, "the child went silent"
        if not raw:
            return out
        out.append(raw.decode().rstrip("\n"))


def test_lines_come_in_order_and_stderr_is_kept_apart() -> None:
    code = ("import sys\n"
            "for i in range(3): print('line', i, flush=True)\n"
            "print('trouble', file=sys.stderr, flush=True)\n"
            "sys.exit(3)\n")

    async def go() -> tuple[list[str], bytes, int]:
        child = await Child.start([PY, "-c", code], env=env())
        tail = bytearray(b"[mine]\n")
        task = child.keep_stderr(tail, 1024)
        lines = await lines_until_end(child)
        status = await child.reap(10)
        await task
        assert status is not None
        return lines, bytes(tail), status

    lines, tail, status = run(go())
    assert lines == ["line 0", "line 1", "line 2"]
    assert tail == b"[mine]\ntrouble\n"
    assert status == 3


def test_merged_output_and_input_fed_while_reading() -> None:
    """stdin is written whole while the output is read: a child that echoes 200 KiB back
    before reading on would block on a full pipe if the two were done one after the other."""
    code = ("import sys\n"
            "data = sys.stdin.buffer.read()\n"
            "print('got', len(data), flush=True)\n"
            "print('to stderr', file=sys.stderr, flush=True)\n")
    data = b"x" * (200 * 1024)

    async def go() -> tuple[list[str], int | None]:
        child = await Child.start([PY, "-c", code], env=env(), stdin=data, merged=True)
        lines = await lines_until_end(child)
        await child.close()
        return lines, await child.reap(10)

    lines, status = run(go())
    assert lines == [f"got {len(data)}", "to stderr"]
    assert status == 0


def test_kept_stdin_stays_open_until_closed() -> None:
    """keep_stdin: the input goes as one line and stays open; its end means "stop"."""
    code = ("import sys\n"
            "print('first:', sys.stdin.readline().strip(), flush=True)\n"
            "rest = sys.stdin.read()\n"
            "print('ended with', repr(rest), flush=True)\n")

    async def go() -> tuple[bytes | None, bytes | None, list[str], int | None]:
        child = await Child.start([PY, "-c", code], env=env(), stdin=b"plan\n\n",
                                  keep_stdin=True, merged=True)
        first = await child.line(10)
        waiting = await child.line(0.5)  # it waits for the end of its input
        child.close_stdin()
        rest = await lines_until_end(child)
        await child.close()
        return first, waiting, rest, await child.reap(10)

    first, waiting, rest, status = run(go())
    assert first == b"first: plan\n"
    assert waiting is None
    assert rest == ["ended with ''"]
    assert status == 0


def test_a_silent_child_runs_into_the_time_limit() -> None:
    async def go() -> tuple[bytes | None, bytes | None, float, int]:
        child = await Child.start(
            [PY, "-c", "import time; print('hello', flush=True); time.sleep(60)"],
            env=env(), new_session=True)
        first = await child.line(10)
        t0 = time.monotonic()
        silent = await child.line(0.5)
        waited = time.monotonic() - t0
        return first, silent, waited, await child.finish(group=True)

    first, silent, waited, status = run(go())
    assert first == b"hello\n"
    assert silent is None
    assert 0.4 < waited < 5
    assert status == -signal.SIGKILL


def test_a_line_over_the_limit_is_a_value_error_and_reading_goes_on() -> None:
    """Both runners read on after a line over their limit (the reader drops it)."""
    code = "print('y' * 5000, flush=True); print('short', flush=True)"

    async def go() -> list[str]:
        child = await Child.start([PY, "-c", code], env=env(), line_limit=1024)
        with pytest.raises(ValueError):
            await child.line(10)
        lines = await lines_until_end(child)
        await child.reap(10)
        return lines

    lines = run(go())  # what is left of the dropped line may come as a line of its own
    assert lines[-1] == "short" and all(len(line) < 1024 for line in lines)


IGNORES_SIGINT_AND_SIGTERM = (
    "import signal, subprocess, sys, time\n"
    "signal.signal(signal.SIGINT, lambda *a: print('SIGINT', flush=True))\n"
    "signal.signal(signal.SIGTERM, lambda *a: print('SIGTERM', flush=True))\n"
    "grand = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(grand.pid, flush=True)\n"
    "while True: time.sleep(0.05)\n"
)


def test_escalation_ends_a_child_that_ignores_sigint_and_its_grandchild() -> None:
    """SIGINT, then SIGTERM, then SIGKILL to the group: the child hears the first two (and
    ignores them), the last ends it and the grandchild it started."""

    async def go() -> tuple[int, list[str], int | None, float]:
        child = await Child.start([PY, "-c", IGNORES_SIGINT_AND_SIGTERM], env=env(),
                                  new_session=True)
        grandchild = int((await child.line(10) or b"0").decode())
        t0 = time.monotonic()
        child.escalate([(0.0, signal.SIGINT, False), (0.5, signal.SIGTERM, False),
                        (1.0, signal.SIGKILL, True)])
        heard = await lines_until_end(child)
        status = await child.reap(10)
        return grandchild, heard, status, time.monotonic() - t0

    grandchild, heard, status, took = run(go())
    assert heard == ["SIGINT", "SIGTERM"]
    assert status == -signal.SIGKILL
    assert 0.9 < took < 8
    assert grandchild > 0 and gone(grandchild)


def test_a_signal_to_the_child_alone_leaves_its_grandchild_and_finish_ends_it() -> None:
    """The group matters: SIGKILL to the child alone leaves the grandchild running (which is
    why the benchmark runner kills the group); finish(group=True) ends it even after the
    child has gone."""

    async def go() -> tuple[int, bool, int, int | None, float]:
        child = await Child.start([PY, "-c", IGNORES_SIGINT_AND_SIGTERM], env=env(),
                                  new_session=True)
        grandchild = int((await child.line(10) or b"0").decode())
        assert child.signal(signal.SIGKILL)
        t0 = time.monotonic()
        reaped = await child.reap(10)
        took = time.monotonic() - t0
        alive = not gone(grandchild, within_s=0.3)
        status = await child.finish(group=True)
        await lines_until_end(child)  # the grandchild held the child's stdout until now
        return grandchild, alive, status, reaped, took

    grandchild, alive_after_the_child, status, reaped, took = run(go())
    # reaped as soon as it ended, although the grandchild still holds its pipes (Python
    # 3.11's Process.wait() alone waited for those too: the whole 10 s)
    assert reaped == -signal.SIGKILL and took < 3, took
    assert alive_after_the_child
    assert status == -signal.SIGKILL
    assert gone(grandchild)


def test_reap_kills_a_child_that_does_not_end_in_time() -> None:
    async def go() -> tuple[int | None, float, bool]:
        child = await Child.start(
            [PY, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                       "print('ready', flush=True); time.sleep(60)"], env=env())
        await child.line(10)
        assert child.signal(signal.SIGTERM)  # ignored
        t0 = time.monotonic()
        status = await child.reap(0.5)
        return status, time.monotonic() - t0, child.signal(signal.SIGTERM)

    status, took, signalled_after = run(go())
    assert status == -signal.SIGKILL
    assert 0.4 < took < 8
    assert signalled_after is False  # an ended child is not signalled again


@pytest.mark.parametrize(("sig", "name"), [(signal.SIGTERM, "SIGTERM"),
                                           (signal.SIGSEGV, "SIGSEGV")])
def test_an_exit_by_signal_is_told_by_its_name(sig: int, name: str) -> None:
    async def go() -> int | None:
        child = await Child.start(
            [PY, "-c", f"import os; os.kill(os.getpid(), {int(sig)})"], env=env())
        await lines_until_end(child)
        return await child.reap(10)

    status = run(go())
    assert status == -sig
    assert signal_name(-status) == name


def test_a_signal_without_a_name_is_told_by_its_number() -> None:
    assert signal_name(signal.SIGKILL) == "SIGKILL"
    unnamed = next(n for n in range(signal.SIGRTMIN, signal.SIGRTMAX)
                   if n not in {s.value for s in signal.Signals})
    assert signal_name(unnamed) == f"signal {unnamed}"


def test_a_program_that_cannot_start_is_an_os_error() -> None:
    for merged in (False, True):
        with pytest.raises(FileNotFoundError):
            run(Child.start(["/nonexistent/program"], env=env(), merged=merged))
