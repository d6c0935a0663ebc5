"""Where rocmate's data files live: the one place that finds resources/.

In a frozen bundle (PyInstaller, the AppImage) they are in the bundle's folder; in a source
checkout or an editable install, beside the packages; from a wheel (``pip install .``), in the
scheme's data folder, ``<prefix>/share/rocmate/resources`` (pyproject.toml's data-files).
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

INSTALLED = Path("share") / "rocmate" / "resources"
"""Where a wheel puts resources/, under the install scheme's data folder."""


def _installed_dirs() -> list[Path]:
    """resources/ as a wheel installs it: this interpreter's scheme, then the user's."""
    folders = [Path(sysconfig.get_path("data")) / INSTALLED]
    try:
        user = sysconfig.get_path("data", sysconfig.get_preferred_scheme("user"))
    except (KeyError, ValueError):  # a Python without a user scheme
        return folders
    return [*folders, Path(user) / INSTALLED]


def resources_dir() -> Path:
    """The resources/ folder: the PyInstaller bundle's, else the one beside the packages, else
    the one a wheel installed (beside the packages when none is there, so errors name it)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    beside = Path(__file__).resolve().parent.parent / "resources"
    if (beside / "data").is_dir():
        return beside
    return next((folder for folder in _installed_dirs() if (folder / "data").is_dir()), beside)


def data_dir() -> Path:
    """resources/data: the knowledge base and the reference results."""
    return resources_dir() / "data"


APP_ID = "org.rocmate.Rocmate"
"""The app's id: its desktop file, AppStream metadata and icon are named after it."""


def icon_file() -> Path:
    """rocmate's icon, 256 x 256 PNG (resources/icons/; packaging/make_icons.py renders it)."""
    return resources_dir() / "icons" / f"{APP_ID}.png"
