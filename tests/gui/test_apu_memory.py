"""An APU's memory (issue 31/6): the GPU shares system memory, so the System check never says
"0 GiB" for it and the Benchmark page sizes its batches from the GTT (the system memory the
GPU may map), not from the small carve-out. Where the machine does not record the GTT size,
the words say "shared with system memory" and give no number.

The recorded laptops (k16b, Radeon 890M, 512 MiB carve-out) have no ``mem_info_gtt_total``;
the GTT case copies one into a temporary folder and adds the file, as amdgpu writes it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWizard

from core.operations.machine import check_machine
from gui.pages.base import PageId
from gui.session import Session
from gui.wizard import RocWizard
from tests.gui.support import MACHINES, open_wizard

ROOT = Path(__file__).resolve().parents[2]
LAPTOP = "k16b-strix-point-890m-laptop-ubuntu2404"
SLOT = "pci0000:00/0000:00:01.1/0000:63:00.0"
GIB = 1 << 30


def _with_gtt(tmp_path: Path, gib: int) -> Path:
    """The laptop, with amdgpu's GTT size file beside its VRAM one."""
    root = tmp_path / LAPTOP
    shutil.copytree(MACHINES / LAPTOP, root, symlinks=True)
    (root / "files" / "sys" / "devices" / SLOT / "mem_info_gtt_total").write_text(
        f"{gib * GIB}\n")
    return root


def _memory_cell(wizard: RocWizard) -> str:
    """The System check's memory column for the first GPU, reached with the Next button."""
    wizard.button(QWizard.WizardButton.NextButton).click()
    assert wizard.currentId() == int(PageId.SYSTEM_CHECK)
    page = wizard.pages[PageId.SYSTEM_CHECK]
    item = page.gpus.item(0, 2)
    assert item is not None
    return item.text()


def _benchmark(wizard: RocWizard) -> Any:
    return wizard.open_at(PageId.BENCHMARK)


def test_an_apu_without_a_gtt_record_is_shared_memory_never_0_gib(qtbot: Any) -> None:
    wizard = open_wizard(qtbot, LAPTOP)
    cell = _memory_cell(wizard)
    assert "0 GiB" not in cell and cell.startswith("shared with system memory"), cell
    page = _benchmark(wizard)
    for card in page.cards:
        assert "0 GiB" not in card.facts.text() and not card.warning.isVisible(), \
            (card.facts.text(), card.warning.text())
    resnet = next(c for c in page.cards if c.plan.choice.key == "resnet50-train")
    assert "shares system memory" in resnet.facts.text(), resnet.facts.text()


def test_an_apu_with_its_gtt_says_how_much_and_sizes_the_batch_from_it(
        qtbot: Any, tmp_path: Path) -> None:
    root = _with_gtt(tmp_path, 16)
    session = Session(root=str(root))
    session.report = check_machine(str(root))
    wizard = RocWizard(session)
    qtbot.addWidget(wizard)
    wizard.show()
    assert _memory_cell(wizard) == "shared, up to 16 GiB of system memory"
    page = _benchmark(wizard)
    resnet = next(c for c in page.cards if c.plan.choice.key == "resnet50-train")
    assert resnet.plan.batch_size is not None and resnet.plan.batch_size > 8
    assert "16 GiB" in resnet.facts.text() and not resnet.warning.isVisible()


def test_doctor_json_adds_the_gtt_size(tmp_path: Path) -> None:
    root = _with_gtt(tmp_path, 16)
    for machine, gtt in ((root, 16 * GIB), (MACHINES / LAPTOP, None)):
        out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--json", "--root",
                              str(machine)], cwd=ROOT, capture_output=True, text=True,
                             timeout=120, check=False)
        gpu = json.loads(out.stdout)["gpus"][0]
        assert gpu["gtt_bytes"] == gtt and gpu["vram_bytes"] == 512 << 20
