"""The system python3 against the wheels a plan pins (issue 33).

The vega20 server runs Ubuntu 18.04, whose python3 is 3.6.9 (dmm-com/pagoda#130); its last route
pins torch 2.5.1, for which PyTorch publishes wheels for Python 3.9-3.12 only (pytorch/pytorch
RELEASE.md, Release Compatibility Matrix): pip would fail at step 4. The plan says so up front,
with what to do, and is not carried out. The MI25 machine on Ubuntu 22.04 (python3 3.10.12,
pnwairfire/bluesky#279) gets the same route with the check passed. The versions are
resources/data/torch_python.toml's rows, each with its source.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.knowledge.rows import KnowledgeError
from core.knowledge.torch_python import load_torch_python, parse_torch_python, release_of
from core.probe.parse.python_version import parse_python_version
from core.probe.python_venv import PYTHON_VERSION, probe_python_version
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
ROOT = Path(__file__).resolve().parents[2]


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("output", "returncode", "expected"),
    [
        ("Python 3.6.9\n", 0, "3.6.9"),
        ("Python 3.12.3\n", 0, "3.12.3"),
        ("\x1b[0mPython 3.10.12\n", 0, "3.10.12"),
        ("bash: python3: command not found\n", 127, None),
        ("", None, None),
        ("Python\n", 0, None),
    ],
)
def test_parse_python_version(output: str, returncode: int | None, expected: str | None) -> None:
    assert parse_python_version(output, returncode) == expected


def test_the_recorded_version_is_read_and_an_unrecorded_one_is_unknown() -> None:
    assert probe_python_version(SnapshotSystem(MACHINES / "vega20-x8-epyc-aspeed")) == "3.6.9"
    assert probe_python_version(SnapshotSystem(MACHINES / "mi25-x7-gfx900")) == "3.10.12"
    assert probe_python_version(SnapshotSystem(MACHINES / "lucienne-5700u-proxmox")) is None
    assert PYTHON_VERSION == ("python3", "--version")


def test_the_rows_carry_pytorchs_matrix_with_its_source() -> None:
    rows = load_torch_python()
    row = release_of(rows, "torch==2.5.1+rocm6.2")
    assert row is not None and (row.python_min, row.python_max) == ("3.9", "3.12")
    assert row.experimental == ("3.13",)
    assert all("RELEASE.md" in r.source and "Release Compatibility Matrix" in r.source
               for r in rows)
    assert not row.fits("3.6.9") and row.fits("3.10") and row.fits("3.12.3")
    assert not row.fits("3.13")  # experimental only
    assert release_of(rows, "torch") is None  # unpinned: not known which release pip takes
    assert release_of(rows, "torch[device-gfx906]") is None
    assert release_of(rows, "torch==1.12.0") is None  # not in the data: nothing said


def test_a_row_with_its_range_upside_down_is_refused() -> None:
    with pytest.raises(KnowledgeError, match="python_min"):
        parse_torch_python({"release": [{"torch": "2.5", "python_min": "3.12",
                                         "python_max": "3.9", "source": "x"}]})


def test_vega20s_python_36_stops_the_plan_with_what_to_do() -> None:
    plan = plan_for("vega20-x8-epyc-aspeed")
    assert not plan.blocked and "torch==2.5.1+rocm6.2" in plan.torch_packages
    [check] = [c for c in plan.preflight if c.id == "python-version"]
    assert not check.ok and check.stops and plan.stopped_by == (check,)
    assert "python3 is 3.6" in check.title and "3.9-3.12" in check.title
    assert "Upgrade to a release of your distribution" in check.detail
    assert "RELEASE.md" in check.detail
    assert plan.to_json()["preflight"][0] == {**check.to_json(), "stops": True}


def test_mi25s_python_310_fits_the_same_route() -> None:
    plan = plan_for("mi25-x7-gfx900")
    assert "torch==2.5.1+rocm6.2" in plan.torch_packages
    [check] = [c for c in plan.preflight if c.id == "python-version"]
    assert check.ok and not check.stops and not plan.stopped_by
    assert "python3 is 3.10" in check.title
    assert "stops" not in check.to_json()  # the JSON as before where nothing stops


def test_no_recorded_python_means_no_check() -> None:
    # TheRock's unpinned device extras are checked against the index's own row
    # (tests/planner/test_therock_python.py); without a recorded python3 nothing is said
    assert not any(c.id == "python-version" for c in plan_for("rx5700xt-gfx1010").preflight)


def test_install_without_dry_run_refuses_a_stopped_plan() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "core.cli", "install", "--root",
         str(MACHINES / "vega20-x8-epyc-aspeed"), "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 1
    assert "this plan cannot be carried out: The system's python3 is 3.6" in done.stderr
    assert json.loads(done.stdout)["preflight"][0]["stops"] is True
