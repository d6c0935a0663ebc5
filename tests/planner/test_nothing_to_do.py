"""A machine whose PyTorch already works gets a plan that says so (issue 33, item 2).

The doctor's verdict decides: Ready, or Not yet proved (no kernel check recorded) with PyTorch
seeing the GPU (``torch-ok``). Such a plan has ``nothing_to_do`` set, says first which PyTorch
works where, and keeps its steps as what a fresh environment would add; every other plan is as
before. The recorded machines' torch.json files are their PyTorch's real answers (each
machine's SOURCE.md names the public output it was built from).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.diagnose.engine import NOT_PROVED, READY
from core.install.plan_text import render_plan
from core.operations.errors import OperationError
from core.operations.setup import plan_facts, plan_setup
from core.system import SnapshotSystem
from core.termstyle import Style

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"

# (machine, the Python the doctor finds PyTorch working in)
READY_MACHINES = [
    ("debian12-w7900-ready", "/home/alice/venvs/vllm/bin/python3"),
    ("mi300x-x4-ubuntu2204", "/home/alice/venvs/torch/bin/python3"),
    ("wsl2-ubuntu2204-rx7900xtx-ready", "/home/alice/miniconda3/bin/python"),
    ("rx7900xtx-ubuntu2404-ready", "/home/alice/venvs/torch/bin/python3"),
]


@pytest.mark.parametrize(("machine", "python"), READY_MACHINES)
def test_a_ready_machine_gets_nothing_to_do(machine: str, python: str) -> None:
    plan = plan_setup(MACHINES / machine)
    assert plan.nothing_to_do
    assert plan.notes[0].startswith("Nothing to do") and python in plan.notes[0]
    # what a fresh environment would add is still there to read
    assert any(s.id == "pip-torch" for s in plan.steps)
    text = render_plan(plan, Style(False)).splitlines()
    assert text[1].strip() == plan.notes[0]  # said first, not after the steps
    assert sum(plan.notes[0] in line for line in text) == 1


def test_the_json_flag_is_additive() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "install", "--dry-run", "--json",
         "--root", str(MACHINES / "debian12-w7900-ready")],
        capture_output=True, text=True, check=True, timeout=120)
    data = json.loads(out.stdout)
    assert data["nothing_to_do"] is True
    for key in ("schema", "strategy", "rocm", "torch_index", "steps", "notes", "blocked"):
        assert key in data
    assert data["schema"] == "rocmate.plan/1"


@pytest.mark.parametrize("machine", [
    "rx6700xt-ubuntu2204-needs-override",  # torch sees no GPU until the override is set
    "k16b-rx7600-ubuntu2404-fresh",  # no PyTorch, not in the render group
    "rx7900xtx-override-wrong-bashrc",  # a wrong override exported
    "hip-visible-devices-hides-qemu-vm",  # HIP_VISIBLE_DEVICES hides the GPU
])
def test_a_machine_with_something_to_fix_gets_the_plan(machine: str) -> None:
    plan = plan_setup(MACHINES / machine)
    assert not plan.nothing_to_do
    assert not any(n.startswith("Nothing to do") for n in plan.notes)


def test_the_plan_agrees_with_the_doctor_on_every_recorded_machine() -> None:
    agreed = 0
    for folder in sorted(p for p in MACHINES.iterdir() if (p / "SOURCE.md").exists()):
        report = run_doctor(SnapshotSystem(folder))
        try:
            plan = plan_setup(folder, facts=plan_facts(report=report))
        except OperationError:  # a machine no plan fits (an error the CLI shows) has no flag
            continue
        ids = {f.id for f in report.findings}
        ready = report.verdict in (READY, NOT_PROVED) and "torch-ok" in ids and not plan.blocked
        assert plan.nothing_to_do == ready, (folder.name, report.verdict, sorted(ids))
        agreed += ready
    assert agreed >= len(READY_MACHINES)
