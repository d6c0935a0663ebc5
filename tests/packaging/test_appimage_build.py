"""What ``make appimage`` made: a type-2 AppImage on the pinned runtime, under the size goal,
whose AppDir validates (desktop-file-validate, appstreamcli --no-net), carries the worker as
plain files alone in their folder, no torch and none of the host's own libraries, no library
search path outside the bundle, no GNU readline, rocmate's licence and the third-party notices
at usr/share/licenses/rocmate/, and that the same inputs build byte for byte again."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tests.packaging.conftest import REPO

RUNTIME = tomllib.loads((REPO / "packaging" / "runtime.toml").read_text())
SIZE_GOAL = 120 * 1000 * 1000
APP_ID = "org.rocmate.Rocmate"


def host_rules() -> list[str]:
    text = (REPO / "packaging" / "host-libraries.txt").read_text()
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def test_the_image_is_the_pinned_runtime_and_a_gzip_squashfs(image: Path) -> None:
    data = image.read_bytes()
    size = RUNTIME["runtime"]["size"]
    assert data[:4] == b"\x7fELF" and data[8:11] == b"AI\x02"  # the type-2 magic
    assert hashlib.sha256(data[:size]).hexdigest() == RUNTIME["shipped"]["sha256"]
    assert data[size:size + 4] == b"hsqs"  # squashfs right after the runtime
    compression = int.from_bytes(data[size + 20:size + 22], "little")
    assert compression == 1  # gzip (the runtime opens only gzip and xz images)
    assert image.stat().st_mode & 0o111


def test_the_image_is_under_the_size_goal(image: Path) -> None:
    assert image.stat().st_size < SIZE_GOAL


def test_the_appdir_validates(appdir: Path) -> None:
    validate = shutil.which("desktop-file-validate")
    appstream = shutil.which("appstreamcli")
    if validate is None or appstream is None:
        pytest.skip("desktop-file-utils and appstream are not installed "
                    "(scripts/install-test-system-deps.sh installs them)")
    for desktop in (appdir / f"{APP_ID}.desktop",
                    appdir / "usr/share/applications" / f"{APP_ID}.desktop"):
        done = subprocess.run([validate, str(desktop)], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    metainfo = appdir / "usr/share/metainfo" / f"{APP_ID}.metainfo.xml"
    done = subprocess.run([appstream, "validate", "--no-net", "--pedantic", str(metainfo)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_appdir_has_what_a_desktop_looks_for(appdir: Path) -> None:
    assert (appdir / "AppRun").resolve() == (appdir / "usr/lib/rocmate/rocmate").resolve()
    assert (appdir / ".DirIcon").resolve().is_file()
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        icon = appdir / f"usr/share/icons/hicolor/{size}x{size}/apps/{APP_ID}.png"
        assert icon.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", icon
    assert (appdir / f"usr/share/icons/hicolor/scalable/apps/{APP_ID}.svg").is_file()
    desktop = (appdir / f"{APP_ID}.desktop").read_text()
    assert f"Icon={APP_ID}" in desktop and "Exec=rocmate" in desktop


def test_the_worker_is_plain_files_in_a_folder_of_its_own(appdir: Path) -> None:
    folder = appdir / "usr/lib/rocmate-worker"
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    expected = sorted(["core/__init__.py", "core/bench/__init__.py"] + [
        p.relative_to(REPO).as_posix() for p in (REPO / "core/bench/worker").rglob("*.py")])
    assert files == expected
    for name in files:
        assert (folder / name).read_bytes() == (REPO / name).read_bytes(), name


def test_no_torch_and_no_host_library_inside(appdir: Path) -> None:
    bundle = appdir / "usr/lib/rocmate/_internal"
    names = [p.name for p in bundle.rglob("*")]
    assert not [n for n in names if n in ("torch", "torchvision", "diffusers", "transformers")]
    rules = host_rules()
    carried = sorted({n for n in names if ".so" in n and any(
        n.startswith(r[:-1]) if r.endswith("*") else n == r for r in rules)})
    assert carried == []
    translations = sorted(p.name for p in bundle.rglob("translations/*.qm"))
    assert translations == ["qtbase_zh_CN.qm"]
    assert (bundle / "resources/i18n/rocmate_zh_CN.qm").is_file()


def test_every_library_the_bundle_needs_is_inside_or_the_hosts(appdir: Path) -> None:
    """What the bundle links to is either carried or one of the host libraries a desktop has
    (host-libraries.txt, the Wayland client libraries, glibc's own)."""
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) is not installed")
    bundle = appdir / "usr/lib/rocmate"
    present = {p.name for p in bundle.rglob("*")}
    rules = host_rules()
    unknown = set()
    for path in bundle.rglob("*"):
        if not path.is_file() or path.is_symlink() or path.read_bytes()[:4] != b"\x7fELF":
            continue
        out = subprocess.run(["readelf", "-d", "-W", str(path)], capture_output=True, text=True,
                             timeout=60).stdout
        for line in out.splitlines():
            if "(NEEDED)" not in line:
                continue
            name = line.split("[", 1)[1].split("]", 1)[0]
            host = any(name.startswith(r[:-1]) if r.endswith("*") else name == r for r in rules)
            if name not in present and not host and not name.startswith("libwayland-"):
                unknown.add(name)
    assert unknown == set()


def elf_files(folder: Path) -> list[Path]:
    """Every ELF file under ``folder`` (no links)."""
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()
            and p.read_bytes()[:4] == b"\x7fELF"]


def search_paths(path: Path) -> list[str]:
    """The RUNPATH and RPATH entries of an ELF file's dynamic section (readelf)."""
    out = subprocess.run(["readelf", "-d", "-W", str(path)], capture_output=True, text=True,
                         timeout=60).stdout
    entries = []
    for line in out.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            entries += line.split("[", 1)[1].rsplit("]", 1)[0].split(":")
    return entries


def test_no_library_looks_for_libraries_outside_the_image(appdir: Path) -> None:
    """A RUNPATH of the build machine (its Python's lib/) would make the loader look there
    first on a user's machine: every search path is the library's own folder or another
    folder of the bundle."""
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) is not installed")
    bundle = (appdir / "usr/lib/rocmate").resolve()
    outside = []
    for path in elf_files(bundle):
        for entry in search_paths(path):
            if not entry.startswith("$ORIGIN"):
                outside.append(f"{path.relative_to(bundle)}: {entry}")
                continue
            target = Path(entry.replace("$ORIGIN", str(path.parent), 1)).resolve()
            if not target.is_relative_to(bundle):
                outside.append(f"{path.relative_to(bundle)}: {entry}")
    assert outside == [], f"{len(outside)} search paths outside the bundle: {outside[:5]}"


def test_no_gpl3_readline_inside(appdir: Path) -> None:
    """GNU readline is GPL-3: the image carries neither it nor Python's module that links it
    (the app never reads lines with it; the stdlib's few users import it only if present)."""
    names = [p.name for p in (appdir / "usr/lib/rocmate").rglob("*")]
    assert [n for n in names if n.startswith(("libreadline", "readline."))] == []


def test_the_licences_travel_in_the_image(appdir: Path) -> None:
    """rocmate's MIT licence and the third-party notices at usr/share/licenses/rocmate/; the
    notices name every library the bundle carries and hold the licence texts (Qt's LGPL,
    Python's, OpenSSL's, the wheels')."""
    folder = appdir / "usr/share/licenses/rocmate"
    assert (folder / "LICENSE").read_text() == (REPO / "LICENSE").read_text()
    notices = (folder / "THIRD-PARTY-NOTICES.txt").read_text()
    for words in ("PySide6", "shiboken6", "numpy", "pyqtgraph", "qasync", "Python",
                  "PYTHON SOFTWARE FOUNDATION LICENSE", "GNU LESSER GENERAL PUBLIC LICENSE",
                  "Version 3, 29 June 2007", "libssl3", "Apache License", "PyInstaller"):
        assert words in notices, words
    libraries = sorted({p.name for p in (appdir / "usr/lib/rocmate").rglob("*.so*")
                        if p.is_file() and "python3.11/lib-dynload" not in p.as_posix()})
    assert [n for n in libraries if n not in notices] == []


@pytest.mark.slow
def test_the_same_inputs_build_the_same_bytes(image: Path, tmp_path: Path) -> None:
    """A second build into other work folders: byte for byte the image make built (the
    committed sources, the pinned build venv and runtime)."""
    python = REPO / "build" / "appimage-venv" / "bin" / "python"
    if not python.is_file():
        pytest.skip("no build venv (make appimage makes build/appimage-venv)")
    out = tmp_path / "again.AppImage"
    done = subprocess.run([sys.executable, str(REPO / "packaging" / "build_appimage.py"),
                           "--python", str(python), "--out", str(out), "--work",
                           str(tmp_path / "work"), "--cache",
                           str(REPO / "build" / "appimage-cache")],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    assert hashlib.sha256(out.read_bytes()).hexdigest() == \
        hashlib.sha256(image.read_bytes()).hexdigest()
