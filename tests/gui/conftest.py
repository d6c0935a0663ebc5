"""The desktop app's tests: real widgets (offscreen), a qasync loop the bridge's tasks run on,
and errors in those tasks collected and failed."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gui.qt  # noqa: F401  (the binding first)
from gui.runtime import use_python_threads

pytest.importorskip("PySide6")
qasync = pytest.importorskip("qasync")


@pytest.fixture
def aloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """An asyncio loop on Qt's (pytest-qt runs Qt's); a task's error fails the test."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    asyncio.set_event_loop(loop)
    executor = use_python_threads(loop)
    yield loop
    executor.shutdown(wait=True)
    # qasync marks its loop as the running one until the app quits (which a test session's app
    # never does before the other tests): unmark it, or every later asyncio.run() fails
    asyncio.events._set_running_loop(None)
    with contextlib.suppress(RuntimeError, TypeError):
        qapp.aboutToQuit.disconnect(loop._after_run_forever)
    asyncio.set_event_loop(None)
    assert errors == []


@pytest.fixture(autouse=True)
def _settings(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings and logs of the app go to the test's own folder, not the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Each test starts in English and leaves the app in English (a test may switch)."""
    yield
    from core import i18n as core_i18n
    from gui import i18n

    if core_i18n.language() != "en":
        i18n.switch("en")


@pytest.fixture(scope="session")
def pseudo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, set[str]]:
    """A pseudo catalogue of the app's texts (each becomes ⟦text⟧, tests/gui/texts.py): its
    folder, and the English texts it translates."""
    from tests.gui.texts import pseudo_catalogue

    folder = tmp_path_factory.mktemp("pseudo-i18n")
    return folder, pseudo_catalogue(folder)


@pytest.fixture
def catalogue(pseudo: tuple[Any, set[str]], monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[set[str]]:
    """The app switches to zh_CN with the pseudo catalogue (core's words: core's real one);
    English again after the test, the change delivered."""
    from PySide6.QtCore import QCoreApplication

    from gui import i18n

    monkeypatch.setattr(i18n, "catalogue_dir", lambda: pseudo[0])
    yield pseudo[1]
    i18n.switch("en")
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


@pytest.fixture
def bridge() -> Iterator[Any]:
    """A bridge of its own, shut down after the test."""
    from gui.bridge import Bridge

    made = Bridge()
    yield made
    made.shutdown()
