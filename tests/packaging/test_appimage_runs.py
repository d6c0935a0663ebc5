"""The packaged program, started from the image as a user starts it (the runtime's
extract-and-run, and mounted where FUSE works): the command line answers as the source tree
does, the window opens and closes, the benchmark worker runs in another Python, the root helper
answers its --check, and nothing this program starts inherits the bundle's environment."""

from __future__ import annotations

import json
import platform
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import MACHINES, MODES, REPO, start, user_env

pytestmark = pytest.mark.slow

CPU_REPORT = REPO / "tests" / "fixtures" / "reports" / "cpu-tiny-resnet50-train.json"
REPLAYED = ("rx6600-ubuntu2404-fresh", "wsl2-ubuntu2204-rx7900xtx-ready", "nvidia-only-desktop",
            "mi300x-x4-ubuntu2204")


def without_timings(text: str) -> dict:
    data = json.loads(text)
    data.pop("timings", None)
    return data


def source_tree(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=300, check=False)


@pytest.mark.parametrize("mode", MODES)
def test_doctor_json_from_the_image_equals_the_source_trees(image: Path, mode: str,
                                                            tmp_path: Path) -> None:
    env = user_env(tmp_path)
    for machine in REPLAYED:
        root = str(MACHINES / machine)
        packaged = start(image, mode, "doctor", "--json", "--root", root, env=env)
        source = source_tree("doctor", "--json", "--root", root, env=env)
        assert packaged.returncode == source.returncode, (machine, packaged.stderr)
        assert without_timings(packaged.stdout) == without_timings(source.stdout), machine
        assert "Traceback" not in packaged.stderr


@pytest.mark.parametrize("mode", MODES)
def test_the_window_opens_offscreen_and_closes_cleanly(image: Path, mode: str,
                                                       tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    done = start(image, mode, "gui", "--root", str(MACHINES / "rx6600-ubuntu2404-fresh"),
                 "--screenshot-dir", str(shots), "--screenshot-report", str(CPU_REPORT),
                 env=user_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    pages = sorted(p.name for p in shots.glob("*.png"))
    # the graphs (pyqtgraph, numpy) and the history (sqlite) are drawn from the image too
    for page in ("01-welcome.png", "02-system-check.png", "08-benchmark-graphs.png",
                 "09-results.png", "10-history.png"):
        assert page in pages, pages
    assert all((shots / p).stat().st_size > 5_000 for p in pages)


def test_the_window_in_chinese_from_the_image(image: Path, tmp_path: Path) -> None:
    """The app's own catalogue and Qt's zh_CN travel in the image (the other Qt languages do
    not)."""
    shots = tmp_path / "shots"
    done = start(image, "extract-and-run", "gui", "--lang", "zh_CN", "--root",
                 str(MACHINES / "rx6600-ubuntu2404-fresh"), "--screenshot-dir", str(shots),
                 env=user_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "catalogue" not in done.stderr
    log = "".join(p.read_text() for p in (tmp_path / "xdg_state_home").rglob("*.log"))
    assert "catalogue is missing" not in log


def test_the_worker_runs_a_tiny_cpu_suite_in_another_python(image: Path, tmp_path: Path) -> None:
    """The image holds no torch: the packaged app starts the worker in this test's Python (which
    has torch), from the image's plain worker files."""
    pytest.importorskip("torch")
    out = tmp_path / "gemm.json"
    done = start(image, "extract-and-run", "bench", "gemm", "--device", "cpu", "--size", "tiny",
                 "--steps", "3", "--python", sys.executable, "--out", str(out),
                 env=user_env(tmp_path, OMP_NUM_THREADS="1"), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    run = report["runs"][-1]
    assert run["status"] == "ok", run.get("error")
    assert report["software"]["python"] == platform.python_version()  # this Python's, not the
    import torch  # image's (which holds no torch at all)

    assert report["software"]["torch"] == torch.__version__
    assert run["result"]["figures"]


@pytest.mark.parametrize("mode", MODES)
def test_the_helper_answers_check_from_the_image(image: Path, mode: str, tmp_path: Path) -> None:
    """A real plan's root steps: the image's helper accepts the apt steps and refuses the whole
    plan's (a keyring whose content comes only at run time, a user this machine lacks) in the
    same words as the source tree's helper."""
    env = user_env(tmp_path)
    planned = source_tree("install", "--dry-run", "--json", "--strategy", "rocm-apt", "--root",
                          str(MACHINES / "rx6600-ubuntu2404-fresh"), env=env)
    plan = json.loads(planned.stdout)
    apt = {"schema": plan["schema"], "steps": [s for s in plan["steps"]
                                                if s["id"] in ("apt-update", "apt-install")]}
    done = start(image, mode, "helper", "--check", env=env, stdin=json.dumps(apt))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {"ok": True}
    whole = start(image, mode, "helper", "--check", env=env, stdin=json.dumps(plan))
    oracle = subprocess.run([sys.executable, "-I", "-m", "core.install.helper", "--check"],
                            input=json.dumps(plan), capture_output=True, text=True, cwd=REPO,
                            timeout=60, check=False)
    assert (whole.returncode, json.loads(whole.stdout)) == \
        (oracle.returncode, json.loads(oracle.stdout))
    assert whole.returncode == 2


def test_a_module_runs_with_dash_m_and_only_the_listed_ones(image: Path, tmp_path: Path) -> None:
    env = user_env(tmp_path)
    helped = start(image, "extract-and-run", "-m", "core.install.wsl_runtime_swap", "--help",
                   env=env)
    assert helped.returncode == 0, helped.stderr
    assert "--venv" in helped.stdout
    other = start(image, "extract-and-run", "-m", "core.cli", "doctor", env=env)
    assert other.returncode == 2
    assert "runs only" in other.stderr


def test_children_get_the_users_environment_not_the_bundles(image: Path, tmp_path: Path) -> None:
    """The doctor's torch probe runs the chosen "Python": here a script that writes down the
    environment it was given. None of the bundle's or the runtime's variables may reach it,
    and the user's own LD_LIBRARY_PATH comes back as it was."""
    seen = tmp_path / "seen.json"
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\nenv > " + str(seen) + "\necho '{}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = user_env(tmp_path, LD_LIBRARY_PATH="/opt/users-own/lib")
    done = start(image, "extract-and-run", "doctor", "--python", str(fake), env=env)
    assert "Traceback" not in done.stderr
    lines = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    assert lines.get("LD_LIBRARY_PATH") == "/opt/users-own/lib"
    leaked = sorted(k for k in lines if k.startswith("_PYI") or k in
                    ("APPIMAGE", "APPDIR", "ARGV0", "OWD", "LD_LIBRARY_PATH_ORIG", "_MEIPASS2"))
    assert leaked == []
    assert not any("squashfs-root" in v or "appimage_extracted" in v or ".mount_" in v
                   for k, v in lines.items() if k.startswith(("LD_", "PYTHON", "QT_")))
