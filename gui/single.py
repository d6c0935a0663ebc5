"""One app per user on this machine: a second start brings the first window to the front.

Two wizards on the same machine could start two set-ups (the root helper refuses the second
behind its lock, but the user would not know which window did what) or two benchmarks that
measure each other. The first app listens on a local socket named for the user
(``QLocalServer``: a Unix socket in the temporary folder, reachable by this user only); a second
start that reaches it asks it to show itself and ends. A replayed machine (``--root``) changes
nothing here, so any number of replays may be open beside it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

WAKE = b"show\n"
CONNECT_MS = 500


def server_name(uid: int | None = None) -> str:
    """The socket's name for this user."""
    return f"rocmate-app-{os.getuid() if uid is None else uid}"


def claim(name: str, on_wake: Callable[[], None], parent: QObject | None = None,
          ) -> QLocalServer | None:
    """Become the app of ``name``: a listening server whose connections call ``on_wake``; None
    when another app already answers there (it was asked to show itself)."""
    if _wake(name):
        return None
    QLocalServer.removeServer(name)  # a socket left by an app that crashed
    server = QLocalServer(parent)
    server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
    if not server.listen(name):
        return server  # cannot listen (no runtime folder): run alone rather than not at all
    server.newConnection.connect(lambda: _answer(server, on_wake))
    return server


def _wake(name: str) -> bool:
    """Ask the app listening on ``name`` to show itself; whether one answered."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_MS):
        return False
    socket.write(WAKE)
    socket.waitForBytesWritten(CONNECT_MS)
    socket.disconnectFromServer()
    return True


def _answer(server: QLocalServer, on_wake: Callable[[], None]) -> None:
    while server.hasPendingConnections():
        connection = server.nextPendingConnection()
        connection.disconnected.connect(connection.deleteLater)
        on_wake()
