"""The Benchmark page wherever PyTorch sees a device or the CPU (issue 31/7): a machine ROCm
cannot serve (NVIDIA only, no GPU) still gets its benchmarks, reached from Welcome with the
wizard's own Next, in words that fit the machine; without PyTorch the wizard ends at the
check, and the check says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWizard

from gui.pages.base import PageId
from gui.wizard import RocWizard
from tests.gui.support import MACHINES, open_wizard

CPU_TORCH = {"python": "/home/bob/venvs/torch/bin/python3", "version": "2.5.1+cpu", "hip": None,
             "cuda": None, "available": False, "device_count": 0, "devices": [],
             "arch_list": [], "error": None}


def _next(wizard: RocWizard) -> None:
    button = wizard.button(QWizard.WizardButton.NextButton)
    assert button.isVisible() and button.isEnabled(), PageId(wizard.currentId())
    button.click()


def test_an_nvidia_machine_goes_on_to_the_benchmark_on_its_gpu(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "nvidia-only-desktop")
    _next(wizard)
    check = wizard.pages[PageId.SYSTEM_CHECK]
    _next(wizard)
    assert wizard.currentId() == int(PageId.BENCHMARK)
    assert "NVIDIA GeForce RTX 3060" in check.benchmark_note.text()
    page = wizard.pages[PageId.BENCHMARK]
    assert page.advanced.device.currentData() == "cuda:0"
    assert page.nextId() == int(PageId.RESULTS)
    wizard.button(QWizard.WizardButton.BackButton).click()
    assert wizard.currentId() == int(PageId.SYSTEM_CHECK)


def test_a_machine_without_a_gpu_benchmarks_the_cpu(qtbot: Any, tmp_path: Path) -> None:
    root = tmp_path / "no-gpu-cpu-torch"
    shutil.copytree(MACHINES / "no-gpu-aspeed-server", root, symlinks=True)
    (root / "torch.json").write_text(json.dumps(CPU_TORCH))
    wizard = open_wizard(qtbot, str(root))
    _next(wizard)
    check = wizard.pages[PageId.SYSTEM_CHECK]
    _next(wizard)
    assert wizard.currentId() == int(PageId.BENCHMARK)
    assert "CPU" in check.benchmark_note.text()
    page = wizard.pages[PageId.BENCHMARK]
    assert page.advanced.device.currentData() == "cpu"
    assert "GPU" not in page.waiting.text() and "card" not in page.waiting.text()


def test_without_pytorch_the_check_is_the_end_and_says_why(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, "no-gpu-aspeed-server")
    _next(wizard)
    check = wizard.pages[PageId.SYSTEM_CHECK]
    assert check.nextId() == -1
    assert "PyTorch" in check.benchmark_note.text() and check.benchmark_note.isVisible()
