"""Runs slow core work off the GUI thread and owns every task it started, so that leaving a
page or closing the window can cancel them.

A page asks ``bridge.run(key, fn, *args, owner=self, on_done=..., on_failed=...)`` (the way
Anki's QueryOp works): ``fn`` (a core operation, plain and blocking) runs in a worker thread
under an asyncio task of the qasync loop, and that call's own ``on_done(result)`` or
``on_failed(line, details)`` runs on the GUI thread; no other page hears of it, and nothing
comes once ``owner`` is deleted. ``run_async`` does the same for a coroutine (a core
runner's). A second call with the same key cancels the first (a "Re-check" while a
check runs): the first call's callbacks are never called, its late result is dropped. A call
that reports steps gets ``on_progress``; its work hands each step to ``Call.report`` (from any
thread).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from core.operations.errors import OperationError

Done = Callable[[Any], None]
Failed = Callable[[str, str], None]  # one line for the user, details to copy ("" for none)
Progress = Callable[[Any], None]


@dataclass(eq=False)
class Call:
    """One background call and its own callbacks; ``cancelled`` once it was cancelled or
    replaced, after which nothing of it reaches the page."""

    key: str
    bridge: Bridge
    owner: QObject | None  # the page or window that asked: once it is deleted, nothing comes
    on_done: Done
    on_failed: Failed
    on_progress: Progress | None = None
    cancelled: bool = False

    def wanted(self) -> bool:
        return not self.cancelled and (self.owner is None or shiboken6.isValid(self.owner))

    def report(self, step: object) -> None:
        """Hand a step of the work to ``on_progress`` on the GUI thread (safe from any
        thread); dropped once the call is cancelled."""
        self.bridge._stepped.emit(self, step)


class Bridge(QObject):
    # for observers that wait for work to end (the tests): said after the call's own
    # callbacks ran; no page listens to them, each hears of its own calls only
    finished = Signal(str, object)  # key, result
    failed = Signal(str, str, str)  # key, one line for the user, details to copy
    # the bridge's own plumbing: a call's end and steps reach its callbacks on the GUI thread
    _ended = Signal(object, bool, object, object)  # call, ok, result or line, details
    _stepped = Signal(object, object)  # call, a step (emitted from any thread: queued)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.calls: dict[str, Call] = {}  # the live call for each key
        # Python threads of its own (not the loop's QThreads): ended by shutdown()
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rocmate-bridge")
        self._ended.connect(self._deliver)
        self._stepped.connect(self._step)

    def busy(self, key: str | None = None) -> bool:
        if key is not None:
            task = self.tasks.get(key)
            return task is not None and not task.done()
        return any(not t.done() for t in self.tasks.values())

    def run(self, key: str, fn: Callable[..., Any], *args: Any, owner: QObject | None,
            on_done: Done, on_failed: Failed, on_progress: Progress | None = None,
            **kwargs: Any) -> Call:
        """Run the blocking core call ``fn(*args, **kwargs)`` in the bridge's worker thread;
        ``on_done(result)`` or ``on_failed(line, details)`` on the GUI thread, unless ``owner``
        (the page or window asking) has been deleted by then."""
        loop = asyncio.get_event_loop()
        return self.run_async(key, lambda: loop.run_in_executor(
            self.executor, lambda: fn(*args, **kwargs)), owner=owner,
            on_done=on_done, on_failed=on_failed, on_progress=on_progress)

    def run_async(self, key: str, make: Callable[[], Awaitable[Any]], *, owner: QObject | None,
                  on_done: Done, on_failed: Failed,
                  on_progress: Progress | None = None) -> Call:
        """Run ``make()`` (a core runner's coroutine, or the worker thread's future) as a task
        this bridge owns; a second call with the same key cancels the first."""
        self.cancel(key)
        call = Call(key, self, owner, on_done, on_failed, on_progress)
        self.calls[key] = call
        self.tasks[key] = asyncio.get_event_loop().create_task(self._await(call, make))
        return call

    async def _await(self, call: Call, make: Callable[[], Awaitable[Any]]) -> None:
        try:
            result = await make()
        except asyncio.CancelledError:
            raise
        except OperationError as exc:
            self._ended.emit(call, False, str(exc), "")
            return
        except Exception as exc:  # a bug: a readable line, and the details to copy
            self._ended.emit(call, False, f"{type(exc).__name__}: {exc}", traceback.format_exc())
            return
        self._ended.emit(call, True, result, None)

    def _deliver(self, call: Call, ok: bool, value: object, details: object) -> None:
        # through a signal, so that a callback's exception is reported like any slot's
        if self.calls.get(call.key) is call:
            del self.calls[call.key]
        if not call.wanted():
            return
        if ok:
            call.on_done(value)
            self.finished.emit(call.key, value)
        else:
            call.on_failed(str(value), str(details))
            self.failed.emit(call.key, str(value), str(details))

    def _step(self, call: Call, step: object) -> None:
        if call.on_progress is not None and call.wanted():
            call.on_progress(step)

    def cancel(self, key: str) -> None:
        call = self.calls.pop(key, None)
        if call is not None:
            call.cancelled = True
        task = self.tasks.pop(key, None)
        if task is not None and not task.done():
            task.cancel()

    def shutdown(self) -> None:
        """Stop taking work; a thread still in a core call ends when that call returns."""
        for call in self.calls.values():
            call.cancelled = True
        for task in self.tasks.values():
            task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def cancel_all(self, timeout: float = 5.0) -> None:
        for call in self.calls.values():
            call.cancelled = True
        self.calls.clear()
        pending = [t for t in self.tasks.values() if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        self.tasks.clear()
