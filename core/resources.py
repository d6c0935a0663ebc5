"""Where rocmate's data files live: resources/ beside the packages, or inside a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The resources/ folder (source checkout, editable install or PyInstaller bundle)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def data_dir() -> Path:
    return resources_dir() / "data"
