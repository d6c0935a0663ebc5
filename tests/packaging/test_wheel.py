"""An installed wheel (``pip install .``, not editable) carries the data the app reads (issue 31/8).

A real wheel is built offline from a copy of the sources, installed into a fresh venv, and the
installed ``rocmate`` is started there, away from the checkout. The fresh venv borrows the test
venv's third-party packages (PySide6, distro, ...) through a plain path line, so nothing is
downloaded; the checkout's editable hook is not processed that way, so ``core`` and ``gui``
come from the wheel alone. Skips when a wheel cannot be built here (no setuptools, no pip).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "core", "gui", "resources")
MACHINE = ROOT / "tests" / "fixtures" / "machines" / "strix-point-890m-ubuntu2404"

CHECK = """
import json, sys
from pathlib import Path
import core, gui
from core.resources import data_dir, icon_file, resources_dir
from core.knowledge.loader import load_knowledge
from gui.i18n import catalogue_dir
print(json.dumps({
    "core": core.__file__, "gui": gui.__file__, "resources": str(resources_dir()),
    "desktop": (data_dir() / "desktop.toml").is_file(),
    "gpus": bool(load_knowledge()),
    "icon": icon_file().is_file(),
    "ts": (catalogue_dir() / "rocmate_zh_CN.ts").is_file(),
    "core_zh": (resources_dir() / "i18n" / "core" / "zh_CN.toml").is_file(),
    "polkit": any((resources_dir() / "polkit").glob("*.policy")),
}))
"""


def _copy_sources(into: Path) -> None:
    """The files a build needs, without the checkout's build leftovers."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=ignore)
        else:
            shutil.copy2(source, into / name)


def _build_wheel(tmp: Path) -> Path:
    """Build the wheel offline; skip the test when that cannot be done here."""
    src, out = tmp / "src", tmp / "wheels"
    src.mkdir()
    _copy_sources(src)
    argv = [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-index",
            "--no-build-isolation", "-w", str(out), "-q"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=240, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"cannot build a wheel offline: {error}")
    wheels = sorted(out.glob("rocmate-*.whl"))
    if done.returncode != 0 or not wheels:
        pytest.skip(f"cannot build a wheel offline: {done.stderr[-400:]}")
    return wheels[0]


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    """A new venv holding the wheel, borrowing this venv's third-party packages."""
    target = tmp / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
    python = target / "bin" / "python"
    ask = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = subprocess.run([str(python), "-c", ask], capture_output=True, text=True,
                          check=True).stdout.strip()
    Path(site, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True,
                   timeout=240)
    return target


@pytest.mark.slow
def test_installed_wheel_starts_and_finds_its_resources(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    target = _fresh_venv(tmp_path, wheel)
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {"PATH": f"{target / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}

    found = subprocess.run([str(target / "bin" / "python"), "-c", CHECK], cwd=away, env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert found.returncode == 0, found.stderr[-2000:]
    facts = json.loads(found.stdout)
    assert str(target) in facts["core"] and str(target) in facts["gui"]
    assert not facts["resources"].startswith(str(ROOT))
    assert all(facts[key] for key in ("desktop", "gpus", "icon", "ts", "core_zh", "polkit")), facts

    doctor = subprocess.run([str(target / "bin" / "rocmate"), "doctor", "--json", "--root",
                             str(MACHINE)], cwd=away, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert doctor.returncode in (0, 1, 2), doctor.stderr[-2000:]
    assert "Traceback" not in doctor.stderr, doctor.stderr[-2000:]
    assert json.loads(doctor.stdout)["schema"] == "rocmate.doctor/1"
