"""Starting the desktop app: the Qt application, its settings and log file, an excepthook that
shows a readable error with "Copy details" instead of dying silently, and the qasync loop the
bridge's tasks run on. ``rocmate gui`` calls :func:`run`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

import gui.qt  # noqa: F401  (the binding, before qasync looks for one)
from core import __version__
from core.bundle import drop_bundle_paths, frozen
from core.resources import APP_ID, icon_file
from gui.runtime import settle_collector, use_python_threads
from gui.session import Session

log = logging.getLogger("rocmate.gui")


def log_file() -> Path:
    """A log file for this start of the app, under the XDG state folder."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local", "state")
    folder = Path(state) / "rocmate" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / time.strftime("gui-%Y%m%d-%H%M%S.log")


def application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    QCoreApplication.setOrganizationName("rocmate")
    QCoreApplication.setApplicationName("rocmate")
    QCoreApplication.setApplicationVersion(__version__)
    # the desktop matches the window to its menu entry (Wayland) and shows rocmate's icon
    QGuiApplication.setDesktopFileName(APP_ID)
    if icon_file().is_file():
        app.setWindowIcon(QIcon(str(icon_file())))
    if frozen():  # Qt has read its plugin path: the browser and file manager it opens must not
        drop_bundle_paths(os.environ)
    return app


def show_error(parent: QWidget | None, message: str, details: str) -> None:
    """A readable error with the details folded away and a button that copies them."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(QCoreApplication.translate("App", "rocmate hit a problem"))
    box.setText(message)
    box.setInformativeText(QCoreApplication.translate(
        "App", "Your work so far is kept. Copy the details into a bug report."))
    box.setDetailedText(details)
    copy = box.addButton(QCoreApplication.translate("App", "Copy details"),
                         QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    box.exec()
    if box.clickedButton() is copy:
        QApplication.clipboard().setText(f"{message}\n\n{details}")


def install_excepthook(parent: QWidget | None) -> None:
    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(kind, exc, tb))
        log.error("unexpected error\n%s", details)
        show_error(parent, f"{kind.__name__}: {exc}", details)

    sys.excepthook = hook


def run(session: Session, screenshot_dir: str | None = None,
        screenshot_reports: list[Path] | None = None, language: str | None = None) -> int:
    """Open the wizard (or, with ``screenshot_dir``, render every page there and exit; the
    benchmark, results, history and compare views show ``screenshot_reports``) in
    ``language`` (None: the one chosen last time, else the system's)."""
    logging.basicConfig(filename=str(log_file()), level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log.info("rocmate %s gui, root=%s", __version__, session.root)
    app = application()
    from gui import i18n

    # core's words (findings, plans) in the app's language, not the desktop's: a Chinese
    # finding inside English pages would be worse than either
    wanted = i18n.chosen(language)
    if not i18n.switch(wanted):
        log.warning("the app's %s catalogue is missing (make qm builds it): English", wanted)
    if screenshot_dir:
        from gui.screenshots import render_pages

        return render_pages(app, session, Path(screenshot_dir), screenshot_reports or [])
    import qasync

    from gui.single import claim, server_name
    from gui.wizard import RocWizard

    holder: list[QWidget] = []
    server = None
    if session.root is None:  # replays may be open beside the app of this machine
        server = claim(server_name(), lambda: _to_front(holder))
        if server is None:
            print("rocmate: " + QCoreApplication.translate(
                "App", "it is open already: its window was brought to the front"),
                file=sys.stderr)
            return 0

    async def main() -> None:
        use_python_threads(asyncio.get_running_loop())
        closed = asyncio.Event()
        wizard = RocWizard(session)
        holder.append(wizard)
        install_excepthook(wizard)
        wizard.closed.connect(closed.set)
        app.aboutToQuit.connect(closed.set)
        wizard.show()
        settle_collector()
        await closed.wait()
        await wizard.bridge.cancel_all()
        wizard.bridge.shutdown()

    with contextlib.suppress(asyncio.CancelledError):
        qasync.run(main())
    if server is not None:
        server.close()
    return 0


def _to_front(windows: list[QWidget]) -> None:
    """Show the app's window over the others (a second start asked for the app)."""
    if not windows:
        return
    window = windows[0]
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
