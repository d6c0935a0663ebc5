"""A PyTorch check that got no answer says what happened (no Python there, not a Python, the
import hung or crashed), never "PyTorch is not installed"; findings come in the order to act on
them, a consequence after its cause and linked to it; the doctor and the plan agree about a
kernel that is too old."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.diagnose.doctor import run_doctor
from core.operations.machine import check_machine
from core.operations.setup import plan_setup
from core.probe.torch import run_torch_probe, torch_facts_from_json
from core.system import LiveSystem, SnapshotSystem

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
OVERRIDE = "rx6700xt-ubuntu2204-needs-override"


def _ids(answer: dict[str, Any]) -> list[str]:
    return [f["id"] for f in answer["findings"]]


def _finding(answer: dict[str, Any], finding_id: str) -> dict[str, Any]:
    return next(f for f in answer["findings"] if f["id"] == finding_id)


def _with_torch(tmp_path: Path, torch: dict[str, Any]) -> Path:
    root = tmp_path / OVERRIDE
    shutil.copytree(MACHINES / OVERRIDE, root, symlinks=True)
    (root / "torch.json").write_text(json.dumps(torch))
    return root


@pytest.mark.parametrize(("python", "problem"), [
    ("/nonexistent/python", "python-missing"),
    ("README.md", "not-a-python"),  # a file, not a program
    ("/bin/true", "not-a-python"),  # a program, not a Python
])
def test_the_probe_says_what_the_python_is(python: str, problem: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    answer = run_torch_probe(LiveSystem(), python, 30)
    assert answer["problem"] == problem, answer
    facts = torch_facts_from_json(answer)
    assert facts is not None and facts.problem == problem and not facts.installed


def test_a_probe_that_runs_out_of_time_says_so() -> None:
    answer = run_torch_probe(LiveSystem(), sys.executable, 0.05)
    assert answer["problem"] == "timeout" and answer["timeout_s"] == 0.05


@pytest.mark.parametrize(("torch", "finding", "words"), [
    ({"python": "/opt/none/bin/python", "version": None, "available": False,
      "error": "Python not found: /opt/none/bin/python"},
     "torch-python-missing", "There is no Python at /opt/none/bin/python"),
    ({"python": "/home/alice/venv/bin/python", "version": None, "available": False,
      "error": "the torch probe timed out after 90 s"},  # recorded before "problem" existed
     "torch-probe-timeout", "did not finish within 90 s"),
    ({"python": "/home/alice/venv/bin/python", "version": None, "available": False,
      "problem": "crashed", "error": "the Python died on signal 11 while importing torch"},
     "torch-probe-crashed", "Importing PyTorch crashed"),
    ({"python": "/usr/bin/env", "version": None, "available": False, "problem": "not-a-python",
      "error": "/usr/bin/env ran, but not as a Python"},
     "torch-not-python", "/usr/bin/env is not a Python"),
])
def test_a_check_without_an_answer_is_not_called_not_installed(
        tmp_path: Path, torch: dict[str, Any], finding: str, words: str) -> None:
    answer = run_doctor(SnapshotSystem(_with_torch(tmp_path, torch))).to_json()
    assert "torch-missing" not in _ids(answer)
    assert words in _finding(answer, finding)["title"]
    assert not _finding(answer, finding)["fix"].startswith("rocmate install")


def test_the_doctor_names_a_python_that_is_not_there_on_this_machine() -> None:
    out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--python",
                          "/nonexistent/python", "--color", "never"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert "There is no Python at /nonexistent/python" in out.stdout, out.stdout
    assert "PyTorch  not checked: no Python there" in out.stdout
    assert "PyTorch is not installed" not in out.stdout and out.stderr == ""


def test_the_cause_comes_before_its_consequence_and_is_named() -> None:
    report = check_machine(MACHINES / OVERRIDE)
    order = [f.id for f in report.findings]
    assert order.index("gfx-needs-override") < order.index("torch-no-gpu")
    no_gpu = next(f for f in report.findings if f.id == "torch-no-gpu")
    assert no_gpu.caused_by == ("gfx-needs-override",)
    assert no_gpu.to_json()["caused_by"] == ["gfx-needs-override"]
    from core.diagnose.doctor_text import render_text
    from core.termstyle import Style

    text = render_text(report, Style(False))
    assert "Caused by: Radeon RX 6700 XT needs HSA_OVERRIDE_GFX_VERSION=10.3.0" in text


def test_a_kernel_too_old_for_the_card_is_the_first_thing_to_fix_and_the_plan_says_so() -> None:
    machine = MACHINES / "ubuntu2004-kernel54-rx7900xtx"
    report = check_machine(machine, probe_torch=False)
    order = [f.id for f in report.findings]
    assert order.index("kernel-old") < order.index("kfd-missing")
    kfd = next(f for f in report.findings if f.id == "kfd-missing")
    assert kfd.caused_by == ("kernel-old",)
    assert "linux-modules-extra" not in kfd.fix and "newer kernel" in kfd.fix
    old = next(f for f in report.findings if f.id == "kernel-old")
    assert "linux-generic-hwe" not in old.fix  # 20.04's HWE kernel (5.15) does not reach 6.8
    plan = plan_setup(machine)
    checks = {c.id: c for c in plan.preflight}
    # the plan judges against its own release (pytorch.org's rocm7.2 wheels), in the doctor's
    # words and with the doctor's fix
    assert not checks["kernel-old"].ok and checks["kernel-old"].detail == old.fix
    assert checks["kernel-old"].title == old.title.replace(
        "ROCm 10.1", f"ROCm {plan.rocm}") and plan.rocm == "7.2"


def test_a_multi_line_fix_keeps_its_indent() -> None:
    from core.diagnose.doctor import DoctorReport
    from core.diagnose.doctor_text import render_text
    from core.diagnose.finding import Finding
    from core.termstyle import Style

    report = check_machine(MACHINES / OVERRIDE, probe_torch=False)
    finding = Finding("x", "warning", "Two steps", "", "first line\nsecond line")
    two = DoctorReport(report.facts, report.supports, report.primary_index, (finding,),
                       report.verdict, 0.0)
    assert "    Fix: first line\n         second line\n" in render_text(two, Style(False))


def test_env_undoes_a_wrong_value_and_says_why_when_there_is_nothing_to_set() -> None:
    def env(machine: str, shell: str = "sh") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "core.cli", "env", "--root",
                               str(MACHINES / machine), "--shell", shell], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)

    wrong = env("rx7900xtx-override-wrong-bashrc")
    assert wrong.returncode == 0 and wrong.stdout.startswith("unset HSA_OVERRIDE_GFX_VERSION\n")
    fish = env("rx7900xtx-override-wrong-bashrc", "fish")
    assert fish.stdout.startswith("set -e HSA_OVERRIDE_GFX_VERSION\n")
    for machine, words in [("nvidia-only-desktop", "There is no AMD GPU"),
                           ("rx580-polaris-ubuntu2004", "is supported by ROCm, with or without"),
                           ("wsl1-ubuntu1604", "WSL 1"), ("no-gpu-aspeed-server", "no AMD GPU")]:
        out = env(machine)
        assert out.returncode == 1 and out.stdout == "", machine
        assert out.stderr.startswith("rocmate env: nothing to set. No set-up fits") \
            and words in out.stderr, out.stderr
    ready = env("popos2204-rx6800-ready")
    assert ready.returncode == 0 and "HSA_OVERRIDE_GFX_VERSION" not in ready.stdout


def test_closed_device_nodes_name_the_missing_group_as_their_cause() -> None:
    report = check_machine(MACHINES / "rx6600-ubuntu2404-fresh", probe_torch=False)
    order = [f.id for f in report.findings]
    assert order.index("not-in-render-group") < order.index("kfd-no-access")
    closed = next(f for f in report.findings if f.id == "kfd-no-access")
    assert closed.caused_by == ("not-in-render-group",)
