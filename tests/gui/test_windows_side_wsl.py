"""The Windows side page on recorded WSL machines (issue 33, items 3 and 4), reached as a user
reaches it: the Windows build and Adrenalin version, what only Windows can fix, and where AMD
builds PyTorch for the card on Windows itself, the PowerShell steps to copy."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from gui.pages.base import PageId
from tests.gui.support import open_wizard, walk_to

WINDOWS_10 = "k33-wsl2-ubuntu2604-rx9060xt-win10-igpu"  # ROCm/legacy-rocm-build#6323
OLD_ADRENALIN = "k33-wsl2-ubuntu2204-rx7700xt-adrenalin-24"  # ROCm/legacy-rocm-build#4215
NOT_LISTED = "k33-wsl2-ubuntu2204-rx6800s-laptop"


def _windows_side(qtbot: Any, machine: str) -> Any:
    wizard = open_wizard(qtbot, machine, checked=False)
    walk_to(qtbot, wizard, PageId.WINDOWS_SIDE)
    page = wizard.pages[PageId.WINDOWS_SIDE]
    qtbot.waitUntil(lambda: page.shown, timeout=60_000)
    return page


def test_windows_10_an_igpu_and_pytorch_on_windows(qtbot: Any, aloop: Any) -> None:
    page = _windows_side(qtbot, WINDOWS_10)
    assert "Windows 10 (version 10.0.19045.6456)" in page.wsl.text()
    assert "AMD Adrenalin 26.5.2" in page.wsl.text()
    shown = [c.finding_id for c in page.findings.cards]
    assert {"wsl-windows-10", "wsl-windows-igpu", "wsl-adrenalin-ok"} <= set(shown)
    assert "windows-native-pytorch" not in shown  # its own section, with the steps
    assert page.native_title.isVisible() and "RX 9060 XT" in page.native_title.text()
    assert "HSA_OVERRIDE_GFX_VERSION" in page.native_detail.text()
    assert '"torch[device-gfx1200]"' in page.native_steps.text()
    qtbot.mouseClick(page.copy_native, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("py -3.12 -m venv") and "In PowerShell" not in copied
    assert "--index-url $index" in copied


def test_an_old_adrenalin_is_an_error_on_the_page(qtbot: Any, aloop: Any) -> None:
    page = _windows_side(qtbot, OLD_ADRENALIN)
    cards = {c.finding_id: c for c in page.findings.cards}
    assert "wsl-adrenalin-old" in cards and "wsl-memory-below-vram" in cards
    assert "AMD Adrenalin 24.12.1" in page.wsl.text()


def test_no_windows_pytorch_words_for_a_card_not_on_the_list(
        qtbot: Any, aloop: Any) -> None:
    """Not supported: the System check leads no further, so the page is opened as the
    screenshots open it, on the doctor's answer."""
    wizard = open_wizard(qtbot, NOT_LISTED)
    wizard.open_at(PageId.WINDOWS_SIDE)
    page = wizard.pages[PageId.WINDOWS_SIDE]
    assert page.shown
    assert not page.native_title.isVisible() and not page.copy_native.isVisible()
    assert "wsl-gpu-unsupported" in [c.finding_id for c in page.findings.cards]
