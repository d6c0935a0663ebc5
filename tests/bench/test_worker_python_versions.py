"""The code rocmate runs in the user's PyTorch Python holds up on the oldest and the newest Python
it may meet there (issue 38, item 5).

rocmate itself needs Python 3.11; the benchmark worker (core/bench/worker/, copied alone into a
clean folder) and the scripts sent with ``python -c`` (the torch probe, the torch check, the
kernel check and its set-up step, the override trial) run in whatever Python holds the ROCm
PyTorch, down to :data:`core.bench.worker.PYTHON_MIN`. With real interpreters of that version
and of the newest one found (pyenv's, or ``python3.X`` on PATH; a test is skipped, saying so,
where none is installed), each in a throwaway virtual environment without torch:

* tests/bench/target_python_check.py, run in that Python, compiles everything, resolves every
  standard-library name it uses and imports every worker module that does not need torch;
* the worker, started by the real runner, answers through its protocol that torch is missing,
  and so does each script, each in its own way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from core.bench import runner
from core.bench.worker import PYTHON_MIN
from core.knowledge.loader import load_knowledge
from core.knowledge.math_libraries import load_math_libraries
from core.knowledge.rows import version_tuple
from core.knowledge.torch_python import load_torch_python, release_of
from core.probe import kernel_check, override_trial, torch_check
from core.probe.torch import PROBE_SCRIPT, run_torch_probe
from core.probe.torch_check import CHECK_SCRIPT
from core.system import LiveSystem
from tests.bench.helpers import run_worker, tiny

CHECKER = Path(__file__).with_name("target_python_check.py")
SCRIPTS = {
    "core/probe/torch.py PROBE_SCRIPT": PROBE_SCRIPT,
    "core/probe/torch_check.py CHECK_SCRIPT": CHECK_SCRIPT,
    "core/probe/kernel_check.py SUPERVISOR": kernel_check.SUPERVISOR,
    "core/probe/kernel_check.py WORKER": kernel_check.WORKER,
    "core/probe/kernel_check.py verify_script()": kernel_check.verify_script(),
    "core/probe/override_trial.py TRIAL_SCRIPT": override_trial.TRIAL_SCRIPT,
}
"""Every script rocmate runs with ``python -c`` in the user's Python."""
NO_TORCH = "No module named 'torch'"


def test_the_scripts_are_all_that_is_sent_with_python_c() -> None:
    """A new script sent to the user's Python (``"-c", NAME`` in core/) belongs in SCRIPTS."""
    sent: set[str] = set()
    for path in sorted((Path(__file__).parents[2] / "core").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        sent |= set(re.findall(r'"-c",\s*([A-Za-z_][\w.]*(?:\(\)|\["\w+"\])?)', text))
    assert sent == {"PROBE_SCRIPT", "CHECK_SCRIPT", "SUPERVISOR", 'cfg["worker"]',
                    "verify_script()", "TRIAL_SCRIPT"}


def _installed() -> dict[tuple[int, int], str]:
    """The Pythons installed here, one per minor version (the newest patch): pyenv's, then
    ``python3.X`` on PATH."""
    found: dict[tuple[int, int], tuple[tuple[int, ...], str]] = {}
    versions = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for folder in sorted(versions.glob("3.*")) if versions.is_dir() else []:
        exe = folder / "bin" / "python3"
        if re.fullmatch(r"3\.\d+\.\d+", folder.name) and exe.is_file():
            full = version_tuple(folder.name)
            key = (full[0], full[1])
            if key not in found or found[key][0] < full:
                found[key] = (full, str(exe))
    for minor in range(PYTHON_MIN[1], 20):
        on_path = shutil.which(f"python3.{minor}")  # a pyenv shim may refuse: ask it
        if on_path and (3, minor) not in found and _version(on_path) == (3, minor):
            found[(3, minor)] = ((3, minor), on_path)
    return {key: exe for key, (_, exe) in found.items()}


def _version(python: str) -> tuple[int, int] | None:
    """The version ``python`` says it is; None when it does not run."""
    try:
        done = subprocess.run([python, "-I", "-c", "import sys; print(*sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def _wanted(which: str) -> tuple[tuple[int, int], str]:
    installed = _installed()
    if which == "minimum":
        version = (PYTHON_MIN[0], PYTHON_MIN[1])
    else:
        newer = [v for v in installed if v > PYTHON_MIN]
        if not newer:
            pytest.skip("no Python newer than the worker's minimum is installed here")
        version = max(newer)
    if version not in installed:
        pytest.skip(f"no Python {version[0]}.{version[1]} installed here (pyenv or python3.X "
                    "on PATH)")
    return version, installed[version]


@pytest.fixture(scope="module", params=["minimum", "newest"])
def target(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[int, int], str]:
    """(version, python) of a throwaway virtual environment of that Python, without torch."""
    version, exe = _wanted(request.param)
    venv = tmp_path_factory.mktemp(f"py{version[0]}{version[1]}")
    subprocess.run([exe, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    assert _version(str(python)) == version
    return version, str(python)


def _check(python: str, root: Path, scripts: dict[str, str], tmp: Path) -> dict[str, object]:
    (tmp / "scripts.json").write_text(json.dumps(scripts), encoding="utf-8")
    done = subprocess.run([python, "-I", "-B", str(CHECKER), str(root), str(tmp / "scripts.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def test_the_minimum_is_the_oldest_python_of_a_planned_wheel() -> None:
    """PYTHON_MIN is what the data says: the oldest python_min (torch_python.toml) among the
    torch releases a plan may install, the current stable indexes' and the pinned legacy
    routes' (math_libraries.toml)."""
    kb = load_knowledge()
    current = {release.version for release in kb.current_releases()}
    pins = [f"torch=={version}" for index in kb.torch_indexes
            if index.stable and index.rocm in current for version in index.torch]
    pins += [route.requirement for route in load_math_libraries().routes
             if route.kind == "wheel" and route.requirement]
    rows = load_torch_python()
    floors = [row.python_min for pin in pins if (row := release_of(rows, pin)) is not None]
    assert "torch==2.5.1" in pins  # the gfx900/gfx906 route: without it the floor is 3.10
    assert min(version_tuple(v) for v in floors) == PYTHON_MIN


def test_the_code_for_the_users_python_holds_up(target: tuple[tuple[int, int], str],
                                               tmp_path: Path) -> None:
    version, python = target
    root = runner.prepare_worker_root(tmp_path / "worker")
    answer = _check(python, root, SCRIPTS, tmp_path)
    assert answer["python"] == list(version)
    assert answer["problems"] == []
    # the modules a run without torch goes through did import, not only compile
    imported = answer["imported"]
    assert isinstance(imported, list)
    assert {"core.bench.worker.entry", "core.bench.worker.errors", "core.bench.worker.options",
            "core.bench.worker.protocol"} <= set(imported)


def test_the_check_finds_what_the_minimum_lacks(tmp_path: Path) -> None:
    """The check itself, on the minimum: each construct newer than it is named."""
    _, exe = _wanted("minimum")
    newer = {
        "except-star": "try:\n    pass\nexcept* ValueError:\n    pass\n",
        "tomllib": "import tomllib\n",
        "utc": "import datetime as _dt\ndef now():\n    return _dt.datetime.now(_dt.UTC)\n",
        "self": "from typing import Self\n",
    }
    (tmp_path / "empty").mkdir()
    answer = _check(exe, tmp_path / "empty", newer, tmp_path)
    problems = answer["problems"]
    assert isinstance(problems, list) and len(problems) == 4, problems
    assert problems[0].startswith("except-star:3: SyntaxError")
    assert problems[1:] == ["self:1: from typing import Self", "tomllib:1: import tomllib",
                            "utc:3: datetime.UTC"]


def test_the_worker_says_torch_is_missing(target: tuple[tuple[int, int], str],
                                         tmp_path: Path) -> None:
    """Started as the runner starts it, the worker answers in its protocol."""
    _, python = target
    out, events = run_worker(tiny("gemm"), tmp_path, python=python)
    errors = [e for e in events if e["event"] == "error"]
    assert len(errors) == 1, events
    error = errors[0]
    assert (error["kind"], error["package"]) == ("missing-package", "torch")
    assert out.error is not None and out.error["source"] == "worker"  # not the runner's words
    assert error["message"] == "No module named 'torch' in the target Python"
    assert "SyntaxError" not in error.get("detail", "")
    assert out.status == "error" and out.hello is None


def test_the_scripts_say_torch_is_missing(target: tuple[tuple[int, int], str]) -> None:
    """Each script sent to the user's Python answers the way its reader expects."""
    _, python = target
    system = LiveSystem()
    probe = run_torch_probe(system, python, 60.0)
    assert probe.get("problem") is None and probe["error"] == f"ModuleNotFoundError: {NO_TORCH}"
    check = torch_check.torch_check(system, python, 60.0)
    assert check.answer["import_error"] == f"ModuleNotFoundError: {NO_TORCH}"
    trial = override_trial.run_trial(system, python, None, 60.0)
    assert (trial.outcome, trial.detail) == ("failed", f"ModuleNotFoundError: {NO_TORCH}")
    kernels = kernel_check.run_kernel_check(system, python, ["cpu"], start_timeout=30.0)
    assert kernels.get("problem") is None and kernels.get("error") is None, kernels
    start = kernels["devices"][0]["start"]
    assert start["outcome"] == "error" and NO_TORCH in start["log"]
    # the set-up plan's last step: no torch, no kernels; it fails at the import, not before
    verify = subprocess.run([python, "-c", kernel_check.verify_script()], capture_output=True,
                            text=True, timeout=60)
    assert verify.returncode == 1
    assert verify.stderr.strip().splitlines()[-1] == f"ModuleNotFoundError: {NO_TORCH}"

