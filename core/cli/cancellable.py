"""A long run in the terminal with Ctrl-C as its cancel: the first press asks the run to stop
(it then ends its own way: the runner reads the helper's output to the end, a repair puts the
environment back), a second press leaves at once."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from core.i18n import t

T = TypeVar("T")


async def cancellable(work: Coroutine[Any, Any, T], cancel: Callable[[], None],
                      stopping: str) -> T:
    """``work``'s result; on the first Ctrl-C ``stopping`` goes to stderr and ``cancel()`` is
    called, on the second the task is cancelled (asyncio.CancelledError to the caller)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    presses = 0

    def interrupted() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            print(stopping, file=sys.stderr)
            cancel()
        else:
            task.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, interrupted)
    try:
        return await task
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


def run_to_end(run: Callable[[], Coroutine[Any, Any, bool]], log_path: object) -> int:
    """A runner's whole run in the terminal (``run()`` makes its coroutine, cancellable as
    above): exit status 0 when it went well, 1 otherwise, and where its log is, in any case."""
    try:
        ok = asyncio.run(run())
    except asyncio.CancelledError:
        print("rocmate: " + t("cli.install.left-running", "left while a step was still "
                              "running"), file=sys.stderr)
        ok = False
    print(t("cli.install.log", "Log: {path}", path=log_path))
    return 0 if ok else 1
