"""A window's own background calls through the bridge, each with its own callbacks (Anki's
QueryOp): ``on_done(result)`` or ``on_failed(line)`` on the GUI thread, never another window's.
``calls`` holds the calls still under way, by key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from gui.bridge import Bridge, Call

Done = Callable[[Any], None]
Failed = Callable[[str], None]


class OwnCalls:
    """Mixed into a window (before its Qt class) that has ``bridge`` and ``calls``;
    ``call_prefix`` keeps its keys apart from other windows' on the same bridge."""

    bridge: Bridge
    calls: dict[str, Call]
    call_prefix = "window"

    def call(self, key: str, fn: Callable[..., Any], *args: Any, on_done: Done,
             on_failed: Failed, **kwargs: Any) -> None:
        """``fn`` in the bridge's worker thread."""
        key = f"{self.call_prefix}:{id(self)}:{key}"
        done, failed = self._ending(key, on_done, on_failed)
        self.calls[key] = self.bridge.run(key, fn, *args, owner=self._owner(), on_done=done,
                                          on_failed=failed, **kwargs)

    def call_async(self, key: str, make: Callable[[], Any], *, on_done: Done,
                   on_failed: Failed) -> None:
        """The coroutine ``make()`` returns, on the bridge's loop."""
        key = f"{self.call_prefix}:{id(self)}:{key}"
        done, failed = self._ending(key, on_done, on_failed)
        self.calls[key] = self.bridge.run_async(key, make, owner=self._owner(), on_done=done,
                                                on_failed=failed)

    def _owner(self) -> QObject | None:
        """The window itself: once Qt deletes it, its calls deliver nothing."""
        return self if isinstance(self, QObject) else None

    def _ending(self, key: str, on_done: Done,
                on_failed: Failed) -> tuple[Done, Callable[[str, str], None]]:
        def done(result: object) -> None:
            self.calls.pop(key, None)
            on_done(result)

        def failed(message: str, details: str) -> None:
            self.calls.pop(key, None)
            on_failed(message)
        return done, failed
