"""How the app's Python runs under Qt: the cycle collector settled once the window is up, and
core's background calls on Python threads rather than qasync's QThreads."""

from __future__ import annotations

import asyncio
import gc
from concurrent.futures import ThreadPoolExecutor


def settle_collector() -> None:
    """What the app has made by now (modules, classes, the window and its pages) lives as
    long as the app: Python's cycle collector leaves it out of its walks from here on
    (``gc.freeze``). Its occasional full walk over a started app's 40,000 and more objects took
    30 to 120 ms on this project's 2-core build machine, a stall in the middle of a live graph;
    the walks that remain cover only what was made since."""
    gc.freeze()


def use_python_threads(loop: asyncio.AbstractEventLoop) -> ThreadPoolExecutor:
    """Core's ``asyncio.to_thread`` calls (telemetry samples, a run's report) on Python threads:
    qasync's default executor makes QThreads, which Qt destroys still running at exit."""
    executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rocmate-loop")
    loop.set_default_executor(executor)
    return executor
