"""The one error an operation raises for the user: a line of words and an exit status."""

from __future__ import annotations


class OperationError(Exception):
    """Something the user can act on (a missing folder, a refused plan). ``str()`` is the line
    to show; ``status`` is what a command exits with."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status
