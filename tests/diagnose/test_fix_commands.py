"""The commands inside a finding's fix, for the app's Copy button (issue 31/17): the command
alone, never the sentence around it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.diagnose.fix_commands import commands
from core.operations.machine import check_machine

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"

CASES = [  # fixes the doctor gives today, and what a user pastes into a terminal
    ("sudo usermod -aG render,video $USER   then log out and back in (or reboot)",
     ("sudo usermod -aG render,video $USER",)),
    ("export HSA_OVERRIDE_GFX_VERSION=10.3.0   (rocmate install writes it into the managed "
     "environment; see rocmate env)", ("export HSA_OVERRIDE_GFX_VERSION=10.3.0", "rocmate env")),
    ("AMD's supported route: Ubuntu's HWE kernel 7.0 (sudo apt install --install-recommends "
     "linux-generic-hwe-24.04), then reboot. Meanwhile: rocmate install --strategy pip-only",
     ("sudo apt install --install-recommends linux-generic-hwe-24.04",
      "rocmate install --strategy pip-only")),
    ("sudo apt install linux-modules-extra-$(uname -r) && sudo modprobe amdgpu  (then check: "
     "dmesg | grep -i -E 'amdgpu|kfd'; remove nomodeset from GRUB)",
     ("sudo apt install linux-modules-extra-$(uname -r) && sudo modprobe amdgpu",
      "dmesg | grep -i -E 'amdgpu|kfd'")),
    ("Remove the ones you do not use: sudo amdgpu-install --uninstall --rocmrelease=<ver> (or "
     "sudo apt autoremove rocm-core<ver>); rocmate install offers to do it.",
     ("sudo amdgpu-install --uninstall --rocmrelease=<ver>",
      "sudo apt autoremove rocm-core<ver>")),
    ("In Windows PowerShell: wsl --set-version <your distribution> 2  (list them with wsl -l "
     "-v), then start it again and re-run rocmate doctor.",
     ("wsl --set-version <your distribution> 2", "wsl -l -v", "rocmate doctor")),
    ("To benchmark this card: rocmate bench resnet50-train --device cuda:0",
     ("rocmate bench resnet50-train --device cuda:0",)),
    ("unset HSA_OVERRIDE_GFX_VERSION; remove the stale line from the file that sets it, then "
     "open a new shell.", ("unset HSA_OVERRIDE_GFX_VERSION",)),
    ("Run rocmate doctor without --no-torch.", ()),  # a sentence about rocmate
    ("Use a supported card (RX 6800/6900 series, RX 7000 series), or run PyTorch on the CPU.",
     ()),
]


@pytest.mark.parametrize(("fix", "expected"), CASES)
def test_the_commands_are_cut_out_of_the_sentence(fix: str, expected: tuple[str, ...]) -> None:
    assert commands(fix) == expected


def test_every_fix_on_the_recorded_machines_gives_commands_that_start_as_commands() -> None:
    starts = ("sudo ", "export ", "unset ", "wsl ", "rocmate ", "lspci", "dmesg", "amdgpu-install",
              "pip", "python3", "modprobe", "apt", "dnf", "amd-ttm")
    seen = 0
    for machine in sorted(p for p in MACHINES.iterdir() if (p / "SOURCE.md").exists()):
        for finding in check_machine(str(machine)).findings:
            for command in commands(finding.fix):
                seen += 1
                assert command.startswith(starts), (machine.name, finding.id, command)
                assert "  " not in command and not command.endswith((".", ",", "(")), command
                assert command.count("(") == command.count(")"), command
    assert seen >= 10


def test_the_chinese_fixes_give_the_same_commands() -> None:
    """A translated fix goes on in Chinese right after its command, without a space: the first
    ideograph or full-width mark ends the command (the Copy button copied the sentence)."""
    from core.i18n import set_language

    machine = str(MACHINES / "rx6600-ubuntu2404-fresh")
    english = {f.id: commands(f.fix) for f in check_machine(machine).findings}
    try:
        set_language("zh_CN")
        chinese = {f.id: commands(f.fix) for f in check_machine(machine).findings}
    finally:
        set_language("en")
    assert chinese["not-in-render-group"] == ("sudo usermod -aG render,video $USER",)
    assert chinese == english
    assert commands("export HSA_OVERRIDE_GFX_VERSION=10.3.0（rocmate install 会把它写进自己管理"
                    "的环境；参见 rocmate env）") == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",
                                                "rocmate env")


def test_any_text_gives_an_answer_and_never_raises() -> None:
    rng = random.Random(31)
    alphabet = "sudo export rocmate install ()$'\";., then \n\t\x00é中"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert isinstance(commands(text), tuple)
