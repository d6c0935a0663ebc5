"""Python's cycle collector held back while a big report is read or written.

Reading a 20 MB report makes about two million small objects (the parsed JSON, then the
model's steps and samples). Each few hundred new objects Python's cycle collector may walk
everything made so far: a third of the time of reading such a report, measured. Reports hold
no reference cycles, so the collector waits until the report is done and runs as usual after.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection inside (nested and from several threads: the last one out turns
    it back on, and only where it was on before the first one came in)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
