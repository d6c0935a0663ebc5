"""amdgpu-install left the root helper's table (no route plans it since WSL moved to librocdxg):
what an older rocmate left behind meets one clear line, never a traceback.

``rocmate install --resume`` (and the app's Resume) plans the set-up again from the machine and
the knowledge base (core/cli/install.py, core/operations/setup.py): what a run keeps on disk is
only its log and ``state.json``, the ids and hashes of the steps it finished
(core/install/runner.py RunState). So an older run's ``amdgpu-install-wsl`` step is never sent
again: its entry in ``state.json`` matches no step of today's plan. Should such a step reach the
helper anyway (a plan written by an older rocmate), the real helper, run here as the user,
refuses the whole plan before it needs root, and the run ends with one line that names the
program and says to plan again.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from core.install.helper import main as helper
from core.install.helper.policy import SCHEMA
from core.install.helper.validate import check_input
from core.install.plan import Plan, Step
from core.install.runner import Runner, RunState, step_hash
from core.operations.setup import finished_steps
from tests.install.support import TRUSTED_FPR, TRUSTED_KEY, keyring_step, trusting_policy
from tests.install.test_helper_hostile import fake_system
from tests.planner.test_plans import plan_for

# the two root steps of the WSL route as rocmate planned it before commit c43f617
OLD_STEPS = (
    Step("apt-install-amdgpu-install", "Install AMD's installer (amdgpu-install)", "",
         privileged=True, argv=("apt-get", "install", "-y", "amdgpu-install")),
    Step("amdgpu-install-wsl", "Install AMD's WSL runtime", "", privileged=True,
         argv=("amdgpu-install", "-y", "--usecase=wsl,rocm", "--no-dkms")),
)
WSL_MACHINE = "wsl2-ubuntu2204-rx7900xtx-ready"
HELPER = [sys.executable, "-I", "-m", "core.install.helper"]


def _run(plan: Plan, folder: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    asyncio.run(Runner(plan, events.append, HELPER, folder=folder).run())
    return events


def test_resume_after_an_older_run_plans_no_amdgpu_install(tmp_path: Path) -> None:
    """An older run's state (its amdgpu-install steps finished) is read without complaint, and
    the plan a resume carries out is today's: no amdgpu-install in it, nothing counted done
    that today's plan does not hold."""
    (tmp_path / "state.json").write_text(json.dumps(
        {"version": 2, "done": {s.id: step_hash(s) for s in OLD_STEPS}, "needs": []}))
    assert set(RunState.load(tmp_path / "state.json").done) == {s.id for s in OLD_STEPS}
    for rocm in (None, "7.2"):
        plan = plan_for(WSL_MACHINE, rocm=rocm)
        assert not [s.id for s in plan.steps if s.argv and "amdgpu-install" in s.argv]
        assert finished_steps(plan, tmp_path) == []


def test_an_old_amdgpu_install_step_ends_in_one_clear_line(tmp_path: Path) -> None:
    """The old WSL plan's root steps sent to today's helper: refused as a whole (the apt-get
    step before it runs neither), in one line that names the program and what to do."""
    plan = Plan(strategy="wsl", rocm="6.4", torch_index=None, steps=OLD_STEPS)
    # first in-process, so that a helper that took the verb back would never get to run
    # apt-get for real here (the tests may run as root)
    document = {"schema": SCHEMA, "steps": [s.to_json() for s in OLD_STEPS]}
    assert not helper.check(json.dumps(document).encode()).ok
    events = _run(plan, tmp_path / "s")
    last = events[-1]
    assert last["event"] == "done" and last["ok"] is False and last.get("exit") == 2
    error = last["error"]
    assert "\n" not in error and "Traceback" not in error
    assert "unknown verb 'amdgpu-install'" in error and "plan the set-up again" in error
    assert not [e for e in events if e.get("event") == "step" and e.get("status") == "done"]
    assert RunState.load(tmp_path / "s" / "state.json").done == {}
    log = (tmp_path / "s" / "install.log").read_text()
    assert "Traceback" not in log


# what only the retired verb's route asked of the helper: AMD's amdgpu repository (amdgpu.list,
# "It holds amdgpu-install and the WSL runtime packages", commit c58e3fb), the amdgpu-install
# package, and the WSL runtime its wsl use case installs (hsa-runtime-rocr4wsl-amdgpu)
AMDGPU_URI = "https://repo.radeon.com/amdgpu/6.4/ubuntu"
ROCM_URI = "https://repo.radeon.com/rocm/apt/6.4"


def _source(content: str, name: str) -> dict[str, Any]:
    return {"id": "apt-source-amdgpu", "privileged": True, "kind": "file", "title": "source",
            "file": {"path": f"/etc/apt/sources.list.d/{name}", "content": content,
                     "mode": "0644"}}


def _line(uri: str) -> str:
    return f"deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] {uri} jammy main\n"


def _deb822(uri: str) -> str:
    return ("Types: deb\nURIs: " + uri + "\nSuites: jammy\nComponents: main\n"
            "Architectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\n")


RETIRED_INPUTS = {
    "install amdgpu-install": (
        Step("x", "x", "", privileged=True, argv=("apt-get", "install", "-y", "amdgpu-install"))
        .to_json(), "package 'amdgpu-install' is not on the allow-list"),
    "install the WSL runtime": (
        Step("x", "x", "", privileged=True,
             argv=("apt-get", "install", "-y", "--no-install-recommends", "rocm-hip-runtime",
                   "hsa-runtime-rocr4wsl-amdgpu")).to_json(),
        "package 'hsa-runtime-rocr4wsl-amdgpu' is not on the allow-list"),
    "amdgpu.list": (_source(_line(AMDGPU_URI), "amdgpu.list"),
                    "/etc/apt/sources.list.d/amdgpu.list is not one of rocmate's files"),
    "amdgpu.list, ROCm's line": (
        _source(_line(ROCM_URI), "amdgpu.list"),
        "/etc/apt/sources.list.d/amdgpu.list is not one of rocmate's files"),
    "amdgpu.sources": (_source(_deb822(AMDGPU_URI), "amdgpu.sources"),
                       "/etc/apt/sources.list.d/amdgpu.sources is not one of rocmate's files"),
    "amdgpu repository in rocm.list": (
        _source(_line(AMDGPU_URI), "rocm.list"),
        f"URI {AMDGPU_URI} is not an allowed repository"),
    "amdgpu repository in rocm.sources": (
        _source(_deb822(ROCM_URI) + "\n" + _deb822(AMDGPU_URI), "rocm.sources"),
        f"URI {AMDGPU_URI} is not an allowed repository"),
}


@pytest.mark.parametrize("name", RETIRED_INPUTS)
def test_what_only_the_retired_route_needed_is_refused(name: str, tmp_path: Path) -> None:
    """The packages, the source files and the repository only the amdgpu-install route asked
    for are refused by the shipped policy (no plan of today's needs them:
    tests/faults/test_hostile_plans.py's control), each with its own reason."""
    step, reason = RETIRED_INPUTS[name]
    # a source needs its keyring in the plan (the synthetic test key, which the policy trusts)
    steps = [keyring_step(TRUSTED_KEY, TRUSTED_FPR), step] if "file" in step else [step]
    result = check_input(json.dumps({"schema": SCHEMA, "steps": steps}).encode(),
                         fake_system(tmp_path), trusting_policy())
    reasons = [r.reason for r in result.refused]
    assert not result.ok and not result.actions
    assert any(reason in r for r in reasons), reasons
