"""Where rocmate's data files live: the one place that finds resources/.

In a frozen bundle (PyInstaller, the AppImage) they are in the bundle's folder; otherwise beside
the packages (a source checkout or an editable install).
"""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The resources/ folder (PyInstaller bundle first, else beside the packages)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def data_dir() -> Path:
    """resources/data: the knowledge base and the reference results."""
    return resources_dir() / "data"


APP_ID = "org.rocmate.Rocmate"
"""The app's id: its desktop file, AppStream metadata and icon are named after it."""


def icon_file() -> Path:
    """rocmate's icon, 256 x 256 PNG (resources/icons/; packaging/make_icons.py renders it)."""
    return resources_dir() / "icons" / f"{APP_ID}.png"
