"""The System check's "GPU memory" window for an APU (issue 35, item 4): core's facts and
advice for a goal, on recorded machines built from public outputs (their SOURCE.md), driven by
the button and the goal list as a person does; nothing on this computer is read or changed."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel

from gui import i18n
from gui.memory import LLM, MemoryDialog
from gui.pages.base import PageId
from tests.gui.support import click_next, open_wizard

STRIX_HALO = "k35-strix-halo-128g-gttsize-torch62"  # unslothai/unsloth#7960, #7878


def _memory_window(qtbot: Any, machine: str) -> MemoryDialog:
    wizard = open_wizard(qtbot, machine)
    click_next(qtbot, wizard)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    button = page.memory  # type: ignore[attr-defined]
    assert button.isVisible() and "&memory" in button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = page.memory_dialog  # type: ignore[attr-defined]
    assert dialog is not None and dialog.isVisible()
    return dialog


def _verdict(dialog: MemoryDialog) -> str:
    """The advice's verdict line shown now (an earlier one waits hidden for deletion)."""
    [line] = [label for label in dialog.content.findChildren(QLabel, "memory-verdict")
              if label.isVisible()]
    return line.text()


def _texts(dialog: MemoryDialog) -> list[str]:
    return [label.text() for label in dialog.content.findChildren(QLabel) if label.isVisible()]


def test_the_strix_halo_window_says_what_torch_sees_and_what_to_give(qtbot: Any,
                                                                     aloop: Any) -> None:
    dialog = _memory_window(qtbot, STRIX_HALO)
    texts = _texts(dialog)
    assert "Physical RAM" in texts and "124.9 GiB" in texts  # MemTotal of the public output
    assert "62.5 GiB" in texts  # what PyTorch reported there
    assert _verdict(dialog).startswith("Give the GPU 109 GiB: ttm pages_limit=28573696")
    assert any("amdgpu.gttsize is deprecated" in t for t in texts)
    # an LLM larger than the machine can give: said, with the most it can
    dialog.goal.setCurrentIndex(dialog.goal.findData(LLM))
    assert dialog.llm_gb.isVisible()
    dialog.llm_gb.setValue(200)
    assert _verdict(dialog).startswith("The goal needs more than the machine can safely give")


def test_the_window_speaks_chinese_after_a_switch(qtbot: Any, aloop: Any) -> None:
    dialog = _memory_window(qtbot, STRIX_HALO)
    try:
        i18n.switch("zh_CN")
        QCoreApplication.processEvents()
        assert dialog.windowTitle() != "GPU memory"
        assert "Physical RAM" not in _texts(dialog)
        assert any("GiB" in t for t in _texts(dialog))
    finally:
        i18n.switch("en")


def test_a_machine_without_an_apu_has_no_memory_button(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "rx7900xtx-ubuntu2404-ready")
    click_next(qtbot, wizard)
    assert not wizard.pages[PageId.SYSTEM_CHECK].memory.isVisible()  # type: ignore[attr-defined]
