"""What the desktop reads about rocmate: the desktop file, the AppStream metainfo and the icons
in packaging/ (the AppImage ships them), checked with the freedesktop tools where they are
installed, and against the repository (the screenshots the metainfo names exist)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
APP_ID = "org.rocmate.Rocmate"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
RAW = "https://raw.githubusercontent.com/rocmate/rocmate/main/"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_desktop_file_passes_desktop_file_validate() -> None:
    tool = shutil.which("desktop-file-validate")
    if not tool:
        pytest.skip("desktop-file-validate is not installed")
    found = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True)
    assert (found.returncode, found.stdout + found.stderr) == (0, "")


def test_the_metainfo_passes_appstreamcli_without_warnings() -> None:
    tool = shutil.which("appstreamcli")
    if not tool:
        pytest.skip("appstreamcli is not installed")
    found = subprocess.run([tool, "validate", "--no-net", "--no-color", str(METAINFO)],
                           capture_output=True, text=True)
    said = found.stdout + found.stderr
    assert found.returncode == 0, said
    # infos are allowed: an AppStream before 1.0 does not know <developer> yet
    assert not re.search(r"^\s*[EW]: ", said, re.MULTILINE), said


def test_the_metainfo_names_the_app_and_files_that_exist() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.findtext("provides/binary") == "rocmate"
    images = [image.text or "" for image in root.iter("image")]
    assert len(root.findall("screenshots/screenshot")) >= 3
    for url in images:
        assert url.startswith(RAW), url
        assert (ROOT / url[len(RAW):]).is_file(), url
        width, height = _png_size(ROOT / url[len(RAW):])
        image = next(i for i in root.iter("image") if i.text == url)
        assert (image.get("width"), image.get("height")) == (str(width), str(height)), url
    assert next(r.get("version") for r in root.iter("release")) == "0.1.0"


def test_the_icons_exist_in_every_size() -> None:
    assert (PACKAGING / "icons" / f"{APP_ID}.svg").is_file()
    for size in SIZES:
        png = PACKAGING / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert _png_size(png) == (size, size), png
    package_copy = ROOT / "resources" / "icons" / f"{APP_ID}.png"
    assert package_copy.read_bytes() == \
        (PACKAGING / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png").read_bytes()


def test_the_desktop_file_names_the_icon_and_the_window() -> None:
    keys = dict(line.split("=", 1) for line in DESKTOP.read_text(encoding="utf-8").splitlines()
                if "=" in line)
    assert keys["Icon"] == APP_ID and keys["Exec"] == "rocmate"
    assert keys["StartupWMClass"] == "rocmate" and keys["Terminal"] == "false"
