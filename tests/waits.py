"""Waits that stop when what they wait on has ended.

A test that waits for a run's steps, a background call's result or a line a process writes must
not sit out its whole limit once that run has failed: what it waits for can no longer come (issue
38, item 6: a test waited 240 s for steps after its run had failed). Each wait here also watches
the run, and when the run ended first the test fails at once, with the run's own words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def wait_until(qtbot: Any, condition: Callable[[], bool], *, ended: Callable[[], bool],
               said: Callable[[], str], timeout_ms: int, what: str) -> None:
    """Run Qt's event loop until ``condition()``; fail at once when ``ended()`` holds first
    (the run is over and ``condition`` can no longer come), with ``said()`` (what the run
    said: its status, its message) in the failure."""
    gave_up: list[bool] = []

    def settled() -> bool:
        if condition():
            return True
        if ended():
            gave_up.append(not condition())  # the run's last event may have brought both
            return True
        return False

    try:
        qtbot.waitUntil(settled, timeout=timeout_ms)
    except qtbot.TimeoutError:
        pytest.fail(f"no {what} in {timeout_ms / 1000:.0f} s; the run says: {said()}",
                    pytrace=False)
    if gave_up and gave_up[0]:
        pytest.fail(f"the run ended before {what}: {said()}", pytrace=False)


def poll_until(condition: Callable[[], bool], *, ended: Callable[[], bool],
               said: Callable[[], str], timeout_s: float, what: str,
               every_s: float = 0.05) -> None:
    """``wait_until`` without Qt: look at ``condition()`` (a file, a process) every
    ``every_s`` seconds; fail at once when ``ended()`` holds first (the process that was to
    bring it has exited), with ``said()`` (its output) in the failure."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if ended():
            if condition():
                return
            pytest.fail(f"the run ended before {what}: {said()}", pytrace=False)
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} in {timeout_s:.0f} s", pytrace=False)
        time.sleep(every_s)


@contextmanager
def call_ends(qtbot: Any, bridge: Any, *, timeout_ms: int, key: str | None = None,
              fails: bool = False) -> Iterator[None]:
    """Wait, after the block, for the end of a background call the block started on ``bridge``
    (``key``'s, or any): as ``qtbot.waitSignal(bridge.finished)``, but a call that failed
    ends the wait at once and the test fails with the call's own line and details. With
    ``fails``, the call is meant to fail, and one that finished ends the wait as soon."""
    ends: list[tuple[str, str]] = []

    def finished(name: str, result: object) -> None:
        if key is None or name == key:
            ends.append(("finished", f"{name} finished with {result!r}"))

    def failed(name: str, line: str, details: str) -> None:
        if key is None or name == key:
            ends.append(("failed", f"{name} failed: {line}\n{details}".rstrip()))

    bridge.finished.connect(finished)
    bridge.failed.connect(failed)
    try:
        yield
        try:
            qtbot.waitUntil(lambda: bool(ends), timeout=timeout_ms)
        except qtbot.TimeoutError:
            pytest.fail(f"the call{f' {key}' if key else ''} did not end in "
                        f"{timeout_ms / 1000:.0f} s", pytrace=False)
    finally:
        bridge.finished.disconnect(finished)
        bridge.failed.disconnect(failed)
    how, words = ends[0]
    if how != ("failed" if fails else "finished"):
        pytest.fail(words, pytrace=False)


def benchmark_ended(page: Any) -> bool:
    """Whether the Benchmark page's run is over (done, failed, cancelled or never started)."""
    return not page.busy and page.sequence is None


def benchmark_said(page: Any) -> str:
    """What the Benchmark page says of its run: the result's status, the status line and the
    message (the worker's or core's own words of what went wrong)."""
    status = page.result.status if page.result is not None else "no result"
    message = page.message.text() if page.message.isVisible() else ""
    return " | ".join(part for part in (status, page.status.text(), message) if part)


def while_benchmark_runs(qtbot: Any, page: Any, condition: Callable[[], bool], *,
                         timeout_ms: int, what: str) -> None:
    """Wait for ``condition`` while the Benchmark page's run goes on; stop at once when the
    run ended without it, saying how it ended."""
    wait_until(qtbot, condition, ended=lambda: benchmark_ended(page),
               said=lambda: benchmark_said(page), timeout_ms=timeout_ms, what=what)
