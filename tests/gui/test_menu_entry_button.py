"""The Welcome page's "Add to the application menu": shown only when rocmate runs as an
AppImage, and then adding and removing rocmate's real menu entry (in the test's own
XDG_DATA_HOME) through core's operation; its words set again after a language change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt

from core.operations import menu_entry as me
from gui import i18n
from gui.bridge import Bridge
from gui.pages import welcome
from gui.pages.welcome import WelcomePage
from gui.session import Session
from tests.gui.texts import OPEN, window_texts

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
ENTRY_SHOWN = "~/.local/share/applications/org.rocmate.Rocmate.desktop"


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents()


def _fake_appimage(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    image = folder / "rocmate-0.1.0-x86_64.AppImage"
    image.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 57)
    image.chmod(0o755)
    return image


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of the test's own, with the XDG default data folder in it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return home


@pytest.fixture
def appimage(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """rocmate runs as this AppImage (as the Welcome page asks core.bundle)."""
    image = _fake_appimage(home / "Applications")
    monkeypatch.setattr(welcome, "appimage_file", lambda: image)
    return image


def _page(qtbot: Any, bridge: Bridge, session: Session | None = None) -> WelcomePage:
    page = WelcomePage(session or Session(), bridge)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    return page


def _click(qtbot: Any, page: WelcomePage) -> None:
    qtbot.mouseClick(page.menu_button, Qt.MouseButton.LeftButton)
    _settle()


def test_hidden_when_rocmate_is_not_an_appimage(qtbot: Any, bridge: Bridge, home: Path) -> None:
    page = _page(qtbot, bridge)  # from the sources: core.bundle finds no AppImage
    assert page.appimage is None
    assert not page.menu.isVisible() and not page.menu_button.isVisible()
    assert not (home / ".local").exists()


def test_hidden_while_a_recorded_machine_is_replayed(qtbot: Any, bridge: Bridge,
                                                     appimage: Path) -> None:
    page = _page(qtbot, bridge, Session(root=str(MACHINES / "rx6600-ubuntu2404-fresh")))
    assert not page.menu.isVisible()


def test_adds_and_removes_the_menu_entry(qtbot: Any, bridge: Bridge, appimage: Path,
                                         home: Path) -> None:
    page = _page(qtbot, bridge)
    entry = home / ".local" / "share" / "applications" / "org.rocmate.Rocmate.desktop"
    icon = home / ".local" / "share" / "icons" / "hicolor" / "256x256" / "apps" / \
        "org.rocmate.Rocmate.png"
    assert page.menu.isVisible() and page.menu_button.isVisible()
    assert page.menu_button.text() == "Add to the application &menu"
    assert "application menu" in page.menu_state.text()
    assert not page.menu_message.isVisible()

    _click(qtbot, page)
    assert entry.is_file() and icon.is_file()
    assert me.menu_entry_state().starts(appimage)
    assert page.menu_button.text() == "Remove from the application &menu"
    assert ENTRY_SHOWN in page.menu_state.text()
    assert not page.menu_message.isVisible()

    _click(qtbot, page)
    assert not entry.exists() and not icon.exists()
    assert page.menu_button.text() == "Add to the application &menu"
    assert page.menu_message.isVisible() and "Removed" in page.menu_message.text()

    _click(qtbot, page)  # and back again: the message goes
    assert entry.is_file() and not page.menu_message.isVisible()


def test_a_stale_entry_is_mended(qtbot: Any, bridge: Bridge, appimage: Path,
                                 home: Path) -> None:
    old = _fake_appimage(home / "Downloads")
    me.add_to_menu(old)
    old.unlink()
    page = _page(qtbot, bridge)
    assert "no longer there" in page.menu_state.text()
    assert "~/Downloads/rocmate-0.1.0-x86_64.AppImage" in page.menu_state.text()
    assert page.menu_button.text() == "Add to the application &menu"
    _click(qtbot, page)
    assert me.menu_entry_state().starts(appimage)
    assert page.menu_button.text() == "Remove from the application &menu"


def test_an_entry_for_another_copy_is_said_and_replaced(qtbot: Any, bridge: Bridge,
                                                        appimage: Path, home: Path) -> None:
    other = _fake_appimage(home / "Other")
    me.add_to_menu(other)
    page = _page(qtbot, bridge)
    assert "another copy" in page.menu_state.text() and "~/Other/" in page.menu_state.text()
    _click(qtbot, page)
    assert me.menu_entry_state().starts(appimage) and other.exists()


def test_an_entry_rocmate_did_not_write_is_left_alone(qtbot: Any, bridge: Bridge,
                                                      appimage: Path, home: Path) -> None:
    entry = me.menu_entry_path()
    entry.parent.mkdir(parents=True)
    entry.write_text("[Desktop Entry]\nType=Application\nName=rocmate\nExec=rocmate\n")
    page = _page(qtbot, bridge)
    assert page.menu.isVisible() and not page.menu_button.isVisible()
    assert "did not write" in page.menu_state.text() and ENTRY_SHOWN in page.menu_state.text()
    assert entry.read_text().endswith("Exec=rocmate\n")


def test_a_failure_is_said_in_words(qtbot: Any, bridge: Bridge, appimage: Path) -> None:
    me.icon_path().mkdir(parents=True)  # a folder where the icon goes
    page = _page(qtbot, bridge)
    _click(qtbot, page)
    assert page.menu_message.isVisible()
    assert "is a folder, where the icon should be a file" in page.menu_message.text()
    assert page.menu_button.text() == "Add to the application &menu"
    assert not me.menu_entry_path().exists()


def test_the_words_are_set_again_after_a_language_change(
        qtbot: Any, bridge: Bridge, catalogue: set[str], appimage: Path) -> None:
    me.icon_path().mkdir(parents=True)
    page = _page(qtbot, bridge)
    _click(qtbot, page)  # a message from core, said again in the new language too
    english = sorted(window_texts(page))
    assert any("is a folder" in text for text in english)

    i18n.switch("zh_CN")
    _settle()
    switched = sorted(window_texts(page))
    left = [text for text in switched if text in catalogue and OPEN not in text]
    assert left == [], "texts not set again after the switch"
    assert OPEN + "Add to the application &menu⟧" in switched
    message = page.menu_message.text()
    assert any("\u4e00" <= c <= "\u9fff" for c in message), message  # core's catalogue

    i18n.switch("en")
    _settle()
    assert sorted(window_texts(page)) == english
