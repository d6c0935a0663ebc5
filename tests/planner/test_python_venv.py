"""python3-venv where the system's python3 has no ensurepip (issue 33, item 2's last line).

A fresh Ubuntu 24.04 desktop has no python3.12-venv: ``python3 -m venv`` (step 1 of the
pip-only plan) fails with "ensurepip is not available", and ``python3 -m ensurepip`` answers
``/usr/bin/python3: No module named ensurepip`` (pypa/pipx#474). The recorded machine
k16b-rx7600-ubuntu2404-fresh carries that answer (its SOURCE.md names the threads); the plan
checks it up front and installs python3-venv through the root helper's apt-get verb, whose
allow-list already names exactly that package (the helper's policy is not widened).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.helper import main as helper
from core.install.helper.policy import SCHEMA
from core.install.helper.target import Policy, Target
from core.install.plan import Plan
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.probe.parse.ensurepip import parse_ensurepip
from core.probe.python_venv import ENSUREPIP, probe_ensurepip
from core.system import SnapshotSystem
from tests.install.support import add_fixtures, write_accounts

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
FRESH = "k16b-rx7600-ubuntu2404-fresh"


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("output", "returncode", "expected"),
    [
        ("/usr/bin/python3: No module named ensurepip\n", 1, False),  # pypa/pipx#474
        ("pip 24.0\n", 0, True),  # ensurepip's own --version answer
        ("\x1b[1mpip 23.2.1\x1b[0m\n", 0, True),
        ("", None, None),  # no answer: unknown, never "missing"
        ("Traceback (most recent call last):\nOSError: [Errno 28]\n", 1, None),
        ("pip 24.0\n", 1, None),
    ],
)
def test_parse_ensurepip(output: str, returncode: int | None, expected: bool | None) -> None:
    assert parse_ensurepip(output, returncode) is expected


def test_the_recorded_answer_is_read_and_an_unrecorded_one_is_unknown() -> None:
    assert probe_ensurepip(SnapshotSystem(MACHINES / FRESH)) is False
    assert probe_ensurepip(SnapshotSystem(MACHINES / "rx6600-ubuntu2404-fresh")) is None
    assert ENSUREPIP[:2] == ("python3", "-I")  # no user site, no PYTHON* variables


def test_a_fresh_ubuntu_desktop_gets_python3_venv_before_the_environment() -> None:
    plan = plan_for(FRESH)
    [check] = [c for c in plan.preflight if c.id == "python-venv"]
    assert not check.ok and "ensurepip" in check.title and "python3-venv" in check.detail
    order = [s.id for s in plan.steps]
    assert order.index("apt-update") < order.index("python3-venv") < order.index("venv")
    step = next(s for s in plan.steps if s.id == "python3-venv")
    assert step.privileged and step.argv == ("apt-get", "install", "-y", "python3-venv")


def test_the_core_sdk_route_reuses_its_own_package_list_update() -> None:
    plan = plan_for(FRESH, strategy="rocm-apt", rocm="10.1")
    order = [s.id for s in plan.steps]
    assert order.count("apt-update") == 1
    assert order.index("apt-update") < order.index("python3-venv") < order.index("venv")


@pytest.mark.parametrize("machine", ["rx6600-ubuntu2404-fresh", "debian12-w7900-ready",
                                     "fedora42-rx7900xtx"])
def test_no_answer_recorded_means_no_step_and_no_check(machine: str) -> None:
    plan = plan_for(machine)
    assert "python3-venv" not in [s.id for s in plan.steps]
    assert not [c for c in plan.preflight if c.id == "python-venv"]


def test_the_helper_accepts_the_step_as_its_policy_stands(tmp_path: Path) -> None:
    """``--check`` on the plan's apt steps with the shipped policy: python3-venv is on the
    allow-list already; nothing is added to it."""
    write_accounts(tmp_path)
    add_fixtures(tmp_path)
    plan = plan_for(FRESH)
    steps = [s.to_json() for s in plan.steps if s.id in ("apt-update", "python3-venv")]
    raw = json.dumps({"schema": SCHEMA, "steps": steps}).encode()
    checked = helper.check(raw, Target(str(tmp_path)), Policy.from_knowledge(load_knowledge()))
    assert checked.ok, [r.reason for r in checked.refused]
    assert [a.verb for a in checked.actions] == ["apt-update", "apt-install"]
    # and a versioned name is still refused: the policy was not widened
    steps[1]["argv"] = ["apt-get", "install", "-y", "python3.12-venv"]
    raw = json.dumps({"schema": SCHEMA, "steps": steps}).encode()
    refused = helper.check(raw, Target(str(tmp_path)), Policy.from_knowledge(load_knowledge()))
    assert not refused.ok
