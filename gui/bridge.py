"""Runs slow core work off the GUI thread and owns every task it started, so that leaving a
page or closing the window can cancel them.

A page asks ``bridge.start(key, fn, *args)``: ``fn`` (a core operation, plain and blocking) runs
in a worker thread under an asyncio task of the qasync loop; ``finished(key, result)`` or
``failed(key, message, details)`` comes back on the GUI thread. A second start with the same
key cancels the first (a "Re-check" while a check runs).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from core.operations.errors import OperationError


class Bridge(QObject):
    started = Signal(str)
    progress = Signal(str, object)  # key, a step of the work (emitted from the worker thread)
    finished = Signal(str, object)
    failed = Signal(str, str, str)  # key, one line for the user, details to copy

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        # Python threads of its own (not the loop's QThreads): ended by shutdown()
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rocmate-bridge")

    def busy(self, key: str | None = None) -> bool:
        if key is not None:
            task = self.tasks.get(key)
            return task is not None and not task.done()
        return any(not t.done() for t in self.tasks.values())

    def start(self, key: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Run the blocking core call ``fn(*args, **kwargs)`` in the bridge's worker thread."""
        self.start_async(key, lambda: asyncio.get_running_loop().run_in_executor(
            self.executor, lambda: fn(*args, **kwargs)))

    def start_async(self, key: str, make: Callable[[], Awaitable[Any]]) -> None:
        """Run ``make()`` (a core runner's coroutine, or the worker thread's future) as a task
        this bridge owns; a second start with the same key cancels the first."""
        self.cancel(key)
        loop = asyncio.get_event_loop()
        self.tasks[key] = loop.create_task(self._await(key, make))
        self.started.emit(key)

    async def _await(self, key: str, make: Callable[[], Awaitable[Any]]) -> None:
        try:
            result = await make()
        except asyncio.CancelledError:
            raise
        except OperationError as exc:
            self.failed.emit(key, str(exc), "")
            return
        except Exception as exc:  # a bug: a readable line, and the details to copy
            self.failed.emit(key, f"{type(exc).__name__}: {exc}", traceback.format_exc())
            return
        self.finished.emit(key, result)

    def cancel(self, key: str) -> None:
        task = self.tasks.pop(key, None)
        if task is not None and not task.done():
            task.cancel()

    def shutdown(self) -> None:
        """Stop taking work; a thread still in a core call ends when that call returns."""
        for task in self.tasks.values():
            task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def cancel_all(self, timeout: float = 5.0) -> None:
        pending = [t for t in self.tasks.values() if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        self.tasks.clear()
